"""Outputs against inputs: an output equal to or inside an input, an input inside an output, `-` (a stream)
where a folder or a file is needed, two outputs of one command that are the same file.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs import folders
from kcorpus.transforms import matching

STREAM = "-"


def check_separate(outputs: Sequence[str], inputs: Iterable[str]) -> None:
    """Refuse an output equal to an input, inside an input folder, or holding an input (and `-` as an input).

    `inputs` may be files, folders or globs; a glob stands for its matches (and, with `**`, its folder).
    """
    roots = [(pattern, root) for pattern in inputs for root in input_roots(pattern)]
    for out in outputs:
        if out == STREAM:
            continue
        target = _normalize(out)
        for pattern, root in roots:
            if target == root:
                raise OutputError(f"output {out} is the input {pattern}; kcorpus never writes over an input")
            if _inside(target, root):
                raise OutputError(
                    f"output {out} is inside the input folder {pattern}; write it outside that folder"
                )
            if _inside(root, target):
                raise OutputError(
                    f"input {pattern} is inside the output folder {out}; choose an output folder that holds no input"
                )


def check_distinct_files(named: Sequence[tuple[str, str]]) -> None:
    """Refuse two outputs of one command that are the same file: `named` is (option, path) pairs."""
    seen: dict[str, str] = {}
    for option, path in named:
        if path in (STREAM, os.devnull):
            continue
        key = _normalize(path)
        if key in seen:
            raise OutputError(f"{option} {path} is also {seen[key]}; give each output its own path")
        seen[key] = option


def input_roots(pattern: str) -> list[str]:
    """The normalized paths an input stands for: itself, or a glob's matches (and its folder with `**`)."""
    if pattern == STREAM:
        return []
    if not glob.has_magic(pattern):
        return [_normalize(pattern)]
    roots = [] if folders.is_remote(pattern) else [_normalize(m) for m in matching.local_paths(pattern)]
    if "**" in pattern or folders.is_remote(pattern):
        static = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)].rsplit("/", 1)[0]
        roots.append(_normalize(static or "."))
    return roots


def _normalize(path: str) -> str:
    if folders.is_remote(path):
        return path.rstrip("/")
    return os.path.realpath(os.path.expanduser(path))


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")
