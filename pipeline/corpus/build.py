"""`kcorpus build-corpus`: raw sources -> clean, deduplicated, sentence-split corpus shards.

Steps (Beam labels; pipeline/corpus/steps.py): `ReadAndPrepare` (`Read[<sources>]` -> `PrepareDocuments`:
NFC, per-source normalization, sentence split, `clean()`, filters, in input units committed to the units
folder, pipeline/corpus/units.py, so a killed or grown build redoes only what is new; kept and dropped
records are spilled to sorted runs so texts never go through a shuffle) -> `Deduplicate` (`ExactDedup`,
`NearDedup`, on compact digests and LSH keys only) -> `WriteCorpusShards` (per-shard k-way merge of the
runs, dedup losers routed to `rejected/`) -> `WriteSummaries` (examples, dead letters, `WriteStats`). Every count in stats.json is computed from the tagged outputs, so it is exact
on every runner; Beam metrics counters with the same `<stage>:<outcome>` names are incremented too.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.corpus.decontaminate import BuildEvalIndex, check_eval_paths
from kcorpus.pipeline.corpus.spill import bucket_count
from kcorpus.pipeline.corpus.stats import check_metrics
from kcorpus.pipeline.corpus.steps import (
    Deduplicate,
    ReadAndPrepare,
    WriteCorpusShards,
    WriteSummaries,
    flat,
    unit_sources,
)
from kcorpus.pipeline.corpus.units import UNITS_DIR, UnitsPlan
from kcorpus.pipeline.options import is_local
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.stage_metrics import report_stages
from kcorpus.transforms import corpus_layout

log = logging.getLogger(__name__)


class BuildCorpus(beam.PTransform):
    """The whole build-corpus pipeline, applied to a `Pipeline` (PBegin).

    Args:
        units_dir: the units folder (`units.py`); default `<out_dir>/.kcorpus-units`.
        units: the planned units (`prepare_units.plan_units`); planned here when not given.
    """

    def __init__(
        self,
        config: CorpusConfig,
        out_dir: str,
        tmp_dir: str,
        *,
        batch_size: int = 1000,
        units_dir: str | None = None,
        units: list[Any] | None = None,
    ) -> None:
        super().__init__()
        self.config, self.out_dir, self.tmp_dir = config, out_dir, tmp_dir
        self.batch_size = batch_size
        self.units_dir = units_dir or f"{out_dir}/{UNITS_DIR}"
        self.units = plan_build_units(config) if units is None else units

    def expand(self, pbegin: Any) -> beam.PCollection:
        cfg = self.config
        evals = None
        if cfg.dedup.decontaminate.enabled:
            evals = pbegin | "EvalIndex" >> BuildEvalIndex(cfg.dedup.decontaminate)
        prepared = pbegin | "ReadAndPrepare" >> ReadAndPrepare(
            cfg,
            self.tmp_dir,
            self.units_dir,
            self.units,
            batch_size=self.batch_size,
            eval_index=evals["index"] if evals else None,
        )
        buckets, spill = self._dedup_buckets(pbegin.pipeline.options)
        dedup = prepared["meta"] | "Deduplicate" >> Deduplicate(cfg.dedup, buckets, spill)
        runs = flat("AllRuns", prepared["run"])
        losers = flat("AllLosers", dedup["losers"])
        written = (runs, losers) | "WriteCorpusShards" >> WriteCorpusShards(
            cfg, self.out_dir, self.tmp_dir, spill, self.units_dir
        )
        counts = flat("AllCounts", [*prepared["counts"], *dedup["counts"], written.counts])
        examples = flat("AllExamples", [*prepared["examples"], written.examples])
        dead = flat("AllDeadLettersIn", prepared["dead_letter"])
        summary = evals["summary"] if evals else None
        return (counts, examples, dead) | "WriteSummaries" >> WriteSummaries(cfg, self.out_dir, summary)

    def _dedup_buckets(self, options: Any) -> tuple[int, str | None]:
        """Dedup buckets from the input size, and the folder their records spill to on the local runner."""
        from kcorpus.pipeline.corpus.read import input_bytes

        total = sum(input_bytes(list(s.paths)) for s in self.config.sources)
        return bucket_count(total), (self.tmp_dir if is_local(options) else None)


def plan_build_units(config: CorpusConfig) -> list[Any]:
    """The units of a build (`prepare_units.plan_units`), keyed by the build's identity."""
    from kcorpus import __version__
    from kcorpus.pipeline.corpus.prepare_units import plan_units
    from kcorpus.pipeline.corpus.units import build_identity, eval_fingerprint

    evals = eval_fingerprint(config.dedup.decontaminate.paths) if config.dedup.decontaminate.enabled else []
    return plan_units(unit_sources(config), build_identity(config, __version__, evals))


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
    overwrite: bool = False,
    profile_stages: bool = False,
    units_dir: str | None = None,
    keep_units: bool = False,
) -> dict[str, Any]:
    """Runs the pipeline to completion and returns the parsed stats.json.

    The output folder is checked before anything is written and claimed (locked, marked as kcorpus's, a
    previous corpus's own files removed with `overwrite`) only when the pipeline is about to run. Input
    units finished by an earlier run of the same build (killed, or with fewer files) are reused from
    `units_dir` (default `<out>/.kcorpus-units`); when the build completes, that folder is removed, or with
    `keep_units` pruned to this build's units.
    """
    out_dir = out_dir.rstrip("/")
    inputs = [p for source in config.sources for p in source.paths]
    plan = check_output(out_dir, "build-corpus", inputs, overwrite=overwrite)
    check_readers(config)
    if config.dedup.decontaminate.enabled:
        check_eval_paths(config.dedup.decontaminate)
    with claim_output(plan):
        folder = units_dir or f"{out_dir}/{UNITS_DIR}"
        units = UnitsPlan(plan_build_units(config), folder, keep_units, batch_size)
        stats = _run_pipeline(config, out_dir, list(beam_args), local_mode, batch_size, profile_stages, units)
        if reused := units.reused:
            print(f"build-corpus: {reused}", file=sys.stderr, flush=True)
        units.finish()
        return stats


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
    profile_stages: bool,
    units: UnitsPlan,
) -> dict[str, Any]:
    from kcorpus.pipeline.corpus.read import input_bytes
    from kcorpus.pipeline.options import make_pipeline
    from kcorpus.pipeline.progress import progress_display, wanted

    tmp_dir = f"{out_dir}/.tmp-build-{uuid.uuid4().hex[:12]}"
    started = time.monotonic()
    pipeline = make_pipeline(
        list(beam_args), local_mode=local_mode, input_bytes=_input_size(config, beam_args)
    )
    _ = pipeline | "BuildCorpus" >> BuildCorpus(
        config,
        out_dir,
        tmp_dir,
        batch_size=batch_size,
        units_dir=units.folder,
        units=units.units,
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
