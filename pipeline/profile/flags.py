"""Command-line flags built from a job's dataclass fields: each option is written once, on its field.

A field's flag is `--field-name`. Its type, its default (`default_of`) and whether it is required come from
the dataclass; its help and its choices from the field's metadata, plain keys so that `transforms/` declares
them without importing anything: `dataclasses.field(default=..., metadata={"help": "...", "choices": (...)})`.
A bool that defaults to False is a switch (`--overwrite`); one that defaults to True can be turned off
(`--word-start/--no-word-start`); a `tuple[str, ...]` takes one or more values; a field marked
`"positional": True` is a positional argument (`kcorpus audit CORPUS`). A field whose type is a dataclass (a nested config, `PackJob.pack`) adds
the flags of its own fields in its place; a field marked `"flag": False` (set by code or a profile) has none.
`"name"` gives a flag another name than the field's (`inputs` is `--input`), `"aliases"` older names kept
working (`("--unused",)`), `"metavar"` the placeholder `--help` shows (`KEY=VALUE`). A `tuple[str, ...]` marked
`"repeat": True` takes one value per flag, the flag given again for each (`--option a=1 --option b=2`); a
positional one with a default takes zero or more (`kcorpus clean [FILE ...]`). `from_flags` builds the job back from the parsed flags.

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
METAVAR, REPEAT = "metavar", "repeat"


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
        kwargs = _argument(cls, f, tp)
        if f.metadata.get(POSITIONAL, False):
            parser.add_argument(f.name, **kwargs)
        else:
            name = "--" + f.metadata.get(NAME, f.name).replace("_", "-")
            parser.add_argument(name, *f.metadata.get(ALIASES, ()), dest=f.name, **kwargs)


def _argument(cls: type, f: dataclasses.Field, tp: Any) -> dict[str, Any]:
    """`add_argument`'s keywords for one field: its default or `required`, how it takes values, help, choices."""
    positional = f.metadata.get(POSITIONAL, False)
    kwargs: dict[str, Any] = {}
    has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    if has_default:
        kwargs["default"] = default_of(cls, f.name)
    elif not positional:
        kwargs["required"] = True
    if tp is bool:
        kwargs["action"] = argparse.BooleanOptionalAction if kwargs.get("default") else "store_true"
    elif tp in (int, float):
        kwargs["type"] = tp
    elif tp is tuple and f.metadata.get(REPEAT, False):
        kwargs["action"] = "append"
        kwargs["default"] = list(kwargs.get("default", ()))  # argparse appends to a copy of it
    elif tp is tuple:
        kwargs["nargs"] = "*" if positional and has_default else "+"
    for key in (CHOICES, HELP, METAVAR):
        if key in f.metadata:
            kwargs[key] = f.metadata[key]
    if NAME in f.metadata and tp is not bool and not positional and CHOICES not in f.metadata:
        kwargs.setdefault(METAVAR, f.metadata[NAME].upper())  # `--input INPUT`, as argparse names it
    return kwargs


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


@dataclasses.dataclass(frozen=True)
class BeamOptions:
    """The Beam commands' last argument: Beam's own options after `--` (cli.py splits them off), passed through."""

    beam_args: tuple[str, ...] = dataclasses.field(default=(), metadata={
        POSITIONAL: True, HELP: "after --: Beam pipeline options, passed through (e.g. -- --runner DataflowRunner)"})
