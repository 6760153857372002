"""`PrepareUnits`: input units read and prepared, each committed to the units folder, or replayed when finished.

Every source is planned as units (`units.py`) before the pipeline runs: line files in byte ranges, other
files whole (a dump's pages are converted by the worker that prepares their batch), comment threads cut into
batches at their home units (`threads.py`). `PrepareUnitFn` reads a unit's records in batches, prepares them
as `PrepareBatchFn` does, writes what they give to `<key>.data` and `<key>.done`, and then emits the unit's
outputs from that result, the same whether the unit was prepared just now or by an earlier run that was
killed: a rerun skips the finished units and prepares only the others.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline import progress
from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.corpus.keys import METRICS_NAMESPACE
from kcorpus.pipeline.corpus.prepare import PrepareBatchFn
from kcorpus.pipeline.corpus.read_batches import BatchSource, read_batches, record_of
from kcorpus.pipeline.corpus.units import (
    DONE_SUFFIX,
    BatchUnit,
    Unit,
    UnitResult,
    UnitWriter,
    batch_key,
    load_unit,
    make_unit,
    read_span,
    span_wire,
    unit_ranges,
    write_batch_count,
)
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms.examples import ExampleSampler
from kcorpus.transforms.readers import as_options
from kcorpus.transforms.record import DeadLetter

READ_COUNTERS = ("read:documents", "read:dead_letter")


class PrepareUnitFn(PrepareBatchFn):
    """`(source index, Unit)` -> the unit's outputs, as `PrepareBatchFn`'s (counts; tagged `meta`, `run`,
    `dead_letter`, `examples`); `(source index, DeadLetter)` (a pattern that matched nothing) is prepared as is.
    """

    counts_metrics = False

    def __init__(
        self,
        config: CorpusConfig,
        tmp_dir: str,
        units_dir: str,
        sources: Sequence[BatchSource],
        batch_size: int,
    ) -> None:
        super().__init__(config, tmp_dir)
        self.units_dir, self.batch_sources, self.batch_size = units_dir, tuple(sources), batch_size

    def setup(self) -> None:
        super().setup()
        self.read_options = [as_options(s.options) for s in self.batch_sources]

    def start_bundle(self) -> None:
        super().start_bundle()
        self.writer: UnitWriter | None = None

    def process(
        self, element: tuple[int, Unit | BatchUnit | DeadLetter], eval_index: Any = None
    ) -> Iterator[Any]:
        index, work = element
        source = self.batch_sources[index]
        if isinstance(work, DeadLetter):
            result = self._prepare([[(source.source, work)]], eval_index)
            progress.add("read", records=1)
        elif isinstance(work, BatchUnit):
            result = self._batch_unit(work, index, eval_index)
        else:
            result = load_unit(self.units_dir, work.key)
            if result is None:
                self.writer = UnitWriter(self.units_dir, work.key)
                options = self.read_options[index]
                batches = read_batches(source, options, work.path, work.start, work.end, self.batch_size)
                result = self._prepare(batches, eval_index, work.nbytes)
            else:
                progress.add("read", records=_records_read(result), nbytes=result.nbytes)
        yield from _emit(result)

    def _batch_unit(self, work: BatchUnit, index: int, eval_index: Any) -> UnitResult:
        """A batch of a whole file: prepared and committed, or (no batch: finished when it was read) loaded."""
        if work.batch is not None:
            self.writer = UnitWriter(self.units_dir, work.key)
            source, options = self.batch_sources[index], self.read_options[index]
            batch = [(name, record_of(item, source.fmt, options, name)) for name, item in work.batch]
            return self._prepare([batch], eval_index)
        result = load_unit(self.units_dir, work.key)
        if result is None:
            raise RuntimeError(
                f"input unit {work.key} was finished when its file was read, and is gone from "
                f"{self.units_dir}: was the folder changed during the build? Run it again"
            )
        return result

    def _prepare(self, batches: Any, eval_index: Any, nbytes: int = 0) -> UnitResult:
        """Prepares every batch of a unit and commits the result (a DeadLetter's is not written: no writer)."""
        self.examples = ExampleSampler()
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        dead_letters = []
        meta = []
        for batch in batches:
            for out in super().process(batch, eval_index):
                tag = getattr(out, "tag", None)
                if tag is None:
                    counts[out[0]] += out[1]
                elif tag == "meta" and self.writer is not None:
                    self.writer.add_meta(out.value)
                elif tag == "meta":
                    meta.append(out.value)
                elif tag == "dead_letter":
                    dead_letters.append(out.value)
        self._flush()
        result = self.writer.result if self.writer is not None else UnitResult()
        result.counts = sorted(counts.items())
        result.dead_letters = dead_letters
        result.examples = self.examples.drain()
        result.nbytes = nbytes
        if self.writer is None:
            result.meta = meta  # batches themselves: a DeadLetter gives none
            return result
        result = self.writer.commit()
        self.writer = None
        return result

    def _flush(self) -> list[tuple[str, int, str]]:
        """A unit's buffered records go to its data file as sorted runs (emitted when the unit is done)."""
        if self.writer is not None:
            for (kind, shard), records in sorted(self.buffers.items()):
                self.writer.add_run(kind, shard, records)
        self.buffers.clear()
        self.buffered = 0
        return []

    def finish_bundle(self) -> Iterator[Any]:
        progress.flush()
        return iter(())


class CutWholeFiles(beam.DoFn):
    """`(source index, Unit)` of a file read whole -> `(source index, BatchUnit)` per batch (a finished batch
    without its records); ranges and dead letters pass unchanged. Records each file's batch count."""

    def __init__(self, units_dir: str, sources: Sequence[BatchSource], batch_size: int) -> None:
        self.units_dir, self.batch_sources, self.batch_size = units_dir, tuple(sources), batch_size

    def setup(self) -> None:
        self.read_options = [as_options(s.options) for s in self.batch_sources]

    def process(self, element: tuple[int, Any]) -> Iterator[tuple[int, Any]]:
        index, work = element
        if not isinstance(work, Unit) or work.end >= 0:
            yield element
            return
        source, options, size = self.batch_sources[index], self.read_options[index], self.batch_size
        count = 0
        for k, batch in enumerate(read_batches(source, options, work.path, 0, -1, size, pages=True)):
            key = batch_key(work.key, size, k)
            done = fs.exists(fs.join(self.units_dir, key + DONE_SUFFIX))
            yield index, BatchUnit(key, None if done else batch)
            count = k + 1
        write_batch_count(self.units_dir, work.key, size, count)

    def finish_bundle(self) -> None:
        progress.flush()


def plan_units(sources: Sequence[BatchSource], identity: str) -> list[tuple[int, Unit | DeadLetter]]:
    """Every source's files as units (`(source index, Unit)`), and a DeadLetter for a pattern that matches
    nothing; in source, pattern and file order."""
    from kcorpus.pipeline.corpus.read import MatchFiles
    from kcorpus.pipeline.corpus.read_batches import splittable_range
    from kcorpus.transforms.readers import reader_for

    planned: list[tuple[int, Unit | DeadLetter]] = []
    for index, source in enumerate(sources):
        options = as_options(source.options)
        matcher = MatchFiles(source.fmt, options)
        for pattern in source.patterns:
            for out in matcher.process(pattern):
                if getattr(out, "tag", None) == "dead_letter":
                    planned.append((index, out.value))
                    continue
                metadata = getattr(out, "value", out)
                path, size = metadata.path, metadata.size_in_bytes
                splittable = splittable_range(reader_for(source.fmt), path, options)
                for rng in unit_ranges(size, splittable):
                    planned.append((index, make_unit(identity, index, source.source, path, size, rng)))
    return planned


def _records_read(result: UnitResult) -> int:
    return sum(
        n for (_, name), n in result.counts if name in READ_COUNTERS or name.startswith("read:dropped:")
    )


def _emit(result: UnitResult) -> Iterator[Any]:
    """A unit's outputs, from its result: runs, dedup keys (read back from its data file), dead letters,
    examples, and its counts (Beam counters incremented here, once per run of the pipeline)."""
    for kind, shard, segment in result.runs:
        yield beam.pvalue.TaggedOutput("run", (kind, shard, span_wire(segment)))
    for item in result.meta:
        batches = read_span(item) if not isinstance(item, list) else [item]
        for batch in batches:
            yield beam.pvalue.TaggedOutput("meta", batch)
    for dead in result.dead_letters:
        yield beam.pvalue.TaggedOutput("dead_letter", dead)
    for example in result.examples:
        yield beam.pvalue.TaggedOutput("examples", example)
    for (source, name), n in result.counts:
        Metrics.counter(METRICS_NAMESPACE, name).inc(n)
        yield (source, name), n


class PrepareUnits(beam.PTransform):
    """`(source index, Unit | DeadLetter)` elements -> `{counts, meta, run, dead_letter, examples}` (`run`:
    `(kind, shard, span_wire)`); with `whole_files`, files read whole are first cut into batch units, spread
    over the workers again."""

    TAGS = ("counts", "meta", "run", "dead_letter", "examples")

    def __init__(
        self,
        config: CorpusConfig,
        tmp_dir: str,
        units_dir: str,
        sources: Sequence[BatchSource],
        batch_size: int,
        eval_index: beam.PCollection | None = None,
        whole_files: bool = False,
    ) -> None:
        super().__init__()
        self.fn = PrepareUnitFn(config, tmp_dir, units_dir, sources, batch_size)
        self.cut = CutWholeFiles(units_dir, sources, batch_size) if whole_files else None
        self.eval_index = eval_index

    def expand(self, units: beam.PCollection) -> Any:
        side = [] if self.eval_index is None else [beam.pvalue.AsSingleton(self.eval_index)]
        if self.cut is not None:
            cut = beam.ParDo(Metered("CutWholeFiles", self.cut))
            units = units | "CutWholeFiles" >> cut | "SpreadBatches" >> beam.Reshuffle()
        return units | "PrepareUnits" >> beam.ParDo(Metered("PrepareUnits", self.fn), *side).with_outputs(
            "meta", "run", "dead_letter", "examples", main="counts"
        )
