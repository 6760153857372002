"""`wiki-dump`: a MediaWiki XML dump (`pages-articles.xml[.bz2]`); pages become text after Beam spreads them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from kcorpus.transforms.files import STREAM_ERRORS
from kcorpus.transforms.readers.base import Reader, read_opened
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import Record
from kcorpus.transforms.readers.wiki import DumpPage, iter_dump_pages, page_record
from kcorpus.transforms.record import DeadLetter


def _pages_of_stream(stream: IO[bytes], path: str) -> Iterator[DumpPage | DeadLetter]:
    try:
        yield from iter_dump_pages(stream, path)
    except STREAM_ERRORS as err:
        yield DeadLetter(path, f"corrupt_file: {err}")


def iter_dump_pages_of(path: str) -> Iterator[DumpPage | DeadLetter]:
    """The pages of a dump file (Beam converts them to text after a reshuffle)."""
    return read_opened(path, lambda stream: _pages_of_stream(stream, path))


class WikiDumpReader(Reader):
    """Pages are read whole from one file; the costly wikitext conversion is `page_record`."""

    name = "wiki-dump"
    fold_digits = True

    def title_line(self, options: ReadOptions) -> bool:
        return options.title
    has_pages = True

    def pages(self, path: str) -> Iterator[Any]:
        return iter_dump_pages_of(path)

    def page_record(self, page: Any, path: str, options: ReadOptions, source: str) -> Record:
        if isinstance(page, DeadLetter):
            return page
        return page_record(page, path, source, namespaces=options.namespaces, with_title=options.title,
                           keep_stubs=options.keep_stubs)

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
        for page in self.pages(path):
            yield self.page_record(page, path, options, source)
