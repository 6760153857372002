"""`transforms/` is pure: no module imports Beam, not even lazily, and importing them all loads no Beam."""

from __future__ import annotations

import ast
import subprocess
import sys

from testdata_paths import ROOT

TRANSFORMS = ROOT / "transforms"


def beam_imports(source: str) -> list[str]:
    """The `apache_beam` modules a Python source imports anywhere (module level or inside functions)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "apache_beam"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "apache_beam":
            found.append(node.module)
    return found


def transforms_modules() -> list[str]:
    """Dotted names (`kcorpus.transforms...`) of every module under transforms/."""
    names = []
    for path in sorted(TRANSFORMS.rglob("*.py")):
        parts = path.relative_to(TRANSFORMS).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        names.append(".".join(("kcorpus", "transforms", *parts)))
    return names


def test_beam_imports_finds_lazy_imports():
    source = "def f():\n    from apache_beam.io.filesystems import FileSystems\n    import apache_beam as beam\n"
    assert beam_imports(source) == ["apache_beam.io.filesystems", "apache_beam"]
    assert beam_imports("import apache_beamish\nfrom .apache_beam import x\n") == []


def test_no_transforms_file_imports_beam():
    offenders = {str(path.relative_to(ROOT)): beam_imports(path.read_text(encoding="utf-8"))
                 for path in sorted(TRANSFORMS.rglob("*.py"))}
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_importing_every_transforms_module_loads_no_beam():
    modules = transforms_modules()
    assert "kcorpus.transforms.readers.registry" in modules and "kcorpus.transforms.files" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'apache_beam'))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT / "tests")
    assert result.stdout.strip() == "[]"
