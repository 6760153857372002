"""`kcorpus vocab-report A B [--corpus TEXT...] --out DIR`: report.json, report.md and report.html.

kcorpus vocab-report kcbert/vocab.txt out/vocab-sp/spm.model --corpus out/corpus --out out/report
"""

from __future__ import annotations

import argparse
import sys

from kcorpus.pipeline.profile.flags import add_flags, from_flags
from kcorpus.pipeline.vocab.report import VocabReportJob, write_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `VocabReportJob` (the help is on its fields)."""
    add_flags(parser, VocabReportJob)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, input_problem, output_problem

    check([*(input_problem(p) for p in args.corpus or ()), output_problem(args.out)])
    job = from_flags(VocabReportJob, args)
    try:
        report = write_report(job)
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus vocab-report: error: {error}", file=sys.stderr)
        return 2
    print(
        f"overlap {report['overlap']} of {report['size_a']}/{report['size_b']} tokens, "
        f"Jaccard {report['jaccard']}; report in {args.out}",
        file=sys.stderr,
    )
    return 0
