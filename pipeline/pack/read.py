"""`ReadCorpus`: the files of a build-corpus output -> batches of documents, unusable lines dead-lettered.

Files are read in byte ranges of whole lines (`line_ranges`, about eight per local worker), so that a corpus of
fewer files than workers still spreads its reading and tokenizing over every worker without a shuffle of
its text; records and line numbers are those of one pass over each file.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from kcorpus.pipeline import (
    filesystems,  # noqa: F401  (registers remote paths with transforms.files)
    progress,
)
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
from kcorpus.transforms.pack.corpus_files import line_ranges, parse_corpus_bytes
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


# Byte ranges a corpus file is read in: about RANGES_PER_WORKER per local worker, within these bounds.
RANGES_PER_WORKER = 8
MIN_RANGE_BYTES = 256 << 10
MAX_RANGE_BYTES = 64 << 20


def range_bytes_for(total_bytes: int, options: PipelineOptions) -> int:
    """The size of the ranges corpus files are read in: the largest on a distributed runner."""
    if options.view_as(StandardOptions).runner is not None:
        return MAX_RANGE_BYTES
    workers = options.view_as(DirectOptions).direct_num_workers or 1
    return int(min(MAX_RANGE_BYTES, max(MIN_RANGE_BYTES, total_bytes / (RANGES_PER_WORKER * workers))))


def estimated_ranges(corpus: CorpusInput, range_bytes: int) -> int:
    """About how many ranges `ReadCorpus` reads (at least one per file)."""
    return max(len(corpus.files), math.ceil(corpus.total_bytes / range_bytes))


def spread_batches(job: PackJob, num_ranges: int, options: PipelineOptions) -> bool:
    """Whether to reshuffle document batches between reading and tokenizing. `auto`: only when the local
    runner has fewer than two ranges per worker (ranges are read one per worker, so with enough of them
    the read fuses with tokenizing and no text crosses a shuffle) or on a distributed runner."""
    if job.reshuffle_batches != "auto":
        return job.reshuffle_batches == "always"
    if options.view_as(StandardOptions).runner is not None:
        return True
    workers = options.view_as(DirectOptions).direct_num_workers or 1
    return num_ranges < 2 * workers


def _lines_of_range(raw: Any, length: int) -> Iterator[bytes]:
    for line in raw:
        yield line
        length -= len(line)
        if length <= 0:
            return


def read_corpus_range(path: str, layout: str, start: int, end: int, first_line: int) -> Iterator[Document | DeadLetter]:
    """The records of the lines in `[start, end)`, a range of `line_ranges` that starts at line `first_line`;
    `end < 0`: the whole file, decompressed (a compressed shard is read in one range)."""
    if end < 0:
        try:
            with files.open_binary(path) as stream:
                yield from parse_corpus_bytes(path, layout, stream, first_line)
        except files.STREAM_ERRORS as err:
            yield DeadLetter(path, f"corrupt_file: {err}", stage="pack")
        return
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
        raw.seek(start)
        yield from parse_corpus_bytes(path, layout, _lines_of_range(raw, end - start), first_line)


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
    """Corpus files -> batches of documents, with unusable lines on the `dead_letter` output."""

    def __init__(self, corpus: CorpusInput, max_docs: int, max_bytes: int, spread: bool = True,
                 range_bytes: int = MAX_RANGE_BYTES):
        super().__init__()
        self._corpus = corpus
        self._fn = _ParseFile(corpus.layout, max_docs, max_bytes)
        self._spread = spread
        self._range_bytes = range_bytes

    def expand(self, pbegin):
        plan = _PlanRanges(self._corpus.layout, self._range_bytes)
        parsed = (
            pbegin
            | "ListFiles" >> beam.Create(list(self._corpus.files))
            | "PlanRanges" >> beam.ParDo(Metered("PlanRanges", plan))
            | "SpreadRanges" >> beam.Reshuffle()
            | "ParseFiles" >> beam.ParDo(Metered("ParseFiles", self._fn)).with_outputs("dead_letter", main="batches")
        )
        batches = parsed.batches
        if self._spread:
            # spreads the batches of a few large files over all workers, at the cost of a shuffle of all text
            batches = batches | "ReshuffleBatches" >> beam.Reshuffle()
        return {"batches": batches, "dead_letter": parsed.dead_letter}


class _PlanRanges(beam.DoFn):
    """A corpus file -> `(path, start, end, first line)` ranges of whole lines."""

    def __init__(self, layout: str, range_bytes: int):
        self._layout = layout
        self._range_bytes = range_bytes

    def process(self, path: str):
        if files.is_compressed(path):
            yield path, 0, -1, 1
            return
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
            for start, end, first_line in line_ranges(raw, self._layout, self._range_bytes):
                yield path, start, end, first_line


class _ParseFile(beam.DoFn):
    def __init__(self, layout: str, max_docs: int, max_bytes: int):
        self._layout = layout
        self._max_docs = max_docs
        self._max_bytes = max_bytes
        self._read = Metrics.counter("pack", "pack:documents:read")
        self._dead = Metrics.counter("pack", "pack:documents:dead_letter")

    def process(self, element: tuple[str, int, int, int]):
        path, start, end, first_line = element
        records = read_corpus_range(path, self._layout, start, end, first_line)
        for item in batch_documents(records, self._max_docs, self._max_bytes):
            if isinstance(item, DeadLetter):
                self._dead.inc()
                yield beam.pvalue.TaggedOutput("dead_letter", item)
            else:
                self._read.inc(len(item))
                yield item
                progress.add("read", records=len(item))
        progress.add("read", nbytes=progress.range_bytes(path, start, end))

    def finish_bundle(self):
        progress.flush()
