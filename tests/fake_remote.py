"""`fakegs://`: a Beam `FileSystem` over a local temp folder that behaves like gs:// where it matters.

Like Cloud Storage it has no folders: a path is an object name, `exists` is true for objects only, listing is
by name prefix, `mkdirs` does nothing and `rename` moves objects one at a time (a folder cannot be renamed).
Defining the class registers the scheme with Beam (`FileSystems` finds `FileSystem` subclasses by scheme);
`use_root(folder)` points it at a folder. Only for runners in this process (in_memory, the launcher).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from apache_beam.io.filesystem import BeamIOError, CompressedFile, CompressionTypes, FileMetadata, FileSystem

SCHEME = "fakegs"
PREFIX = f"{SCHEME}://"


class FakeGcsFileSystem(FileSystem):
    root: Path | None = None

    @classmethod
    def scheme(cls) -> str:
        return SCHEME

    @classmethod
    def local(cls, path: str) -> Path:
        if cls.root is None:
            raise BeamIOError(f"{SCHEME}:// has no root (call use_root)", {})
        if not path.startswith(PREFIX):
            raise ValueError(f"not a {SCHEME} path: {path}")
        return cls.root / path[len(PREFIX):]

    def join(self, basepath: str, *paths: str) -> str:
        return "/".join([basepath.rstrip("/"), *(p.strip("/") for p in paths)])

    def split(self, path: str) -> tuple[str, str]:
        head, _, tail = path.rstrip("/").rpartition("/")
        return head, tail

    def mkdirs(self, path: str) -> None:
        pass

    def has_dirs(self) -> bool:
        return False

    def _list(self, dir_or_prefix: str):
        assert self.root is not None
        for dirpath, _, names in os.walk(self.root):
            for name in names:
                local = Path(dirpath, name)
                path = PREFIX + local.relative_to(self.root).as_posix()
                if path.startswith(dir_or_prefix):
                    stat = local.stat()
                    yield FileMetadata(path, stat.st_size, stat.st_mtime)

    def create(self, path, mime_type="application/octet-stream", compression_type=CompressionTypes.AUTO):
        local = self.local(path)
        if local.is_dir():
            raise BeamIOError(f"{path} is a prefix of other objects in this fake", {path: "exists"})
        local.parent.mkdir(parents=True, exist_ok=True)
        return self._wrap(open(local, "wb"), path, compression_type)

    def open(self, path, mime_type="application/octet-stream", compression_type=CompressionTypes.AUTO):
        local = self.local(path)
        if not local.is_file():
            raise BeamIOError(f"no object {path}", {path: FileNotFoundError(path)})
        return self._wrap(open(local, "rb"), path, compression_type)

    @staticmethod
    def _wrap(raw, path, compression_type):
        if compression_type == CompressionTypes.AUTO:
            compression_type = CompressionTypes.detect_compression_type(path)
        if compression_type == CompressionTypes.UNCOMPRESSED:
            return raw
        return CompressedFile(raw, compression_type=compression_type)

    def copy(self, source_file_names, destination_file_names):
        for source, destination in zip(source_file_names, destination_file_names):
            src = self.local(source)
            if not src.is_file():
                raise BeamIOError("copy of a missing object", {(source, destination): FileNotFoundError(source)})
            self.local(destination).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, self.local(destination))

    def rename(self, source_file_names, destination_file_names):
        self.copy(source_file_names, destination_file_names)
        self.delete(source_file_names)

    def exists(self, path: str) -> bool:
        return self.local(path).is_file()

    def size(self, path: str) -> int:
        return self.local(path).stat().st_size

    def last_updated(self, path: str) -> float:
        return self.local(path).stat().st_mtime

    def checksum(self, path: str) -> str:
        # gs:// answers with the object's stored MD5 without reading it; a content hash stands in for it here
        return hashlib.md5(self.local(path).read_bytes()).hexdigest()

    def metadata(self, path: str) -> FileMetadata:
        stat = self.local(path).stat()
        return FileMetadata(path, stat.st_size, stat.st_mtime)

    def delete(self, paths) -> None:
        for path in paths:
            local = self.local(path)
            if local.is_file():
                local.unlink()
            # like gs://, deleting a missing object is not an error; empty local folders are left behind


def use_root(folder: Path) -> None:
    """Make `fakegs://` objects live under `folder`."""
    FakeGcsFileSystem.root = Path(folder)


def local_files(folder: Path) -> list[str]:
    """The object names under the fake's root, for assertions."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
