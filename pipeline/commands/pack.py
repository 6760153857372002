"""`kcorpus pack`: build-corpus output + a tokenizer -> packed Arrow datasets for pretraining."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.profile.defaults import LOCAL_MODES
from kcorpus.pipeline.profile.flags import CHOICES, HELP, BeamOptions, add_flags, from_flags
from kcorpus.transforms.pack.stats import padding_warning


@dataclasses.dataclass(frozen=True)
class PackRunner(BeamOptions):
    """How `kcorpus pack` runs its pipeline, besides the job: the local runner's mode and Beam's options."""

    local_mode: str = dataclasses.field(default="multi_processing", metadata={
        CHOICES: LOCAL_MODES, HELP: "FnApiRunner mode when no --runner is passed after --"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `PackJob` and its `PackConfig` (the help is on their fields), then the
    runner's (`PackRunner`)."""
    add_flags(parser, PackJob)
    add_flags(parser, PackRunner)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.errors import UserError
    from kcorpus.pipeline.preflight import check, corpus_problem, output_problem, tokenizer_problem

    check([
        corpus_problem(args.corpus, args.input_format),
        tokenizer_problem(args.tokenizer),
        output_problem(args.out),
    ])
    from kcorpus.pipeline.pack.build import run  # Beam: only once the inputs are known to be usable

    try:
        job = from_flags(PackJob, args)
        runner = from_flags(PackRunner, args)
        manifest = run(job, runner.beam_args, local_mode=runner.local_mode)
    except (ValueError, FileNotFoundError, FileExistsError) as err:
        raise UserError(str(err)) from err
    counts = {k: v for k, v in manifest["counts"].items() if k != "splits"}
    print(json.dumps(counts, ensure_ascii=False))
    left_out = counts.get("nsp", {}).get("left_out_documents", 0)
    if left_out:
        print(f"kcorpus pack: {left_out:,} one-sentence documents ({counts['nsp']['left_out_tokens']:,} tokens) "
              "left out to hold the random-next share at 0.5: the other documents have too few sentences to "
              "balance them (--nsp-rule google keeps them, at a higher share)", file=sys.stderr)
    warning = padding_warning(counts["padding_fraction"], job.pack.layout, job.pack.max_length)
    if warning:
        print(f"kcorpus pack: {warning}", file=sys.stderr)
    return 0
