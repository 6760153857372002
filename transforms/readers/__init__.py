"""Readers for every source: iterate a file, yield `Document`s, and say why for everything else.

`read_file(fmt, path, options, source)` yields, for each input record, exactly one `Document`, `DeadLetter`
(could not be read: location, reason, first 200 raw bytes) or `Dropped` (skipped on purpose with a reason,
such as a redirect or an empty record). A file that cannot be opened is one `DeadLetter` naming it.

Each format is a `Reader` in `registry.READERS` (one module per format family: `lines` for nsmc, text,
jsonl and petitions, `comments`, `wikiextractor`, `wiki_dump`, `modu`, `tables` for parquet and
hf-datasets). Line formats go through `parse_line`, which needs only the line's bytes and byte offset, so
Beam can split one large file across workers and still produce the same ids (`<source>:<file name>:<offset>`
where a record has no id of its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from kcorpus.transforms import matching
from kcorpus.transforms.files import STDIN, is_remote
from kcorpus.transforms.readers.base import Reader
from kcorpus.transforms.readers.comments import assemble_threads, thread_document
from kcorpus.transforms.readers.lines import LineParser, decode_line, unquote_nsmc
from kcorpus.transforms.readers.options import ReadOptions, as_options
from kcorpus.transforms.readers.records import CommentRow, Record, reason_code
from kcorpus.transforms.readers.registry import FORMATS, READERS, reader_for

__all__ = [
    "FORMATS", "READERS", "CommentRow", "LineParser", "ReadOptions", "Reader", "Record", "as_options",
    "assemble_threads", "decode_line", "expand_paths", "iter_records", "line_parser", "parse_line",
    "read_file", "read_files", "reader_for", "reason_code", "thread_document", "unquote_nsmc",
]


def line_parser(fmt: str, path: str, options: ReadOptions, source: str, header: bytes | None = None) -> LineParser:
    """A `LineParser` for one file of a line format (`header`: the first line, where the format needs it)."""
    return LineParser(reader_for(fmt), path, options, source, header)


def parse_line(fmt: str, path: str, offset: int, raw: bytes, options: ReadOptions, source: str, *,
               line: int | None = None, header: bytes | None = None) -> list[Record | CommentRow]:
    """The record(s) of one raw line of a line-based file (see `LineParser`, which reuses per-file work)."""
    return line_parser(fmt, path, options, source, header).parse(offset, raw, line)


def iter_records(fmt: str, path: str, options: ReadOptions | Mapping[str, Any] | None = None,
                 source: str | None = None) -> Iterator[Record | CommentRow]:
    """Records of one file, with comment-thread rows not yet joined (Beam groups them across files)."""
    reader = reader_for(fmt)
    options = as_options(options)
    reader.check(path, options)
    yield from reader.read(path, options, source or fmt)


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
    """Paths, globs and folders to the inputs they name (`matching.match`: a folder of a file format is its
    files, sorted; Modu and `datasets` folders stay folders); a path that names nothing stays, for its reader
    to dead-letter; `-` is standard input."""
    folder_is_input = reader_for(fmt).folder_is_input
    expanded: list[str] = []
    for path in paths:
        matched = [] if path == STDIN or is_remote(path) else [m.path for m in matching.match(path, folder_is_input)]
        expanded.extend(matched or [path])
    return expanded
