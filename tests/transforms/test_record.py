from kcorpus import DeadLetter, Document
from kcorpus.transforms.record import raw_prefix


def test_document_json_round_trip():
    doc = Document(id="nsmc:6270596", text="굳 ㅋ", source="nsmc", metadata={"label": 1})
    assert Document.from_json(doc.to_json()) == doc
    assert '"굳 ㅋ"' in doc.to_json()


def test_raw_prefix_keeps_200_bytes_and_shows_bad_bytes():
    assert raw_prefix("가" * 100) == "가" * 66 + "\\xea\\xb0"
    assert raw_prefix(b"ok\xff") == "ok\\xff"
    assert DeadLetter(path="a.txt", reason="invalid_utf8", line=3).line == 3
