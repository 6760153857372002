"""`kcorpus build-corpus`'s flags: those made from `BuildCorpusJob`'s fields, and those that set one profile key
each (`PROFILE_FLAGS`)."""

from __future__ import annotations

import argparse

from kcorpus.pipeline.commands import build_corpus as command
from kcorpus.pipeline.corpus.job import BuildCorpusJob
from kcorpus.pipeline.profile.flags import from_flags


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kcorpus build-corpus")
    command.add_arguments(parser)
    return parser.parse_args(["--config", "c.yaml", *argv])


def test_each_flag_given_is_its_keys_override_after_sets():
    args = parse(
        "--set", "filters.min_chars=5", "--compression", "none", "--num-shards", "0", "--dropped", "all"
    )
    overrides = [*args.overrides, *command.profile_overrides(args)]
    assert overrides == [
        "filters.min_chars=5",
        "output.num_shards=0",
        "output.dropped=all",
        "output.compression=none",
    ]
    assert command.profile_overrides(parse()) == []


def test_the_help_names_the_key_each_flag_overrides():
    parser = argparse.ArgumentParser(prog="kcorpus build-corpus")
    command.add_arguments(parser)
    helps = {a.dest: a.help for a in parser._actions}
    assert all(helps[name].startswith(f"overrides {key}") for name, (key, _) in command.PROFILE_FLAGS.items())


def test_each_flags_key_is_a_key_of_the_profile():
    from kcorpus.pipeline.profile.schema import Profile

    for key, _ in command.PROFILE_FLAGS.values():
        section, name = key.split(".")
        assert name in Profile.model_fields[section].annotation.model_fields, key


def test_every_flag_has_help():
    parser = argparse.ArgumentParser(prog="kcorpus build-corpus")
    command.add_arguments(parser)
    assert [a.dest for a in parser._actions if not a.help] == []


def test_the_job_is_built_from_its_fields_flags():
    args = parse(
        "--batch-size", "7", "--local-mode", "in_memory", "--overwrite", "--keep-units",
        "--profile-stages",
    )  # fmt: skip
    job = from_flags(BuildCorpusJob, args, config=None, out="o")
    assert job == BuildCorpusJob(
        None, "o", batch_size=7, local_mode="in_memory", overwrite=True, profile_stages=True,
        keep_units=True,
    )  # fmt: skip
    assert from_flags(BuildCorpusJob, parse(), config=None, out="o") == BuildCorpusJob(None, "o")
