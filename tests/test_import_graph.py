"""The source tree's import graph: no module imports a module that imports it back (directly or around a loop),
and `pipeline/`'s root stays small (its families are packages: outputs/, profile/, corpus/, ...).

Every `import` counts, a function's lazy one and a TYPE_CHECKING one too: a loop deferred into a function is
still two modules that cannot be understood, tested or moved one without the other. `from a.b import c` is an
edge to `a.b.c` where that is a module, else to `a.b`; the parent packages Python runs on the way are not edges
(a package's `__init__` face re-exports its modules, which is not a loop).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from testdata_paths import ROOT

SOURCE_ROOTS = {"kcorpus": ROOT / "src" / "kcorpus", "kcorpus.pipeline": ROOT / "pipeline",
                "kcorpus.transforms": ROOT / "transforms"}
PIPELINE_ROOT_MODULES_MAX = 12


def module_files() -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its `__init__`)."""
    modules = {}
    for prefix, root in SOURCE_ROOTS.items():
        for path in root.rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((prefix, *parts))] = path
    return modules


def imported_modules(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The kcorpus modules one module imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imported_modules(path, name, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_imports_of_every_kind():
    graph = import_graph()
    assert "kcorpus.transforms.pack.nsp" in graph["kcorpus.transforms.pack.packer"]
    assert "kcorpus.pipeline.outputs.folders" in graph["kcorpus.pipeline.outputs.claim"]
    assert "kcorpus.pipeline.outputs.claim" in graph["kcorpus.pipeline.outputs"]


def test_cycles_finds_a_loop_of_three():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_a_module_that_imports_it_back():
    assert cycles(import_graph()) == []


def test_pipeline_root_holds_few_modules():
    root = sorted(p.name for p in (ROOT / "pipeline").glob("*.py"))
    assert len(root) <= PIPELINE_ROOT_MODULES_MAX, root


def test_the_package_faces_keep_their_names_and_the_flags_stay_light():
    """`kcorpus.pipeline.outputs` and `kcorpus.pipeline.profile` are packages with the old modules' names as
    their face; a command's flag defaults (`profile.defaults`) still load without pydantic."""
    probe = (
        "import sys\n"
        "from kcorpus.pipeline.profile.defaults import default_of, LOCAL_MODES\n"
        "assert 'pydantic' not in sys.modules\n"
        "from kcorpus.pipeline.outputs import check_output, claim_output, OutputPlan, OWNED_ENTRIES, STREAM\n"
        "from kcorpus.pipeline.profile import Profile, ProfileError, load_profile, load_config, default_of\n"
        "assert 'pydantic' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
