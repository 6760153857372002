"""`kcorpus vocab-report A B [--corpus TEXT...] --out DIR`: report.json, report.md and report.html.

kcorpus vocab-report kcbert/vocab.txt out/vocab-sp/spm.model --corpus out/corpus/text --out out/report
"""

from __future__ import annotations

import argparse
import sys

from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.vocab.report import VocabReportJob, write_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="vocab dir, vocab.txt, tokenizer.json or .model")
    parser.add_argument("b", help="vocab dir, vocab.txt, tokenizer.json or .model")
    parser.add_argument("--corpus", nargs="+", help="text files, globs or dirs to measure encoding on")
    parser.add_argument(
        "--max-sentences",
        type=int,
        default=default_of(VocabReportJob, "max_sentences"),
        help="seeded sample of the corpus",
    )
    parser.add_argument("--seed", type=int, default=default_of(VocabReportJob, "seed"))
    parser.add_argument("--out", required=True)
    parser.add_argument("--overwrite", action="store_true", help="replace a previous vocab-report in --out")


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, input_problem, output_problem

    check([*(input_problem(p) for p in args.corpus or ()), output_problem(args.out)])
    job = VocabReportJob(
        a=args.a,
        b=args.b,
        out=args.out,
        corpus=tuple(args.corpus or ()),
        max_sentences=args.max_sentences,
        seed=args.seed,
        overwrite=args.overwrite,
    )
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
