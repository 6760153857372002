"""`transforms.matching`: patterns as the shell expands them, symlinked folders followed, loops walked once."""

from __future__ import annotations

import os

import pytest

from kcorpus.transforms import files, matching


@pytest.fixture
def tree(tmp_path):
    """kowiki/AA a real folder, kowiki/AF a link to disk2/AF (which has sub/), a link back up in AA (a loop),
    a linked file, a broken link and a hidden folder."""
    for rel in (
        "disk2/AF/wiki_00",
        "disk2/AF/wiki_01",
        "disk2/AF/sub/wiki_02",
        "kowiki/AA/wiki_00",
        "kowiki/.hidden/wiki_00",
        "other.txt",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel + "\n")
    os.symlink(tmp_path / "disk2" / "AF", tmp_path / "kowiki" / "AF")
    os.symlink("..", tmp_path / "kowiki" / "AA" / "loop")
    os.symlink(tmp_path / "other.txt", tmp_path / "kowiki" / "AA" / "wiki_99")
    os.symlink(tmp_path / "nothing", tmp_path / "kowiki" / "AA" / "wiki_broken")
    return tmp_path


def rel(tree, pattern: str, folder_is_input: bool = False) -> list[str]:
    return [os.path.relpath(m.path, tree) for m in matching.match(str(tree / pattern), folder_is_input)]


AA = ["kowiki/AA/wiki_00", "kowiki/AA/wiki_99", "kowiki/AA/wiki_broken"]
AF = ["kowiki/AF/wiki_00", "kowiki/AF/wiki_01"]


def test_a_star_crosses_a_symlinked_folder(tree):
    assert rel(tree, "kowiki/*/wiki_*") == AA + AF
    assert rel(tree, "kowiki/A?/wiki_0[0-1]") == ["kowiki/AA/wiki_00", *AF]
    assert rel(tree, "kowiki/AF/wiki_*") == AF


def test_folders_and_double_star_walk_links_and_stop_at_a_loop(tree):
    everything = AA + ["kowiki/AF/sub/wiki_02", *AF]
    assert rel(tree, "kowiki") == everything
    assert rel(tree, "kowiki/**") == everything
    assert rel(tree, "kowiki/**/wiki_*") == everything
    assert rel(tree, "kowiki/*") == everything  # a matched folder stands for its files
    assert rel(tree, "kowiki/*", folder_is_input=True) == ["kowiki/AA", "kowiki/AF"]
    assert files.walk(str(tree / "kowiki" / "AA")) == [str(tree / p) for p in AA]


def test_a_file_reached_twice_is_matched_once_and_sizes_are_given(tree):
    # disk2/AF and kowiki/AF are one folder: `**` walks it once
    assert rel(tree, "**/wiki_01") == ["disk2/AF/wiki_01"]
    sizes = dict(matching.match(str(tree / "kowiki/AF/wiki_*")))
    assert sizes == {str(tree / p): len("disk2/AF/wiki_00\n") for p in AF}
    assert matching.match(str(tree / "kowiki/AA/wiki_broken")) == [(str(tree / "kowiki/AA/wiki_broken"), 0)]


def test_relative_patterns_hidden_names_and_nothing(tree, monkeypatch):
    monkeypatch.chdir(tree)
    assert [m.path for m in matching.match("kowiki/*/wiki_*")] == AA + AF
    assert rel(tree, "kowiki/.*/wiki_00") == ["kowiki/.hidden/wiki_00"]
    assert matching.match(str(tree / "kowiki/*/nothing*")) == [] and matching.match(str(tree / "nope")) == []


def test_remote_patterns_go_to_the_registered_filesystem(monkeypatch):
    class Remote:
        def match(self, pattern):
            return [("gs://b/x/2.txt", 5), ("gs://b/x/1.txt", 3)] if pattern == "gs://b/x/*" else []

    monkeypatch.setattr(files, "_remote", [Remote()])
    assert matching.match("gs://b/x/*") == [("gs://b/x/1.txt", 3), ("gs://b/x/2.txt", 5)]
