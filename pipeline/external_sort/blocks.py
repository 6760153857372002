"""Spill files: a sequence of pickled, zstd-compressed blocks, written by workers and read back by the same run.

`BlockWriter.write` appends a block and returns where it lies, `read_blocks` streams the blocks back one at a
time, `read_blocks_at` reads chosen ones. `_encode_block`, `_decode_block` and `_read_block` are the only
places that turn a block into bytes and back, and `create` and `open_file` the only places a spill file is
opened. A block on disk is its compressed length (8 bytes, little-endian) and one zstd frame of its pickle
(level `ZSTD_LEVEL`): spills are written and read once or twice, so the fastest level pays (about a third of
the bytes of pickled text and token ids). Spill files live in a run's private temporary folder and are read
only by the same run; all I/O goes through Beam's `FileSystems`, so `gs://` works.
"""

from __future__ import annotations

import pickle
import struct
import threading
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Self

import zstandard
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import naming

# zstd level of spill blocks: 1, the fastest of the standard levels (~3x on text, a few % of a stage's CPU).
ZSTD_LEVEL = 1
_LENGTH = struct.Struct("<Q")
# zstd contexts are not safe to share between threads (the local runner's in-memory mode runs several).
_contexts = threading.local()


def create(path: str) -> BinaryIO:
    """A new spill file for writing (its blocks are compressed one by one: never by Beam, whatever the name)."""
    return FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED)


def open_file(path: str) -> BinaryIO:
    """A spill file for reading."""
    return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def _compressor() -> zstandard.ZstdCompressor:
    if not hasattr(_contexts, "compressor"):
        _contexts.compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
        _contexts.decompressor = zstandard.ZstdDecompressor()
    return _contexts.compressor


def _decompressor() -> zstandard.ZstdDecompressor:
    _compressor()
    return _contexts.decompressor


def _encode_block(block: Any) -> bytes:
    """A block as stored: the length of its frame, then the frame (zstd of its pickle)."""
    frame = _compressor().compress(pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL))
    return _LENGTH.pack(len(frame)) + frame


def _decode_block(data: bytes) -> Any:
    """A block from the bytes `_encode_block` made."""
    return pickle.loads(_decompressor().decompress(data[_LENGTH.size :]))


def _read_block(f: BinaryIO) -> Any:
    """The next block of an open spill file; EOFError at its end (or inside a block cut short)."""
    head = f.read(_LENGTH.size)
    if not head:
        raise EOFError
    length = _LENGTH.unpack(head)[0] if len(head) == _LENGTH.size else -1
    frame = f.read(length) if length >= 0 else b""
    if length < 0 or len(frame) != length:
        raise OSError(f"{getattr(f, 'name', 'a spill file')}: a block cut short (the file was truncated)")
    return pickle.loads(_decompressor().decompress(frame))


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


def read_blocks(path: str, offset: int = 0, length: int = -1) -> Iterator[Any]:
    """The blocks of a spill file in order, one in memory at a time; with `offset` and `length`, those of
    that span (consecutive blocks, as `BlockWriter.write` placed them), each read by an open of its own: a
    merge of thousands of spans, each a unit's run in its own file, holds no file open between blocks (a
    process may open 1,024 files at once by default)."""
    if length >= 0:
        yield from _span_blocks(path, offset, offset + length)
        return
    with open_file(path) as f:
        if offset:
            f.seek(offset)
        while True:
            try:
                block = _read_block(f)
            except EOFError:
                return
            yield block


def _span_blocks(path: str, offset: int, end: int) -> Iterator[Any]:
    while offset < end:
        with open_file(path) as f:
            f.seek(offset)
            try:
                block = _read_block(f)
            except EOFError:
                return
            offset = f.tell()
        yield block


def read_blocks_at(path: str, ranges: Iterable[tuple[int, int]]) -> list[Any]:
    """The blocks at the given `(offset, length)`s of a spill file (what `BlockWriter.write` returned)."""
    blocks = []
    with open_file(path) as f:
        for offset, length in ranges:
            f.seek(offset)
            blocks.append(_decode_block(f.read(length)))
    return blocks
