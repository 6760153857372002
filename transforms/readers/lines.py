"""Line formats: `LineParser` (one raw line and its byte offset -> records) and the nsmc, text, jsonl and
petitions readers.

A line's record depends only on its bytes and byte offset (ids are `<source>:<file name>:<offset>` where a
record has no id of its own), so Beam can split one large file across workers and get the same records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

from kcorpus.transforms.files import STREAM_ERRORS, base_name, open_binary
from kcorpus.transforms.readers.base import Reader, read_opened
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import CommentRow, DeadFactory, Record, json_object, object_record
from kcorpus.transforms.record import DeadLetter, Dropped, new_document, raw_prefix

BOM = b"\xef\xbb\xbf"
NSMC_HEADER = "id\tdocument\tlabel"
PETITION_FIELDS = ("title", "content")
PETITION_METADATA = ("category", "begin", "end", "num_agree", "status")


def decode_line(raw: bytes, offset: int, encoding: str) -> str:
    """A raw line without its line ending (and UTF-8 BOM at offset 0), decoded; raises UnicodeDecodeError."""
    raw = raw.rstrip(b"\r\n")
    if offset == 0 and raw.startswith(BOM) and encoding.replace("_", "-").lower() in ("utf-8", "utf8", "utf-8-sig"):
        raw = raw[3:]
    return raw.decode(encoding)


def numbered_lines(stream: IO[bytes], path: str) -> Iterator[tuple[int, int, bytes] | DeadLetter]:
    """(line number, byte offset, raw line) triples; a stream error ends them with a `corrupt_file` DeadLetter."""
    offset, line_no = 0, 0
    try:
        for raw in stream:
            line_no += 1
            yield line_no, offset, raw
            offset += len(raw)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"corrupt_file: {err}", line_no + 1, offset)


class LineParser:
    """Parses the lines of one file of a line format; per-file settings are worked out once, not per line.

    Args:
        reader: the format's `Reader` (its `parse_text` reads one decoded line).
        path, options, source: as for `read_file`.
        header: the file's first line, for a comments TSV whose columns it names.
    """

    def __init__(self, reader: Reader, path: str, options: ReadOptions, source: str,
                 header: bytes | None = None) -> None:
        self.reader, self.path, self.options, self.source = reader, path, options, source
        self.name = base_name(path)
        reader.check(path, options)
        if not reader.parses_lines(path, options):
            raise ValueError(f"format {reader.name!r} is not line-based here ({path})")
        self.layout = reader.layout(path, options)
        self.encoding = options.encoding
        self.columns = decode_line(header, 0, self.encoding).split("\t") if header is not None else None

    def fallback_id(self, offset: int) -> str:
        """The id of a record without one of its own: `<source>:<file name>:<offset>`."""
        return f"{self.source}:{self.name}:{offset}"

    def parse(self, offset: int, raw: bytes, line: int | None = None) -> list[Record | CommentRow]:
        """The record(s) of one raw line; a header line gives none."""
        if b"\x00" in raw:
            return [DeadLetter(self.path, "nul_byte: NUL byte in record", line, offset, raw_prefix(raw))]
        try:
            text = decode_line(raw, offset, self.encoding)
        except UnicodeDecodeError as err:
            return [DeadLetter(self.path, f"invalid_encoding: {err}", line, offset, raw_prefix(raw))]
        return self.reader.parse_text(self, text, offset, raw, line)

    def dead(self, offset: int, raw: bytes, line: int | None) -> DeadFactory:
        """A DeadLetter factory for the line at `offset`."""
        def dead(reason: str) -> DeadLetter:
            return DeadLetter(self.path, reason, line, offset, raw_prefix(raw))

        return dead


def text_line(parser: LineParser, text: str, offset: int) -> list[Record]:
    """A line that is a whole document; a blank line is Dropped as empty."""
    fallback_id = parser.fallback_id(offset)
    text = text.strip()
    if not text:
        return [Dropped(fallback_id, parser.source, "read", "empty")]
    return [new_document(fallback_id, text, parser.source, {})]


ObjectRecord = Callable[[dict, str, DeadFactory], "Record | CommentRow"]


def json_line(parser: LineParser, text: str, offset: int, raw: bytes, line: int | None,
              to_record: ObjectRecord) -> list[Record | CommentRow]:
    """A line holding one JSON object, turned into a record by `to_record(obj, fallback_id, dead)`."""
    fallback_id = parser.fallback_id(offset)
    if not text.strip():
        return [Dropped(fallback_id, parser.source, "read", "empty")]
    dead = parser.dead(offset, raw, line)
    obj = json_object(text, dead)
    if isinstance(obj, DeadLetter):
        return [obj]
    return [to_record(obj, fallback_id, dead)]


def read_line_file(reader: Reader, path: str, stream: IO[bytes], options: ReadOptions,
                   source: str) -> Iterator[Record | CommentRow]:
    """Every record of an opened line file (the header, where the format needs one, is its first line)."""
    parser = LineParser(reader, path, options, source) if not reader.needs_header(path, options) else None
    for item in numbered_lines(stream, path):
        if isinstance(item, DeadLetter):
            yield item
            return
        line_no, offset, raw = item
        if parser is None:
            parser = LineParser(reader, path, options, source, header=raw)
        yield from parser.parse(offset, raw, line_no)


def read_line_range(reader: Reader, path: str, options: ReadOptions, source: str, start: int,
                    end: int) -> Iterator[Record | CommentRow]:
    """The records of the lines that start in [start, end) (no line numbers: only offsets are known)."""
    position = start
    try:
        header = None
        if reader.needs_header(path, options):
            with open_binary(path) as stream:
                header = stream.readline()
        parser = LineParser(reader, path, options, source, header)
        with open_binary(path) as stream:
            if start > 0:
                # The line straddling `start` belongs to the previous range.
                stream.seek(start - 1)
                position = start - 1 + len(stream.readline())
            while position < end:
                raw = stream.readline()
                if not raw:
                    return
                yield from parser.parse(position, raw)
                position += len(raw)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"corrupt_file: {err}", offset=position, stage="read")


class LineReader(Reader):
    """A format whose every file is lines, read by byte range."""

    line_based = True
    range_based = True

    def read_range(self, path: str, options: ReadOptions, source: str, start: int,
                   end: int) -> Iterator[Record | CommentRow]:
        return read_line_range(self, path, options, source, start, end)

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record | CommentRow]:
        return read_opened(path, lambda stream: read_line_file(self, path, stream, options, source))


class TextReader(LineReader):
    """`text`: one document per line."""

    name = "text"

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        return text_line(parser, text, offset)


class JsonlReader(LineReader):
    """`jsonl`: one JSON object per line, text in `text_field`, id in `id_field`."""

    name = "jsonl"

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        def to_record(obj: dict, fallback_id: str, dead: DeadFactory) -> Record:
            return object_record(obj, fallback_id, parser.options, parser.source, dead)

        return json_line(parser, text, offset, raw, line, to_record)


def petition_record(obj: Mapping[str, Any], fallback_id: str, source: str, dead: DeadFactory) -> Record:
    """A petition: text is the title then the content; category, dates, agreements in metadata."""
    missing = [key for key in PETITION_FIELDS if key not in obj]
    if missing:
        return dead(f"missing_field: {', '.join(missing)}")
    if not all(isinstance(obj[key], str) for key in PETITION_FIELDS):
        return dead("invalid_value: title and content must be strings")
    own_id = obj.get("petition_idx")
    doc_id = f"{source}:{own_id}" if own_id not in (None, "") else fallback_id
    text = "\n".join(part.strip() for part in (obj["title"], obj["content"]) if part.strip())
    if not text:
        return Dropped(doc_id, source, "read", "empty")
    metadata = {key: obj[key] for key in PETITION_METADATA if key in obj}
    return new_document(doc_id, text, source, metadata)


class PetitionsReader(LineReader):
    """`petitions`: the Blue House petitions JSONL (title, content, category, dates, agreements)."""

    name = "petitions"
    boilerplate = ("petitions",)
    fold_digits = True

    def title_line(self, options: ReadOptions) -> bool:
        return True

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        def to_record(obj: dict, fallback_id: str, dead: DeadFactory) -> Record:
            return petition_record(obj, fallback_id, parser.source, dead)

        return json_line(parser, text, offset, raw, line, to_record)


def _csv_unquote(field: str) -> str | None:
    if len(field) >= 2 and field[0] == '"' and field[-1] == '"':
        inner = field[1:-1]
        if '"' not in inner.replace('""', ""):
            return inner.replace('""', '"')
    return None


def unquote_nsmc(document: str) -> str:
    """Undo NSMC's double CSV quoting (`\"\"\"a \"\"\"\"b\"\"\"\" c\"\"\"` -> `a "b" c`); anything else is unchanged."""
    once = _csv_unquote(document)
    twice = _csv_unquote(once) if once is not None else None
    return document if twice is None else twice


class NsmcReader(LineReader):
    """`nsmc`: the Naver movie review TSV (`id`, `document`, `label` 0/1), header line skipped."""

    name = "nsmc"

    def parse_text(self, parser: LineParser, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        if offset == 0 and text == NSMC_HEADER:
            return []
        fields = text.split("\t")
        if len(fields) != 3:
            return [parser.dead(offset, raw, line)(f"wrong_field_count: {len(fields)} fields, expected 3")]
        nsmc_id, document, label = fields
        nsmc_id = nsmc_id.strip()
        if not nsmc_id or label not in ("0", "1"):
            return [parser.dead(offset, raw, line)("invalid_value: id must be non-empty and label 0 or 1")]
        doc_id = f"{parser.source}:{nsmc_id}"
        if parser.options.unquote and document.startswith('"'):
            document = unquote_nsmc(document)
        document = document.strip()
        if not document:
            return [Dropped(doc_id, parser.source, "read", "empty")]
        return [new_document(doc_id, document, parser.source, {"label": int(label)})]
