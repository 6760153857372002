"""`wikiextractor`: WikiExtractor output, either `<doc>` text blocks or its `--json` lines (one per article)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from kcorpus.transforms.readers.base import Reader, read_opened
from kcorpus.transforms.readers.lines import BOM, LineParser, json_line, numbered_lines
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import CommentRow, DeadFactory, Record
from kcorpus.transforms.readers.wiki import extractor_doc_records, extractor_json_record
from kcorpus.transforms.record import DeadLetter


class WikiExtractorReader(Reader):
    """Read whole (a `<doc>` spans lines); the `--json` layout is parsed line by line."""

    name = "wikiextractor"
    boilerplate = ("wikiextractor",)

    def parses_lines(self, path: str, options: ReadOptions) -> bool:
        return True

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        def to_record(obj: dict, fallback_id: str, dead: DeadFactory) -> Record:
            return extractor_json_record(obj, parser.path, line, offset, raw, parser.source,
                                         with_title=parser.options.title)

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

        yield from extractor_doc_records(triples(), path, source, options.encoding, with_title=options.title)
        yield from dead_end
