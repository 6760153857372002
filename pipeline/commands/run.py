"""`kcorpus run PROFILE [--out DIR] [--force] [--only STAGE...] [-- beam options]`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import traceback
from pathlib import Path

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.corpus.summary import summary_table
from kcorpus.pipeline.errors import OutputError, UserError
from kcorpus.pipeline.outputs.claim import OutputPlan, claim_output
from kcorpus.pipeline.preflight import check_profile
from kcorpus.pipeline.profile.flags import HELP, METAVAR, POSITIONAL, add_flags, from_flags
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.profile.validate import ProfileError
from kcorpus.pipeline.run.errors import RunError, StageFailed
from kcorpus.pipeline.run.orchestrate import StageResult, run
from kcorpus.pipeline.run.stages import STAGE_NAMES
from kcorpus.transforms import corpus_layout

RAN_BECAUSE = {"not run yet": "first run", "forced": "forced (--force)"}


@dataclasses.dataclass(frozen=True)
class RunCommand:
    """What `kcorpus run` is asked: each field is a flag (pipeline/profile/flags.py), its help here."""

    config: str = dataclasses.field(metadata={
        POSITIONAL: True, HELP: "YAML profile (configs/sample.yaml, configs/dataflow.yaml, ...)"})
    out: str | None = dataclasses.field(default=None, metadata={
        HELP: "run folder, local or gs://BUCKET/PREFIX; default: the profile's run.out"})
    force: bool = dataclasses.field(default=False, metadata={
        HELP: "redo the selected stages even if up to date"})
    only: tuple[str, ...] = dataclasses.field(default=(), metadata={
        METAVAR: "STAGE",
        HELP: f"run only these stages ({', '.join(STAGE_NAMES)}); their upstream stages must be up to date"})
    no_report: bool = dataclasses.field(default=False, metadata={HELP: "do not write report.html / report.md"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags, made from `RunCommand`."""
    add_flags(parser, RunCommand)


def describe(result: StageResult) -> str:
    """One line of the end-of-run table: what happened to a stage, and why."""
    if result.status == "ran":
        why = RAN_BECAUSE.get(result.reason, result.reason)
        return f"{result.name:<13} ran: {why} ({result.seconds:.1f} s)"
    if result.status == "skipped":
        return f"{result.name:<13} skipped: {result.reason}"
    return f"{result.name:<13} {result.status} ({result.reason})"


def main(args: argparse.Namespace) -> int:
    command = from_flags(RunCommand, args)
    # An absolute profile path: relative paths in it resolve to absolute ones, wherever the stages run.
    config = str(Path(command.config).resolve())
    out = command.out or _profile_out(config)
    outputs = {"--out" if command.out else "run.out": out} if out else {}
    profile = check_profile(config, stages=STAGE_NAMES, outputs=outputs)
    if not out:
        raise UserError(f"{command.config}: no run folder; pass --out DIR or set run.out in the profile")
    try:
        results = run(profile, out, beam_args=args.beam_args, force=command.force, only=command.only)
    except StageFailed as err:
        if err.__cause__ is not None and args.debug:
            traceback.print_exception(err.__cause__, file=sys.stderr)
        print(f"kcorpus run: error: {err}" + ("" if args.debug else " (--debug shows the traceback)"),
              file=sys.stderr)
        return 1
    except RunError as err:
        raise UserError(str(err)) from err
    out_dir = str(out).rstrip("/") if fs.is_remote(str(out)) else str(Path(out).resolve())
    for r in results:
        print(describe(r))
    stats = fs.join(out_dir, "corpus", corpus_layout.STATS_FILE)
    corpus_stats = json.loads(fs.read_bytes(stats)) if fs.exists(stats) else {}
    if "sources" in corpus_stats:
        print(summary_table(corpus_stats, fs.join(out_dir, "corpus")))
    if not command.no_report:
        from kcorpus.pipeline.run.report import write_report

        try:
            # The report is written under the run folder's lock, like the stages it reports on.
            with claim_output(OutputPlan(str(out_dir), "run", resume=True)):
                html, md = write_report(out_dir, profile=config)
        except OutputError as err:
            print(f"kcorpus run: error: {err}", file=sys.stderr)
            return 2
        # One labelled line per file, on every run (a rerun with every stage up to date rewrites both).
        print(f"report:  {html}  (charts and tables: open in a browser)")
        print(f"report:  {md}  (the same tables, Markdown)")
    pack = fs.join(out_dir, "pack")
    if fs.exists(fs.join(pack, "train", "state.json")):
        print(f"dataset: {pack}  (datasets.load_from_disk: a DatasetDict of train and validation)")
    return 0


def _profile_out(path: str) -> str | None:
    """`run.out` of the profile when it validates (otherwise the full check reports why)."""
    try:
        return load_profile(path).run.out
    except (ProfileError, OSError):
        return None
