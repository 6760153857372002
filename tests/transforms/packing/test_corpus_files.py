import io
import itertools
import json

import pytest

from kcorpus.transforms.packing.corpus_files import PARSERS, line_ranges

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
