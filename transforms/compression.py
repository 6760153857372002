"""Compressed inputs: which compression a file uses (by suffix, else by its first bytes) and its stream decompressed.

gzip, bz2 and xz are Python's own; zstd is `zstandard`'s, read a frame at a time (`ZstdReader`). Every
decompressor streams (nothing is read whole) and raises on a stream that ends inside a frame, as gzip does,
so a truncated file is a `corrupt_file` dead letter and never a quietly shorter input. A file with a suffix
kcorpus does not know (`dump.txt` holding gzip, `part-0001`) is told apart from text by its magic bytes;
a zip archive (one file of many) is an `UnsupportedCompression` error naming the file, never read as text.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from typing import IO

GZIP, BZ2, ZSTD, XZ, ZIP = "gzip", "bz2", "zstd", "xz", "zip"
SUFFIXES = {".gz": GZIP, ".bz2": BZ2, ".zst": ZSTD, ".xz": XZ}
# What a compressed file's stream can raise beyond OSError/EOFError (gzip's zlib.error is in files.STREAM_ERRORS).
ERRORS = (lzma.LZMAError,)
# Bytes read from a file's start to tell its compression (bz2's header is the longest: 'BZh', level, block magic).
HEAD_BYTES = 10
# Compressed bytes fed to zstd at a time: the text they give is held at once (a few MB at text's ratios).
ZSTD_CHUNK = 1 << 16


class UnsupportedCompression(OSError):
    """A compressed file kcorpus does not decompress (a zip archive outside the `modu` format)."""


def by_suffix(path: str) -> str | None:
    """The compression a path's suffix names (`.gz`, `.bz2`, `.zst`, `.xz`), or None."""
    for suffix, kind in SUFFIXES.items():
        if path.endswith(suffix):
            return kind
    return None


def by_magic(head: bytes) -> str | None:
    """The compression whose magic bytes start `head` (at least `HEAD_BYTES` of a file, when it has them), or None.

    None of these starts valid UTF-8 text except bz2's `BZh`, so bz2 also needs its level digit and the magic of
    its first block (or of its end, for an empty stream).
    """
    if head.startswith(b"\x1f\x8b"):
        return GZIP
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return ZSTD
    if head.startswith(b"\xfd7zXZ\x00"):
        return XZ
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return ZIP
    if (
        head[:3] == b"BZh"
        and len(head) >= 10
        and head[3] in b"123456789"
        and head[4:10] in (b"1AY&SY", b"\x17\x72\x45\x38\x50\x90")
    ):
        return BZ2
    return None


def head(stream: IO[bytes]) -> bytes:
    """The first `HEAD_BYTES` of a stream just opened, left unread (peeked, or read and sought back); b"" when
    the stream can do neither."""
    peek = getattr(stream, "peek", None)
    if peek is not None:
        return peek(HEAD_BYTES)[:HEAD_BYTES]
    if stream.seekable():
        data = stream.read(HEAD_BYTES)
        stream.seek(0)
        return data
    return b""


def decompressed(stream: IO[bytes], kind: str, path: str) -> IO[bytes]:
    """`stream` (raw bytes of `path`) decompressed as `kind`; closing the result closes `stream`."""
    if kind == ZIP:
        stream.close()
        raise UnsupportedCompression(
            f"{path} is a zip archive: unzip it first (kcorpus decompresses .gz, .bz2, .zst and .xz files; "
            "the modu format reads .zip)"
        )
    if kind == ZSTD:
        return io.BufferedReader(ZstdReader(stream))
    opened = {GZIP: gzip.GzipFile, BZ2: bz2.BZ2File, XZ: lzma.LZMAFile}[kind]
    return io.BufferedReader(_Owning(opened(fileobj=stream) if kind == GZIP else opened(stream), stream))


class _Owning(io.RawIOBase):
    """A decompressing file object over `source`, closing `source` too (gzip/bz2/lzma leave a file object open)."""

    def __init__(self, reader: IO[bytes], source: IO[bytes]) -> None:
        self._reader, self._source = reader, source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:
        return self._reader.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._reader.close()
            self._source.close()
        super().close()


class ZstdReader(io.RawIOBase):
    """A zstd stream's bytes, decompressed `ZSTD_CHUNK` compressed bytes at a time, frame after frame.

    `zstandard`'s own `stream_reader` ends quietly at a truncated frame; here a stream that ends inside a frame
    is an EOFError, and a corrupt one an OSError, as Python's gzip and bz2 raise.
    """

    def __init__(self, source: IO[bytes]) -> None:
        import zstandard

        self._source, self._error = source, zstandard.ZstdError
        self._context = zstandard.ZstdDecompressor()
        self._frame = self._context.decompressobj()
        self._in_frame = False
        self._out, self._at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:
        while self._at >= len(self._out):
            if not self._fill():
                return 0
        n = min(len(buffer), len(self._out) - self._at)
        buffer[:n] = self._out[self._at : self._at + n]
        self._at += n
        return n

    def _fill(self) -> bool:
        """Decompress the next chunk of the source into `_out`; False at the end of the last frame."""
        chunk = self._source.read(ZSTD_CHUNK)
        if not chunk:
            if self._in_frame:
                raise EOFError("zstd stream ended before the end of its last frame (a truncated file)")
            return False
        parts = []
        while chunk:
            self._in_frame = True
            try:
                parts.append(self._frame.decompress(chunk))
            except self._error as err:
                raise OSError(f"not a valid zstd stream: {err}") from None
            if not self._frame.eof:
                break
            chunk = self._frame.unused_data
            self._frame, self._in_frame = self._context.decompressobj(), False
        self._out, self._at = b"".join(parts), 0
        return True

    def close(self) -> None:
        if not self.closed:
            self._source.close()
        super().close()
