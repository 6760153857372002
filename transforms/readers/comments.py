"""`comments`: one comment per line, or TSV / CSV / JSONL rows, optionally joined into thread documents.

With `thread_field` set, each row is a `CommentRow`; the rows of one thread (across all files) become one
Document, comments in file order, one per line. CSV is read whole (quoted fields may span lines); the other
layouts are line formats.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from kcorpus.transforms.files import STREAM_ERRORS, base_name
from kcorpus.transforms.readers.base import read_opened
from kcorpus.transforms.readers.lines import LineParser, LineReader, json_line, read_line_file, text_line
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import CommentRow, DeadFactory, Record, object_record
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix

LAYOUT_BY_SUFFIX = ((".tsv", "tsv"), (".csv", "csv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"))


def comment_layout(path: str, options: ReadOptions) -> str:
    """The comments layout of a file: the `layout` option, or by extension (.tsv, .csv, .jsonl) when auto."""
    if options.layout != "auto":
        return options.layout
    name = base_name(path).lower()
    for ext, layout in LAYOUT_BY_SUFFIX:
        if name.endswith(ext):
            return layout
    return "lines"


def comment_record(row: Mapping[str, Any], fallback_id: str, path: str, position: int, options: ReadOptions,
                   source: str, dead: DeadFactory) -> Record | CommentRow:
    """A comments table/JSONL row: its own Document, or a CommentRow of a thread when `thread_field` is set."""
    if not options.thread_field:
        return object_record(row, fallback_id, options, source, dead)
    for key in (options.thread_field, options.text_field):
        if key not in row:
            return dead(f"missing_field: {key}")
    thread, text = row[options.thread_field], row[options.text_field]
    if not isinstance(thread, (str, int)) or not str(thread).strip():
        return dead(f"invalid_value: {options.thread_field} must be a non-empty string or integer")
    if text is None or (isinstance(text, str) and not text.strip()):
        return Dropped(fallback_id, source, "read", "empty")
    if not isinstance(text, str):
        return dead(f"invalid_value: {options.text_field} is {type(text).__name__}, not a string")
    return CommentRow(str(thread).strip(), path, position, text.strip())


class CommentsReader(LineReader):
    """`comments`: layout `lines`, `tsv`, `jsonl` (line formats) or `csv` (read whole), by option or suffix."""

    name = "comments"
    boilerplate = ("naver_comments",)

    def check(self, path: str, options: ReadOptions) -> None:
        if options.thread_field and comment_layout(path, options) == "lines":
            raise ValueError("thread_field needs a tsv, csv or jsonl comments file, not one comment per line")

    def layout(self, path: str, options: ReadOptions) -> str:
        return comment_layout(path, options)

    def parses_lines(self, path: str, options: ReadOptions) -> bool:
        return comment_layout(path, options) != "csv"

    def may_read_whole(self, options: ReadOptions) -> bool:
        return options.layout in ("auto", "csv")

    def needs_header(self, path: str, options: ReadOptions) -> bool:
        return comment_layout(path, options) == "tsv"

    def threaded(self, options: ReadOptions) -> bool:
        return bool(options.thread_field)

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        def to_record(row: Mapping[str, Any], fallback_id: str, dead: DeadFactory) -> Record | CommentRow:
            return comment_record(row, fallback_id, parser.path, offset, parser.options, parser.source, dead)

        if parser.layout == "lines":
            return text_line(parser, text, offset)
        if parser.layout == "jsonl":
            return json_line(parser, text, offset, raw, line, to_record)
        if offset == 0:  # the TSV header
            return []
        fallback_id = parser.fallback_id(offset)
        if not text.strip():
            return [Dropped(fallback_id, parser.source, "read", "empty")]
        dead = parser.dead(offset, raw, line)
        values = text.split("\t")
        columns = parser.columns or []
        if len(values) != len(columns):
            return [dead(f"wrong_field_count: {len(values)} fields, expected {len(columns)}")]
        return [to_record(dict(zip(columns, values)), fallback_id, dead)]

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record | CommentRow]:
        if comment_layout(path, options) != "csv":
            return read_opened(path, lambda stream: read_line_file(self, path, stream, options, source))
        return read_opened(path, lambda stream: read_csv_comments(path, stream, options, source))


def read_csv_comments(path: str, stream: IO[bytes], options: ReadOptions,
                      source: str) -> Iterator[Record | CommentRow]:
    """The rows of a comments CSV (header first; quoted fields may span lines)."""
    encoding = "utf-8-sig" if options.encoding.replace("_", "-").lower() in ("utf-8", "utf8") else options.encoding
    text = io.TextIOWrapper(stream, encoding=encoding, errors="surrogateescape", newline="")
    try:
        yield from _csv_rows(path, csv.reader(text), options, source)
    finally:
        text.detach()  # the caller closes the binary stream


def _csv_rows(path: str, reader: Any, options: ReadOptions, source: str) -> Iterator[Record | CommentRow]:
    columns: list[str] | None = None
    row_no = 0
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            yield DeadLetter(path, f"invalid_csv: {err}", reader.line_num)
            continue
        except STREAM_ERRORS as err:
            yield DeadLetter(path, f"corrupt_file: {err}", reader.line_num + 1)
            return
        joined = ",".join(values)
        raw = raw_prefix(joined.encode("utf-8", errors="surrogateescape"))
        if columns is None:
            columns = values
            continue
        row_no += 1

        def dead(reason: str, line: int = reader.line_num, raw: str = raw) -> DeadLetter:
            return DeadLetter(path, reason, line, None, raw)

        fallback_id = f"{source}:{base_name(path)}:row{row_no}"
        if "\x00" in joined:
            yield dead("nul_byte: NUL byte in record")
        elif any("\udc80" <= ch <= "\udcff" for ch in joined):
            yield dead(f"invalid_encoding: bytes not valid {options.encoding}")
        elif not any(v.strip() for v in values):
            yield Dropped(fallback_id, source, "read", "empty")
        elif len(values) != len(columns):
            yield dead(f"wrong_field_count: {len(values)} fields, expected {len(columns)}")
        else:
            yield comment_record(dict(zip(columns, values)), fallback_id, path, row_no, options, source, dead)


def assemble_threads(rows: Iterable[CommentRow], source: str) -> Iterator[Document]:
    """One Document per thread: its comments in file order, one per line; threads in order of first comment."""
    threads: dict[str, list[CommentRow]] = {}
    for row in rows:
        threads.setdefault(row.thread, []).append(row)
    for thread, members in threads.items():
        yield thread_document(thread, members, source)


def thread_document(thread: str, rows: Iterable[CommentRow], source: str) -> Document:
    """The Document of one comment thread (rows sorted by file and position, so Beam's order does not matter)."""
    ordered = sorted(rows, key=lambda r: (r.path, r.position))
    return Document(f"{source}:{thread}", "\n".join(r.text for r in ordered), source,
                    {"thread": thread, "comments": len(ordered)})
