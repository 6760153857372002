# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test bench clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	mkdir -p out
	$(BIN)/kcorpus clean --summary --column document tests/testdata/nsmc_sample.tsv > out/nsmc_sample.clean.tsv
	head -n 4 out/nsmc_sample.clean.tsv

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

clean-venv:
	rm -rf $(VENV)
