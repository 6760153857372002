"""Comments: one per line, TSV/CSV/JSONL rows, threads joined across files, encodings."""

from __future__ import annotations

import pytest
from reader_fixtures import DATA, FAULTS, docs, outcome_counts, read

from kcorpus.transforms.readers import read_files
from kcorpus.transforms.record import DeadLetter, Document

# --- comments, text, jsonl -------------------------------------------------------------------------------


def test_comments_one_per_line_with_offset_ids():
    records = read("comments", DATA / "comments_lines.txt")
    assert [(type(r).__name__, r.id) for r in records] == [
        ("Document", "comments:comments_lines.txt:0"), ("Document", "comments:comments_lines.txt:65"),
        ("Document", "comments:comments_lines.txt:104"), ("Document", "comments:comments_lines.txt:124"),
        ("Document", "comments:comments_lines.txt:157"), ("Dropped", "comments:comments_lines.txt:215"),
        ("Dropped", "comments:comments_lines.txt:216")]
    assert records[1].text == "OOO 같은 소리 하고 있네 ㅋㅋ"


THREAD_A1 = "기사 잘 읽었습니다 이런 기사가 더 많아져야 함\nOOO 같은 소리 하고 있네 ㅋㅋ\n윗분 말씀에 동의합니다"
THREAD_A2 = '이게 나라냐...\n기자님 오타 있어요 "정부"가 아니라 "정보"'


@pytest.mark.parametrize("name", ["comments_threads.tsv", "comments_threads.jsonl"])
def test_comment_threads_form_one_document(name):
    records = read("comments", DATA / name, thread_field="article_id")
    assert records == [Document("comments:A1", THREAD_A1, "comments", {"thread": "A1", "comments": 3}),
                       Document("comments:A2", THREAD_A2, "comments", {"thread": "A2", "comments": 2})]


def test_comment_threads_from_csv_with_quoted_newlines():
    records = read("comments", DATA / "comments_threads.csv", thread_field="article_id", source="naver")
    assert [(r.id, r.text, r.metadata["comments"]) for r in records] == [
        ("naver:A1", "기사 잘 읽었습니다 이런 기사가 더 많아져야 함\nOOO 같은 소리 하고 있네 ㅋㅋ", 2),
        ("naver:A2", "이게 나라냐...\n여러 줄 댓글입니다,\n쉼표와 줄바꿈이 있어요", 2)]


def test_comment_threads_join_across_files(tmp_path):
    first, second = tmp_path / "day1.tsv", tmp_path / "day2.tsv"
    first.write_text("article_id\ttext\nA1\t첫 댓글\nA2\t다른 기사\n", encoding="utf-8")
    second.write_text("article_id\ttext\nA1\t다음날 답글\n", encoding="utf-8")
    records = list(read_files("comments", [str(first), str(second)], {"thread_field": "article_id"}))
    assert [(r.id, r.text) for r in records] == [("comments:A1", "첫 댓글\n다음날 답글"), ("comments:A2", "다른 기사")]


def test_comment_rows_without_threads_use_their_own_ids():
    records = read("comments", DATA / "comments_threads.tsv", id_field="comment_id")
    assert [(r.id, r.metadata) for r in records][:2] == [("comments:c1", {"article_id": "A1"}),
                                                        ("comments:c2", {"article_id": "A1"})]


def test_comment_thread_faults():
    records = read("comments", FAULTS / "comments_faults.tsv", thread_field="article_id")
    assert outcome_counts(records) == {"document": 2, "dead_letter:wrong_field_count": 1,
                                       "dead_letter:invalid_value": 1, "dropped:empty": 1}
    rows = sum(r.metadata.get("comments", 1) if isinstance(r, Document) else 1 for r in records)
    assert rows == 6  # data rows in the file: 3 in threads + 3 rejected


def test_thread_field_on_plain_lines_is_a_clear_error():
    with pytest.raises(ValueError, match="thread_field needs a tsv, csv or jsonl comments file"):
        read("comments", DATA / "comments_lines.txt", thread_field="article_id")


def test_cp949_selected_per_source():
    records = read("comments", DATA / "cp949_comments.txt", encoding="cp949")
    assert [d.text for d in records] == ["이 영화 정말 재밌어요", "배우들 연기가 최고", "똠방각하 뷁"]
    as_utf8 = read("comments", DATA / "cp949_comments.txt")
    assert outcome_counts(as_utf8) == {"dead_letter:invalid_encoding": 3}


def test_comment_csv_faults(tmp_path):
    path = tmp_path / "comments.csv"
    path.write_bytes(b"article_id,text\r\nA1,\xec\xa2\x8b\xec\x95\x84\xec\x9a\x94\r\nA1,a,b\r\nA2,\xb1\xdb\r\n"
                     b"A2,NUL\x00here\r\n,\r\nA2,\"\xeb\x8b\xb5\xea\xb8\x80\"\r\n")
    records = read("comments", path, thread_field="article_id")
    assert outcome_counts(records) == {"document": 2, "dead_letter:wrong_field_count": 1,
                                       "dead_letter:invalid_encoding": 1, "dead_letter:nul_byte": 1,
                                       "dropped:empty": 1}
    assert [r.line for r in records if isinstance(r, DeadLetter)] == [3, 4, 5]
    assert [(r.id, r.text) for r in docs(records)] == [("comments:A1", "좋아요"), ("comments:A2", "답글")]
