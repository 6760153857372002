"""`kcorpus train-vocab`'s flags: made from the job and trainer fields the profile's `vocab:` section reads."""

from __future__ import annotations

import argparse
from pathlib import Path

from kcorpus.pipeline.commands import train_vocab as command
from kcorpus.pipeline.profile.schema import VocabSection
from kcorpus.pipeline.vocab.train import TrainVocabJob
from kcorpus.transforms.vocab.train import SentencePieceConfig, WordPieceConfig

BASE = ["--input", "a.txt", "b.txt", "--out", "o", "--vocab-size", "100"]
# The job's folders: given on the command line, set by `kcorpus run` for its stage.
NOT_IN_PROFILE = {"inputs", "out", "overwrite"}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kcorpus train-vocab")
    command.add_arguments(p)
    return p


def test_every_flag_has_help_and_is_a_key_of_the_profiles_vocab_section_and_back():
    actions = [a for a in parser()._actions if a.dest != "help"]
    assert [a.option_strings for a in actions if not a.help] == []
    flags = {a.dest for a in actions} - NOT_IN_PROFILE
    assert flags == set(VocabSection.model_fields)


def test_the_profile_reference_names_every_vocab_key():
    docs = (Path(__file__).parents[3] / "docs" / "configuration.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| `vocab` |"))
    assert [key for key in VocabSection.model_fields if f"`{key}`" not in row] == []


def test_the_job_the_flags_describe():
    args = parser().parse_args(["--kind", "wordpiece", *BASE, "--num-unused", "3", "--quiet"])
    job = command.job_from_args(args)
    assert job == TrainVocabJob(
        inputs=("a.txt", "b.txt"), out="o", config=WordPieceConfig(vocab_size=100, num_unused=3), quiet=True
    )
    args = parser().parse_args(["--kind", "sentencepiece", *BASE, "--model-type", "bpe", "--byte-fallback"])
    assert command.job_from_args(args).config == SentencePieceConfig(
        vocab_size=100, model_type="bpe", byte_fallback=True
    )
    args = parser().parse_args(["--kind", "sentencepiece", *BASE, "--character-coverage", "0.99"])
    assert command.job_from_args(args).config.character_coverage == 0.99
