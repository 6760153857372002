"""`VocabReportJob` and `write_report`: compare two vocabularies into report.json, report.md, report.html."""

from __future__ import annotations

import dataclasses
import json
import os

from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.report.render import render_html, render_markdown
from kcorpus.pipeline.report.vocab import vocab_page
from kcorpus.transforms.vocab.compare import compare_vocabs
from kcorpus.transforms.vocab.files import load_vocab
from kcorpus.transforms.vocab.sample import read_sample

# The flag of a vocabulary to compare: a positional argument.
VOCAB_ARGUMENT = {"positional": True, "help": "vocab dir, vocab.txt, tokenizer.json or .model"}


@dataclasses.dataclass(frozen=True)
class VocabReportJob:
    """Everything one `kcorpus vocab-report` run needs; a field's `metadata` is its flag's help
    (pipeline/profile/flags.py).

    Attributes:
        a: the first vocab (dir, vocab.txt, tokenizer.json or .model).
        b: the second vocab, e.g. a published reference.
        out: the output directory.
        corpus: text files, globs or dirs to measure encoding on; empty compares the token sets only.
        max_sentences: the size of the seeded corpus sample.
        seed: the sampling seed.
        overwrite: replace a previous vocab-report in `out` (only its own files).
    """

    a: str = dataclasses.field(metadata=VOCAB_ARGUMENT)
    b: str = dataclasses.field(metadata=VOCAB_ARGUMENT)
    out: str = dataclasses.field(metadata={"help": "output directory"})
    corpus: tuple[str, ...] = dataclasses.field(
        default=(), metadata={"help": "text files, globs or dirs to measure encoding on"}
    )
    max_sentences: int = dataclasses.field(default=200_000, metadata={"help": "seeded sample of the corpus"})
    seed: int = dataclasses.field(default=0, metadata={"help": "the sampling seed"})
    overwrite: bool = dataclasses.field(
        default=False, metadata={"help": "replace a previous vocab-report in --out"}
    )


def write_report(job: VocabReportJob) -> dict:
    """Compare the two vocabularies, write the three report files, return the report.

    The output folder is checked first; a non-empty folder kcorpus did not write is refused, never mixed into.
    """
    plan = check_output(job.out, "vocab-report", [job.a, job.b, *job.corpus], overwrite=job.overwrite)
    lines = None
    if job.corpus:
        lines, _, _ = read_sample(list(job.corpus), max_sentences=job.max_sentences, seed=job.seed)
    report = compare_vocabs(load_vocab(job.a), load_vocab(job.b), lines)
    with claim_output(plan):
        _write_files(job.out, report)
    return report


def _write_files(out: str, report: dict) -> None:
    page = vocab_page(report)
    with open(os.path.join(out, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write(render_markdown(page))
    with open(os.path.join(out, "report.html"), "w", encoding="utf-8") as f:
        f.write(render_html(page))
