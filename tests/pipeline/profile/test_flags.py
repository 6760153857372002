"""Flags built from dataclass fields (`pipeline/profile/flags.py`)."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from kcorpus.pipeline.profile.flags import add_flags, from_flags


@dataclasses.dataclass(frozen=True)
class Inner:
    seed: int = 0
    word_start: bool = True


@dataclasses.dataclass(frozen=True)
class Job:
    corpus: str = dataclasses.field(metadata={"help": "the corpus"})
    inner: Inner = dataclasses.field(default_factory=Inner)
    layout: str = dataclasses.field(default="pair", metadata={"choices": ("pair", "single")})
    shards: int | None = None
    share: float = 0.5
    overwrite: bool = dataclasses.field(default=False, metadata={"help": "replace it"})
    spill_bytes: int = dataclasses.field(default=64, metadata={"flag": False})


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="t")
    add_flags(p, Job)
    return p


def test_a_flag_per_field_with_its_type_default_and_a_nested_configs_flags_in_its_place():
    args = parser().parse_args(["--corpus", "c", "--shards", "3", "--share", "0.25", "--no-word-start"])
    assert from_flags(Job, args) == Job(corpus="c", inner=Inner(word_start=False), shards=3, share=0.25)
    args = parser().parse_args(["--corpus", "c", "--overwrite", "--seed", "7"])
    assert from_flags(Job, args) == Job(corpus="c", inner=Inner(seed=7), overwrite=True)
    flags = [a.option_strings[-1] for a in parser()._actions[1:]]
    assert flags == ["--corpus", "--seed", "--no-word-start", "--layout", "--shards", "--share", "--overwrite"]


def test_help_and_choices_come_from_the_metadata_and_flag_false_has_none():
    text = parser().format_help()
    assert "the corpus" in text and "replace it" in text and "{pair,single}" in text
    assert "--spill-bytes" not in text and "--inner" not in text


def test_a_field_without_default_is_a_required_flag_and_choices_are_checked(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args([])
    assert "--corpus" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser().parse_args(["--corpus", "c", "--layout", "triple"])


@dataclasses.dataclass(frozen=True)
class Compare:
    a: str = dataclasses.field(metadata={"positional": True, "help": "first"})
    out: str
    corpus: tuple[str, ...] = ()


def test_a_positional_field_and_a_tuple_of_values():
    p = argparse.ArgumentParser(prog="t")
    add_flags(p, Compare)
    assert from_flags(Compare, p.parse_args(["x", "--out", "o"])) == Compare("x", "o")
    assert from_flags(Compare, p.parse_args(["x", "--out", "o", "--corpus", "c1", "c2"])).corpus == ("c1", "c2")
    assert "t [-h] --out OUT [--corpus CORPUS [CORPUS ...]] a" in p.format_usage()


@dataclasses.dataclass(frozen=True)
class Named:
    inputs: tuple[str, ...] = dataclasses.field(metadata={"name": "input"})
    num_unused: int = dataclasses.field(default=0, metadata={"aliases": ("--unused",)})
    vocab_size: int = 10


def test_a_flag_named_otherwise_an_older_name_kept_and_a_field_left_out():
    p = argparse.ArgumentParser(prog="t")
    add_flags(p.add_argument_group("g"), Named, exclude=("vocab_size",))
    assert "t [-h] --input INPUT [INPUT ...] [--num-unused NUM_UNUSED]" in p.format_usage()
    for flag in ("--num-unused", "--unused"):
        args = p.parse_args(["--input", "a", "b", flag, "3"])
        assert from_flags(Named, args, vocab_size=5) == Named(("a", "b"), num_unused=3, vocab_size=5)


@dataclasses.dataclass(frozen=True)
class Filter:
    files: tuple[str, ...] = dataclasses.field(default=(), metadata={"positional": True, "metavar": "FILE"})
    option: tuple[str, ...] = dataclasses.field(default=(), metadata={"repeat": True, "metavar": "KEY=VALUE"})
    fmt: str = dataclasses.field(default="text", metadata={"name": "format", "choices": ("text", "jsonl")})


def test_a_repeated_flag_a_positional_that_may_be_empty_and_a_placeholder():
    p = argparse.ArgumentParser(prog="t")
    add_flags(p, Filter)
    assert from_flags(Filter, p.parse_args([])) == Filter()
    args = p.parse_args(["a", "b", "--option", "x=1", "--option", "y=2", "--format", "jsonl"])
    assert from_flags(Filter, args) == Filter(("a", "b"), ("x=1", "y=2"), "jsonl")
    assert from_flags(Filter, p.parse_args([])).option == ()  # the default is not appended to across parses
    assert "t [-h] [--option KEY=VALUE] [--format {text,jsonl}] [FILE ...]" in p.format_usage()
