"""`wikiextractor`: WikiExtractor output, either `<doc>` text blocks or its `--json` lines (one per article)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from kcorpus.transforms.files import STREAM_ERRORS, open_binary
from kcorpus.transforms.readers.base import Reader, read_opened
from kcorpus.transforms.readers.lines import BOM, LineParser, json_line, numbered_lines, read_line_range
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import CommentRow, DeadFactory, Record
from kcorpus.transforms.readers.wiki import extractor_doc_records, extractor_json_record
from kcorpus.transforms.record import DeadLetter

DOC_LINE = b"<doc "


class WikiExtractorReader(Reader):
    """A `<doc>` spans lines, so a byte range owns the `<doc>`s that start in it; the `--json` layout is parsed
    line by line."""

    name = "wikiextractor"
    boilerplate = ("wikiextractor",)
    fold_digits = True

    def title_line(self, options: ReadOptions) -> bool:
        return options.title
    range_based = True

    def range_readable(self, path: str, options: ReadOptions) -> bool:
        return "<doc \n".encode(options.encoding, errors="replace") == DOC_LINE + b"\n"

    def read_range(self, path: str, options: ReadOptions, source: str, start: int,
                   end: int) -> Iterator[Record | CommentRow]:
        if _json_layout(path):
            return read_line_range(self, path, options, source, start, end)
        return read_opened(path, lambda stream: self._doc_range(path, stream, options, source, start, end))

    def _doc_range(self, path: str, stream: IO[bytes], options: ReadOptions, source: str, start: int,
                   end: int) -> Iterator[Record]:
        dead_end: list[DeadLetter] = []
        lines = doc_range_lines(stream, path, start, end, dead_end)
        yield from extractor_doc_records(lines, path, source, options.encoding, with_title=options.title,
                                         keep_stubs=options.keep_stubs)
        yield from dead_end

    def parses_lines(self, path: str, options: ReadOptions) -> bool:
        return True

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        def to_record(obj: dict, fallback_id: str, dead: DeadFactory) -> Record:
            return extractor_json_record(obj, parser.path, line, offset, raw, parser.source,
                                         with_title=parser.options.title,
                                         keep_stubs=parser.options.keep_stubs)

        return json_line(parser, text, offset, raw, line, to_record)

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record | CommentRow]:
        return read_opened(path, lambda stream: self._read_stream(path, stream, options, source))

    def _read_stream(self, path: str, stream: IO[bytes], options: ReadOptions, source: str) -> Iterator[Record]:
        lines = numbered_lines(stream, path)
        first: list[tuple[int, int, bytes] | DeadLetter] = []
        for item in lines:  # peek past leading blank lines: `{` starts the --json layout
            first.append(item)
            if isinstance(item, DeadLetter) or item[2].strip(BOM + b" \r\n\t"):
                break
        is_json = bool(first) and not isinstance(first[-1], DeadLetter) and first[-1][2].lstrip(BOM).startswith(b"{")

        def chained() -> Iterator[tuple[int, int, bytes] | DeadLetter]:
            yield from first
            yield from lines

        if is_json:
            parser = LineParser(self, path, options, source)
            for item in chained():
                if isinstance(item, DeadLetter):
                    yield item
                    return
                line_no, offset, raw = item
                if raw.strip():
                    yield from parser.parse(offset, raw, line_no)
            return
        dead_end: list[DeadLetter] = []

        def triples() -> Iterator[tuple[int, int, bytes]]:
            for item in chained():
                if isinstance(item, DeadLetter):
                    dead_end.append(item)
                    return
                yield item

        yield from extractor_doc_records(triples(), path, source, options.encoding, with_title=options.title,
                                         keep_stubs=options.keep_stubs)
        yield from dead_end


def _json_layout(path: str) -> bool:
    """Whether the file's first non-blank line is a JSON object (WikiExtractor `--json`)."""
    with open_binary(path) as stream:
        for raw in stream:
            line = raw.lstrip(BOM).strip()
            if line:
                return line.startswith(b"{")
    return False


def doc_range_lines(stream: IO[bytes], path: str, start: int, end: int,
                    dead_end: list[DeadLetter]) -> Iterator[tuple[int | None, int, bytes]]:
    """`(line number, offset, raw line)` of the `<doc>`s that start in [start, end) of a seekable stream.

    A range runs from the first `<doc ` line at or after `start` (the file's first byte for the first range)
    to the first `<doc ` line at or after `end`, so consecutive ranges share no line and miss none, and a
    range parses exactly as the whole file would. Line numbers are known only in the first range (None
    elsewhere: counting them would read the file up to the range). A read error ends the lines with a
    `corrupt_file` DeadLetter in `dead_end`.
    """
    line_no = 0 if start == 0 else None
    position = start
    try:
        if start > 0:
            # The line straddling `start` belongs to the previous range.
            stream.seek(start - 1)
            position = start - 1 + len(stream.readline())
        opened = start == 0
        for raw in iter(stream.readline, b""):
            is_doc = raw.startswith(DOC_LINE)
            if not opened and not is_doc:
                position += len(raw)
                continue
            if is_doc and position >= end:
                return
            opened = True
            line_no = None if line_no is None else line_no + 1
            yield line_no, position, raw
            position += len(raw)
    except STREAM_ERRORS as err:
        dead_end.append(DeadLetter(path, f"corrupt_file: {err}", None if line_no is None else line_no + 1, position))
