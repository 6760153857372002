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
                 str(DATA / "faults" / "nsmc_faults.txt"), "--out", str(out)])
    # 6 of 53 records dead-lettered is more than the default 1%: the files are written, the exit status is 1.
    assert code == 1
    captured = capsys.readouterr()
    assert captured.out == (
        "read nsmc as nsmc: 53 records -> 43 documents, 6 dead-lettered, 4 dropped (empty 4, invalid_encoding 1, "
        "invalid_value 2, nul_byte 1, wrong_field_count 2)\n")
    assert captured.err == ("kcorpus read: error: 6 of 53 records dead-lettered (11.3%), more than "
                            "--max-dead-letter-fraction 0.01; see the rejected file\n")
    documents = jsonl(out)
    assert documents[0] == {"id": "nsmc:6270596", "text": "굳 ㅋ", "source": "nsmc", "metadata": {"label": 1}}
    assert Document.from_json(out.read_text(encoding="utf-8").splitlines()[1]).id == "nsmc:9274899"
    rejected = jsonl(tmp_path / "nsmc.jsonl.rejected.jsonl")
    assert rejected[0]["reason"] == "wrong_field_count: 5 fields, expected 3" and rejected[0]["line"] == 3
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


def test_read_with_a_threshold_the_faults_stay_under_exits_0(tmp_path):
    out = tmp_path / "nsmc.jsonl"
    assert main(["read", "--format", "nsmc", str(DATA / "faults" / "nsmc_faults.txt"), "--out", str(out),
                 "--max-dead-letter-fraction", "1"]) == 0


def test_read_of_a_missing_path_exits_2_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    code = main(["read", "--format", "nsmc", str(DATA / "nsmc_ratings_test_slice.txt"), str(tmp_path / "missing.txt"),
                 "--option", "colour=blue", "--out", str(out)])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        ("kcorpus read: error: --option: unknown read option(s) colour; valid: encoding, text_field, id_field, "
        "title_field, thread_field, layout, tags, deid, join_turns, headline, title, keep_stubs, namespaces, unquote, split, max_whole_file_bytes"),
        f"kcorpus read: error: {str(tmp_path / 'missing.txt')!r} matches no file",
    ]
    assert list(tmp_path.iterdir()) == []


def test_read_of_a_tsv_without_the_text_column_exits_1(tmp_path, capsys):
    tsv = tmp_path / "comments.tsv"
    tsv.write_text("id\tbody\n1\t영화 정말 재밌어요\n2\t배우 연기가 좋았다\n", encoding="utf-8")
    assert main(["read", "--format", "comments", str(tsv), "--out", str(tmp_path / "out.jsonl")]) == 1
    captured = capsys.readouterr()
    assert "2 records -> 0 documents, 2 dead-lettered" in captured.out
    assert captured.err == "kcorpus read: error: every record was dead-lettered (2 of 2); see the rejected file\n"
