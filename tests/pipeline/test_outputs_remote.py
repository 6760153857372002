"""pipeline/outputs.py on a remote (`scheme://`) folder, through Beam's FileSystems and a fake object store."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from apache_beam.io.filesystem import FileMetadata, MatchResult
from apache_beam.io.filesystems import FileSystems
from apache_beam.io.localfilesystem import LocalFileSystem

from kcorpus.pipeline.outputs import (
    OutputError,
    check_output,
    claim_output,
    list_entries,
    read_lock,
    read_marker,
)

ROOT: list[Path] = []


class FakeObjectStore(LocalFileSystem):
    """`kcfakeout://bucket/key` is the local file ROOT/bucket/key; matching a missing prefix gives no match."""

    @classmethod
    def scheme(cls) -> str:
        return "kcfakeout"

    def _local(self, path: str) -> str:
        return os.path.join(ROOT[0], path.split("://", 1)[1]) if "://" in path else path

    def _remote(self, path: str) -> str:
        return "kcfakeout://" + os.path.relpath(path, ROOT[0])

    def match(self, patterns, limits=None):
        results = []
        for pattern in patterns:
            local = self._local(pattern)
            folder = os.path.dirname(local.split("*", 1)[0]) if "*" in local else local
            found = super().match([local])[0].metadata_list if os.path.exists(folder) else []
            metadata = [FileMetadata(self._remote(m.path), m.size_in_bytes, m.last_updated_in_seconds) for m in found]
            results.append(MatchResult(pattern, metadata))
        return results

    def create(self, path, *args, **kwargs):
        os.makedirs(os.path.dirname(self._local(path)), exist_ok=True)
        return super().create(self._local(path), *args, **kwargs)

    def open(self, path, *args, **kwargs):
        return super().open(self._local(path), *args, **kwargs)

    def exists(self, path: str) -> bool:
        return super().exists(self._local(path))

    def delete(self, paths) -> None:
        for path in map(self._local, paths):
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)

    def rename(self, sources, destinations) -> None:
        for destination in destinations:
            os.makedirs(os.path.dirname(self._local(destination)), exist_ok=True)
        super().rename([self._local(p) for p in sources], [self._local(p) for p in destinations])


@pytest.fixture
def store(tmp_path: Path) -> Path:
    ROOT[:] = [tmp_path]
    return tmp_path


def test_remote_folders_get_the_marker_the_lock_and_overwrite_of_own_entries_only(store):
    out = "kcfakeout://bucket/pack"
    with claim_output(check_output(out, "pack")):
        assert read_lock(out)["command"] == "pack"
        FileSystems.create(out + "/train/data-00000-of-00001.arrow").close()
    with FileSystems.create(out + "/thesis.txt") as f:
        f.write("제 논문입니다\n".encode())
    assert read_lock(out) is None and read_marker(out)["command"] == "pack"
    assert list_entries(out) == [".kcorpus-owned.json", "thesis.txt", "train"]
    with pytest.raises(OutputError, match="holds a previous pack output \\(train\\); pass --overwrite"):
        check_output(out, "pack")
    with claim_output(check_output(out, "pack", overwrite=True)):
        pass
    assert list_entries(out) == [".kcorpus-owned.json", "thesis.txt"]
    assert (store / "bucket" / "pack" / "thesis.txt").read_text(encoding="utf-8") == "제 논문입니다\n"


def test_a_remote_folder_kcorpus_did_not_create_is_refused(store):
    (store / "bucket" / "data").mkdir(parents=True)
    (store / "bucket" / "data" / "notes.md").write_text("메모\n", encoding="utf-8")
    with pytest.raises(OutputError, match="is not empty and kcorpus did not create it"):
        check_output("kcfakeout://bucket/data", "build-corpus", overwrite=True)
    with pytest.raises(OutputError, match="is the input"):
        check_output("kcfakeout://bucket/data", "pack", ["kcfakeout://bucket/data/"])
