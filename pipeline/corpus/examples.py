"""`examples/`: the run's sample of before/after texts per rule, merged from every worker, written twice.

`examples.jsonl` (one example per line, sorted by kind, rule and sample key) is what the run report reads;
`examples.md` is the same as Markdown tables, for a user who ran `kcorpus build-corpus` alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import apache_beam as beam

from kcorpus.pipeline.atomic import AtomicTextFile
from kcorpus.pipeline.report.examples import examples_markdown
from kcorpus.transforms import corpus_layout
from kcorpus.transforms.examples import Example, smallest_per_rule


class SmallestPerRuleFn(beam.CombineFn):
    """Combines examples into the whole run's sample: at most `EXAMPLES_PER_RULE` per rule at every step."""

    def create_accumulator(self) -> list[Example]:
        return []

    def add_input(self, acc: list[Example], example: Example) -> list[Example]:
        acc.append(example)
        return smallest_per_rule(acc) if len(acc) > 1000 else acc

    def merge_accumulators(self, accs: Iterable[list[Example]]) -> list[Example]:
        return smallest_per_rule(e for acc in accs for e in acc)

    def extract_output(self, acc: list[Example]) -> list[Example]:
        return smallest_per_rule(acc)


def write_examples(examples: list[Example], out_dir: str) -> int:
    """Writes `examples/examples.jsonl` and `examples/examples.md`; returns the number of examples."""
    rows = [e.to_dict() for e in sorted(examples)]
    with AtomicTextFile(f"{out_dir}/{corpus_layout.EXAMPLES_FILE}") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    with AtomicTextFile(f"{out_dir}/{corpus_layout.EXAMPLES_MARKDOWN}") as f:
        f.write(examples_markdown(rows))
    return len(rows)


class WriteExamples(beam.PTransform):
    """Examples from every worker -> the run's sample -> `examples/`."""

    def __init__(self, out_dir: str) -> None:
        super().__init__()
        self.out_dir = out_dir

    def expand(self, examples: beam.PCollection) -> beam.PCollection:
        return (
            examples
            | "SmallestPerRule" >> beam.CombineGlobally(SmallestPerRuleFn())
            | "WriteExampleFiles" >> beam.Map(write_examples, self.out_dir)
        )
