"""`pipeline.filesystems` registers Beam's FileSystems as the remote opener of `transforms.files`."""

from __future__ import annotations

from kcorpus.pipeline import filesystems
from kcorpus.transforms import files


def test_beam_filesystems_are_registered_on_import():
    assert isinstance(files.remote_files("gs://bucket/a"), filesystems.BeamRemoteFiles)
