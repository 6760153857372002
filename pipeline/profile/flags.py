"""Command-line flags built from a job's dataclass fields: each option is written once, on its field.

A field's flag is `--field-name`. Its type, its default (`default_of`) and whether it is required come from
the dataclass; its help and its choices from the field's metadata, plain keys so that `transforms/` declares
them without importing anything: `dataclasses.field(default=..., metadata={"help": "...", "choices": (...)})`.
A bool that defaults to False is a switch (`--overwrite`); one that defaults to True can be turned off
(`--word-start/--no-word-start`); a `tuple[str, ...]` takes one or more values; a field marked
`"positional": True` is a positional argument (`kcorpus audit CORPUS`). A field whose type is a dataclass (a nested config, `PackJob.pack`) adds
the flags of its own fields in its place; a field marked `"flag": False` (set by code or a profile) has none.
`"name"` gives a flag another name than the field's (`inputs` is `--input`), `"aliases"` older names kept
working (`("--unused",)`). `from_flags` builds the job back from the parsed flags.

Its own module, light like defaults.py: a command's `--help` imports neither the profile schema nor Beam.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import Any

from kcorpus.pipeline.profile.defaults import default_of

# The metadata keys a field's flag reads.
HELP, CHOICES, FLAG, POSITIONAL, NAME, ALIASES = "help", "choices", "flag", "positional", "name", "aliases"


def _scalar(tp: Any) -> Any:
    """The type of a field's value when given: `int | None` is int, `tuple[str, ...]` is tuple."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else str
    return tuple if typing.get_origin(tp) is tuple else tp


def _flag_fields(cls: type) -> list[tuple[dataclasses.Field, Any]]:
    """`(field, value type)` of the fields of `cls` that take flags, in field order."""
    hints = typing.get_type_hints(cls)
    return [(f, _scalar(hints[f.name])) for f in dataclasses.fields(cls) if f.metadata.get(FLAG, True)]


def add_flags(parser: argparse._ActionsContainer, cls: type, *, exclude: tuple[str, ...] = ()) -> None:
    """A flag per field of `cls` but those in `exclude`, a nested dataclass's flags in its place, in field order.

    `parser` may be an argument group (`parser.add_argument_group("wordpiece")`): its flags are listed under it.
    """
    for f, tp in _flag_fields(cls):
        if f.name in exclude:
            continue
        if dataclasses.is_dataclass(tp):
            add_flags(parser, tp)
            continue
        positional = f.metadata.get(POSITIONAL, False)
        kwargs: dict[str, Any] = {}
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            kwargs["default"] = default_of(cls, f.name)
        elif not positional:
            kwargs["required"] = True
        if tp is bool:
            kwargs["action"] = argparse.BooleanOptionalAction if kwargs.get("default") else "store_true"
        elif tp in (int, float):
            kwargs["type"] = tp
        elif tp is tuple:
            kwargs["nargs"] = "+"
        if CHOICES in f.metadata:
            kwargs["choices"] = f.metadata[CHOICES]
        if HELP in f.metadata:
            kwargs["help"] = f.metadata[HELP]
        if positional:
            parser.add_argument(f.name, **kwargs)
        else:
            if NAME in f.metadata and tp is not bool:
                kwargs["metavar"] = f.metadata[NAME].upper()  # `--input INPUT`, as argparse names it
            name = "--" + f.metadata.get(NAME, f.name).replace("_", "-")
            parser.add_argument(name, *f.metadata.get(ALIASES, ()), dest=f.name, **kwargs)


def from_flags(cls: type, args: argparse.Namespace, **extra: Any) -> Any:
    """`cls` built from the flags `add_flags(parser, cls)` added, and `extra` (the values of fields it left out
    or that have no flag); other fields without a flag keep their default."""
    values = dict(extra)
    for f, tp in _flag_fields(cls):
        if f.name in extra:
            continue
        value = from_flags(tp, args) if dataclasses.is_dataclass(tp) else getattr(args, f.name)
        values[f.name] = tuple(value) if tp is tuple else value
    return cls(**values)
