"""`kcorpus read`: JSONL out, rejects and drops beside it, one summary line whose counts add up."""

from __future__ import annotations

import json
from pathlib import Path

from kcorpus.pipeline.cli import main
from kcorpus.transforms.record import Document
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_read_nsmc_with_faults_writes_three_files_and_a_summary(tmp_path, capsys):
    out = tmp_path / "nsmc.jsonl"
    code = main(["read", "--format", "nsmc", str(DATA / "nsmc_ratings_test_slice.txt"),
                 str(DATA / "faults" / "nsmc_faults.txt"), str(tmp_path / "missing.txt"), "--out", str(out)])
    assert code == 0
    assert capsys.readouterr().out == (
        "read nsmc as nsmc: 54 records -> 43 documents, 7 dead-lettered, 4 dropped (empty 4, invalid_encoding 1, "
        "invalid_value 2, nul_byte 1, unreadable_file 1, wrong_field_count 2)\n")
    documents = jsonl(out)
    assert documents[0] == {"id": "nsmc:6270596", "text": "굳 ㅋ", "source": "nsmc", "metadata": {"label": 1}}
    assert Document.from_json(out.read_text(encoding="utf-8").splitlines()[1]).id == "nsmc:9274899"
    rejected = jsonl(tmp_path / "nsmc.jsonl.rejected.jsonl")
    assert rejected[0]["reason"] == "wrong_field_count: 5 fields, expected 3" and rejected[0]["line"] == 3
    assert rejected[-1]["path"] == str(tmp_path / "missing.txt")
    assert len(jsonl(tmp_path / "nsmc.jsonl.dropped.jsonl")) == 4


def test_read_comment_threads_counts_rows(tmp_path, capsys):
    out = tmp_path / "threads.jsonl"
    code = main(["read", "--format", "comments", str(DATA / "comments_threads.tsv"), "--out", str(out),
                 "--dead-letter", str(tmp_path / "bad.jsonl"), "--option", "thread_field=article_id",
                 "--source", "naver"])
    assert code == 0
    assert capsys.readouterr().out == "read comments as naver: 5 records -> 2 documents, 0 dead-lettered, 0 dropped\n"
    assert [d["id"] for d in jsonl(out)] == ["naver:A1", "naver:A2"]
    assert (tmp_path / "bad.jsonl").read_text() == ""


def test_read_cp949_and_a_folder(tmp_path, capsys):
    assert main(["read", "--format", "text", str(DATA / "cp949_comments.txt"), "--encoding", "cp949",
                 "--out", str(tmp_path / "a.jsonl")]) == 0
    assert [d["text"] for d in jsonl(tmp_path / "a.jsonl")] == ["이 영화 정말 재밌어요", "배우들 연기가 최고", "똠방각하 뷁"]
    assert main(["read", "--format", "modu", str(DATA / "modu"), "--out", str(tmp_path / "m.jsonl")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "read modu as modu: 6 records -> 6 documents, 0 dead-lettered, 0 dropped")


def test_bad_option_is_a_usage_error(tmp_path, capsys):
    code = main(["read", "--format", "nsmc", str(DATA / "nsmc_bom_crlf.txt"), "--out", str(tmp_path / "o.jsonl"),
                 "--option", "txt_field=x"])
    assert code == 2
    assert "unknown read option(s) txt_field; valid: encoding, text_field" in capsys.readouterr().err
    code = main(["read", "--format", "comments", str(DATA / "comments_lines.txt"), "--out", str(tmp_path / "o.jsonl"),
                 "--option", "thread_field=article_id"])
    assert code == 2
    assert "thread_field needs a tsv, csv or jsonl comments file" in capsys.readouterr().err
