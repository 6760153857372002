"""`ReadBatches`: a source's records as batches `[(source, record), ...]`, one Beam element per batch.

The same records as `readers_beam.ReadDocuments` (the same `parse_line` / `read_file`, ids that depend only
on byte offsets), without a Beam element per line: per-element overhead dominates on the local runner, and
build-corpus prepares documents in batches anyway. Line-based files are cut into byte ranges (a range owns
the lines that start inside it) so one large file still spreads over workers; compressed and non-line
files are read whole, one file per element. Comment threads (`thread_field`) and raw dumps need a
grouping step, so those sources fall back to `ReadDocuments`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import apache_beam as beam

from kcorpus.transforms.readers import (
    STREAM_ERRORS,
    as_options,
    is_line_splittable,
    needs_header,
    open_binary,
    parse_line,
    read_file,
    threaded,
)
from kcorpus.transforms.record import DeadLetter

# Small enough that the local runner, which partitions a stage's elements statically, balances workers.
RANGE_BYTES = 4 << 20
_COMPRESSED = (".gz", ".bz2", ".zst", ".zip", ".xz")


def uses_fast_path(fmt: str, options: Mapping[str, Any] | None) -> bool:
    """Whether `ReadBatches` reads this source itself (else it delegates to `ReadDocuments`)."""
    return fmt != "wiki-dump" and not threaded(fmt, as_options(options))


def byte_ranges(path: str, size: int, range_bytes: int, splittable: bool) -> list[tuple[str, int, int]]:
    """`(path, start, end)` ranges covering a file; `end == -1` means the whole file, read by `read_file`."""
    if not splittable or path.endswith(_COMPRESSED) or size <= 0:
        return [(path, 0, -1)]
    return [(path, start, min(start + range_bytes, size)) for start in range(0, size, range_bytes)]


class ReadRangeBatches(beam.DoFn):
    """Reads one range or whole file into batches of `(source, record)`."""

    def __init__(self, fmt: str, options: Mapping[str, Any] | None, source: str, batch_size: int) -> None:
        self.fmt, self.options, self.source, self.batch_size = fmt, options, source, batch_size

    def setup(self) -> None:
        self._options = as_options(self.options)

    def process(self, element: tuple[str, int, int]) -> Iterator[list[tuple[str, Any]]]:
        path, start, end = element
        records = (
            read_file(self.fmt, path, self._options, self.source)
            if end < 0
            else self._range(path, start, end)
        )
        batch: list[tuple[str, Any]] = []
        for record in records:
            batch.append((self.source, record))
            if len(batch) >= self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def _range(self, path: str, start: int, end: int) -> Iterator[Any]:
        fmt, options, source = self.fmt, self._options, self.source
        position = start
        try:
            header = None
            if needs_header(fmt, path, options):
                with open_binary(path) as stream:
                    header = stream.readline()
            with open_binary(path) as stream:
                if start > 0:
                    # The line straddling `start` belongs to the previous range.
                    stream.seek(start - 1)
                    position = start - 1 + len(stream.readline())
                while position < end:
                    raw = stream.readline()
                    if not raw:
                        return
                    yield from parse_line(fmt, path, position, raw, options, source, header=header)
                    position += len(raw)
        except STREAM_ERRORS as err:
            yield DeadLetter(path, f"corrupt_file: {err}", offset=position, stage="read")


class ReadBatches(beam.PTransform):
    """Batches of `(source, record)` for one source's patterns (Document, DeadLetter or Dropped records)."""

    def __init__(
        self,
        fmt: str,
        patterns: list[str],
        options: Mapping[str, Any] | None,
        source: str,
        batch_size: int = 1000,
        range_bytes: int = RANGE_BYTES,
    ) -> None:
        super().__init__()
        self.fmt, self.patterns, self.options, self.source = fmt, patterns, options, source
        self.batch_size, self.range_bytes = batch_size, range_bytes

    def expand(self, pbegin: Any) -> beam.PCollection:
        from kcorpus.transforms.readers_beam import MatchFiles

        fmt, source, range_bytes = self.fmt, self.source, self.range_bytes
        options = as_options(self.options)
        matched = (
            pbegin
            | "Patterns" >> beam.Create(self.patterns)
            | "MatchFiles"
            >> beam.ParDo(MatchFiles(fmt, options)).with_outputs("dead_letter", "whole", main="files")
        )
        batches = (
            (matched.files, matched.whole)
            | "AllFiles" >> beam.Flatten()
            | "ByteRanges"
            >> beam.FlatMap(
                lambda m: byte_ranges(
                    m.path, m.size_in_bytes, range_bytes, is_line_splittable(fmt, m.path, options)
                )
            )
            | "SpreadRanges" >> beam.Reshuffle()
            | "ReadRanges" >> beam.ParDo(ReadRangeBatches(fmt, self.options, source, self.batch_size))
        )
        unmatched = matched.dead_letter | "UnmatchedAsBatches" >> beam.Map(lambda dl: [(source, dl)])
        return (batches, unmatched) | "AllBatches" >> beam.Flatten()
