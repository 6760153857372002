"""The readers facade: unreadable files, folder expansion, and reconciliation over the fault corpus."""

from __future__ import annotations

import pytest
from reader_fixtures import DATA, FAULTS, docs, read

from kcorpus.transforms.readers import expand_paths, read_files, reason_code
from kcorpus.transforms.record import DeadLetter, Dropped


def test_unreadable_file_is_reported_by_name_and_the_rest_continue(tmp_path):
    missing = str(tmp_path / "missing.txt")
    records = list(read_files("nsmc", [missing, str(DATA / "nsmc_bom_crlf.txt"), str(tmp_path)]))
    dead = [r for r in records if isinstance(r, DeadLetter)]
    assert [(r.path, reason_code(r.reason)) for r in dead] == [(missing, "unreadable_file"),
                                                               (str(tmp_path), "unreadable_file")]
    assert "No such file or directory" in dead[0].reason
    assert len(docs(records)) == 5


def test_folders_expand_to_their_files_except_modu_and_datasets(tmp_path):
    (tmp_path / "AA").mkdir()
    (tmp_path / "AA" / "wiki_01").write_text("x")
    (tmp_path / "AA" / "wiki_00").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    assert expand_paths("wikiextractor", [str(tmp_path)]) == [str(tmp_path / "AA" / "wiki_00"),
                                                              str(tmp_path / "AA" / "wiki_01")]
    assert expand_paths("modu", [str(tmp_path)]) == [str(tmp_path)]


# --- reconciliation over the whole fault corpus -----------------------------------------------------------


FAULT_CORPUS = [
    ("nsmc", "nsmc_faults.txt", {}, 8),
    ("petitions", "petitions_faults.jsonl", {}, 11),
    ("jsonl", "jsonl_faults.jsonl", {}, 6),
    ("comments", "comments_faults.tsv", {"thread_field": "article_id"}, 6),
    ("text", "text_truncated.txt.gz", {}, 981),
    ("wikiextractor", "wikiextractor_faults", {}, 4),
    ("modu", "modu", {}, 11),
    ("modu", "modu_corrupt_member.zip", {}, 2),
    ("wiki-dump", "kowiki-truncated-pages-articles.xml.bz2", {}, 5),
]


@pytest.mark.parametrize("fmt, name, options, seen", FAULT_CORPUS)
def test_fault_corpus_counts_reconcile(fmt, name, options, seen):
    records = read(fmt, FAULTS / name, **options)
    documents = docs(records)
    rows_in_documents = sum(d.metadata.get("comments", 1) if "thread" in d.metadata else 1 for d in documents)
    dead = sum(isinstance(r, DeadLetter) for r in records)
    dropped = sum(isinstance(r, Dropped) for r in records)
    assert rows_in_documents + dead + dropped == seen
    assert dead >= 1
