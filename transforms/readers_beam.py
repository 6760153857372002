"""`ReadDocuments`: the Beam shell over `readers`, splitting large line-based files across workers.

Line-based files (NSMC, text, JSONL, petitions, comments other than CSV) are read as byte ranges by
`LineRecordSource`, which yields `(offset, raw line)`; `parse_line` turns each into a record whose id depends
only on the offset, so any split gives the same documents as one pass. Other formats are read whole, one file
per element, after a reshuffle that spreads files over workers; dump pages are reshuffled again before the
costly wikitext conversion.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filebasedsource import FileBasedSource, ReadAllFiles
from apache_beam.io.filesystem import BeamIOError, CompressionTypes, FileMetadata
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from kcorpus.transforms.readers import (
    FORMATS,
    CommentRow,
    ReadOptions,
    _walk,
    as_options,
    is_line_splittable,
    is_remote,
    iter_dump_pages_of,
    iter_records,
    needs_header,
    open_binary,
    parse_line,
    reason_code,
    thread_document,
    threaded,
)
from kcorpus.transforms.record import DeadLetter, Document, Dropped
from kcorpus.transforms.wiki import DumpPage, page_record

DEFAULT_BUNDLE_BYTES = 64 << 20
COUNTER_NAMESPACE = "kcorpus"


class LineRecordSource(FileBasedSource):
    """`(byte offset, raw line)` records of one file; a range owns the lines that start inside it."""

    def __init__(self, file_name: str) -> None:
        super().__init__(file_name, compression_type=CompressionTypes.AUTO, splittable=True, validate=False)

    def read_records(self, file_name: str, range_tracker: Any) -> Iterator[tuple[int, bytes]]:
        start = range_tracker.start_position()
        with self.open_file(file_name) as stream:
            position = 0
            if start > 0:
                # The line straddling `start` belongs to the previous range: skip to the byte after its end.
                stream.seek(start - 1)
                position = start - 1 + len(stream.readline())
            while range_tracker.try_claim(position):
                raw = stream.readline()
                if not raw:
                    return
                yield position, raw
                position += len(raw)


def line_record_source(file_name: str) -> LineRecordSource:
    return LineRecordSource(file_name)


class MatchFiles(beam.DoFn):
    """File metadata for each pattern; a pattern matching nothing (or failing) is a DeadLetter."""

    def __init__(self, fmt: str) -> None:
        self._fmt = fmt

    def process(self, pattern: str) -> Iterator[Any]:
        if not is_remote(pattern) and os.path.isdir(pattern):
            if self._fmt in ("modu", "hf-datasets"):
                yield FileMetadata(pattern, 0)
            else:
                for path in _walk(pattern):
                    yield FileMetadata(path, os.path.getsize(path))
            return
        try:
            matched = FileSystems.match([pattern])[0].metadata_list
        except (BeamIOError, OSError) as err:
            yield beam.pvalue.TaggedOutput("dead_letter", DeadLetter(pattern, f"unreadable_file: {err}"))
            return
        if not matched:
            yield beam.pvalue.TaggedOutput("dead_letter", DeadLetter(pattern, "unreadable_file: no file matches"))
        yield from sorted(matched, key=lambda m: m.path)


class ParseLines(beam.DoFn):
    """`parse_line` over `(path, (offset, raw))`, reading a TSV file's header once per worker."""

    def __init__(self, fmt: str, options: ReadOptions, source: str) -> None:
        self._fmt, self._options, self._source = fmt, options, source
        self._headers: dict[str, bytes] = {}

    def _header(self, path: str) -> bytes | None:
        if not needs_header(self._fmt, path, self._options):
            return None
        if path not in self._headers:
            with open_binary(path) as stream:
                self._headers[path] = stream.readline()
        return self._headers[path]

    def process(self, element: tuple[str, tuple[int, bytes]]) -> Iterator[Any]:
        path, (offset, raw) = element
        yield from parse_line(self._fmt, path, offset, raw, self._options, self._source,
                              header=self._header(path))


def _dump_page_record(page: DumpPage | DeadLetter, path: str, options: ReadOptions, source: str) -> Any:
    if isinstance(page, DeadLetter):
        return page
    return page_record(page, path, source, namespaces=options.namespaces, with_title=options.title)


class ClassifyRecords(beam.DoFn):
    """Route records to documents / dead_letter / dropped, counting `read:<source>:<outcome>`."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._counters: dict[str, Any] = {}

    def _count(self, outcome: str) -> None:
        name = f"read:{self._source}:{outcome}"
        if name not in self._counters:
            self._counters[name] = Metrics.counter(COUNTER_NAMESPACE, name)
        self._counters[name].inc()

    def process(self, record: Document | DeadLetter | Dropped) -> Iterator[Any]:
        if isinstance(record, Document):
            self._count("documents")
            yield record
        elif isinstance(record, DeadLetter):
            self._count("dead_letter")
            self._count(f"dead_letter:{reason_code(record.reason)}")
            yield beam.pvalue.TaggedOutput("dead_letter", record)
        else:
            self._count("dropped")
            self._count(f"dropped:{record.reason}")
            yield beam.pvalue.TaggedOutput("dropped", record)


class ReadDocuments(beam.PTransform):
    """Read files of one format into `{"documents", "dead_letter", "dropped"}` PCollections.

    Args:
        fmt: one of `readers.FORMATS`.
        patterns: file patterns (local or gs://); folders for `modu` and `hf-datasets`.
        options: `ReadOptions` or a dict of them.
        source: the source name in ids, records and counters (default: the format).
        bundle_bytes: byte-range size that line-based files are split into.
        rebalance: reshuffle the documents so that few large inputs still spread over all workers.
    """

    def __init__(self, fmt: str, patterns: Sequence[str], options: ReadOptions | Mapping[str, Any] | None = None,
                 source: str | None = None, *, bundle_bytes: int = DEFAULT_BUNDLE_BYTES,
                 rebalance: bool = True) -> None:
        super().__init__()
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
        if isinstance(patterns, str):
            patterns = [patterns]
        self._fmt, self._patterns = fmt, list(patterns)
        self._options, self._source = as_options(options), source or fmt
        self._bundle_bytes, self._rebalance = bundle_bytes, rebalance

    def expand(self, pbegin: beam.pvalue.PBegin) -> dict[str, beam.PCollection]:
        fmt, options, source = self._fmt, self._options, self._source
        matched = (pbegin
                   | "Patterns" >> beam.Create(self._patterns)
                   | "MatchFiles" >> beam.ParDo(MatchFiles(fmt)).with_outputs("dead_letter", main="files"))
        by_line, whole = matched.files | "BySplittability" >> beam.Partition(
            lambda m, _: 0 if is_line_splittable(fmt, m.path, options) else 1, 2)
        line_records = (by_line
                        | "ReadLineRanges" >> ReadAllFiles(True, CompressionTypes.AUTO, self._bundle_bytes, 0,
                                                           line_record_source, with_filename=True)
                        | "ParseLines" >> beam.ParDo(ParseLines(fmt, options, source)))
        files = whole | "SpreadFiles" >> beam.Reshuffle()
        if fmt == "wiki-dump":
            file_records = (files
                            | "ReadPages" >> beam.FlatMap(lambda m: ((m.path, p) for p in iter_dump_pages_of(m.path)))
                            | "SpreadPages" >> beam.Reshuffle()
                            | "PagesToText" >> beam.MapTuple(
                                lambda path, page: _dump_page_record(page, path, options, source)))
        else:
            file_records = files | "ReadFiles" >> beam.FlatMap(
                lambda m: iter_records(fmt, m.path, options, source))
        records = (line_records, file_records, matched.dead_letter) | "MergeRecords" >> beam.Flatten()
        if threaded(fmt, options):
            rows, others = records | "SplitThreadRows" >> beam.Partition(
                lambda r, _: 0 if isinstance(r, CommentRow) else 1, 2)
            threads = (rows
                       | "KeyByThread" >> beam.Map(lambda r: (r.thread, r))
                       | "GroupThreads" >> beam.GroupByKey()
                       | "JoinThreads" >> beam.MapTuple(lambda thread, rs: thread_document(thread, rs, source)))
            records = (others, threads) | "MergeThreads" >> beam.Flatten()
        outputs = records | "Classify" >> beam.ParDo(ClassifyRecords(source)).with_outputs(
            "dead_letter", "dropped", main="documents")
        documents = outputs.documents
        if self._rebalance:
            documents = documents | "Rebalance" >> beam.Reshuffle()
        return {"documents": documents, "dead_letter": outputs.dead_letter, "dropped": outputs.dropped}
