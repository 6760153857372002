"""Input patterns to files: the one matcher of every command's inputs (sources, `read`, train-vocab, decontamination).

A local pattern matches as the shell does (`ls data/kowiki/*/wiki_*`): `*`, `?` and `[...]` stay within one
folder and skip hidden names, `**` is any depth of folders (bash's globstar), and a symbolic link to a folder
is followed like the folder (Beam's local listing skips them: a corpus with some folders on another disk lost
them silently). Each real folder is walked once under a `**` or a folder input, so a link back up the tree (a
loop) ends, and a file reached twice through links is read once. A folder, given or matched, stands for the
files under it, or for itself for formats that read a folder (`modu`, `hf-datasets`). A link that points at
nothing is kept, so its reader can name it. Remote patterns (`gs://...`) are matched by the registered remote
filesystem (Beam's `FileSystems.match`).
"""

from __future__ import annotations

import fnmatch
import glob
import os
from typing import NamedTuple

from kcorpus.transforms import files


class Matched(NamedTuple):
    """One input a pattern names: its path and size in bytes (0 for a folder input or a broken link)."""

    path: str
    size: int


def match(pattern: str, folder_is_input: bool = False) -> list[Matched]:
    """The inputs `pattern` (a path, folder or glob; local or remote) names, sorted; [] when none."""
    if files.is_remote(pattern):
        return sorted(Matched(path, size) for path, size in files.remote_files(pattern).match(pattern))
    paths = local_paths(pattern)
    found: dict[str, Matched] = {}
    real_paths: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            inputs = (
                [Matched(path, 0)] if folder_is_input else [Matched(p, _size(p)) for p in files.walk(path)]
            )
        else:
            inputs = [Matched(path, _size(path))]
        for item in inputs:
            real = os.path.realpath(item.path)
            if real not in real_paths:
                real_paths.add(real)
                found[item.path] = item
    return sorted(found.values())


def local_paths(pattern: str) -> list[str]:
    """The local paths (files, folders, broken links) a pattern names, as the shell expands it, sorted."""
    if not glob.has_magic(pattern):
        return [pattern] if os.path.lexists(pattern) else []
    root = os.sep if pattern.startswith(os.sep) else ""
    parts = [part for part in pattern.split(os.sep) if part]
    bases = [root]
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            seen: set[str] = set()
            bases = [d for base in bases for d in _folders_below(base, seen)]
            if last:
                bases += [
                    os.path.join(d, n)
                    for d in bases
                    for n in _names(d)
                    if not os.path.isdir(os.path.join(d, n))
                ]
            continue
        if glob.has_magic(part):
            bases = [
                os.path.join(b, n)
                for b in bases
                for n in _names(b, part.startswith("."))
                if fnmatch.fnmatchcase(n, part)
            ]
        else:
            bases = [os.path.join(b, part) for b in bases]
        bases = [b for b in bases if (os.path.lexists(b) if last else os.path.isdir(b))]
    return sorted(set(bases))


def _names(folder: str, hidden: bool = False) -> list[str]:
    """A folder's entries (hidden ones only when asked), sorted; [] when it cannot be listed."""
    try:
        names = os.listdir(folder or os.curdir)
    except OSError:
        return []
    return sorted(n for n in names if hidden or not n.startswith("."))


def _folders_below(base: str, seen: set[str]) -> list[str]:
    """`base` and every folder under it (links to folders followed, hidden ones skipped), each real folder once."""
    real = os.path.realpath(base or os.curdir)
    if real in seen:
        return []
    seen.add(real)
    found, stack = [], [base]
    while stack:
        folder = stack.pop()
        found.append(folder)
        below = [os.path.join(folder, n) for n in _names(folder)]
        stack.extend(reversed([p for p in below if os.path.isdir(p) and files.first_visit(p, seen)]))
    return found


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # a link that points at nothing: its reader names it
        return 0
