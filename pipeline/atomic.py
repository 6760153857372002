"""Atomic writes through Beam's `FileSystems` (local or `gs://`): a file appears under its name only complete.

A file is written under a temporary name next to its final one and renamed into place on close.
"""

from __future__ import annotations

import io
import uuid

from apache_beam.io.filesystems import FileSystems


class AtomicTextFile:
    """A UTF-8 text file ("\\n" newlines) written under a temporary name and renamed on `close()`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tmp = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
        self._raw = FileSystems.create(self.tmp)
        self._text = io.TextIOWrapper(self._raw, encoding="utf-8", newline="\n")

    def write(self, text: str) -> None:
        self._text.write(text)

    def close(self) -> None:
        self._text.flush()
        self._text.detach()
        self._raw.close()
        _replace(self.tmp, self.path)

    def __enter__(self) -> AtomicTextFile:  # noqa: PYI034 -- py3.10 has no typing.Self
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self._text.detach()
            self._raw.close()
            FileSystems.delete([self.tmp])


def write_atomic(path: str, data: bytes) -> None:
    """Write `data` to a temporary name next to `path`, then rename: readers never see a partial file."""
    directory, name = path.rsplit("/", 1) if "/" in path else (".", path)
    tmp = FileSystems.join(directory, f".{name}.tmp-{uuid.uuid4().hex}")
    with FileSystems.create(tmp) as f:
        f.write(data)
    _replace(tmp, path)


def _replace(tmp: str, path: str) -> None:
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([tmp], [path])
