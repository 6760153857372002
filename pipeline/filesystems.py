"""Registers Beam's `FileSystems` as the opener of remote paths (`gs://...`) for `kcorpus.transforms.files`.

`transforms/` never imports Beam, so the pipeline modules that read inputs import this module: on the
launcher, and on every Beam worker that unpickles one of their DoFns.
"""

from __future__ import annotations

from typing import IO

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from kcorpus.transforms import files


class BeamRemoteFiles:
    """`files.RemoteFiles` over Beam's `FileSystems` (any scheme Beam has a filesystem for)."""

    def open(self, path: str) -> IO[bytes]:
        return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)

    def exists(self, path: str) -> bool:
        return FileSystems.exists(path)

    def join(self, base: str, *parts: str) -> str:
        return FileSystems.join(base, *parts)


files.register_remote(BeamRemoteFiles())
