"""docs/architecture.md's tree names every module, and names nothing that does not exist.

The tree is the fenced block under "## The tree": an entry is a name at the start of a line (indented two spaces
per level: `transforms/`, `  text/`, `    clean.py`) and its description, which goes on in the lines indented to
the description column. A module (every .py under src/kcorpus/, transforms/ and pipeline/ but `__init__.py`) is
named when its file name appears in the entry of the module itself or of its deepest folder that has an entry
(`pipeline/corpus/job.py` in the `corpus/` entry under `pipeline/`, whose description lists its modules). Every
`name.py`, `.c` or `.h` in the tree exists under the folder of the entry that names it (a name with a `/` from the
repository's root).
"""

from __future__ import annotations

import re
from pathlib import Path

from testdata_paths import ROOT

DOC = ROOT / "docs" / "architecture.md"
SOURCE_ROOTS = ("src/kcorpus", "transforms", "pipeline")
ENTRY_INDENT_MAX = 12  # an entry starts within the first columns; a description goes on from column 21
FILE_NAME = re.compile(r"(?<![\w.-])((?:[\w-]+/)*[\w-]+\.(?:py|c|h))\b")  # `read.py/read_batches.py`: two


def tree_lines() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    tree = text.split("## The tree", 1)[1]
    return tree.split("```", 2)[1].strip("\n").splitlines()


def tree_entries() -> list[tuple[str, str]]:
    """(the entry's path from the root, its text: the line and the description's continuation lines)."""
    entries: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []  # (indent, path) of the folders above the current line
    for line in tree_lines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip():
            continue
        if indent >= ENTRY_INDENT_MAX and entries:
            path, text = entries[-1]
            entries[-1] = (path, f"{text}\n{line}")
            continue
        name = line.split()[0]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = f"{stack[-1][1]}/{name.rstrip('/')}" if stack else name.rstrip("/")
        entries.append((path, line))
        if name.endswith("/"):
            stack.append((indent, path))
    return entries


def modules() -> list[str]:
    found = []
    for root in SOURCE_ROOTS:
        for path in (ROOT / root).rglob("*.py"):
            if path.name != "__init__.py" and "__pycache__" not in path.parts:
                found.append(path.relative_to(ROOT).as_posix())
    return sorted(found)


def named_in(text: str) -> set[str]:
    return {m.group(1) for m in FILE_NAME.finditer(text)}


def block(entries: list[tuple[str, str]], folder: str) -> str:
    """The text of `folder`'s entry and of every entry below it."""
    return "\n".join(text for path, text in entries if path == folder or path.startswith(folder + "/"))


def test_the_tree_has_the_source_folders():
    paths = {path for path, _ in tree_entries()}
    assert set(SOURCE_ROOTS) <= paths


def test_every_module_is_named_in_the_tree():
    """A new module gets its line (or its name in its folder's line) in docs/architecture.md's tree."""
    entries = tree_entries()
    paths = {path for path, _ in entries}
    missing = []
    for module in modules():
        if module in paths:
            continue
        folder = module.rsplit("/", 1)[0]
        while folder not in paths and "/" in folder:
            folder = folder.rsplit("/", 1)[0]
        if Path(module).name not in {Path(n).name for n in named_in(block(entries, folder))}:
            missing.append(module)
    assert missing == [], "not in docs/architecture.md's tree (give each a line there):\n" + "\n".join(
        missing
    )


def test_every_file_the_tree_names_exists():
    """A module moved, renamed or deleted leaves no name behind in the tree."""
    missing = []
    for path, text in tree_entries():
        folder = ROOT / path if (ROOT / path).is_dir() else (ROOT / path).parent
        for name in named_in(text):
            if "/" in name:
                exists = (ROOT / name).exists() or any(folder.rglob(name.rsplit("/", 1)[-1]))
            else:
                exists = any(p.name == name for p in folder.rglob(name))
            if not exists:
                missing.append(f"{path}: {name}")
    assert missing == [], "docs/architecture.md's tree names files that do not exist:\n" + "\n".join(missing)
