"""Modu (모두의 말뭉치): every family from folders and release zips, options, faults."""

from __future__ import annotations

import gzip
import shutil

import pytest
from reader_fixtures import DATA, FAULTS, docs, outcome_counts, read

from kcorpus.transforms.readers import reason_code
from kcorpus.transforms.record import DeadLetter, Document

# --- Modu ------------------------------------------------------------------------------------------------

MODU_TEXTS = {
    "modu:EPRW1900000001.1": "처음 캠핑을 간다면 텐트보다 침낭을 먼저 챙기세요.\n밤에는 생각보다 훨씬 춥습니다.",
    "modu:MDRW1900000001.1": "제주도 숙소 예약했어요\n여기 맞죠?\n네 맞아요 님 번호 로 연락 주세요",
    "modu:NIRW1900000001.1": ("충북 청주 도심에 첫눈… 출근길 교통 혼잡\n4일 오전 충북 청주 도심에 올겨울 첫눈이 내려 출근길 차량들이 "
                              "거북이걸음을 했다.\n청주기상지청은 이날 오전까지 1∼3㎝의 눈이 더 내릴 것으로 내다봤다."),
    "modu:NIRW1900000001.2": "도서관 야간 개방 확대\n청주시는 시립도서관 세 곳의 야간 개방을 밤 10시까지 늘린다고 5일 밝혔다.",
    "modu:SARW1800000001.1": "이번 주말에 뭐 해?\n날씨 좋다던데.\n음 아직 모르겠어 이랑 영화 볼까 생각 중이야.\n나도 같이 가도 돼?",
    "modu:WARW1900000001.1": "바다는 언제나 같은 자리에서 우리를 기다렸다.\n어머니는 새벽마다 포구에 나가 배가 돌아오는 쪽을 오래 바라보셨다.",
}


@pytest.mark.parametrize("name", ["modu", "modu_release.zip"])
def test_modu_every_family_from_folder_and_release_zip(name):
    records = read("modu", DATA / name)
    assert {r.id: r.text for r in records} == MODU_TEXTS
    assert all(isinstance(r, Document) for r in records)
    kinds = {r.metadata["file_id"]: (r.metadata["kind"], r.metadata["family"]) for r in records}
    assert kinds == {"EPRW1900000001": ("web", "paragraph"), "MDRW1900000001": ("messenger", "utterance"),
                     "NIRW1900000001": ("newspaper", "paragraph"), "SARW1800000001": ("spoken", "utterance"),
                     "WARW1900000001": ("written", "paragraph")}
    news = next(r for r in records if r.id == "modu:NIRW1900000001.1")
    assert {k: news.metadata[k] for k in ("title", "author", "publisher", "date", "topic")} == {
        "title": "충북 청주 도심에 첫눈… 출근길 교통 혼잡", "author": "김기자", "publisher": "충청일보", "date": "20190104",
        "topic": "사회"}


def test_modu_options_keep_tags_join_turns_drop_headline():
    (messenger,) = read("modu", DATA / "modu" / "MDRW1900000001.json", tags="keep", deid="keep")
    assert messenger.text == ("제주도 숙소 예약했어요 {emoji}\n{system: 사진을 보냈습니다}\n{share:photo} 여기 맞죠?\n"
                              "네 맞아요 &name&님 번호 &tel-num& 로 연락 주세요\n{emoji}")
    (spoken,) = read("modu", DATA / "modu" / "SARW1800000001.json", join_turns=True, deid="keep")
    assert spoken.text == "이번 주말에 뭐 해? 날씨 좋다던데.\n음 아직 모르겠어 &name&이랑 영화 볼까 생각 중이야.\n나도 같이 가도 돼?"
    news = read("modu", DATA / "modu" / "NIRW1900000001.json", headline=False)
    assert news[1].text == "청주시는 시립도서관 세 곳의 야간 개방을 밤 10시까지 늘린다고 5일 밝혔다."


def test_modu_faults():
    records = read("modu", FAULTS / "modu")
    assert outcome_counts(records) == {"document": 1, "dropped:empty": 1, "dead_letter:invalid_encoding": 1,
                                       "dead_letter:nul_byte": 1, "dead_letter:missing_field": 3,
                                       "dead_letter:not_an_object": 2, "dead_letter:truncated_json": 1,
                                       "dead_letter:invalid_json": 1}
    reasons = [r.reason for r in records if isinstance(r, DeadLetter) and r.path.endswith("NIRW1900000002.json")]
    assert reasons == ["missing_field: document[0].paragraph or document[0].utterance",
                       "not_an_object: document[1] is str", "missing_field: document[2].id",
                       "missing_field: document[3].paragraph[0].form"]


def test_modu_corrupt_archive_member_is_dead_lettered_and_the_rest_read():
    records = read("modu", FAULTS / "modu_corrupt_member.zip")
    assert [r.id for r in docs(records)] == ["modu:EPRW1900000001.1"]
    (dead,) = [r for r in records if isinstance(r, DeadLetter)]
    assert dead.path == f"{FAULTS / 'modu_corrupt_member.zip'}!NIRW1900000001.json"
    assert reason_code(dead.reason) == "corrupt_member"


def test_modu_not_a_zip(tmp_path):
    fake = tmp_path / "NIKL_NEWSPAPER.zip"
    fake.write_bytes(b"not a zip at all")
    assert [reason_code(r.reason) for r in read("modu", fake)] == ["unreadable_file"]


def test_modu_gzipped_json(tmp_path):
    shutil.copy(DATA / "modu" / "WARW1900000001.json", tmp_path / "WARW1900000001.json")
    (tmp_path / "WARW1900000001.json.gz").write_bytes(gzip.compress((tmp_path / "WARW1900000001.json").read_bytes()))
    assert read("modu", tmp_path / "WARW1900000001.json.gz") == read("modu", DATA / "modu" / "WARW1900000001.json")


def test_modu_file_nested_too_deep_is_a_dead_letter(tmp_path):
    # The stdlib decoder raises RecursionError (not JSONDecodeError) past ~1000 levels.
    deep = tmp_path / "NIRW1900000009.json"
    deep.write_text('{"document": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    (dead,) = read("modu", deep)
    assert (dead.path, dead.reason) == (str(deep), "invalid_json: nested deeper than 1000 levels")
