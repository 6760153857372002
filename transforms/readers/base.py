"""`Reader`: what the rest of kcorpus asks of an input format (how to open, split and parse its files).

Each format is one `Reader` object in `registry.READERS`. The defaults describe a format read one whole
file at a time (`read`); a line format subclasses `lines.LineReader` and parses one decoded line in
`parse_text`, so that Beam can split its files by byte range and still give every record the same id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any, Protocol

from kcorpus.transforms.files import STREAM_ERRORS, open_binary
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import CommentRow, DeadFactory, Record
from kcorpus.transforms.record import DeadLetter


class LineContext(Protocol):
    """What `Reader.parse_text` may ask of the file a line comes from (`lines.LineParser` is the one)."""

    path: str
    options: ReadOptions
    source: str
    layout: str
    columns: list[str] | None

    def fallback_id(self, offset: int) -> str: ...

    def dead(self, offset: int, raw: bytes, line: int | None) -> DeadFactory: ...


class Reader:
    """One input format. Subclasses override what differs from a format read file by file.

    Attributes:
        name: the format name (`--format`, `sources[].format`).
        line_based: its files are lines that `lines.LineParser` reads one by one, so Beam splits them by byte range.
        range_based: its uncompressed files are read in byte ranges by `read_range` (line formats, and formats
            whose records start at a recognizable line, like WikiExtractor's `<doc>`).
        folder_is_input: a folder is one input (a Modu corpus, a saved `datasets` folder), not a tree of files.
        has_pages: records come from `pages` + `page_record`, which Beam reshuffles in between.
        boilerplate: the boilerplate rule sets (`transforms/rules/boilerplate.py`) on by default for this format.
        fold_digits: near dedup sees through numbers by default (`sources[].fold_digits`): on for edited and
            long-form text, where a template filled with other numbers is a stub; off for comments, where
            `종합 평점은 9점 드립니다` and `... 3점 ...` are different opinions.
    """

    name = ""
    line_based = False
    range_based = False
    folder_is_input = False
    has_pages = False
    boilerplate: tuple[str, ...] = ()
    fold_digits: bool = False

    def boilerplate_for(self, metadata: Mapping[str, Any]) -> tuple[str, ...]:
        """The default boilerplate rule sets of one document of this format (by its metadata)."""
        return self.boilerplate

    def title_line(self, options: ReadOptions) -> bool:
        """Whether the first line of every document is its title (the `title_repeat` rule reads it)."""
        return bool(options.title_field)

    def check(self, path: str, options: ReadOptions) -> None:
        """Raise ValueError if the options contradict the file (e.g. threads in a one-comment-per-line file)."""

    def layout(self, path: str, options: ReadOptions) -> str:
        """The file's layout where a format has several (comments); "" otherwise."""
        return ""

    def parses_lines(self, path: str, options: ReadOptions) -> bool:
        """Whether `parse_text` can read this file's records line by line."""
        return self.line_based

    def splittable(self, path: str, options: ReadOptions) -> bool:
        """Whether the file can be cut into byte ranges of lines, each parsed independently."""
        return self.line_based and self.parses_lines(path, options)

    def range_readable(self, path: str, options: ReadOptions) -> bool:
        """Whether `read_range` can read this file by byte ranges, each range's records independent."""
        return self.splittable(path, options)

    def read_range(self, path: str, options: ReadOptions, source: str, start: int,
                   end: int) -> Iterator[Record | CommentRow]:
        """The records that start in the byte range [start, end) of a `range_readable` file."""
        raise NotImplementedError(self.name)

    def may_read_whole(self, options: ReadOptions) -> bool:
        """Whether some file of this format, with these options, is read whole rather than by lines."""
        return not self.line_based

    def needs_header(self, path: str, options: ReadOptions) -> bool:
        """Whether parsing a line needs the file's first line (a TSV header naming the columns)."""
        return False

    def threaded(self, options: ReadOptions) -> bool:
        """Whether records are rows joined into thread documents across files (`CommentRow`s)."""
        return False

    def parse_text(self, parser: LineContext, text: str, offset: int, raw: bytes,
                   line: int | None) -> list[Record | CommentRow]:
        """The record(s) of one decoded line (`raw` is the undecoded line, for dead letters)."""
        raise ValueError(f"format {self.name!r} is not line-based here ({parser.path})")

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record | CommentRow]:
        """Every record of one input, in file order."""
        raise NotImplementedError(self.name)

    def pages(self, path: str) -> Iterator[Any]:
        """The pages of a file, for a format with `has_pages`."""
        raise NotImplementedError(self.name)

    def page_record(self, page: Any, path: str, options: ReadOptions, source: str) -> Record:
        """The record of one page (or the DeadLetter that `pages` gave)."""
        raise NotImplementedError(self.name)


def read_opened(path: str, read: Callable[[IO[bytes]], Iterator[Any]]) -> Iterator[Any]:
    """`read(stream)` over the opened (decompressed) file; an `unreadable_file` DeadLetter if it cannot open."""
    try:
        stream = open_binary(path)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with stream:
        yield from read(stream)
