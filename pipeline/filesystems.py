"""Beam's `FileSystems` for kcorpus: the remote opener of `kcorpus.transforms.files`, and folder helpers.

Importing this module registers Beam's `FileSystems` as the opener of remote paths (`gs://...`):
`transforms/` never imports Beam, so the pipeline modules that read inputs import this module, on the
launcher and on every Beam worker that unpickles one of their DoFns.

The helpers below (`read_bytes`, `open_read`, `write_bytes`, `exists`, `list_files`, `delete_file`,
`delete_tree`, `move_tree`, `content_checksum`, `download_tree`, `upload_tree`) work the same on a local
folder and on a remote prefix: what `kcorpus run` uses for its stage folders, manifests and report.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import IO

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import write_atomic
from kcorpus.transforms import files
from kcorpus.transforms.files import is_remote, join  # owned there; callers use fs.join, fs.is_remote too


class BeamRemoteFiles:
    """`files.RemoteFiles` over Beam's `FileSystems` (any scheme Beam has a filesystem for)."""

    def open(self, path: str) -> IO[bytes]:
        return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)

    def exists(self, path: str) -> bool:
        return FileSystems.exists(path)

    def match(self, pattern: str) -> list[tuple[str, int]]:
        return [(m.path, m.size_in_bytes) for m in FileSystems.match([pattern])[0].metadata_list]


files.register_remote(BeamRemoteFiles())


# ---- folder-level helpers over local paths and Beam filesystems (gs://, ...) -------------------------------
# Local paths use os/pathlib (a folder is renamed atomically); remote ones use Beam's FileSystems, where a
# "folder" is a name prefix: it has no atomic rename and exists only through the objects under it.


def has_filesystem(path: str) -> bool:
    """Whether Beam has a filesystem for a remote path's scheme in this process (gs:// needs its extras)."""
    try:
        FileSystems.get_filesystem(str(path))
    except ValueError:
        return False
    return True


# The storage behind a scheme and the Beam extra that installs its filesystem; gs:// is kcorpus's own
# `dataflow` extra (pyproject.toml), which is apache-beam[gcp].
FILESYSTEM_EXTRAS = {
    "gs": ("Cloud Storage", "gcp"),
    "s3": ("Amazon S3", "aws"),
    "azfs": ("Azure Blob Storage", "azure"),
}


def missing_filesystem(path: str) -> str | None:
    """The one line naming the extra to install when Beam has no filesystem for a remote path here, or None."""
    if not is_remote(path) or has_filesystem(path):
        return None
    import apache_beam

    scheme = str(path).split("://", 1)[0]
    if scheme not in FILESYSTEM_EXTRAS:
        known = ", ".join(f"{s}://" for s in FILESYSTEM_EXTRAS)
        return f"{path}: Beam has no filesystem for {scheme}:// (remote paths: {known})"
    storage, extra = FILESYSTEM_EXTRAS[scheme]
    line = (
        f"{path}: {scheme}:// needs Beam's {storage} filesystem, which is not installed: "
        f"pip install 'apache-beam[{extra}]=={apache_beam.__version__}'"
    )
    if extra == "gcp":
        line += " (kcorpus's dataflow extra; from a kcorpus checkout: pip install '.[dataflow]')"
    return line


def folder_exists(folder: str) -> bool:
    """Whether a local folder exists, or a remote prefix has files under it."""
    folder = str(folder)
    return os.path.isdir(folder) if not is_remote(folder) else bool(list_files(folder))


def read_bytes(path: str) -> bytes:
    """A file's bytes; FileNotFoundError when it is not there."""
    path = str(path)
    if not is_remote(path):
        return Path(path).read_bytes()
    if not FileSystems.exists(path):
        raise FileNotFoundError(path)
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        return f.read()


def open_read(path: str) -> IO[bytes]:
    """A file's bytes as a stream (not decompressed)."""
    path = str(path)
    return open(path, "rb") if not is_remote(path) else FileSystems.open(
        path, compression_type=CompressionTypes.UNCOMPRESSED)  # fmt: skip


def content_checksum(path: str) -> str:
    """A digest of a file's content: sha256 of a local file, the store's own checksum of a remote object.

    A remote object is not read back: gs:// keeps an MD5 or CRC32C of every object (Beam's `checksum`).
    """
    path = str(path)
    if is_remote(path):
        return f"{path.split('://', 1)[0]}:{FileSystems.checksum(path)}"
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_bytes(path: str, data: bytes) -> None:
    """Write a file so that readers see the old content or the new one, never a part (parents are created)."""
    path = str(path)
    if not is_remote(path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def exists(path: str) -> bool:
    """Whether a file (not a folder: remote folders do not exist by themselves) is at `path`."""
    path = str(path)
    return os.path.isfile(path) if not is_remote(path) else FileSystems.exists(path)


def list_files(folder: str) -> dict[str, int]:
    """Every file below `folder` as relative "/"-separated path -> size in bytes, sorted; {} when none."""
    folder = str(folder)
    if not is_remote(folder):
        root = Path(folder)
        if not root.is_dir():
            return {}
        return {p.relative_to(root).as_posix(): p.stat().st_size for p in sorted(root.rglob("*")) if p.is_file()}
    prefix = folder.rstrip("/") + "/"
    matched = FileSystems.match([prefix + "**"])[0].metadata_list
    return dict(sorted((m.path[len(prefix):], m.size_in_bytes) for m in matched if m.path.startswith(prefix)))


def delete_file(path: str) -> None:
    """Delete one file; nothing happens when it is not there."""
    path = str(path)
    if not is_remote(path):
        Path(path).unlink(missing_ok=True)
    elif FileSystems.exists(path):
        FileSystems.delete([path])


def delete_tree(folder: str) -> None:
    """Delete `folder` and everything below it; nothing happens when it is not there."""
    folder = str(folder)
    if not is_remote(folder):
        shutil.rmtree(folder, ignore_errors=True)
        return
    paths = [join(folder, rel) for rel in list_files(folder)]
    if paths:
        FileSystems.delete(paths)


def move_tree(source: str, destination: str, *, last: str | None = None) -> None:
    """Move every file of `source` under `destination`, which must not hold files yet.

    A local folder is renamed in one step. Remote objects are renamed one by one (gs:// copies each), the
    file `last` (a path relative to `source`) after all the others: that file is the marker a reader of
    `destination` can trust, since the move itself is not atomic.
    """
    source, destination = str(source), str(destination)
    if not is_remote(source) and not is_remote(destination):
        os.replace(source, destination)
        return
    names = sorted(list_files(source), key=lambda rel: rel == last)
    for group in ([n for n in names if n != last], [n for n in names if n == last]):
        if group:
            FileSystems.rename([join(source, rel) for rel in group], [join(destination, rel) for rel in group])


def download_tree(source: str, destination: str) -> list[str]:
    """Copy every file below `source` (local or remote) into the local folder `destination`; the local paths."""
    local = []
    for rel in list_files(source):
        target = Path(destination, *rel.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read_bytes(join(source, rel)))
        local.append(str(target))
    return local


def upload_tree(source: str, destination: str) -> None:
    """Copy every file of the local folder `source` below `destination` (local or remote)."""
    for rel in list_files(source):
        write_bytes(join(destination, rel), Path(source, *rel.split("/")).read_bytes())
