"""`BuildEvalIndex`: the evaluation files of `dedup.decontaminate`, read by the corpus readers, as one index.

The evaluation set is small (NSMC test: 50,000 comments, a few MB of hashes), so it is built once, in one
place, and handed to every `PrepareBatchFn` as a singleton side input: the same on the local runner and on
Dataflow. The matching itself is pure (`kcorpus.transforms.rules.decontaminate`).
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam

from kcorpus.pipeline.corpus.read import ReadDocuments
from kcorpus.transforms import matching
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig, EvalIndex, build_index

EVAL_SOURCE = "eval"


def check_eval_paths(config: DecontaminateConfig) -> None:
    """Before any work: every evaluation pattern must match a file (local or any Beam filesystem)."""
    for pattern in config.paths:
        if not matching.match(pattern):
            raise FileNotFoundError(f"dedup.decontaminate.paths: no file matches {pattern!r}")


def index_or_fail(records: list[tuple[str, str]], config: DecontaminateConfig) -> EvalIndex:
    """The index; a run whose evaluation files gave no text fails instead of silently checking nothing."""
    if not records:
        raise ValueError(
            f"dedup.decontaminate: no evaluation text was read from {list(config.paths)} "
            f"(format {config.format!r}): check the paths and the format"
        )
    return build_index(records, config)


def eval_summary(index: EvalIndex, dead_letters: int, config: DecontaminateConfig) -> dict[str, Any]:
    """The `decontaminate` block of stats.json: what was read from the evaluation files and how it is matched."""
    return {
        "paths": list(config.paths),
        "format": config.format,
        "action": config.action,
        "eval_texts": len(index.ids),
        "eval_dead_lettered": dead_letters,
        "eval_texts_by_match": dict(index.counts),
    }


class BuildEvalIndex(beam.PTransform):
    """PBegin -> `{"index": EvalIndex, "summary": dict}`, each a one-element collection for a side input."""

    def __init__(self, config: DecontaminateConfig) -> None:
        super().__init__()
        self.config = config

    def expand(self, pbegin: Any) -> dict[str, beam.PCollection]:
        cfg = self.config
        read = pbegin | "ReadEval" >> ReadDocuments(
            cfg.format,
            list(cfg.paths),
            options=dict(cfg.options) or None,
            source=EVAL_SOURCE,
            rebalance=False,
        )
        index = (
            read["documents"]
            | "EvalTexts" >> beam.Map(lambda d: (d.id, d.text))
            | "AllEvalTexts" >> beam.combiners.ToList()
            | "IndexEvalTexts" >> beam.Map(index_or_fail, cfg)
        )
        dead = read["dead_letter"] | "CountEvalDeadLetters" >> beam.combiners.Count.Globally()
        summary = index | "EvalSummary" >> beam.Map(eval_summary, beam.pvalue.AsSingleton(dead), cfg)
        return {"index": index, "summary": summary}
