"""`kcorpus build-corpus`: raw sources -> clean, deduplicated, sentence-split corpus shards.

Stages (Beam labels): `Read[<source>]` -> `PrepareDocuments` (NFC, per-source normalization, sentence
split, `clean()`, filters; batches of documents per element; kept and dropped records are spilled to
sorted run files so texts never go through a shuffle) -> `ExactDedup` and `NearDedup` (on compact digests
and LSH keys only) -> `WriteShards` (per-shard k-way merge of the runs, dedup losers routed to
`rejected/`) -> `WriteStats`. Every count in stats.json is computed from the tagged outputs, so it is exact
on every runner; Beam metrics counters with the same `<stage>:<outcome>` names are incremented too.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
import uuid
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.corpus.decontaminate import BuildEvalIndex, check_eval_paths
from kcorpus.pipeline.corpus.dedup import LOSER_SPILL_ROWS, ExactDedup, NearDedup
from kcorpus.pipeline.corpus.examples import WriteExamples
from kcorpus.pipeline.corpus.keys import KIND_DOCS, KIND_DROPPED
from kcorpus.pipeline.corpus.prepare import PrepareDocuments
from kcorpus.pipeline.corpus.read import matched_inputs
from kcorpus.pipeline.corpus.spill import BucketTables, bucket_count, spill_dir
from kcorpus.pipeline.corpus.stats import check_metrics, write_stats
from kcorpus.pipeline.corpus.write import LOSER_COLUMNS, WriteShardFn, loser_row, write_dead_letters
from kcorpus.pipeline.options import is_local
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.stage_metrics import Metered, metered_map, report_stages
from kcorpus.transforms import corpus_layout

log = logging.getLogger(__name__)

RANGES_PER_WORKER = 4
MIN_RANGE_BYTES = 256 << 10


def _tag(source: str) -> Any:
    return beam.Map(lambda item, s=source: (s, item))


def _range_bytes(options: Any, sources: list[Any]) -> int:
    """Byte ranges of line-based files: about four per local worker (the local runner hands each worker a
    static share of a stage's elements), between 256 KB and `RANGE_BYTES`."""
    from apache_beam.options.pipeline_options import DirectOptions

    from kcorpus.pipeline.corpus.read import input_bytes
    from kcorpus.pipeline.corpus.read_batches import RANGE_BYTES

    if not is_local(options):
        return RANGE_BYTES
    workers = options.view_as(DirectOptions).direct_num_workers or 1
    total = sum(input_bytes(list(s.patterns)) for s in sources)
    return int(min(RANGE_BYTES, max(MIN_RANGE_BYTES, total / (RANGES_PER_WORKER * workers))))


class BuildCorpus(beam.PTransform):
    """The whole build-corpus pipeline, applied to a `Pipeline` (PBegin)."""

    def __init__(
        self,
        config: CorpusConfig,
        out_dir: str,
        tmp_dir: str,
        *,
        batch_size: int = 1000,
        reshuffle: bool = False,
    ) -> None:
        super().__init__()
        self.config = config
        self.out_dir = out_dir
        self.tmp_dir = tmp_dir
        self.batch_size = batch_size
        self.reshuffle = reshuffle

    def _read(self, pbegin: Any) -> list[beam.PCollection]:
        """Batches of `(source, record)`: one collection for the line-based sources the fast path reads (in
        byte ranges, several per worker), one for its whole-file sources (a file is one element: its batches
        are reshuffled so that one large file does not run in one bundle), plus one per other source. They
        are never flattened: each gets its own prepare step, fused with its reading."""
        from kcorpus.pipeline.corpus.read import ReadDocuments
        from kcorpus.pipeline.corpus.read_batches import BatchSource, ReadSourceBatches, uses_fast_path
        from kcorpus.transforms.readers import reader_for

        fast, whole, batches = [], [], []
        for s in self.config.sources:
            options = dict(s.options) or None
            if uses_fast_path(s.format, options):
                group = fast if reader_for(s.format).range_based else whole
                group.append(BatchSource(s.format, tuple(s.paths), options, s.name))
                continue
            outputs = pbegin | f"Read[{s.name}]" >> ReadDocuments(
                s.format, list(s.paths), options=options, source=s.name, rebalance=False
            )
            tagged = [
                outputs[k] | f"Tag[{s.name}:{k}]" >> _tag(s.name)
                for k in ("documents", "dead_letter", "dropped")
            ]
            batches.append(
                tagged
                | f"Merge[{s.name}]" >> beam.Flatten()
                | f"Batch[{s.name}]"
                >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
            )
        if whole:
            names = ",".join(b.source for b in whole)
            read = pbegin | f"Read[{names}]" >> ReadSourceBatches(whole, batch_size=self.batch_size)
            batches.insert(0, read | f"Spread[{names}]" >> beam.Reshuffle())
        if fast:
            label = "Read[" + ",".join(b.source for b in fast) + "]"
            range_bytes = _range_bytes(pbegin.pipeline.options, fast)
            read = ReadSourceBatches(fast, batch_size=self.batch_size, range_bytes=range_bytes)
            batches.insert(0, pbegin | label >> read)
        return batches

    def _dedup_buckets(self, options: Any) -> tuple[int, str | None]:
        """Dedup buckets from the input size, and the folder their records spill to on the local runner."""
        from kcorpus.pipeline.corpus.read import input_bytes

        total = sum(input_bytes(list(s.paths)) for s in self.config.sources)
        return bucket_count(total), (self.tmp_dir if is_local(options) else None)

    def expand(self, pbegin: Any) -> beam.PCollection:
        cfg, out = self.config, self.out_dir
        n = cfg.output.num_shards
        batches = self._read(pbegin)
        if self.reshuffle:
            batches = [b | f"Reshuffle[{i}]" >> beam.Reshuffle() for i, b in enumerate(batches)]
        evals = None
        if cfg.dedup.decontaminate.enabled:
            evals = pbegin | "EvalIndex" >> BuildEvalIndex(cfg.dedup.decontaminate)
        prepared = tuple(batches) | "PrepareDocuments" >> PrepareDocuments(
            cfg, self.tmp_dir, evals["index"] if evals else None
        )
        losers = []
        counts = [prepared["counts"]]
        buckets, spill = self._dedup_buckets(pbegin.pipeline.options)
        if cfg.dedup.exact.enabled:
            exact = ExactDedup(cfg.dedup.exact.scope, buckets, spill)
            losers.append(prepared["meta"] | "ExactDedup" >> exact)
        if cfg.dedup.near.enabled:
            near = prepared["meta"] | "NearDedup" >> NearDedup(cfg.dedup.near, buckets, spill)
            losers.append(near["losers"])
            counts.append(near["counts"])
        # Dedup losers go to the writer of their shard through the same grouping as its runs (spilled to
        # files on the local runner): no worker holds every loser, as a side input would make each one do.
        losers_by_shard = (
            tuple(losers or [pbegin | "NoDedup" >> beam.Create([])])
            | "LosersByShard"
            >> BucketTables(
                "LosersByShard",
                loser_row,
                n,
                spill_dir=spill_dir(spill, "losers"),
                spill_rows=LOSER_SPILL_ROWS,
                columns=LOSER_COLUMNS,
            )
            | "KeyLosers" >> beam.MapTuple(lambda shard, value: ((KIND_DOCS, shard), value))
        )
        shards = pbegin | "AllShards" >> beam.Create(
            [((kind, s), "") for kind in (KIND_DOCS, KIND_DROPPED) for s in range(n)]
        )
        runs = prepared["run"] | "KeyRuns" >> beam.MapTuple(lambda kind, shard, path: ((kind, shard), path))
        written = (
            (shards, runs, losers_by_shard)
            | "RunsAndShards" >> beam.Flatten()
            | "GroupRunsByShard" >> beam.GroupByKey()
            | "WriteShards"
            >> beam.ParDo(Metered("WriteShards", WriteShardFn(out, cfg.output))).with_outputs(
                "examples", main="counts"
            )
        )
        _ = (
            (prepared["examples"], written.examples)
            | "AllExamples" >> beam.Flatten()
            | "Examples" >> WriteExamples(out)
        )
        dead = (
            prepared["dead_letter"]
            | "AllDeadLetters" >> beam.combiners.ToList()
            | "WriteDeadLetters" >> metered_map("WriteDeadLetters", write_dead_letters, out, cfg.output.compression)
        )
        names = [s.name for s in cfg.sources]
        # Where each source was read from: what `kcorpus audit` needs to find a kept document's input again.
        # With the files and bytes each source's patterns matched (a folder left out shows as a 0).
        inputs = {
            s.name: {"format": s.format, "paths": list(s.paths), "options": dict(s.options), **matched_inputs(s.paths)}
            for s in cfg.sources
        }
        # The filters each source ran with (the profile's, with its own keys over them), and those own keys.
        filters = {s.name: dataclasses.asdict(cfg.filters_for(s.name)) for s in cfg.sources}
        overrides = {s.name: dict(s.filters) for s in cfg.sources}
        extra = {
            "output": {"num_shards": n, "dropped": cfg.output.dropped, "compression": cfg.output.compression},
            "inputs": inputs,
            "filters": filters,
            "filter_overrides": overrides,
        }
        summary = [beam.pvalue.AsSingleton(evals["summary"])] if evals else []
        return (
            (*counts, written.counts)
            | "AllCounts" >> beam.Flatten()
            | "SumCounts" >> beam.CombinePerKey(sum)
            | "CountsList" >> beam.combiners.ToList()
            | "WriteStats"
            >> metered_map("WriteStats", write_stats, out, names, extra, beam.pvalue.AsSingleton(dead), *summary)
        )


def _remove_tree(path: str) -> None:
    """Delete a temporary directory's files (and the directory itself where the filesystem has one)."""
    files = [m.path for r in FileSystems.match([f"{path}/**"]) for m in r.metadata_list]
    if files:
        FileSystems.delete(files)
    if FileSystems.exists(path):
        FileSystems.delete([path])


def _workers(pipeline: beam.Pipeline) -> int | None:
    from apache_beam.options.pipeline_options import DirectOptions

    return pipeline.options.view_as(DirectOptions).direct_num_workers


def _input_size(config: CorpusConfig, beam_args: list[str] | tuple[str, ...]) -> int | None:
    """Bytes of every source's files, which choose the local worker count; None when it is not needed."""
    from kcorpus.pipeline.corpus.read import input_bytes

    given = " ".join(beam_args)
    if "--runner" in given or "--direct_num_workers" in given:
        return None
    return sum(input_bytes(list(s.paths)) for s in config.sources)


def run_build(
    config: CorpusConfig,
    out_dir: str,
    beam_args: list[str] | tuple[str, ...] = (),
    *,
    local_mode: str = "multi_processing",
    batch_size: int = 1000,
    reshuffle: bool = False,
    overwrite: bool = False,
    profile_stages: bool = False,
) -> dict[str, Any]:
    """Runs the pipeline to completion and returns the parsed stats.json.

    The output folder is checked before anything is written and claimed (locked, marked as kcorpus's, a
    previous corpus's own files removed with `overwrite`) only when the pipeline is about to run.
    """
    out_dir = out_dir.rstrip("/")
    inputs = [p for source in config.sources for p in source.paths]
    plan = check_output(out_dir, "build-corpus", inputs, overwrite=overwrite)
    check_readers(config)
    if config.dedup.decontaminate.enabled:
        check_eval_paths(config.dedup.decontaminate)
    with claim_output(plan):
        return _run_pipeline(config, out_dir, list(beam_args), local_mode, batch_size, reshuffle, profile_stages)


def check_readers(config: CorpusConfig) -> None:
    """Raise ValueError for a source whose format or reader options do not exist, before any folder is touched."""
    from kcorpus.transforms.readers import as_options, reader_for

    for source in config.sources:
        try:
            reader_for(source.format)
            as_options(dict(source.options))
        except (ValueError, TypeError) as err:
            raise ValueError(f"sources.{source.name}: {err}") from None


def _run_pipeline(
    config: CorpusConfig,
    out_dir: str,
    beam_args: list[str],
    local_mode: str,
    batch_size: int,
    reshuffle: bool,
    profile_stages: bool,
) -> dict[str, Any]:
    from kcorpus.pipeline.corpus.read import input_bytes
    from kcorpus.pipeline.options import make_pipeline
    from kcorpus.pipeline.progress import progress_display, wanted

    tmp_dir = f"{out_dir}/.tmp-build-{uuid.uuid4().hex[:12]}"
    started = time.monotonic()
    pipeline = make_pipeline(list(beam_args), local_mode=local_mode, input_bytes=_input_size(config, beam_args))
    _ = pipeline | "BuildCorpus" >> BuildCorpus(
        config, out_dir, tmp_dir, batch_size=batch_size, reshuffle=reshuffle
    )
    total = sum(input_bytes(list(s.paths)) for s in config.sources) if wanted(pipeline.options) else None
    shards = 2 * config.output.num_shards  # a docs and a dropped file per shard
    try:
        with progress_display("build-corpus", total, pipeline.options, write_total=shards):
            result = pipeline.run()
            result.wait_until_finish()
    finally:
        _remove_tree(tmp_dir)
    with FileSystems.open(f"{out_dir}/{corpus_layout.STATS_FILE}") as f:
        stats = json.loads(f.read().decode("utf-8"))
    check_metrics(result, stats)
    report_stages(result, out_dir, _workers(pipeline), profile_stages)
    for name, block in stats["sources"].items():
        if block["input"] == 0:
            log.warning("source %r read no records at all: check its paths and format", name)
    summary = {k: v for k, v in stats["total"].items() if k != "counters"}
    log.info("build-corpus finished in %.1f s: %s", time.monotonic() - started, summary)
    return stats
