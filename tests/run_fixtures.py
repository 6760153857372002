"""Shared by the `kcorpus run` end-to-end tests: a slice of the bundled sample and the in-memory runner flag."""

from __future__ import annotations

from pathlib import Path

from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
IN_MEMORY = ["--direct_running_mode=in_memory"]


def write_slice(root: Path) -> None:
    """The first 300 NSMC rows, 12 petitions and 6 Wikipedia articles of the bundled sample."""
    data = root / "data"
    data.mkdir()
    with open(SAMPLE / "nsmc_ratings_test_head.txt", encoding="utf-8") as f:
        (data / "nsmc.txt").write_text("".join(next(f) for _ in range(301)), encoding="utf-8")
    with open(SAMPLE / "petitions_2017-08_head", encoding="utf-8") as f:
        (data / "petitions").write_text("".join(next(f) for _ in range(12)), encoding="utf-8")
    wiki, docs = [], 0
    with open(SAMPLE / "wiki_00_head", encoding="utf-8") as f:
        for line in f:
            wiki.append(line)
            docs += line.startswith("</doc>")
            if docs == 6:
                break
    (data / "wiki_00").write_text("".join(wiki), encoding="utf-8")
