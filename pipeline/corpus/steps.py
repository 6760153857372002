"""The named steps of build-corpus (pipeline/corpus/build.py wires them): `ReadAndPrepare` (every source read
and its documents prepared, in input units), `Deduplicate` (exact
and near duplicates on compact keys), `WriteCorpusShards` (a writer per shard merges its runs, dedup losers to
`rejected/`) and `WriteSummaries` (examples, dead letters, stats.json).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import apache_beam as beam

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.corpus.dedup import LOSER_SPILL_ROWS, ExactDedup, NearDedup
from kcorpus.pipeline.corpus.examples import WriteExamples
from kcorpus.pipeline.corpus.keys import KIND_DOCS, KIND_DROPPED
from kcorpus.pipeline.corpus.read import matched_inputs
from kcorpus.pipeline.corpus.spill import BucketTables, spill_dir
from kcorpus.pipeline.corpus.stats import write_stats
from kcorpus.pipeline.corpus.write import LOSER_COLUMNS, WriteShardFn, loser_row, write_dead_letters
from kcorpus.pipeline.stage_metrics import Metered, metered_map


def unit_sources(config: CorpusConfig) -> list[Any]:
    """Every source as build-corpus reads it, in input units (`BatchSource`s, in profile order)."""
    from kcorpus.pipeline.corpus.read_batches import BatchSource

    return [BatchSource(s.format, tuple(s.paths), dict(s.options) or None, s.name) for s in config.sources]


class ReadAndPrepare(beam.PTransform):
    """Every source read and its documents prepared -> `{counts, meta, run, dead_letter, examples}` (`meta`: a
    tuple of collections, bucketed where they are made).

    Every source is read in input units (`units`, planned by `plan_units`) and goes through `PrepareUnits`,
    which commits each unit to `units_dir` and replays a finished one. The units of comment-thread sources are
    read again on every run and their threads cut into batch units at the unit of each thread's first comment
    (`threads.ReadThreads`).
    """

    def __init__(
        self,
        config: CorpusConfig,
        tmp_dir: str,
        units_dir: str,
        units: list[Any],
        *,
        batch_size: int,
        eval_index: beam.PCollection | None,
    ) -> None:
        super().__init__()
        self.config, self.tmp_dir, self.units_dir, self.units = config, tmp_dir, units_dir, units
        self.batch_size, self.eval_index = batch_size, eval_index

    def expand(self, pbegin: Any) -> dict[str, Any]:
        from kcorpus.pipeline.corpus.prepare_units import PrepareUnits
        from kcorpus.pipeline.corpus.threads import ReadThreads, is_threaded
        from kcorpus.pipeline.corpus.units import Unit

        sources = unit_sources(self.config)
        threaded = {i for i, s in enumerate(sources) if is_threaded(s)}
        by_thread = [(i, u) for i, u in self.units if i in threaded and isinstance(u, Unit)]
        others = [(i, u) for i, u in self.units if not (i in threaded and isinstance(u, Unit))]
        label = "Read[" + ",".join(b.source for b in sources) + "]"
        units = pbegin | label >> SpreadUnits(others)
        if by_thread:
            threads = (
                pbegin
                | "ThreadUnits" >> SpreadUnits(by_thread)
                | "ReadThreads" >> ReadThreads(self.units_dir, sources, self.batch_size)
            )
            units = (units, threads) | "AllUnits" >> beam.Flatten()
        spread = bool(by_thread) or any(isinstance(u, Unit) and u.end < 0 for _, u in others)
        prepare = PrepareUnits(
            self.config, self.tmp_dir, self.units_dir, sources, self.batch_size, self.eval_index, spread
        )
        prepared = units | "PrepareDocuments" >> prepare
        merged: dict[str, Any] = {tag: [prepared[tag]] for tag in PrepareUnits.TAGS}
        merged["meta"] = (prepared["meta"],)
        return merged


class SpreadUnits(beam.PTransform):
    """The planned units as a collection spread over the workers."""

    def __init__(self, units: list[Any]) -> None:
        super().__init__()
        self.units = units

    def expand(self, pbegin: Any) -> beam.PCollection:
        return pbegin | "Units" >> beam.Create(self.units) | "SpreadUnits" >> beam.Reshuffle()


class Deduplicate(beam.PTransform):
    """Dedup keys (`meta` collections) -> `{"losers", "counts"}`: exact and near duplicates, each enabled apart."""

    def __init__(self, config: Any, buckets: int, spill: str | None) -> None:
        super().__init__()
        self.config, self.buckets, self.spill = config, buckets, spill

    def expand(self, meta: tuple[beam.PCollection, ...]) -> dict[str, list[beam.PCollection]]:
        losers, counts = [], []
        if self.config.exact.enabled:
            exact = ExactDedup(self.config.exact.scope, self.buckets, self.spill)
            losers.append(meta | "ExactDedup" >> exact)
        if self.config.near.enabled:
            near = meta | "NearDedup" >> NearDedup(self.config.near, self.buckets, self.spill)
            losers.append(near["losers"])
            counts.append(near["counts"])
        if not losers:
            losers.append(meta[0].pipeline | "NoDedup" >> beam.Create([]))
        return {"losers": losers, "counts": counts}


class WriteCorpusShards(beam.PTransform):
    """`(runs, losers)` -> every shard's files: a writer per (kind, shard) merges its runs, dedup losers routed
    to `rejected/`. Returns the writers' `counts` and `examples`."""

    def __init__(
        self, config: CorpusConfig, out_dir: str, tmp_dir: str, spill: str | None, units_dir: str
    ) -> None:
        super().__init__()
        self.config, self.out_dir, self.tmp_dir, self.spill = config, out_dir, tmp_dir, spill
        self.units_dir = units_dir

    def expand(self, inputs: tuple[beam.PCollection, beam.PCollection]) -> Any:
        runs, losers = inputs
        n = self.config.output.num_shards
        # Dedup losers go to the writer of their shard through the same grouping as its runs (spilled to
        # files on the local runner): no worker holds every loser, as a side input would make each one do.
        by_shard = BucketTables(
            "LosersByShard",
            loser_row,
            n,
            spill_dir=spill_dir(self.spill, "losers"),
            spill_rows=LOSER_SPILL_ROWS,
            columns=LOSER_COLUMNS,
        )
        keyed_losers = (
            losers
            | "LosersByShard" >> by_shard
            | "KeyLosers" >> beam.MapTuple(lambda shard, value: ((KIND_DOCS, shard), value))
        )
        shards = runs.pipeline | "AllShards" >> beam.Create(
            [((kind, s), "") for kind in (KIND_DOCS, KIND_DROPPED) for s in range(n)]
        )
        keyed_runs = runs | "KeyRuns" >> beam.MapTuple(lambda kind, shard, ref: ((kind, shard), ref))
        write = WriteShardFn(self.out_dir, self.config.output, self.tmp_dir, self.units_dir)
        return (
            (shards, keyed_runs, keyed_losers)
            | "RunsAndShards" >> beam.Flatten()
            | "GroupRunsByShard" >> beam.GroupByKey()
            | "WriteShards"
            >> beam.ParDo(Metered("WriteShards", write)).with_outputs("examples", main="counts")
        )


class WriteSummaries(beam.PTransform):
    """`(counts, examples, dead letters)` -> `examples/`, `rejected/dead_letter.jsonl` and `stats.json`."""

    def __init__(self, config: CorpusConfig, out_dir: str, eval_summary: beam.PCollection | None) -> None:
        super().__init__()
        self.config, self.out_dir, self.eval_summary = config, out_dir, eval_summary

    def expand(self, inputs: tuple[beam.PCollection, beam.PCollection, beam.PCollection]) -> beam.PCollection:
        counts, examples, dead_letters = inputs
        out = self.out_dir
        _ = examples | "Examples" >> WriteExamples(out)
        dead = (
            dead_letters
            | "AllDeadLetters" >> beam.combiners.ToList()
            | "WriteDeadLetters"
            >> metered_map("WriteDeadLetters", write_dead_letters, out, self.config.output.compression)
        )
        names = [s.name for s in self.config.sources]
        summary = [] if self.eval_summary is None else [beam.pvalue.AsSingleton(self.eval_summary)]
        return (
            counts
            | "SumCounts" >> beam.CombinePerKey(sum)
            | "CountsList" >> beam.combiners.ToList()
            | "WriteStats"
            >> metered_map(
                "WriteStats",
                write_stats,
                out,
                names,
                stats_extra(self.config),
                beam.pvalue.AsSingleton(dead),
                *summary,
            )
        )


def stats_extra(cfg: CorpusConfig) -> dict[str, Any]:
    """What stats.json records besides the counts: shards, where each source was read from (what `kcorpus
    audit` needs to find a kept document's input again) with the files and bytes its patterns matched (a
    folder left out shows as a 0), the filters each source ran with (the profile's, with its own keys over
    them) and those own keys."""
    inputs = {
        s.name: {
            "format": s.format,
            "paths": list(s.paths),
            "options": dict(s.options),
            **matched_inputs(s.paths),
        }
        for s in cfg.sources
    }
    return {
        "output": {
            "num_shards": cfg.output.num_shards,
            "dropped": cfg.output.dropped,
            "compression": cfg.output.compression,
            "text": cfg.output.text,
        },
        "inputs": inputs,
        "filters": {s.name: dataclasses.asdict(cfg.filters_for(s.name)) for s in cfg.sources},
        "filter_overrides": {s.name: dict(s.filters) for s in cfg.sources},
    }


def flat(label: str, parts: list[beam.PCollection]) -> beam.PCollection:
    """One collection: the only one, or a Flatten of them."""
    return parts[0] if len(parts) == 1 else tuple(parts) | label >> beam.Flatten()
