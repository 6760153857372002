import dataclasses
import hashlib
import json
import pickle

import pytest

from kcorpus import DeadLetter, Document, Dropped
from kcorpus.transforms.record import DROPPED_TEXT_MAX_CHARS, new_document, raw_prefix


def test_document_json_round_trip():
    doc = Document(id="nsmc:6270596", text="굳 ㅋ", source="nsmc", metadata={"label": 1})
    assert Document.from_json(doc.to_json()) == doc
    assert '"굳 ㅋ"' in doc.to_json()


def test_raw_prefix_keeps_200_bytes_and_shows_bad_bytes():
    assert raw_prefix("가" * 100) == "가" * 66 + "\\xea\\xb0"
    assert raw_prefix(b"ok\xff") == "ok\\xff"
    assert DeadLetter(path="a.txt", reason="invalid_utf8", line=3).line == 3


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"label": 1},
        {"title": "지미 카터", "url": "https://ko.wikipedia.org/wiki?curid=5"},
        {"category": "육아/교육", "num_agree": -12, "big": 10**30, "q": 'a"b\\c\n\t\x00'},
        {"flag": True, "none": None, "ratio": 0.5, "nan": float("nan")},
        {1: "int key", "nested": {"a": [1, "二"]}},
    ],
)
def test_document_json_is_json_dumps(metadata):
    doc = Document('id"\\\n', "첫 줄\n둘째 줄\t\u2028 \x7f", "src", metadata)
    expected = json.dumps(
        {"id": doc.id, "text": doc.text, "source": doc.source, "metadata": dict(metadata)}, ensure_ascii=False
    )
    assert doc.to_json() == expected


def test_dropped_json_puts_details_at_the_top_level():
    dropped = Dropped("d:1", "src", "decontaminate", "contaminated", "본문", {"contaminated_by": {"id": "e"}})
    assert dropped.to_json() == json.dumps(
        {"id": "d:1", "source": "src", "stage": "decontaminate", "reason": "contaminated", "text": "본문",
         "contaminated_by": {"id": "e"}},
        ensure_ascii=False,
    )  # fmt: skip


def test_new_document_is_the_same_frozen_record():
    made = new_document("nsmc:6270596", "굳 ㅋ", "nsmc", {"label": 1})
    plain = Document("nsmc:6270596", "굳 ㅋ", "nsmc", {"label": 1})
    assert type(made) is Document
    assert made == plain and repr(made) == repr(plain) and made.to_json() == plain.to_json()
    assert pickle.dumps(made) == pickle.dumps(plain)
    assert dataclasses.replace(made, text="굳") == Document("nsmc:6270596", "굳", "nsmc", {"label": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.text = "바뀜"


def test_a_dropped_text_over_the_cap_is_cut_with_its_length_and_digest():
    long = "가나다라마바사 " * 2000  # 16,000 characters
    obj = json.loads(Dropped("d:1", "src", "filter", "too_long", long).to_json())
    assert obj["text"] == long[:DROPPED_TEXT_MAX_CHARS] and obj["text_chars"] == 16_000
    assert obj["text_sha256"] == hashlib.sha256(long.encode()).hexdigest()
    short = json.loads(Dropped("d:2", "src", "filter", "too_short", "짧다").to_json())
    assert short == {"id": "d:2", "source": "src", "stage": "filter", "reason": "too_short", "text": "짧다"}
