"""Readers for every source: iterate a file, yield `Document`s, and say why for everything else.

`read_file(fmt, path, options, source)` yields, for each input record, exactly one `Document`, `DeadLetter`
(could not be read: location, reason, first 200 raw bytes) or `Dropped` (skipped on purpose with a reason,
such as a redirect or an empty record). A file that cannot be opened is one `DeadLetter` naming it.

Line-based formats go through `parse_line`, which needs only the line's bytes and byte offset, so Beam can
split one large file across workers and still produce the same ids (`<source>:<file name>:<offset>` where a
record has no id of its own).
"""

from __future__ import annotations

import bz2
import csv
import dataclasses
import gzip
import io
import json
import os
import typing
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from kcorpus.transforms.readers.modu import modu_records
from kcorpus.transforms.readers.wiki import (
    extractor_doc_records,
    extractor_json_record,
    iter_dump_pages,
    page_record,
)
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix

FORMATS = ("modu", "wikiextractor", "wiki-dump", "petitions", "comments", "nsmc", "text", "jsonl", "parquet",
           "hf-datasets")
# Formats whose records are single lines (comments: unless CSV); Beam splits these files by byte range.
LINE_FORMATS = ("nsmc", "text", "jsonl", "petitions", "comments")
COMMENT_LAYOUTS = ("auto", "lines", "tsv", "csv", "jsonl")
NSMC_HEADER = "id\tdocument\tlabel"
PETITION_FIELDS = ("title", "content")
PETITION_METADATA = ("category", "begin", "end", "num_agree", "status")
BOM = b"\xef\xbb\xbf"
STREAM_ERRORS = (OSError, EOFError, zlib.error)

Record = Document | DeadLetter | Dropped


@dataclasses.dataclass(frozen=True, init=False)
class ReadOptions:
    """Per-source reader options; unknown keys raise ValueError naming the valid ones.

    Attributes:
        encoding: text encoding of the files (`utf-8` handles a BOM; `cp949` for Windows Korean files).
        text_field: field/column holding the text (jsonl, comments tsv/csv/jsonl, parquet, hf-datasets).
        id_field: field/column holding the record's own id, used when present.
        title_field: if set, that field's value becomes the first line of the text.
        thread_field: comments: the thread/article id column; a comment and its replies form one document.
        layout: comments: `auto` (by extension), `lines`, `tsv`, `csv` or `jsonl`.
        tags: modu: `remove` or `keep` messenger tags such as `{emoji}`, `{system: …}`.
        deid: modu: `remove` or `keep` de-identification tags such as `&name&`, `&tel-num&`.
        join_turns: modu: join consecutive utterances of one speaker into one line.
        headline: modu: keep the newspaper headline (first paragraph) as the first line.
        title: wikiextractor/wiki-dump: the article title as the first line.
        namespaces: wiki-dump: namespaces kept (others are Dropped with reason `namespace`).
        unquote: nsmc: undo the publisher's double CSV quoting of documents that contain `"`.
        split: hf-datasets: read only this split of a DatasetDict (default: all, in name order).
    """

    encoding: str = "utf-8"
    text_field: str = "text"
    id_field: str = "id"
    title_field: str = ""
    thread_field: str = ""
    layout: str = "auto"
    tags: str = "remove"
    deid: str = "remove"
    join_turns: bool = False
    headline: bool = True
    title: bool = True
    namespaces: tuple[int, ...] = (0,)
    unquote: bool = True
    split: str = ""

    def __init__(self, **options: Any) -> None:
        fields = {f.name: f for f in dataclasses.fields(self)}
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise ValueError(f"unknown read option(s) {', '.join(unknown)}; valid: {', '.join(fields)}")
        hints = typing.get_type_hints(type(self))
        for name, field in fields.items():
            value = _coerce(name, options[name], hints[name]) if name in options else field.default
            object.__setattr__(self, name, value)
        self._validate()

    def _validate(self) -> None:
        import codecs

        try:
            codecs.lookup(self.encoding)
        except LookupError as err:
            raise ValueError(f"unknown encoding {self.encoding!r}") from err
        for name, valid in (("layout", COMMENT_LAYOUTS), ("tags", ("remove", "keep")), ("deid", ("remove", "keep"))):
            if getattr(self, name) not in valid:
                raise ValueError(f"{name} must be one of {', '.join(valid)}, got {getattr(self, name)!r}")

    @classmethod
    def from_strings(cls, pairs: Iterable[str], **extra: Any) -> ReadOptions:
        """Options from `key=value` strings (the CLI's `--option`), plus keyword options."""
        options: dict[str, Any] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(f"option {pair!r} is not key=value")
            options[key.strip()] = value.strip()
        return cls(**options, **extra)


def _coerce(name: str, value: Any, hint: Any) -> Any:
    if hint == tuple[int, ...] and isinstance(value, int):
        return (value,)
    if not isinstance(value, str) or hint is str:
        return tuple(value) if hint == tuple[int, ...] and isinstance(value, (list, tuple)) else value
    if hint is bool:
        lowered = value.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"option {name} expects true/false, got {value!r}")
    if hint == tuple[int, ...]:
        try:
            return tuple(int(part) for part in value.split(",") if part.strip())
        except ValueError as err:
            raise ValueError(f"option {name} expects comma-separated integers, got {value!r}") from err
    return value


def as_options(options: ReadOptions | Mapping[str, Any] | None) -> ReadOptions:
    if options is None:
        return ReadOptions()
    return options if isinstance(options, ReadOptions) else ReadOptions(**options)


def reason_code(reason: str) -> str:
    """`invalid_json: Expecting value ...` -> `invalid_json`: the part counters and tests key on."""
    return reason.split(":", 1)[0]


@dataclasses.dataclass(frozen=True)
class CommentRow:
    """One comment of a thread, before the thread's rows are joined into one Document."""

    thread: str
    path: str
    position: int
    text: str


# --- opening files ---------------------------------------------------------------------------------------


def is_remote(path: str) -> bool:
    return "://" in path


def is_compressed(path: str) -> bool:
    return path.endswith((".gz", ".bz2"))


def open_binary(path: str) -> IO[bytes]:
    """Open a local or remote (gs://, ...) file for reading, decompressing .gz/.bz2 by extension.

    Decompression is Python's own gzip/bz2 for remote files too: it raises on a truncated stream, where
    Beam's decompressing reader ends quietly.
    """
    if not is_remote(path):
        if path.endswith(".gz"):
            return gzip.open(path, "rb")
        return bz2.open(path, "rb") if path.endswith(".bz2") else open(path, "rb")
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.filesystems import FileSystems

    stream = FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)
    if path.endswith(".gz"):
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return bz2.BZ2File(stream, "rb") if path.endswith(".bz2") else stream


def base_name(path: str) -> str:
    """The file name part of a path, without a .gz/.bz2 suffix: the stable part of line-record ids."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def comment_layout(path: str, options: ReadOptions) -> str:
    """The comments layout of a file: the `layout` option, or by extension (.tsv, .csv, .jsonl) when auto."""
    if options.layout != "auto":
        return options.layout
    name = base_name(path).lower()
    for ext, layout in ((".tsv", "tsv"), (".csv", "csv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"),
                        (".json", "jsonl")):
        if name.endswith(ext):
            return layout
    return "lines"


def is_line_splittable(fmt: str, path: str, options: ReadOptions) -> bool:
    """Whether a file's records are single lines that `parse_line` reads independently."""
    return fmt in LINE_FORMATS and not (fmt == "comments" and comment_layout(path, options) == "csv")


def needs_header(fmt: str, path: str, options: ReadOptions) -> bool:
    return fmt == "comments" and comment_layout(path, options) == "tsv"


def threaded(fmt: str, options: ReadOptions) -> bool:
    return fmt == "comments" and bool(options.thread_field)


def _numbered_lines(stream: IO[bytes], path: str) -> Iterator[tuple[int, int, bytes] | DeadLetter]:
    """(line number, byte offset, raw line) triples; a stream error ends them with a `corrupt_file` DeadLetter."""
    offset, line_no = 0, 0
    try:
        for raw in stream:
            line_no += 1
            yield line_no, offset, raw
            offset += len(raw)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"corrupt_file: {err}", line_no + 1, offset)


# --- one line -> one record ------------------------------------------------------------------------------


def decode_line(raw: bytes, offset: int, encoding: str) -> str:
    """A raw line without its line ending (and UTF-8 BOM at offset 0), decoded; raises UnicodeDecodeError."""
    raw = raw.rstrip(b"\r\n")
    if offset == 0 and raw.startswith(BOM) and encoding.replace("_", "-").lower() in ("utf-8", "utf8", "utf-8-sig"):
        raw = raw[3:]
    return raw.decode(encoding)


def _json_object(text: str, dead: Any) -> dict | DeadLetter:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        truncated = err.msg.startswith("Unterminated string") or err.pos >= len(text.rstrip())
        return dead(f"{'truncated_json' if truncated else 'invalid_json'}: {err}")
    if not isinstance(obj, dict):
        return dead(f"not_an_object: JSON {type(obj).__name__}")
    return obj


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


def _scalars(obj: Mapping[str, Any], exclude: Iterable[str]) -> dict[str, Any]:
    skip = set(exclude)
    return {k: v for k, v in obj.items() if k not in skip and isinstance(v, (str, int, float, bool))}


def object_record(obj: Mapping[str, Any], fallback_id: str, options: ReadOptions, source: str,
                  dead: Any) -> Record:
    """A Document from a JSON object / table row, with text from `text_field` and id from `id_field`."""
    if options.text_field not in obj:
        return dead(f"missing_field: {options.text_field}")
    value = obj[options.text_field]
    own_id = obj.get(options.id_field)
    doc_id = f"{source}:{own_id}" if isinstance(own_id, (str, int)) and str(own_id) else fallback_id
    if value is None:
        return Dropped(doc_id, source, "read", "empty")
    if not isinstance(value, str):
        return dead(f"invalid_value: {options.text_field} is {type(value).__name__}, not a string")
    parts = [value.strip()]
    if options.title_field:
        title = obj.get(options.title_field)
        if isinstance(title, str) and title.strip():
            parts.insert(0, title.strip())
    text = "\n".join(p for p in parts if p)
    if not text:
        return Dropped(doc_id, source, "read", "empty")
    exclude = (options.text_field, options.id_field, options.title_field)
    metadata = _scalars(obj, exclude)
    if options.title_field and isinstance(obj.get(options.title_field), str):
        metadata["title"] = obj[options.title_field]
    return Document(doc_id, text, source, metadata)


def petition_record(obj: Mapping[str, Any], fallback_id: str, source: str, dead: Any) -> Record:
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
    return Document(doc_id, text, source, metadata)


def comment_record(row: Mapping[str, Any], fallback_id: str, path: str, position: int, options: ReadOptions,
                   source: str, dead: Any) -> Record | CommentRow:
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


class LineParser:
    """Parses the lines of one line-based file; per-file settings are worked out once, not per line.

    Args:
        fmt, path, options, source: as for `read_file`.
        header: the file's first line, for a comments TSV whose columns it names.
    """

    def __init__(self, fmt: str, path: str, options: ReadOptions, source: str, header: bytes | None = None) -> None:
        self.fmt, self.path, self.options, self.source = fmt, path, options, source
        self.name = base_name(path)
        self.layout = comment_layout(path, options) if fmt == "comments" else ""
        if options.thread_field and self.layout == "lines":
            raise ValueError("thread_field needs a tsv, csv or jsonl comments file, not one comment per line")
        self.encoding = options.encoding
        self.columns = decode_line(header, 0, self.encoding).split("\t") if header is not None else None
        if fmt == "nsmc":
            self.kind = "nsmc"
        elif fmt == "text" or self.layout == "lines":
            self.kind = "lines"
        elif self.layout == "tsv":
            self.kind = "tsv"
        elif fmt in ("petitions", "jsonl", "wikiextractor") or self.layout == "jsonl":
            self.kind = "json"
        else:
            raise ValueError(f"format {fmt!r} is not line-based here ({path})")

    def parse(self, offset: int, raw: bytes, line: int | None = None) -> list[Record | CommentRow]:
        """The record(s) of one raw line; the NSMC/TSV header line gives none."""
        if b"\x00" in raw:
            return [DeadLetter(self.path, "nul_byte: NUL byte in record", line, offset, raw_prefix(raw))]
        try:
            text = decode_line(raw, offset, self.encoding)
        except UnicodeDecodeError as err:
            return [DeadLetter(self.path, f"invalid_encoding: {err}", line, offset, raw_prefix(raw))]
        if self.kind == "nsmc":
            return self._nsmc(text, offset, raw, line)
        fallback_id = f"{self.source}:{self.name}:{offset}"
        if self.kind == "lines":
            text = text.strip()
            if not text:
                return [Dropped(fallback_id, self.source, "read", "empty")]
            return [Document(fallback_id, text, self.source, {})]
        if self.kind == "tsv" and offset == 0:
            return []
        if not text.strip():
            return [Dropped(fallback_id, self.source, "read", "empty")]

        def dead(reason: str) -> DeadLetter:
            return DeadLetter(self.path, reason, line, offset, raw_prefix(raw))

        if self.kind == "tsv":
            values = text.split("\t")
            columns = self.columns or []
            if len(values) != len(columns):
                return [dead(f"wrong_field_count: {len(values)} fields, expected {len(columns)}")]
            row = dict(zip(columns, values))
            return [comment_record(row, fallback_id, self.path, offset, self.options, self.source, dead)]
        obj = _json_object(text, dead)
        if isinstance(obj, DeadLetter):
            return [obj]
        if self.fmt == "petitions":
            return [petition_record(obj, fallback_id, self.source, dead)]
        if self.fmt == "jsonl":
            return [object_record(obj, fallback_id, self.options, self.source, dead)]
        if self.fmt == "wikiextractor":
            return [extractor_json_record(obj, self.path, line, offset, raw, self.source,
                                          with_title=self.options.title)]
        return [comment_record(obj, fallback_id, self.path, offset, self.options, self.source, dead)]

    def _nsmc(self, text: str, offset: int, raw: bytes, line: int | None) -> list[Record]:
        if offset == 0 and text == NSMC_HEADER:
            return []
        fields = text.split("\t")
        if len(fields) != 3:
            reason = f"wrong_field_count: {len(fields)} fields, expected 3"
            return [DeadLetter(self.path, reason, line, offset, raw_prefix(raw))]
        nsmc_id, document, label = fields
        nsmc_id = nsmc_id.strip()
        if not nsmc_id or label not in ("0", "1"):
            reason = "invalid_value: id must be non-empty and label 0 or 1"
            return [DeadLetter(self.path, reason, line, offset, raw_prefix(raw))]
        doc_id = f"{self.source}:{nsmc_id}"
        if self.options.unquote and document.startswith('"'):
            document = unquote_nsmc(document)
        document = document.strip()
        if not document:
            return [Dropped(doc_id, self.source, "read", "empty")]
        return [Document(doc_id, document, self.source, {"label": int(label)})]


def parse_line(fmt: str, path: str, offset: int, raw: bytes, options: ReadOptions, source: str, *,
               line: int | None = None, header: bytes | None = None) -> list[Record | CommentRow]:
    """The record(s) of one raw line of a line-based file (see `LineParser`, which reuses per-file work)."""
    return LineParser(fmt, path, options, source, header).parse(offset, raw, line)


# --- whole files ---------------------------------------------------------------------------------------


def _read_line_file(fmt: str, path: str, stream: IO[bytes], options: ReadOptions,
                    source: str) -> Iterator[Record | CommentRow]:
    parser = LineParser(fmt, path, options, source) if not needs_header(fmt, path, options) else None
    for item in _numbered_lines(stream, path):
        if isinstance(item, DeadLetter):
            yield item
            return
        line_no, offset, raw = item
        if parser is None:
            parser = LineParser(fmt, path, options, source, header=raw)
        yield from parser.parse(offset, raw, line_no)


def _read_csv_comments(path: str, stream: IO[bytes], options: ReadOptions,
                       source: str) -> Iterator[Record | CommentRow]:
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


def _read_wikiextractor(path: str, stream: IO[bytes], options: ReadOptions, source: str) -> Iterator[Record]:
    lines = _numbered_lines(stream, path)
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
        parser = LineParser("wikiextractor", path, options, source)
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


def _decode_json_file(data: bytes, path: str, options: ReadOptions) -> Any:
    def dead(reason: str) -> DeadLetter:
        return DeadLetter(path, reason, None, 0, raw_prefix(data))

    if b"\x00" in data:
        return dead("nul_byte: NUL byte in file")
    try:
        text = data.decode("utf-8-sig" if options.encoding.lower() in ("utf-8", "utf8") else options.encoding)
    except UnicodeDecodeError as err:
        return dead(f"invalid_encoding: {err}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        truncated = err.msg.startswith("Unterminated string") or err.pos >= len(text.rstrip())
        return dead(f"{'truncated_json' if truncated else 'invalid_json'}: {err}")


def _modu_from_bytes(data: bytes, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    obj = _decode_json_file(data, path, options)
    if isinstance(obj, DeadLetter):
        yield obj
        return
    yield from modu_records(obj, path, source, remove_tags=options.tags == "remove",
                            remove_deid=options.deid == "remove", join_turns=options.join_turns,
                            headline=options.headline)


def _read_modu(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    if not is_remote(path) and os.path.isdir(path):
        for file_path in _walk(path, (".json", ".json.gz", ".json.bz2", ".zip")):
            yield from _read_modu(file_path, options, source)
        return
    if path.endswith(".zip"):
        yield from _read_modu_zip(path, options, source)
        return
    try:
        with open_binary(path) as stream:
            data = stream.read()
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    yield from _modu_from_bytes(data, path, options, source)


def _read_modu_zip(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    try:
        archive = zipfile.ZipFile(open_binary(path) if is_remote(path) else path)
    except (zipfile.BadZipFile, *STREAM_ERRORS) as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with archive:
        for member in sorted(archive.namelist()):
            if member.endswith("/") or not member.lower().endswith(".json"):
                continue
            member_path = f"{path}!{member}"
            try:
                data = archive.read(member)
            except (zipfile.BadZipFile, *STREAM_ERRORS, NotImplementedError) as err:
                yield DeadLetter(member_path, f"corrupt_member: {err}")
                continue
            yield from _modu_from_bytes(data, member_path, options, source)


def _walk(folder: str, suffixes: tuple[str, ...] = ()) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(root, f) for f in files
                     if not f.startswith(".") and (not suffixes or f.lower().endswith(suffixes)))
    return sorted(found)


def _read_table_rows(rows: Iterable[Mapping[str, Any]], path: str, prefix: str, options: ReadOptions,
                     source: str, start: int = 0) -> Iterator[Record]:
    for index, row in enumerate(rows, start):
        def dead(reason: str, index: int = index, row: Mapping[str, Any] = row) -> DeadLetter:
            return DeadLetter(path, reason, None, index, raw_prefix(json.dumps(row, ensure_ascii=False, default=str)))

        yield object_record(row, f"{source}:{prefix}:{index}", options, source, dead)


def _read_parquet(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        stream = open_binary(path)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with stream:
        try:
            parquet = pq.ParquetFile(stream)
        except (pa.ArrowException, *STREAM_ERRORS) as err:
            yield DeadLetter(path, f"unreadable_file: {err}")
            return
        if options.text_field not in parquet.schema_arrow.names:
            yield DeadLetter(path, f"missing_field: column {options.text_field} ({parquet.metadata.num_rows} rows)")
            return
        start = 0
        for batch in parquet.iter_batches(batch_size=4096):
            rows = batch.to_pylist()
            yield from _read_table_rows(rows, path, base_name(path), options, source, start)
            start += len(rows)


def _read_hf_dataset(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    import datasets

    try:
        loaded = datasets.load_from_disk(path)
    except (FileNotFoundError, OSError, ValueError) as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    splits = loaded if isinstance(loaded, datasets.DatasetDict) else {"": loaded}
    names = [options.split] if options.split else sorted(splits)
    for name in names:
        if name not in splits:
            yield DeadLetter(path, f"missing_split: {name} (has {', '.join(sorted(splits))})")
            continue
        dataset = splits[name]
        if options.text_field not in dataset.column_names:
            yield DeadLetter(path, f"missing_field: column {options.text_field} ({len(dataset)} rows)")
            continue
        prefix = f"{base_name(path)}:{name}" if name else base_name(path)
        for start in range(0, len(dataset), 4096):
            rows = dataset[start:start + 4096]
            batch = [dict(zip(rows, values)) for values in zip(*rows.values())]
            yield from _read_table_rows(batch, path, prefix, options, source, start)


def _read_wiki_dump(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    for page in iter_dump_pages_of(path):
        if isinstance(page, DeadLetter):
            yield page
        else:
            yield page_record(page, path, source, namespaces=options.namespaces, with_title=options.title)


def iter_dump_pages_of(path: str) -> Iterator[Any]:
    """The pages of a dump file (Beam converts them to text after a reshuffle)."""
    try:
        stream = open_binary(path)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with stream:
        try:
            yield from iter_dump_pages(stream, path)
        except STREAM_ERRORS as err:
            yield DeadLetter(path, f"corrupt_file: {err}")


def iter_records(fmt: str, path: str, options: ReadOptions | Mapping[str, Any] | None = None,
                 source: str | None = None) -> Iterator[Record | CommentRow]:
    """Records of one file, with comment-thread rows not yet joined (Beam groups them across files)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    options = as_options(options)
    source = source or fmt
    if threaded(fmt, options) and comment_layout(path, options) == "lines":
        raise ValueError("thread_field needs a tsv, csv or jsonl comments file, not one comment per line")
    if fmt == "modu":
        yield from _read_modu(path, options, source)
        return
    if fmt == "wiki-dump":
        yield from _read_wiki_dump(path, options, source)
        return
    if fmt == "parquet":
        yield from _read_parquet(path, options, source)
        return
    if fmt == "hf-datasets":
        yield from _read_hf_dataset(path, options, source)
        return
    try:
        stream = open_binary(path)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with stream:
        if fmt == "wikiextractor":
            yield from _read_wikiextractor(path, stream, options, source)
        elif fmt == "comments" and comment_layout(path, options) == "csv":
            yield from _read_csv_comments(path, stream, options, source)
        else:
            yield from _read_line_file(fmt, path, stream, options, source)


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


def read_file(fmt: str, path: str, options: ReadOptions | Mapping[str, Any] | None = None,
              source: str | None = None) -> Iterator[Record]:
    """Every record of one file (or Modu folder/archive, or `datasets` folder) as Document/DeadLetter/Dropped."""
    yield from read_files(fmt, [path], options, source)


def read_files(fmt: str, paths: Iterable[str], options: ReadOptions | Mapping[str, Any] | None = None,
               source: str | None = None) -> Iterator[Record]:
    """`read_file` over several files; comment threads are joined across all of them."""
    options = as_options(options)
    source = source or fmt
    rows: list[CommentRow] = []
    for path in paths:
        for record in iter_records(fmt, path, options, source):
            if isinstance(record, CommentRow):
                rows.append(record)
            else:
                yield record
    yield from assemble_threads(rows, source)


def expand_paths(fmt: str, paths: Iterable[str]) -> list[str]:
    """Folders given for file formats become their files (sorted); Modu and `datasets` folders stay folders."""
    expanded: list[str] = []
    for path in paths:
        if fmt not in ("modu", "hf-datasets") and not is_remote(path) and os.path.isdir(path):
            expanded.extend(_walk(path))
        else:
            expanded.append(path)
    return expanded
