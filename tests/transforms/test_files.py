"""`transforms.files`: local opening by suffix, base names, folder walking, and remote paths via an opener."""

from __future__ import annotations

import bz2
import gzip
import io

import pytest

from kcorpus.transforms import files


class FakeRemote:
    def __init__(self, blobs: dict[str, bytes]) -> None:
        self.blobs = blobs

    def open(self, path: str) -> io.BytesIO:
        return io.BytesIO(self.blobs[path])

    def exists(self, path: str) -> bool:
        return path in self.blobs


def test_open_binary_decompresses_local_files_by_suffix(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"plain\n")
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"gz\n"))
    (tmp_path / "a.txt.bz2").write_bytes(bz2.compress(b"bz2\n"))
    for name, expected in (("a.txt", b"plain\n"), ("a.txt.gz", b"gz\n"), ("a.txt.bz2", b"bz2\n")):
        with files.open_binary(str(tmp_path / name)) as stream:
            assert stream.read() == expected


def test_base_name_drops_folder_and_compression_suffix():
    assert files.base_name("gs://bucket/dir/news.jsonl.gz") == "news.jsonl"
    assert files.base_name("/data/x.tsv.bz2") == "x.tsv"
    assert files.base_name("folder/") == "folder"


def test_walk_is_sorted_skips_hidden_and_filters_suffixes(tmp_path):
    for rel in ("b/2.json", "a/1.json", "a/1.txt", ".hidden/x.json", "a/.x.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    assert [p[len(str(tmp_path)) + 1:] for p in files.walk(str(tmp_path), (".json",))] == ["a/1.json", "b/2.json"]
    assert len(files.walk(str(tmp_path))) == 3


def test_remote_path_without_opener_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(files, "_remote", [])
    with pytest.raises(ValueError, match="no remote filesystem registered"):
        files.open_binary("gs://bucket/a.txt")
    assert files.join("gs://bucket/dir", "tokenizer.json") == "gs://bucket/dir/tokenizer.json"  # needs none


def test_remote_paths_go_through_the_registered_opener(monkeypatch):
    monkeypatch.setattr(files, "_remote", [])
    files.register_remote(FakeRemote({"gs://b/a.txt.gz": gzip.compress(b"remote\n")}))
    with files.open_binary("gs://b/a.txt.gz") as stream:
        assert stream.read() == b"remote\n"
    assert files.exists("gs://b/a.txt.gz") and not files.exists("gs://b/missing")
    assert files.join("gs://b/dir/", "tokenizer.json") == "gs://b/dir/tokenizer.json"
    assert files.join("/local", "tokenizer.json") == "/local/tokenizer.json"


def test_paths_are_joined_and_told_remote_without_an_opener(monkeypatch, tmp_path):
    monkeypatch.setattr(files, "_remote", [])
    assert files.is_remote("gs://b/x") and not files.is_remote(tmp_path) and not files.is_remote("/a/b")
    assert files.join("gs://b/", "/run/", "a.txt") == "gs://b/run/a.txt"
    assert files.join(tmp_path, "a", "b.txt") == str(tmp_path / "a" / "b.txt")
