"""Corpus files read back strictly: an undecodable line is a dead letter with file:line, never U+FFFD."""

from __future__ import annotations

import json

from kcorpus.transforms.packing.corpus_files import parse_corpus_bytes
from kcorpus.transforms.record import DeadLetter, Document


def _doc(doc_id: str, text: str) -> bytes:
    return (json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n").encode("utf-8")


def test_docs_line_with_bad_bytes_is_dead_lettered_with_its_line():
    bad = b'{"id": "b", "text": "\xec\x98\x81\xed\x99\x94 \xff\xfe"}\n'
    lines = [_doc("a", "영화 정말 재밌어요"), bad, _doc("c", "배우 연기가 좋았다")]
    records = list(parse_corpus_bytes("docs/part-00000.jsonl", "docs", lines))
    assert [r.id for r in records if isinstance(r, Document)] == ["a", "c"]
    dead = [r for r in records if isinstance(r, DeadLetter)]
    assert len(dead) == 1
    assert (dead[0].path, dead[0].line, dead[0].stage) == ("docs/part-00000.jsonl", 2, "pack")
    assert dead[0].reason == "invalid_encoding: invalid start byte at byte 28 of the line"
    assert not any("\ufffd" in r.text for r in records if isinstance(r, Document))


def test_text_line_with_bad_bytes_leaves_the_rest_of_its_document():
    lines = ["첫 문장입니다.\n".encode(), b"\xed\x95\n", "셋째 문장입니다.\n".encode(), b"\n",
             "다음 문서.\n".encode()]
    records = list(parse_corpus_bytes("text/part-00000.txt", "text", lines))
    documents = [r for r in records if isinstance(r, Document)]
    assert [(d.id, d.text) for d in documents] == [
        ("part-00000.txt:1", "첫 문장입니다.\n셋째 문장입니다."),
        ("part-00000.txt:5", "다음 문서."),
    ]
    (dead,) = [r for r in records if isinstance(r, DeadLetter)]
    assert (dead.line, dead.reason) == (2, "invalid_encoding: invalid continuation byte at byte 0 of the line")
