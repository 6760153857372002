"""Opening input paths: the one owner of local and remote files, compression by suffix and folder walking.

Local paths are opened with Python's own `open`; `.gz`, `.bz2`, `.zst` and `.xz` files are decompressed as they
are read, and so is a file of another name whose first bytes are one of those (`compression.py`). Remote paths (`scheme://...`, e.g.
`gs://`) go through a `RemoteFiles` object that the pipeline registers (`kcorpus.pipeline.filesystems`
registers Beam's `FileSystems`), so this module, like all of `transforms/`, never imports Beam. Without a
registered opener a remote path is a `ValueError`. `is_remote` and `join` are the path helpers every
module uses (pipeline/filesystems.py and pipeline/outputs/folders.py import them); they need no opener.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from collections.abc import Iterator
from typing import IO, Protocol

from kcorpus.transforms import compression

# The path that means standard input (`kcorpus read -`, `kcorpus clean -`).
STDIN = "-"
# What reading a (possibly compressed, possibly truncated) stream can raise.
STREAM_ERRORS = (OSError, EOFError, zlib.error, *compression.ERRORS)
COMPRESSED_SUFFIXES = tuple(compression.SUFFIXES)
# Local files whose suffix names their compression are opened by name (the module owns the file).
_LOCAL_OPENERS = {compression.GZIP: gzip.open, compression.BZ2: bz2.open, compression.XZ: lzma.open}


class RemoteFiles(Protocol):
    """The operations on remote paths that readers and the packer need."""

    def open(self, path: str) -> IO[bytes]:
        """The raw (not decompressed) bytes of a remote file."""

    def exists(self, path: str) -> bool:
        """Whether a remote file exists."""

    def match(self, pattern: str) -> list[tuple[str, int]]:
        """`(path, size in bytes)` of every remote file a pattern matches."""


_remote: list[RemoteFiles] = []


def register_remote(files: RemoteFiles) -> None:
    """Use `files` for every remote path from now on (the last registration wins)."""
    _remote[:] = [files]


def remote_files(path: str) -> RemoteFiles:
    """The registered opener for a remote path; a ValueError naming the path when there is none."""
    if not _remote:
        raise ValueError(f"cannot open remote path {path!r}: no remote filesystem registered "
                         "(import kcorpus.pipeline.filesystems to use Beam's)")
    return _remote[0]


def is_remote(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names a remote object (`scheme://...`) rather than a local file."""
    return "://" in os.fspath(path)


def is_compressed(path: str) -> bool:
    """Whether `open_binary` decompresses `path`: by its suffix, else by its first bytes (the file is opened)."""
    return compression_of(path) is not None


def compression_of(path: str) -> str | None:
    """The compression of a file (`compression.GZIP`, ...): by its suffix, else by its magic bytes; None for
    plain bytes and for standard input."""
    kind = compression.by_suffix(path)
    if kind is not None or path == STDIN:
        return kind
    with open_raw(path) as stream:
        return compression.by_magic(compression.head(stream))


def is_local_dir(path: str) -> bool:
    return not is_remote(path) and os.path.isdir(path)


def exists(path: str) -> bool:
    return remote_files(path).exists(path) if is_remote(path) else os.path.exists(path)


def join(base: str | os.PathLike[str], *parts: str) -> str:
    """`base/part/...`, with "/" for remote paths and the OS separator for local ones."""
    base = os.fspath(base)
    if is_remote(base):
        return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])
    return os.path.join(base, *parts)


class _KeepOpen:
    """A stream whose `close()` (or `with` block) leaves the underlying stream open: stdin is not ours."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._stream)

    def __enter__(self) -> _KeepOpen:  # noqa: PYI034 -- py3.10 has no typing.Self
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        pass


def open_stdin() -> IO[bytes]:
    """Standard input's bytes, left open when the reader closes it."""
    import sys

    return _KeepOpen(sys.stdin.buffer)  # type: ignore[return-value]


def open_raw(path: str) -> IO[bytes]:
    """A local or remote file's bytes as stored (no decompression); `-` is standard input."""
    if path == STDIN:
        return open_stdin()
    return remote_files(path).open(path) if is_remote(path) else open(path, "rb")


def open_binary(path: str) -> IO[bytes]:
    """Open a local or remote file for reading, decompressed by suffix (.gz/.bz2/.zst/.xz) or else by magic bytes.

    Decompression is kcorpus's own for remote files too (`compression.py`): it raises on a truncated stream,
    where Beam's decompressing reader ends quietly. `-` is standard input, decompressed by its magic bytes.
    A zip archive is an `UnsupportedCompression` (an OSError) naming the file.
    """
    if path == STDIN:
        stream = open_stdin()
        kind = compression.by_magic(compression.head(stream))
        return stream if kind is None else compression.decompressed(stream, kind, "standard input")
    kind = compression.by_suffix(path)
    if kind in _LOCAL_OPENERS and not is_remote(path):
        return _LOCAL_OPENERS[kind](path, "rb")
    stream = open_raw(path)
    if kind is None:
        kind = compression.by_magic(compression.head(stream))
        if kind is None:
            return stream
    return compression.decompressed(stream, kind, path)


def base_name(path: str) -> str:
    """The file name part of a path, without a compression suffix (.gz, .bz2, .zst, .xz): the stable part of
    line-record ids.

    Standard input (`-`) is named `stdin`.
    """
    if path == STDIN:
        return "stdin"
    name = path.rstrip("/").rsplit("/", 1)[-1]
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def broken_link(path: str) -> str | None:
    """The target of a local symbolic link that points at nothing, or None (not a link, or a working one)."""
    if is_remote(path) or not os.path.islink(path) or os.path.exists(path):
        return None
    return os.readlink(path)


def walk(folder: str, suffixes: tuple[str, ...] = ()) -> list[str]:
    """The files under a local folder (hidden files and folders skipped), sorted; only `suffixes` if given.

    A link to a folder is walked like the folder; each real folder once, so a link back up the tree ends.
    """
    found = []
    seen = {os.path.realpath(folder)}
    for root, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = [d for d in sorted(dirs) if not d.startswith(".") and first_visit(os.path.join(root, d), seen)]
        found.extend(os.path.join(root, f) for f in names
                     if not f.startswith(".") and (not suffixes or f.lower().endswith(suffixes)))
    return sorted(found)


def first_visit(folder: str, seen: set[str]) -> bool:
    """Whether to walk `folder`: not walked yet (by its real path), and not a link to a folder above it (a loop)."""
    real = os.path.realpath(folder)
    above = os.path.realpath(os.path.dirname(folder) or os.curdir)
    if real in seen or above == real or above.startswith(real.rstrip(os.sep) + os.sep):
        return False
    seen.add(real)
    return True
