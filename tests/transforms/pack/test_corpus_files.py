"""Corpus files read back: strictly (an undecodable line is a dead letter with file:line, never U+FFFD) and in
byte ranges of whole lines that give the records of one pass."""

from __future__ import annotations

import io
import itertools
import json

import pytest

from kcorpus.transforms.pack.corpus_files import PARSERS, line_ranges, parse_corpus_bytes
from kcorpus.transforms.record import DeadLetter, Document

DOCS = [
    {"id": "nsmc:0", "text": "재밌게 봤어요.", "source": "nsmc"},
    {"id": "nsmc:1", "text": "배우들 연기가 정말 좋았습니다.\n다시 보고 싶네요.", "source": "nsmc"},
    {"id": "kowiki:5", "text": "지미 카터는 미국의 제39대 대통령이다.", "source": "kowiki"},
]
JSONL = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCS) + "{not json\n" + "\n"
TEXT = "재밌게 봤어요.\n\n배우들 연기가 정말 좋았습니다.\n다시 보고 싶네요.\n\n지미 카터는 미국의 제39대 대통령이다.\n"


def _by_ranges(data: bytes, layout: str, range_bytes: int) -> tuple[list, list]:
    ranges = list(line_ranges(io.BytesIO(data), layout, range_bytes))
    records = []
    for start, end, first in ranges:
        lines = data[start:end].decode("utf-8").splitlines(keepends=True)
        records.extend(PARSERS[layout]("shard-00000.txt", lines, first))
    return ranges, records


@pytest.mark.parametrize("layout, content", [("docs", JSONL), ("text", TEXT)])
@pytest.mark.parametrize("range_bytes", [1, 30, 60, 10_000])
def test_ranges_give_the_records_and_line_numbers_of_one_pass(layout, content, range_bytes):
    data = content.encode("utf-8")
    whole = list(PARSERS[layout]("shard-00000.txt", content.splitlines(keepends=True)))
    ranges, records = _by_ranges(data, layout, range_bytes)
    assert records == whole
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))


def test_jsonl_ranges_cut_after_any_line_and_count_lines():
    data = JSONL.encode("utf-8")
    ranges = list(line_ranges(io.BytesIO(data), "docs", 1))
    assert [first for _, _, first in ranges] == [1, 2, 3, 4, 5]
    _, records = _by_ranges(data, "docs", 1)
    assert (records[-1].line, records[-1].reason) == (4, "bad_json: Expecting property name enclosed in double quotes")


def test_text_ranges_cut_only_after_a_blank_line():
    data = TEXT.encode("utf-8")
    ranges = list(line_ranges(io.BytesIO(data), "text", 1))
    assert [first for _, _, first in ranges] == [1, 3, 6]
    _, records = _by_ranges(data, "text", 1)
    assert [r.id for r in records] == ["shard-00000.txt:1", "shard-00000.txt:3", "shard-00000.txt:6"]
    assert records[1].text == "배우들 연기가 정말 좋았습니다.\n다시 보고 싶네요."


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
