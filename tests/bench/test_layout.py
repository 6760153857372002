"""bench/'s layout: the living benchmarks `make bench` lists, the folders of the rest, every script importable,
no test outside tests/bench/ importing from bench/, and RESULTS.md short with every link into it resolving."""

import ast
import importlib.util
import re
import sys
from pathlib import Path

import catalog
import pytest

from testdata_paths import ROOT

BENCH = ROOT / "bench"
FOLDERS = {"lib", "checks", "generators"}
SCRIPTS = sorted(p for p in BENCH.rglob("*.py") if "__pycache__" not in p.parts)


def test_make_bench_lists_every_living_benchmark():
    assert set(catalog.BENCHES) == {p.name for p in BENCH.glob("bench_*.py")}


def test_every_script_is_a_benchmark_or_lies_in_a_folder_of_its_kind():
    assert {p.name for p in BENCH.glob("*.py") if not p.name.startswith("bench_")} == {"catalog.py"}
    assert {p.name for p in BENCH.iterdir() if p.is_dir() and p.name != "__pycache__"} == FOLDERS


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(BENCH)))
def test_every_script_imports(path: Path, monkeypatch):
    """A module a bench imports was moved or renamed: the bench fails here, not on the next person to run it."""
    monkeypatch.setattr(sys, "path", [str(path.parent), str(BENCH), *sys.path])
    name = f"bench_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)


def imported_top_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_test_outside_tests_bench_imports_from_bench():
    bench_names = {p.stem for p in BENCH.glob("*.py")} | FOLDERS
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_top_names(path) & bench_names)
        for path in (ROOT / "tests").rglob("*.py")
        if "bench" not in path.relative_to(ROOT / "tests").parts[:1]
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def heading_anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens."""
    anchors: set[str] = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            base = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            anchor, n = base, 0
            while anchor in anchors:
                n += 1
                anchor = f"{base}-{n}"
            anchors.add(anchor)
    return anchors


def test_results_md_is_short_and_every_cited_section_exists():
    """bench/RESULTS.md holds today's figure per topic (history in git), and every link into it lands on one."""
    results = (BENCH / "RESULTS.md").read_text(encoding="utf-8")
    assert len(results.splitlines()) <= 600
    anchors = heading_anchors(results)
    citing = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "tests").rglob("*.md")]
    cited = {
        (str(path.relative_to(ROOT)), anchor)
        for path in citing
        for anchor in re.findall(r"RESULTS\.md#([\w-]+)", path.read_text(encoding="utf-8"))
    }
    assert {(path, anchor) for path, anchor in cited if anchor not in anchors} == set()
