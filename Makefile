# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# setuptools warns on every editable install that `ext-modules` in pyproject.toml is experimental and that an
# editable install may be shadowed by a same-named folder (there is none: docs/architecture.md). Only these two
# messages are silenced; every other warning and every error still prints.
PIP_INSTALL := PYTHONWARNINGS='ignore:`[tool.setuptools.ext-modules]`:UserWarning,ignore:Editable installation:UserWarning' \
	$(BIN)/python -m pip install -q

.PHONY: run test quick bench bench-smoke clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The C sources and their header too: the install compiles them (docs/architecture.md), and an edit must rebuild them.
$(VENV)/.installed-run: pyproject.toml $(wildcard transforms/*.h transforms/*/*.c) | $(BIN)/python
	$(PIP_INSTALL) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(wildcard transforms/*.h transforms/*/*.c) | $(BIN)/python
	$(PIP_INSTALL) -e '.[test]'
	touch $@ $(VENV)/.installed-run

# The bundled sample through every stage into runs/sample/ (a rerun skips what is up to date); ends by
# printing where the Arrow dataset and the report are.
run: $(VENV)/.installed-run
	$(BIN)/kcorpus run configs/sample.yaml

# Every test (CI: .ci/run), on one pytest-xdist worker per core (tests/conftest.py), a test file to a worker so
# its module fixtures are built once.
XDIST := -n auto --dist loadfile

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q $(XDIST)

# The fast loop while you work: the tests not marked `slow`, of one folder (DIR=pipeline/pack: a source folder,
# tests/ mirrors it; src/kcorpus is tests/kcorpus_package) or of the whole suite. tests/README.md.
quick: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q $(XDIST) -m "not slow" $(if $(DIR),tests/$(patsubst tests/%,%,$(subst src/kcorpus,kcorpus_package,$(DIR))))

# The living benchmarks (bench/bench_*.py): what each measures, its run time and how to run it (bench/catalog.py).
# Their figures are in bench/RESULTS.md. bench-smoke runs every one's --help and the quick runs of the fast ones.
bench:
	@$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)) bench/catalog.py

bench-smoke: $(VENV)/.installed-test
	$(BIN)/python bench/catalog.py --smoke

clean-venv:
	rm -rf $(VENV)
