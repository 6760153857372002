"""`pipeline.filesystems`: the remote opener of `transforms.files`, and folder helpers that behave the same on
a local folder and on a remote prefix (`fakegs://`, gs:// semantics: no folders, objects renamed one by one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_remote import PREFIX, local_files, use_root
from kcorpus.pipeline import filesystems as fs
from kcorpus.transforms import files


def test_beam_filesystems_are_registered_on_import():
    assert isinstance(files.remote_files("gs://bucket/a"), fs.BeamRemoteFiles)


@pytest.fixture(params=["local", "remote"])
def base(request, tmp_path: Path) -> str:
    if request.param == "local":
        return str(tmp_path / "base")
    use_root(tmp_path / "store")
    return f"{PREFIX}bucket/base"


def test_write_read_list_and_delete(base: str):
    fs.write_bytes(fs.join(base, "run", "a.txt"), "한국어 문장\n".encode())
    fs.write_bytes(fs.join(base, "run", "sub", "b.json"), b"{}")
    assert fs.read_bytes(fs.join(base, "run", "a.txt")).decode() == "한국어 문장\n"
    assert fs.list_files(fs.join(base, "run")) == {"a.txt": 17, "sub/b.json": 2}
    assert fs.exists(fs.join(base, "run", "sub", "b.json"))
    assert not fs.exists(fs.join(base, "run", "sub"))  # a folder is not a file, on either side
    assert fs.folder_exists(fs.join(base, "run", "sub"))
    with fs.open_read(fs.join(base, "run", "a.txt")) as f:
        assert f.read(3) == "한".encode()
    fs.delete_file(fs.join(base, "run", "a.txt"))
    fs.delete_file(fs.join(base, "run", "a.txt"))  # already gone: nothing happens
    assert fs.list_files(fs.join(base, "run")) == {"sub/b.json": 2}
    fs.delete_tree(fs.join(base, "run"))
    fs.delete_tree(fs.join(base, "run"))
    assert fs.list_files(fs.join(base, "run")) == {}
    assert not fs.folder_exists(fs.join(base, "run"))
    with pytest.raises(FileNotFoundError):
        fs.read_bytes(fs.join(base, "run", "a.txt"))


def test_write_bytes_replaces_without_leaving_temporaries(base: str):
    path = fs.join(base, "stage", "_STAGE.json")
    fs.write_bytes(path, b"old")
    fs.write_bytes(path, b"new")
    assert fs.read_bytes(path) == b"new"
    assert fs.list_files(fs.join(base, "stage")) == {"_STAGE.json": 3}


def test_move_tree_moves_every_file_and_the_marker_last(base: str, monkeypatch):
    for rel in ("x/1.arrow", "x/2.arrow", "x/_STAGE.json", "x/sub/state.json"):
        fs.write_bytes(fs.join(base, rel), rel.encode())
    order: list[list[str]] = []
    real_rename = fs.FileSystems.rename
    monkeypatch.setattr(fs.FileSystems, "rename",
                        lambda s, d: (order.append([p.rsplit("/", 1)[-1] for p in s]), real_rename(s, d))[1])
    fs.move_tree(fs.join(base, "x"), fs.join(base, "y"), last="_STAGE.json")
    assert fs.list_files(fs.join(base, "y")) == {"1.arrow": 9, "2.arrow": 9, "_STAGE.json": 13,
                                                 "sub/state.json": 16}  # fmt: skip
    assert fs.list_files(fs.join(base, "x")) == {}
    if fs.is_remote(base):
        assert order == [["1.arrow", "2.arrow", "state.json"], ["_STAGE.json"]]
    else:
        assert order == []  # one os.replace of the folder


def test_download_and_upload_trees(base: str, tmp_path: Path):
    fs.write_bytes(fs.join(base, "vocab", "vocab.txt"), "[PAD]\n가\n".encode())
    fs.write_bytes(fs.join(base, "vocab", "nested", "tokenizer.json"), b"{}")
    local = fs.download_tree(fs.join(base, "vocab"), str(tmp_path / "copy"))
    assert local == [str(tmp_path / "copy" / "nested" / "tokenizer.json"), str(tmp_path / "copy" / "vocab.txt")]
    fs.upload_tree(str(tmp_path / "copy"), fs.join(base, "again"))
    assert fs.list_files(fs.join(base, "again")) == fs.list_files(fs.join(base, "vocab"))


def test_content_checksum_follows_content(base: str):
    a, b = fs.join(base, "a.bin"), fs.join(base, "b.bin")
    fs.write_bytes(a, b"same")
    fs.write_bytes(b, b"same")
    assert fs.content_checksum(a) == fs.content_checksum(b)
    fs.write_bytes(b, b"diff")
    assert fs.content_checksum(a) != fs.content_checksum(b)


def test_remote_join_and_scheme_checks(tmp_path: Path):
    use_root(tmp_path)
    assert fs.join(f"{PREFIX}b/run/", "vocab", "vocab.txt") == f"{PREFIX}b/run/vocab/vocab.txt"
    assert fs.has_filesystem(f"{PREFIX}b/run")
    assert not fs.has_filesystem("nosuchfs://b/run")
    fs.write_bytes(f"{PREFIX}b/run/x.txt", b"1")
    assert local_files(tmp_path) == ["b/run/x.txt"]
