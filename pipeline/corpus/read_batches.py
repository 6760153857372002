"""`ReadBatches`: a source's records as batches `[(source, record), ...]`, one Beam element per batch.

The same records as `read.ReadDocuments` (the same `LineParser` / `read_file`, ids that depend only
on byte offsets), without a Beam element per line: per-element overhead dominates on the local runner, and
build-corpus prepares documents in batches anyway. Line-based files are cut into byte ranges (a range owns
the lines that start inside it) so one large file still spreads over workers; compressed and non-line
files are read whole, one file per element. Several sources share one read step (`ReadSourceBatches`).
build-corpus reads every source in input units this way; comment threads (`thread_field`) are joined across
files first (pipeline/corpus/threads.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import apache_beam as beam

from kcorpus.pipeline import (
    filesystems,  # noqa: F401  (registers remote paths with transforms.files)
    progress,
)
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms.files import is_compressed
from kcorpus.transforms.readers import as_options, read_file, reader_for
from kcorpus.transforms.record import DeadLetter

# Small enough that the local runner, which partitions a stage's elements statically, balances workers.
RANGE_BYTES = 4 << 20
# A batch also ends at this much text, so that batches (a stage's elements) are about equal in work whatever
# the documents' length: 1000 comments or a few dozen articles.
BATCH_TEXT_CHARS = 256 << 10


@dataclasses.dataclass(frozen=True)
class UnreadPage:
    """A page of a dump (`Reader.has_pages`) as read, before the costly conversion to its record
    (`Reader.page_record`), which the worker that prepares its batch does."""

    path: str
    page: Any


def splittable_range(reader: Any, path: str, options: Any) -> bool:
    """Whether a file can be read in byte ranges (a compressed file is read whole)."""
    return reader.range_readable(path, options) and not (path.endswith(".zip") or is_compressed(path))


def byte_ranges(path: str, size: int, range_bytes: int, splittable: bool) -> list[tuple[str, int, int]]:
    """`(path, start, end)` ranges covering a file; `end == -1` means the whole file, read by `read_file`
    (a compressed file, by its suffix or its first bytes, is always read whole)."""
    if not splittable or size <= 0 or path.endswith(".zip") or is_compressed(path):
        return [(path, 0, -1)]
    return [(path, start, min(start + range_bytes, size)) for start in range(0, size, range_bytes)]


@dataclasses.dataclass(frozen=True)
class BatchSource:
    """One source read by `ReadBatches`: its reader format, file patterns, reader options and name."""

    fmt: str
    patterns: tuple[str, ...]
    options: Mapping[str, Any] | None
    source: str


class PlanRanges(beam.DoFn):
    """`(source index, pattern)` -> `(source index, (path, start, end))` ranges, or a DeadLetter for a
    pattern that matches nothing (`(source index, DeadLetter)`)."""

    def __init__(self, sources: Sequence[BatchSource], range_bytes: int) -> None:
        self.sources, self.range_bytes = tuple(sources), range_bytes

    def setup(self) -> None:
        from kcorpus.pipeline.corpus.read import MatchFiles

        self._options = [as_options(s.options) for s in self.sources]
        self._matchers = [MatchFiles(s.fmt, o) for s, o in zip(self.sources, self._options, strict=True)]

    def process(self, element: tuple[int, str]) -> Iterator[tuple[int, Any]]:
        index, pattern = element
        fmt, options = self.sources[index].fmt, self._options[index]
        for out in self._matchers[index].process(pattern):
            tag = getattr(out, "tag", None)
            value = getattr(out, "value", out)
            if tag == "dead_letter":
                yield index, value
                continue
            splittable = reader_for(fmt).range_readable(value.path, options)
            for rng in byte_ranges(value.path, value.size_in_bytes, self.range_bytes, splittable):
                yield index, rng


def read_batches(
    source: BatchSource, options: Any, path: str, start: int, end: int, batch_size: int, pages: bool = False
) -> Iterator[list[tuple[str, Any]]]:
    """One range of a file (`end == -1`: the whole file) as batches of `(source, record)`, counted as read.
    With `pages`, a dump's pages come as `UnreadPage`s (`record_of` converts them)."""
    reader = reader_for(source.fmt)
    records: Iterator[Any]
    if end < 0 and pages and reader.has_pages:
        records = (UnreadPage(path, page) for page in reader.pages(path))
    elif end < 0:
        records = read_file(source.fmt, path, options, source.source)
    else:
        records = reader.read_range(path, options, source.source, start, end)
    batch: list[tuple[str, Any]] = []
    chars = 0
    for record in records:
        batch.append((source.source, record))
        chars += _text_chars(record)
        if len(batch) >= batch_size or chars >= BATCH_TEXT_CHARS:
            yield batch
            progress.add("read", records=len(batch))
            batch, chars = [], 0
    if batch:
        yield batch
    progress.add("read", records=len(batch), nbytes=progress.range_bytes(path, start, end))


def _text_chars(record: Any) -> int:
    """The characters of text a batch item holds: a document's, an unread page's wikitext, else none."""
    text = getattr(record.page, "wikitext", None) if isinstance(record, UnreadPage) else getattr(record, "text", None)
    return len(text) if isinstance(text, str) else 0


def record_of(item: Any, fmt: str, options: Any, source: str) -> Any:
    """A batch item as a record: an `UnreadPage` converted (`Reader.page_record`), anything else as it is."""
    if isinstance(item, UnreadPage):
        return reader_for(fmt).page_record(item.page, item.path, options, source)
    return item


class ReadRangeBatches(beam.DoFn):
    """Reads one range or whole file into batches of `(source, record)`."""

    def __init__(self, sources: Sequence[BatchSource], batch_size: int) -> None:
        self.sources, self.batch_size = tuple(sources), batch_size

    def setup(self) -> None:
        self._options = [as_options(s.options) for s in self.sources]

    def process(self, element: tuple[int, Any]) -> Iterator[list[tuple[str, Any]]]:
        index, work = element
        source = self.sources[index]
        if isinstance(work, DeadLetter):
            yield [(source.source, work)]
            progress.add("read", records=1)
            return
        path, start, end = work
        yield from read_batches(source, self._options[index], path, start, end, self.batch_size)

    def finish_bundle(self) -> None:
        progress.flush()


class ReadSourceBatches(beam.PTransform):
    """Batches of `(source, record)` (Document, DeadLetter or Dropped records) for several sources.

    All the sources go through one read step, so the batches come out of a single ParDo and a consumer of
    them is fused with the reading on the local runner, which materializes (pickles and holds in memory)
    every input of a multi-input Flatten.
    """

    def __init__(
        self, sources: Sequence[BatchSource], batch_size: int = 1000, range_bytes: int = RANGE_BYTES
    ) -> None:
        super().__init__()
        if not sources:
            raise ValueError("ReadSourceBatches needs at least one source")
        self.sources, self.batch_size, self.range_bytes = tuple(sources), batch_size, range_bytes

    def expand(self, pbegin: Any) -> beam.PCollection:
        work = [(i, pattern) for i, s in enumerate(self.sources) for pattern in s.patterns]
        return (
            pbegin
            | "Patterns" >> beam.Create(work)
            | "MatchFiles" >> beam.ParDo(PlanRanges(self.sources, self.range_bytes))
            | "SpreadRanges" >> beam.Reshuffle()
            | "ReadRanges"
            >> beam.ParDo(Metered("ReadRanges", ReadRangeBatches(self.sources, self.batch_size)))
        )


class ReadBatches(ReadSourceBatches):
    """`ReadSourceBatches` for one source."""

    def __init__(
        self,
        fmt: str,
        patterns: list[str],
        options: Mapping[str, Any] | None,
        source: str,
        batch_size: int = 1000,
        range_bytes: int = RANGE_BYTES,
    ) -> None:
        super().__init__([BatchSource(fmt, tuple(patterns), options, source)], batch_size, range_bytes)
