"""The files of a build-corpus output: found (`resolve_corpus`), read in ranges of whole lines
(`read_corpus_range`, records and line numbers those of one pass over the file), batched for the tokenizer
(`batch_documents`); `ReadCorpus` spreads the pack's input units (pipeline/pack/units.py) over the workers,
and, for a corpus of few units, cuts them into batch units spread again.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import (
    DirectOptions,
    PipelineOptions,
    StandardOptions,
    WorkerOptions,
)

from kcorpus.pipeline import filesystems as fs  # (registers remote paths with transforms.files)
from kcorpus.pipeline import progress
from kcorpus.pipeline.corpus.units import DONE_SUFFIX, BatchUnit, Unit, batch_key, write_batch_count
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms import files
from kcorpus.transforms.corpus_layout import (
    COMPRESSIONS,
    LAYOUTS,
    NO_COMPRESSION,
    STATS_FILE,
    docs_shard,
    text_shard,
)
from kcorpus.transforms.pack.corpus_files import parse_corpus_bytes
from kcorpus.transforms.record import DeadLetter, Document

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class CorpusInput:
    """The resolved input: layout, sorted file list and total size."""

    layout: str
    files: tuple[str, ...]
    total_bytes: int


def resolve_corpus(corpus: str, input_format: str = "auto") -> CorpusInput:
    """Find `docs/*.jsonl` (preferred) or `text/*.txt` under the corpus directory.

    When the corpus has a `stats.json` (a build-corpus output), only the shards it lists are read: a stray
    file dropped beside them is named in a warning and left out, a missing shard is an error, and a corpus
    that kept no document at all is refused (ValueError) with the rule that dropped the most.
    """
    stats = corpus_stats(corpus)
    if stats is not None:
        refuse_empty(corpus, stats)
    layouts = list(LAYOUTS) if input_format == "auto" else [input_format]
    for layout in layouts:
        patterns = [FileSystems.join(corpus, glob) for glob in LAYOUTS[layout]]
        matched = [m for found in FileSystems.match(patterns) for m in found.metadata_list]
        if matched:
            sizes = {m.path: m.size_in_bytes for m in matched}
            files = sorted(sizes) if stats is None else listed_shards(corpus, layout, stats, sorted(sizes))
            return CorpusInput(layout, tuple(files), sum(sizes[f] for f in files))
    wanted = " or ".join(FileSystems.join(corpus, glob) for layout in layouts for glob in LAYOUTS[layout])
    raise FileNotFoundError(f"no corpus files: nothing matches {wanted}")


def corpus_stats(corpus: str) -> dict[str, Any] | None:
    """The corpus's stats.json, or None where there is none (a corpus folder made by hand)."""
    path = FileSystems.join(corpus, STATS_FILE)
    if not FileSystems.exists(path):
        return None
    with FileSystems.open(path) as f:
        try:
            stats = json.loads(f.read())
        except ValueError as err:
            raise ValueError(f"{path}: not a build-corpus stats file: {err}") from None
    return stats if isinstance(stats, dict) else None


def refuse_empty(corpus: str, stats: dict[str, Any]) -> None:
    """ValueError naming what dropped every document, when build-corpus kept none."""
    total = stats.get("total") or {}
    if total.get("kept", 1) != 0:
        return
    reasons = sorted((total.get("dropped_by_reason") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    why = ", ".join(f"{reason} {n:,}" for reason, n in reasons[:3]) or "no record read"
    raise ValueError(
        f"--corpus {corpus}: build-corpus kept no document ({total.get('input', 0):,} records in, "
        f"{total.get('dropped', 0):,} dropped: {why}; {total.get('dead_lettered', 0):,} dead-lettered); "
        f"nothing to pack"
    )


def listed_shards(corpus: str, layout: str, stats: dict[str, Any], matched: list[str]) -> list[str]:
    """The shards build-corpus wrote (`output.num_shards` and `compression` in stats.json); others are named
    and left out."""
    output = stats.get("output") or {}
    num_shards, compression = output.get("num_shards"), output.get("compression", NO_COMPRESSION)
    if not isinstance(num_shards, int) or num_shards < 1 or compression not in COMPRESSIONS:
        return matched
    shard = docs_shard if layout == "docs" else text_shard
    listed = [FileSystems.join(corpus, shard(i, num_shards, compression=compression)) for i in range(num_shards)]
    missing = sorted(set(listed) - set(matched))
    if missing:
        raise FileNotFoundError(
            f"--corpus {corpus}: {len(missing)} of the {num_shards} shards its stats.json lists are missing "
            f"({missing[0]}{', ...' if len(missing) > 1 else ''}); rebuild the corpus"
        )
    stray = sorted(set(matched) - set(listed))
    if stray:
        log.warning(
            "--corpus %s: %d file(s) that build-corpus did not write are not packed: %s",
            corpus, len(stray), ", ".join(stray[:5]) + (", ..." if len(stray) > 5 else ""),
        )
    return listed


# Workers a distributed runner is assumed to run when neither --max_num_workers nor --num_workers says.
REMOTE_WORKERS = 32


def spread_batches(job: PackJob, num_units: int, options: PipelineOptions) -> bool:
    """Whether to reshuffle document batches between reading and tokenizing (each batch then a unit of its
    own). `auto`: only when there are fewer than two input units per worker (units are read one per worker,
    so with enough of them the read fuses with tokenizing and no text crosses a shuffle, and every unit
    leaves one run per shard, where a batch unit would leave one per 256 KB). The workers: the local
    runner's, or a distributed runner's `--max_num_workers`, else `--num_workers`, else `REMOTE_WORKERS`."""
    if job.reshuffle_batches != "auto":
        return job.reshuffle_batches == "always"
    if options.view_as(StandardOptions).runner is not None:
        given = options.view_as(WorkerOptions)
        workers = given.max_num_workers or given.num_workers or REMOTE_WORKERS
    else:
        workers = options.view_as(DirectOptions).direct_num_workers or 1
    return num_units < 2 * workers


def _lines_of_range(raw: Any, length: int) -> Iterator[bytes]:
    for line in raw:
        yield line
        length -= len(line)
        if length <= 0:
            return


def read_corpus_range(path: str, layout: str, start: int, end: int, first_line: int) -> Iterator[Document | DeadLetter]:
    """The records of the lines in `[start, end)`, a range of `line_ranges` that starts at line `first_line`; a
    compressed file's ranges are of its decompressed bytes (what comes before `start` is decompressed and
    skipped); `end < 0`: the whole file, decompressed. A file that cannot be decompressed is one dead letter."""
    if end < 0 or files.is_compressed(path):
        try:
            with files.open_binary(path) as stream:
                lines = stream if end < 0 else _lines_of_range(_skip(stream, start), end - start)
                yield from parse_corpus_bytes(path, layout, lines, first_line)
        except files.STREAM_ERRORS as err:
            yield DeadLetter(path, f"corrupt_file: {err}", stage="pack")
        return
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
        raw.seek(start)
        yield from parse_corpus_bytes(path, layout, _lines_of_range(raw, end - start), first_line)


def _skip(stream: Any, nbytes: int) -> Any:
    """`stream` after reading (and dropping) its next `nbytes` bytes, a MB at a time."""
    while nbytes > 0:
        chunk = stream.read(min(nbytes, 1 << 20))
        if not chunk:
            raise EOFError(f"the file ends {nbytes} bytes before the range starts")
        nbytes -= len(chunk)
    return stream


# (id, text, source): documents travel between stages as plain tuples so Beam's fast coder handles them
DocTuple = tuple[str, str, str]


def batch_documents(
    records: Iterable[Document | DeadLetter], max_docs: int, max_bytes: int
) -> Iterator[list[DocTuple] | DeadLetter]:
    """Group documents into batches for one tokenizer call (by count and text size); pass dead letters on."""
    batch: list[DocTuple] = []
    size = 0
    for record in records:
        if isinstance(record, DeadLetter):
            yield record
            continue
        batch.append((record.id, record.text, record.source))
        size += len(record.text)
        if len(batch) >= max_docs or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class ReadCorpus(beam.PTransform):
    """The pack's input units (`units.plan_units`) spread over the workers; with `spread`, each unit read and
    cut into batch units (`BatchUnit`), spread again, with unusable lines on the `dead_letter` output."""

    def __init__(self, units: list[Any], layout: str, units_dir: str, max_docs: int, max_bytes: int,
                 spread: bool = False):
        super().__init__()
        self._units, self._spread = units, spread
        self._cut = _CutUnits(layout, units_dir, max_docs, max_bytes, spread)

    def expand(self, pbegin):
        cut = (
            pbegin
            | "ListUnits" >> beam.Create(self._units, reshuffle=False)
            | "SpreadUnits" >> beam.Reshuffle()
            | "CutUnits" >> beam.ParDo(Metered("CutUnits", self._cut)).with_outputs("dead_letter", main="units")
        )
        units = cut.units
        if self._spread:
            # spreads the batches of a few large units over all workers, at the cost of a shuffle of all text
            units = units | "SpreadBatches" >> beam.Reshuffle()
        return {"units": units, "dead_letter": cut.dead_letter}


class _CutUnits(beam.DoFn):
    """`(first line, Unit)` -> itself, or with `spread` its batches as `(0, BatchUnit)` (a finished batch
    without its documents) and its unusable lines as dead letters; records each unit's batch count."""

    def __init__(self, layout: str, units_dir: str, max_docs: int, max_bytes: int, spread: bool):
        self._layout, self._units_dir, self._spread = layout, units_dir, spread
        self._max_docs, self._max_bytes = max_docs, max_bytes
        self._dead = Metrics.counter("pack", "pack:documents:dead_letter")

    def process(self, element: tuple[int, Unit]):
        if not self._spread:
            yield element
            return
        first_line, unit = element
        records = read_corpus_range(unit.path, self._layout, unit.start, unit.end, first_line)
        count = 0
        for item in batch_documents(records, self._max_docs, self._max_bytes):
            if isinstance(item, DeadLetter):
                self._dead.inc()
                yield beam.pvalue.TaggedOutput("dead_letter", item)
                continue
            key = batch_key(unit.key, self._max_docs, count)
            done = fs.exists(fs.join(self._units_dir, key + DONE_SUFFIX))
            yield 0, BatchUnit(key, None if done else item)
            count += 1
        write_batch_count(self._units_dir, unit.key, self._max_docs, count)
        progress.add("read", nbytes=unit.nbytes)

    def finish_bundle(self):
        progress.flush()
