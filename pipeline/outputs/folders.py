"""An output folder's top-level entries and small text files, local or remote (`gs://`, through Beam's
FileSystems, imported only for a remote folder): what the marker, the lock and `--overwrite` use.
"""

from __future__ import annotations

import os
import shutil
import uuid

from kcorpus.transforms.files import is_remote, join


def list_entries(out: str) -> list[str]:
    """The top-level names in a folder (files and folders, hidden ones included); [] when it is absent."""
    if not is_remote(out):
        return sorted(os.listdir(out)) if os.path.isdir(out) else []
    from kcorpus.pipeline import filesystems as fs

    return sorted({rel.split("/", 1)[0] for rel in fs.list_files(out)})


def makedirs(out: str) -> None:
    if not is_remote(out):
        os.makedirs(out, exist_ok=True)


def read_text(path: str) -> str | None:
    if not is_remote(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
    from kcorpus.pipeline import filesystems as fs

    try:
        return fs.read_bytes(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None


def write_text(path: str, text: str) -> None:
    if not is_remote(path):
        tmp = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        return
    from kcorpus.pipeline import filesystems as fs

    fs.write_bytes(path, text.encode("utf-8"))


def remove_entry(out: str, entry: str) -> None:
    path = join(out, entry)
    if not is_remote(out):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        return
    from kcorpus.pipeline import filesystems as fs

    fs.delete_file(path)  # an object named `entry`
    fs.delete_tree(path)  # the objects under the prefix `entry/`
