"""`kcorpus build-corpus --config C [--out DIR] [overrides] [-- beam options]`."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from kcorpus.pipeline.corpus.config import DROPPED_MODES, SPLIT_BACKENDS
from kcorpus.pipeline.corpus.job import BuildCorpusJob
from kcorpus.pipeline.profile.flags import HELP, METAVAR, NAME, REPEAT, BeamOptions, add_flags, from_flags
from kcorpus.transforms.corpus_layout import COMPRESSIONS

# The flags that set one profile key, `--set KEY=VALUE` with a name of its own: flag -> (key, its options).
# Their values are checked with the profile's, and errors name the key.
PROFILE_FLAGS: dict[str, tuple[str, dict]] = {
    "num_shards": ("output.num_shards", {"type": int}),
    "split_backend": ("split.backend", {"help": f" ({', '.join(SPLIT_BACKENDS)})"}),
    "dropped": ("output.dropped", {"choices": DROPPED_MODES}),
    "compression": (
        "output.compression",
        {"choices": COMPRESSIONS, "help": ": zstd (text/, docs/, rejected/ as .zst) or none (plain files)"},
    ),
    "text": (
        "output.text",
        {"action": argparse.BooleanOptionalAction,
         "help": ": also write text/ (one sentence per line, a blank line between documents)"},
    ),
}


@dataclasses.dataclass(frozen=True)
class ProfileFlags:
    """The profile a build reads and what the command line changes in it (`PROFILE_FLAGS` name single keys)."""

    config: str = dataclasses.field(metadata={HELP: "YAML profile (configs/*.yaml)"})
    out: str | None = dataclasses.field(default=None, metadata={
        HELP: "output directory (local or gs://); overrides output.dir"})
    overrides: tuple[str, ...] = dataclasses.field(default=(), metadata={
        NAME: "set", REPEAT: True, METAVAR: "KEY=VALUE",
        HELP: "override a profile value, e.g. filters.min_chars=5 or sources.nsmc.preset=none (repeatable)"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The profile's flags (`ProfileFlags`, then one per `PROFILE_FLAGS` key), the job's (`BuildCorpusJob`), Beam's."""
    add_flags(parser, ProfileFlags)
    for name, (key, options) in PROFILE_FLAGS.items():
        help_text = f"overrides {key}" + options.get("help", "")
        parser.add_argument("--" + name.replace("_", "-"), **{**options, "help": help_text})
    add_flags(parser, BuildCorpusJob)
    add_flags(parser, BeamOptions)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.corpus.job import build_corpus
    from kcorpus.pipeline.corpus.summary import loss_problems, summary_table
    from kcorpus.pipeline.errors import DataLossError, UserError
    from kcorpus.pipeline.preflight import check_profile

    overrides = [*args.overrides, *profile_overrides(args)]
    out = args.out or _profile_out(args.config, overrides)
    outputs = {"--out" if args.out else "output.dir": out} if out else {}
    config = check_profile(args.config, overrides, outputs=outputs).corpus
    if not out:
        raise UserError("no output directory: give --out DIR or set output.dir in the profile")
    try:
        job = from_flags(BuildCorpusJob, args, config=config, out=out)
        stats = build_corpus(job, args.beam_args)
    except (FileExistsError, FileNotFoundError) as exc:
        raise UserError(str(exc)) from exc
    print(summary_table(stats, out))
    if not stats["total"]["reconciled"]:
        print("kcorpus build-corpus: counts do not reconcile; see stats.json", file=sys.stderr)
        return 1
    lost = loss_problems(stats, config.output.max_dead_letter_fraction, config.sources_allowed_missing)
    if lost:
        raise DataLossError(lost)
    return 0


def profile_overrides(args: argparse.Namespace) -> list[str]:
    """`KEY=VALUE` for each flag of `PROFILE_FLAGS` given, in the table's order (after `--set`'s)."""
    return [
        f"{key}={value}"
        for name, (key, _) in PROFILE_FLAGS.items()
        if (value := getattr(args, name)) is not None
    ]


def _profile_out(path: str, overrides: list[str]) -> str | None:
    """`output.dir` of the profile when it validates (otherwise the full check reports why)."""
    from kcorpus.pipeline.profile.load import load_config
    from kcorpus.pipeline.profile.validate import ProfileError

    try:
        return load_config(path, overrides).output.dir
    except (ProfileError, OSError):
        return None


def run(argv: list[str] | None = None) -> int:
    """Entry point for tests and scripts: `run(["--config", "c.yaml", "--out", "o"])`."""
    from kcorpus.pipeline.cli import main as cli_main

    return cli_main(["build-corpus", *(argv or [])])
