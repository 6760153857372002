"""`kcorpus run PROFILE [--out DIR] [--force] [--only STAGE...] [-- beam options]`."""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from pathlib import Path

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.profile import ProfileError, load_profile
from kcorpus.pipeline.run.errors import RunError, StageFailed
from kcorpus.pipeline.run.orchestrate import run
from kcorpus.pipeline.run.stages import STAGE_NAMES, plan_stages


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="YAML profile (configs/sample.yaml, configs/dataflow.yaml, ...)")
    parser.add_argument("--out", help="run folder, local or gs://BUCKET/PREFIX; default: the profile's run.out")
    parser.add_argument("--force", action="store_true", help="redo the selected stages even if up to date")
    parser.add_argument(
        "--only", nargs="+", default=[], metavar="STAGE",
        help=f"run only these stages ({', '.join(STAGE_NAMES)}); their upstream stages must be up to date",
    )  # fmt: skip
    parser.add_argument("--no-report", action="store_true", help="do not write report.html / report.md")


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("kcorpus").setLevel(logging.INFO)
    try:
        # An absolute profile path: relative paths in it resolve to absolute ones, wherever the stages run.
        profile = load_profile(str(Path(args.config).resolve()))
        plan_stages(profile)  # a profile without a `vocab:` section fails here, before any work
        out = args.out or profile.run.out
        if not out:
            raise RunError(f"{args.config}: no run folder; pass --out DIR or set run.out in the profile")
        results = run(profile, out, beam_args=args.beam_args, force=args.force, only=args.only)
    except StageFailed as err:
        if err.__cause__ is not None:
            traceback.print_exception(err.__cause__, file=sys.stderr)
        print(f"kcorpus run: {err}", file=sys.stderr)
        return 1
    except (RunError, ProfileError, FileNotFoundError) as err:
        print(f"kcorpus run: {err}", file=sys.stderr)
        return 1
    out_dir = str(out).rstrip("/") if fs.is_remote(str(out)) else str(Path(out).resolve())
    for r in results:
        print(f"{r.name:<13} {r.status:<13} {r.reason}" + (f" ({r.seconds:.1f} s)" if r.seconds else ""))
    if not args.no_report:
        from kcorpus.pipeline.run.report import write_report

        html, md = write_report(out_dir)
        print(f"report:  {html}\n         {md}")
    pack = fs.join(out_dir, "pack")
    if fs.exists(fs.join(pack, "train", "state.json")):
        train, validation = fs.join(pack, "train"), fs.join(pack, "validation")
        print(f"dataset: {train}  (datasets.load_from_disk; validation: {validation})")
    return 0
