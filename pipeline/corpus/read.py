"""`ReadDocuments`: the Beam shell over `readers`, splitting large line-based files across workers.

Line-based files (NSMC, text, JSONL, petitions, comments other than CSV) are read as byte ranges by
`LineRecordSource`, which yields batches of `(offset, raw line)`; `LineParser` turns each line into a record
whose id depends only on the offset, so any split gives the same documents as one pass. Other formats are
read whole, one file per element, after a reshuffle that spreads files over workers; dump pages are
reshuffled again before the costly wikitext conversion.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filebasedsource import FileBasedSource, ReadAllFiles
from apache_beam.io.filesystem import BeamIOError, CompressionTypes, FileMetadata
from apache_beam.metrics import Metrics

from kcorpus.pipeline import (
    filesystems,  # noqa: F401  (registers remote paths with transforms.files)
    progress,
)
from kcorpus.transforms import matching
from kcorpus.transforms.files import (
    STREAM_ERRORS,
    broken_link,
    is_compressed,
    open_binary,
)
from kcorpus.transforms.readers import (
    CommentRow,
    LineParser,
    ReadOptions,
    as_options,
    iter_records,
    reader_for,
    reason_code,
    thread_document,
)
from kcorpus.transforms.record import DeadLetter, Document, Dropped

DEFAULT_BUNDLE_BYTES = 64 << 20
BATCH_LINES = 1000
# Below this, line-based input gives too few byte ranges to spread the later stages: reshuffle documents.
SMALL_INPUT_BYTES = 1 << 30
BATCH_BYTES = 1 << 20
COUNTER_NAMESPACE = "kcorpus"


class LineRecordSource(FileBasedSource):
    """Batches of `(byte offset, raw line)` of one file; a range owns the lines that start inside it.

    Lines are claimed one by one but emitted in batches (`batch_lines` or `batch_bytes`, whichever first),
    since per-element overhead in the runner dwarfs the work of parsing one short line.
    """

    def __init__(self, file_name: str, batch_lines: int = BATCH_LINES, batch_bytes: int = BATCH_BYTES) -> None:
        super().__init__(file_name, compression_type=CompressionTypes.AUTO, splittable=True, validate=False)
        self._batch_lines, self._batch_bytes = batch_lines, batch_bytes

    def read_records(self, file_name: str, range_tracker: Any) -> Iterator[list[tuple[int, bytes | DeadLetter]]]:
        start = range_tracker.start_position()
        if is_compressed(file_name):
            # kcorpus's decompression (not Beam's) so that a truncated stream is an error, as in read_file. Beam
            # splits a file compressed without a known suffix by its size: the range at 0 reads it all.
            if start > 0:
                return
            stream, position, range_tracker = open_binary(file_name), 0, _Unbounded(range_tracker)
        else:
            stream, position = self.open_file(file_name), 0
            if start > 0:
                # The line straddling `start` belongs to the previous range: skip to the byte after its end.
                stream.seek(start - 1)
                position = start - 1 + len(stream.readline())
        batch: list[tuple[int, bytes | DeadLetter]] = []
        size = 0
        with stream:
            try:
                while range_tracker.try_claim(position):
                    raw = stream.readline()
                    if not raw:
                        break
                    batch.append((position, raw))
                    position += len(raw)
                    size += len(raw)
                    if len(batch) >= self._batch_lines or size >= self._batch_bytes:
                        yield batch
                        batch, size = [], 0
            except STREAM_ERRORS as err:
                batch.append((position, DeadLetter(file_name, f"corrupt_file: {err}", None, position)))
        if batch:
            yield batch


class _Unbounded:
    """A range tracker that claims the start of its range and then every position: a decompressed stream's
    offsets are not the compressed file's, which Beam's range is measured in."""

    def __init__(self, tracker: Any) -> None:
        self._tracker, self._claimed = tracker, False

    def try_claim(self, position: int) -> bool:
        if not self._claimed:
            self._claimed = True
            return self._tracker.try_claim(position)
        return True


def line_record_source(file_name: str) -> LineRecordSource:
    return LineRecordSource(file_name)


class MatchFiles(beam.DoFn):
    """File metadata for each pattern: line-splittable files to the main output, others to `whole`.

    A pattern matching nothing (or failing to list) is a DeadLetter on `dead_letter`.
    """

    def __init__(self, fmt: str, options: ReadOptions | None = None) -> None:
        self._reader, self._options = reader_for(fmt), as_options(options)

    def _route(self, metadata: FileMetadata) -> Any:
        if self._reader.splittable(metadata.path, self._options):
            return metadata
        return beam.pvalue.TaggedOutput("whole", metadata)

    def process(self, pattern: str) -> Iterator[Any]:
        try:
            matched = matching.match(pattern, self._reader.folder_is_input)
        except (BeamIOError, OSError, ValueError) as err:
            yield beam.pvalue.TaggedOutput("dead_letter", DeadLetter(pattern, f"unreadable_file: {err}"))
            return
        if not matched:
            yield beam.pvalue.TaggedOutput("dead_letter", DeadLetter(pattern, "unreadable_file: no file matches"))
        for path, size in matched:
            if broken_link(path):
                yield _broken_link_dead_letter(path)
            else:
                yield self._route(FileMetadata(path, size))


def _broken_link_dead_letter(path: str) -> beam.pvalue.TaggedOutput:
    reason = f"unreadable_file: a symbolic link to {broken_link(path)}, which does not exist"
    return beam.pvalue.TaggedOutput("dead_letter", DeadLetter(path, reason))


class ParseLines(beam.DoFn):
    """`LineParser.parse` over `(path, [(offset, raw), ...])`, reading a TSV file's header once per worker."""

    def __init__(self, fmt: str, options: ReadOptions, source: str) -> None:
        self._reader, self._options, self._source = reader_for(fmt), options, source
        self._parsers: dict[str, LineParser] = {}

    def _parser(self, path: str) -> LineParser:
        if path not in self._parsers:
            header = None
            if self._reader.needs_header(path, self._options):
                with open_binary(path) as stream:
                    header = stream.readline()
            self._parsers[path] = LineParser(self._reader, path, self._options, self._source, header)
        return self._parsers[path]

    def process(self, element: tuple[str, list[tuple[int, bytes | DeadLetter]]]) -> Iterator[Any]:
        path, batch = element
        parser = self._parser(path)
        for offset, raw in batch:
            if isinstance(raw, DeadLetter):
                yield raw
            else:
                yield from parser.parse(offset, raw)
        progress.add("read", records=len(batch), nbytes=sum(len(r) for _, r in batch if isinstance(r, bytes)))

    def finish_bundle(self) -> None:
        progress.flush()


def input_bytes(patterns: Sequence[str]) -> int:
    """Total size of the files the patterns match; unknown (a listing error) counts as 0."""
    total = 0
    for pattern in patterns:
        try:
            total += sum(size for _, size in matching.match(pattern))
        except (BeamIOError, OSError, ValueError):
            continue
    return total


def matched_inputs(patterns: Sequence[str]) -> dict[str, Any]:
    """What a source's patterns match, for stats.json and the summaries: `files` and `bytes` in all (a folder
    of a folder format counted by the files under it), and per pattern, so that a pattern (or a folder) that
    matched nothing shows as a 0; a listing error is named."""
    per_pattern = []
    for pattern in patterns:
        try:
            found = matching.match(pattern)
        except (BeamIOError, OSError, ValueError) as err:
            per_pattern.append({"pattern": pattern, "files": 0, "bytes": 0, "error": str(err)})
            continue
        per_pattern.append({"pattern": pattern, "files": len(found), "bytes": sum(size for _, size in found)})
    return {
        "files": sum(p["files"] for p in per_pattern),
        "bytes": sum(p["bytes"] for p in per_pattern),
        "matched": per_pattern,
    }


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
        fmt: a format name of `readers.FORMATS` (its `Reader` says how to split and read).
        patterns: file patterns (local or gs://); folders for `modu` and `hf-datasets`.
        options: `ReadOptions` or a dict of them.
        source: the source name in ids, records and counters (default: the format).
        bundle_bytes: byte-range size that line-based files are split into.
        rebalance: reshuffle the documents so that the stages after reading use every worker, however few
            files or ranges were read. Default (None): for whole-file formats always, for line-based files
            when they total less than `SMALL_INPUT_BYTES` (larger ones are read in enough byte ranges already,
            and a reshuffle of every document costs about 3x the reading on the local runner).
    """

    def __init__(self, fmt: str, patterns: Sequence[str], options: ReadOptions | Mapping[str, Any] | None = None,
                 source: str | None = None, *, bundle_bytes: int = DEFAULT_BUNDLE_BYTES,
                 rebalance: bool | None = None) -> None:
        super().__init__()
        self._reader = reader_for(fmt)
        if isinstance(patterns, str):
            patterns = [patterns]
        self._fmt, self._patterns = fmt, list(patterns)
        self._options, self._source = as_options(options), source or fmt
        self._bundle_bytes, self._rebalance = bundle_bytes, rebalance

    def expand(self, pbegin: beam.pvalue.PBegin) -> dict[str, beam.PCollection]:
        fmt, reader, options, source = self._fmt, self._reader, self._options, self._source
        matched = (pbegin
                   | "Patterns" >> beam.Create(self._patterns)
                   | "MatchFiles" >> beam.ParDo(MatchFiles(fmt, options)).with_outputs(
                       "dead_letter", "whole", main="lines"))
        # Only the branches a format can use are built: a Flatten of records from different stages makes
        # the local runner encode every record, which costs more than reading it.
        unmatched = matched.dead_letter | "ClassifyUnmatched" >> beam.ParDo(ClassifyRecords(source)).with_outputs(
            "dead_letter", "dropped", main="documents")
        branches: dict[str, beam.PCollection] = {}
        if reader.line_based:
            branches["Lines"] = (matched.lines
                                 | "ReadLineRanges" >> ReadAllFiles(True, CompressionTypes.AUTO, self._bundle_bytes, 0,
                                                                    line_record_source, with_filename=True)
                                 | "ParseLines" >> beam.ParDo(ParseLines(fmt, options, source)))
        if reader.may_read_whole(options):
            branches["Files"] = self._read_whole_files(matched.whole)
        if reader.threaded(options):
            records = tuple(branches.values()) | "MergeRecords" >> beam.Flatten()
            rows, others = records | "SplitThreadRows" >> beam.Partition(
                lambda r, _: 0 if isinstance(r, CommentRow) else 1, 2)
            threads = (rows
                       | "KeyByThread" >> beam.Map(lambda r: (r.thread, r))
                       | "GroupThreads" >> beam.GroupByKey()
                       | "JoinThreads" >> beam.MapTuple(lambda thread, rs: thread_document(thread, rs, source)))
            branches = {"Records": others, "Threads": threads}
        outputs: dict[str, list[beam.PCollection]] = {"documents": [], "dead_letter": [unmatched.dead_letter],
                                                      "dropped": []}
        for name, records in branches.items():
            classified = records | f"Classify{name}" >> beam.ParDo(ClassifyRecords(source)).with_outputs(
                "dead_letter", "dropped", main="documents")
            for kind, parts in outputs.items():
                parts.append(classified[kind])
        merged = {kind: parts[0] if len(parts) == 1 else tuple(parts) | f"Merge_{kind}" >> beam.Flatten()
                  for kind, parts in outputs.items()}
        rebalance = self._rebalance
        if rebalance is None:
            rebalance = not reader.line_based or input_bytes(self._patterns) < SMALL_INPUT_BYTES
        if rebalance:
            # A small file is one range, one file is one element: without this, the costly stages fused
            # downstream (cleaning, sentence splitting) would run on the one worker that read it.
            merged["documents"] = merged["documents"] | "Rebalance" >> beam.Reshuffle()
        return merged

    def _read_whole_files(self, files: beam.PCollection) -> beam.PCollection:
        fmt, reader, options, source = self._fmt, self._reader, self._options, self._source
        files = files | "SpreadFiles" >> beam.Reshuffle()
        if not reader.has_pages:
            return files | "ReadFiles" >> beam.FlatMap(
                lambda m: progress.counted(iter_records(fmt, m.path, options, source), m.size_in_bytes))
        return (files
                | "ReadPages" >> beam.FlatMap(
                    lambda m: progress.counted(((m.path, p) for p in reader.pages(m.path)), m.size_in_bytes))
                | "SpreadPages" >> beam.Reshuffle()
                | "PagesToText" >> beam.MapTuple(lambda path, page: reader.page_record(page, path, options, source)))
