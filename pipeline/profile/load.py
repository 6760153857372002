"""A profile file: read its YAML (local or any Beam filesystem), apply `--set a.b=v` overrides, validate it.

A YAML syntax error is one `file:line:` line; every other problem is prefixed with the file.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.profile.schema import Profile
from kcorpus.pipeline.profile.validate import ProfileError, profile_from_dict


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Apply `a.b.c=value` overrides (value parsed as YAML) to a parsed profile; returns `raw`.

    A list element is addressed by index or, for `sources`, by source name: `sources.nsmc.preset=none`.
    Every override that can be applied is; ProfileError then names each one that could not (all of them).
    """
    errors: list[str] = []
    for item in overrides:
        try:
            _apply_override(raw, item)
        except ProfileError as err:
            errors.extend(err.errors)
    if errors:
        raise ProfileError(errors)
    return raw


def _apply_override(raw: dict[str, Any], item: str) -> None:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise ProfileError([f"override {item!r}: expected KEY=VALUE (e.g. filters.min_chars=5)"])
    parts = key.split(".")
    node: Any = raw
    for depth, part in enumerate(parts[:-1]):
        node = _child(node, part, ".".join(parts[: depth + 1]))
    last = parts[-1]
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ProfileError([f"override {item!r}: the value is not valid YAML: {problem}"]) from None
    if isinstance(node, list):
        node[_list_index(node, last, key)] = parsed
    else:
        node[last] = parsed


def _list_index(node: list, part: str, key: str) -> int:
    if part.isdigit() and int(part) < len(node):
        return int(part)
    for i, item in enumerate(node):
        if isinstance(item, Mapping) and item.get("name") == part:
            return i
    raise ProfileError([f"override {key!r}: no list element {part!r}"])


def _child(node: Any, part: str, key: str) -> Any:
    if isinstance(node, list):
        return node[_list_index(node, part, key)]
    if not isinstance(node, dict):
        raise ProfileError([f"override {key!r}: {part!r} is not a section"])
    if node.get(part) is None:
        node[part] = {}
    return node[part]


def read_yaml(path: str) -> Any:
    """A profile file (local or any Beam filesystem) parsed; a syntax error is one `file:line:` line."""
    if "://" in path:
        from apache_beam.io.filesystems import FileSystems

        with FileSystems.open(path) as f:
            data = f.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        problem = f"not UTF-8 (byte {data[err.start]:#04x}); save the profile as UTF-8 (iconv -f cp949 -t utf-8)"
        raise ProfileError([f"{path}:{line}: {problem}"]) from None
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ProfileError([f"{path}{line}: not valid YAML: {problem}"]) from None


def load_profile(path: str | os.PathLike, overrides: Sequence[str] = ()) -> Profile:
    """Read, override (`--set a.b=v`) and validate a profile; errors are prefixed with the file."""
    path = os.fspath(path)
    raw = read_yaml(path)
    try:
        if isinstance(raw, dict):
            apply_overrides(raw, overrides)
        return profile_from_dict(raw, base_dir=posixpath.dirname(path))
    except ProfileError as err:
        raise ProfileError([f"{path}: {line}" for line in err.errors]) from None


def load_config(path: str, overrides: Sequence[str] = ()) -> CorpusConfig:
    """The build-corpus configuration of a profile file."""
    return load_profile(path, overrides).corpus
