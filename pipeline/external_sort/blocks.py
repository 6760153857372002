"""Spill files: a sequence of pickled blocks, written by workers and read back by the same run.

`BlockWriter.write` appends a block and returns where it lies, `read_blocks` streams the blocks back one at a
time, `read_blocks_at` reads chosen ones. `_encode_block`, `_decode_block` and `_read_block` are the only
places that turn a block into bytes and back, and `create` and `open_file` the only places a spill file is
opened, so a change to the bytes on disk (compression) is made here once. Spill files live in a run's private
temporary folder and are read only by the same run; all I/O goes through Beam's `FileSystems`, so `gs://`
works.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Self

from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import naming


def create(path: str) -> BinaryIO:
    """A new spill file for writing."""
    return FileSystems.create(path)


def open_file(path: str) -> BinaryIO:
    """A spill file for reading."""
    return FileSystems.open(path)


def _encode_block(block: Any) -> bytes:
    return pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL)


def _decode_block(data: bytes) -> Any:
    return pickle.loads(data)


def _read_block(f: BinaryIO) -> Any:
    """The next block of an open spill file; EOFError at its end."""
    # A fresh unpickler per block: each block was pickled with its own memo.
    return pickle.load(f)


class BlockWriter:
    """Appends blocks to a spill file, created on the first `write`; `close` when done (a context manager)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self._file: BinaryIO | None = None

    def open(self) -> BinaryIO:
        """The file, created if it was not yet."""
        if self._file is None:
            self._file = create(self.path)
        return self._file

    def write(self, block: Any) -> tuple[int, int]:
        """Append one block; its `(offset, length)` in the file, for `read_blocks_at`."""
        data = _encode_block(block)
        self.open().write(data)
        start, self.offset = self.offset, self.offset + len(data)
        return start, len(data)

    @property
    def opened(self) -> bool:
        return self._file is not None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_blocks(path: str, blocks: Iterable[Any]) -> None:
    """A spill file holding `blocks` (created even when there are none); an OSError names `path`."""
    with naming(path), BlockWriter(path) as writer:
        writer.open()
        for block in blocks:
            writer.write(block)


def read_blocks(path: str) -> Iterator[Any]:
    """The blocks of a spill file in order, one in memory at a time."""
    with open_file(path) as f:
        while True:
            try:
                block = _read_block(f)
            except EOFError:
                return
            yield block


def read_blocks_at(path: str, ranges: Iterable[tuple[int, int]]) -> list[Any]:
    """The blocks at the given `(offset, length)`s of a spill file (what `BlockWriter.write` returned)."""
    blocks = []
    with open_file(path) as f:
        for offset, length in ranges:
            f.seek(offset)
            blocks.append(_decode_block(f.read(length)))
    return blocks
