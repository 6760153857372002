"""`kcorpus vocab-report A B [--corpus TEXT...] --out DIR`: report.json, report.md and report.html.

    kcorpus vocab-report kcbert/vocab.txt out/vocab-sp/spm.model --corpus out/corpus/text --out out/report
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from kcorpus.pipeline.report.vocab import render_html, render_markdown
from kcorpus.transforms.vocab.files import load_vocab
from kcorpus.transforms.vocab.report import compare_vocabs
from kcorpus.transforms.vocab.sample import read_sample


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="vocab dir, vocab.txt, tokenizer.json or .model")
    parser.add_argument("b", help="vocab dir, vocab.txt, tokenizer.json or .model")
    parser.add_argument("--corpus", nargs="+", help="text files, globs or dirs to measure encoding on")
    parser.add_argument("--max-sentences", type=int, default=200_000, help="seeded sample of the corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)


def main(args: argparse.Namespace) -> int:
    try:
        report = write_report(args.a, args.b, args.out, corpus=args.corpus, max_sentences=args.max_sentences,
                              seed=args.seed)
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus vocab-report: error: {error}", file=sys.stderr)
        return 2
    print(f"overlap {report['overlap']} of {report['size_a']}/{report['size_b']} tokens, "
          f"Jaccard {report['jaccard']}; report in {args.out}", file=sys.stderr)
    return 0


def write_report(a: str, b: str, out_dir: str, *, corpus: list[str] | None = None,
                 max_sentences: int = 200_000, seed: int = 0) -> dict:
    lines = None
    if corpus:
        lines, _, _ = read_sample(corpus, max_sentences=max_sentences, seed=seed)
    report = compare_vocabs(load_vocab(a), load_vocab(b), lines)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(render_markdown(report))
    with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as f:
        f.write(render_html(report))
    return report
