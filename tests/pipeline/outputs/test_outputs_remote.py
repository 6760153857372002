"""pipeline/outputs/ on a remote folder: marker, lock and overwrite through Beam's FileSystems (`fakegs://`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from apache_beam.io.filesystems import FileSystems

from fake_remote import PREFIX, local_files, use_root
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.outputs.folders import list_entries
from kcorpus.pipeline.outputs.lock import read_lock
from kcorpus.pipeline.outputs.marker import read_marker


@pytest.fixture
def store(tmp_path: Path) -> Path:
    use_root(tmp_path)
    return tmp_path


def test_remote_folders_get_the_marker_the_lock_and_overwrite_of_own_entries_only(store):
    out = f"{PREFIX}bucket/pack"
    with claim_output(check_output(out, "pack")):
        assert read_lock(out)["command"] == "pack"
        with FileSystems.create(out + "/train/data-00000-of-00001.arrow") as f:
            f.write(b"shard")
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
        check_output(f"{PREFIX}bucket/data", "build-corpus", overwrite=True)
    with pytest.raises(OutputError, match="is the input"):
        check_output(f"{PREFIX}bucket/data", "pack", [f"{PREFIX}bucket/data/"])
    assert local_files(store) == ["bucket/data/notes.md"]
