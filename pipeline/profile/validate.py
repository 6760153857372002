"""Validate a parsed profile against the schema (`schema.py`), every problem reported at once.

Every problem of a profile comes back in one `ProfileError`, one line per problem:

    filters.min_chars: expected an integer, got 'ten'
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Collection, Mapping, Sequence
from typing import Annotated, Any, Union

from pydantic import BaseModel, ValidationError

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.errors import UserError
from kcorpus.pipeline.profile.schema import Profile

# pydantic error type -> what the value should have been
_EXPECTED = {
    "int_type": "an integer",
    "bool_type": "true or false",
    "float_type": "a number",
    "string_type": "a string",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "dict_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
}


class ProfileError(UserError, ValueError):
    """A profile that does not validate; `errors` holds one line per problem."""


def _model_at(loc: Sequence[Any]) -> Any:
    """The section model at a location of an error (for the list of valid keys)."""
    tp: Any = Profile
    for part in loc:
        tp = _unwrap(tp)
        if isinstance(part, int) or not (isinstance(tp, type) and issubclass(tp, BaseModel)):
            continue
        tp = tp.model_fields[part].annotation
    return _unwrap(tp)


def _unwrap(tp: Any) -> Any:
    """`X | None`, `list[X]`, `Annotated[X, ...]` -> X."""
    while typing.get_origin(tp) in (Union, types.UnionType, list, Annotated):
        tp = next(a for a in typing.get_args(tp) if a is not type(None))
    return tp


def _where(loc: Sequence[Any], source_names: Sequence[Any] = ()) -> str:
    """`sources[0].preset`; a source's own filter key by the source's name, as its merged filters' errors
    name it (`sources[nsmc].filters.min_sentences`)."""
    text = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            by_name = (
                loc[:1] == ("sources",) and i == 1 and loc[2:3] == ("filters",)
                and part < len(source_names) and isinstance(source_names[part], str)
            )  # fmt: skip
            text += f"[{source_names[part]}]" if by_name else f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "profile"


def _source_names(raw: Any) -> list[Any]:
    sources = raw.get("sources") if isinstance(raw, Mapping) else None
    if not isinstance(sources, list):
        return []
    return [s.get("name") if isinstance(s, Mapping) else None for s in sources]


def error_lines(
    error: ValidationError, skip: Collection[tuple[Any, ...]] = (), source_names: Sequence[Any] = ()
) -> list[str]:
    """One line per problem: `key.path: expected ..., got VALUE` (but at the locations in `skip`);
    `source_names`: the profile's source names, by position."""
    lines = []
    for err in error.errors():
        loc, kind, value = err["loc"], err["type"], err.get("input")
        if tuple(loc) in skip:
            continue
        where = _where(loc, source_names)
        if kind == "extra_forbidden":
            valid = ", ".join(_model_at(loc[:-1]).model_fields)
            lines.append(f"{where}: unknown key; valid keys: {valid}")
        elif kind == "missing":
            lines.append(f"{where}: required")
        elif kind == "value_error":
            message = str(err["ctx"]["error"])
            # The dataclasses' own checks usually name their section already ("filters: max_chars ...").
            named = bool(loc) and message.startswith(tuple(f"{loc[0]}{c}" for c in ".:["))
            lines.append(message if named or not loc else f"{where}: {message}")
        elif kind == "literal_error":
            lines.append(f"{where}: expected {err['ctx']['expected']}, got {value!r}")
        elif kind in _EXPECTED:
            lines.append(f"{where}: expected {_EXPECTED[kind]}, got {value!r}")
        else:
            lines.append(f"{where}: {err['msg'][0].lower()}{err['msg'][1:]}, got {value!r}")
    return lines


def profile_from_dict(raw: Any, base_dir: str = "") -> Profile:
    """Validate a parsed profile; relative paths resolve against `base_dir`. Raises ProfileError."""
    if not isinstance(raw, Mapping):
        raise ProfileError([f"profile: expected a mapping of sections, got {type(raw).__name__}"])
    problems: list[str] = []
    candidate = copy.deepcopy(raw)
    # A section's own rules (min_chars <= max_chars, ...) run only once its keys validate: the keys found bad
    # are taken out and the rest checked again, so every mistake is named at once, not one per try.
    dropped: set[tuple[Any, ...]] = set()
    for _ in range(MAX_VALIDATION_ROUNDS):
        try:
            profile = Profile.model_validate(candidate, context={"base_dir": base_dir})
        except ValidationError as error:
            lines = error_lines(error, skip=dropped, source_names=_source_names(candidate))
            new = [line for line in lines if line not in problems]
            problems.extend(new)
            locs = {tuple(e["loc"]) for e in error.errors()} - dropped
            taken = {loc for loc in locs if _drop_key(candidate, loc)}
            if not new or not taken:
                break
            dropped |= taken
            continue
        if not problems:
            return profile
        break
    raise ProfileError(problems)


MAX_VALIDATION_ROUNDS = 4


def _drop_key(raw: Any, loc: Sequence[Any]) -> bool:
    """Take the key at an error's location out of a parsed profile (a key inside a section, never a whole
    section, whose absence would be an error of its own); whether one was taken out."""
    if len(loc) < 2:
        return False
    node = raw
    for part in loc[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(node, dict) and loc[-1] in node:
        del node[loc[-1]]
        return True
    return False


def config_from_dict(raw: Any, base_dir: str = "") -> CorpusConfig:
    """The build-corpus configuration of a parsed profile."""
    return profile_from_dict(raw, base_dir).corpus
