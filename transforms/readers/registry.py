"""The format registry: one `Reader` object per format name.

Nothing else compares format names: the readers facade and the Beam read steps look the name up here and
ask the `Reader` (line-splittable? needs a header? threads? pages?). To add a format, write one module
with a `Reader` subclass (a `lines.LineReader` with `parse_text` for a line format, or `read` for a whole-file
one; see `base.Reader` for what it may override) and add one line to `READERS` below.
"""

from __future__ import annotations

from kcorpus.transforms.readers.base import Reader
from kcorpus.transforms.readers.comments import CommentsReader
from kcorpus.transforms.readers.lines import JsonlReader, NsmcReader, PetitionsReader, TextReader
from kcorpus.transforms.readers.modu import ModuReader
from kcorpus.transforms.readers.tables import HfDatasetsReader, ParquetReader
from kcorpus.transforms.readers.wiki_dump import WikiDumpReader
from kcorpus.transforms.readers.wikiextractor import WikiExtractorReader

READERS: dict[str, Reader] = {reader.name: reader for reader in (
    ModuReader(),
    WikiExtractorReader(),
    WikiDumpReader(),
    PetitionsReader(),
    CommentsReader(),
    NsmcReader(),
    TextReader(),
    JsonlReader(),
    ParquetReader(),
    HfDatasetsReader(),
)}
FORMATS = tuple(READERS)


def reader_for(fmt: str) -> Reader:
    """The `Reader` of a format name; a ValueError listing the valid names for any other."""
    if fmt not in READERS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    return READERS[fmt]
