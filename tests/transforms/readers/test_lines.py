"""Line formats: NSMC, petitions, text and JSONL (real slices, faults, BOM/CRLF, compression)."""

from __future__ import annotations

import bz2
import gzip

import pytest
from reader_fixtures import DATA, FAULTS, docs, outcome_counts, read

from kcorpus.transforms.readers import unquote_nsmc
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix

# --- NSMC ------------------------------------------------------------------------------------------------


def test_nsmc_real_slice():
    records = read("nsmc", DATA / "nsmc_ratings_test_slice.txt")
    assert outcome_counts(records) == {"document": 42, "dropped:empty": 3}
    assert records[0] == Document("nsmc:6270596", "굳 ㅋ", "nsmc", {"label": 1})
    assert [r.id for r in records if isinstance(r, Dropped)] == ["nsmc:402110", "nsmc:5026896", "nsmc:511097"]


def test_nsmc_double_csv_quoting_is_undone_by_default_and_kept_on_request():
    by_id = {d.id: d.text for d in docs(read("nsmc", DATA / "nsmc_ratings_test_slice.txt"))}
    assert by_id["nsmc:9037756"] == ("스토리, 연출, 연기, 비주얼 등 영화의 기본 조차 안된 영화에 무슨 평을 해. 이런 영화 찍고도 "
                                     "김문옥 감독은 \"내가 영화 경력이 몇OO인데 조무래기들이 내 영화를 평론해?\" 같은 마인드에 빠져있겠지?")
    assert by_id["nsmc:5494222"] == '"결혼은 현실이에요 징징징" 성현아 벗겨놓고 이 정도 얘기 밖에 못 하냐.'
    raw = {d.id: d.text for d in docs(read("nsmc", DATA / "nsmc_ratings_test_slice.txt", unquote=False))}
    assert raw["nsmc:5494222"] == '"""""""결혼은 현실이에요 징징징"""" 성현아 벗겨놓고 이 정도 얘기 밖에 못 하냐."""'


@pytest.mark.parametrize("field, expected", [
    ('"""a """"b"""" c"""', 'a "b" c'),
    ('"plain quoted once"', '"plain quoted once"'),  # one level only: not the publisher's double quoting
    ('say "hi"', 'say "hi"'),
    ('"""broken " quote"""', '"""broken " quote"""'),
    ('""', '""'),
])
def test_unquote_nsmc(field, expected):
    assert unquote_nsmc(field) == expected


def test_nsmc_bom_and_crlf():
    records = read("nsmc", DATA / "nsmc_bom_crlf.txt")
    assert [(d.id, d.text) for d in records] == [
        ("nsmc:6270596", "굳 ㅋ"), ("nsmc:9274899", "GDNTOPCLASSINTHECLUB"),
        ("nsmc:8544678", "뭐야 이 평점들은.... 나쁘진 않지만 10점 짜리는 더더욱 아니잖아"),
        ("nsmc:6825595", "지루하지는 않은데 완전 막장임... 돈주고 보기에는...."),
        ("nsmc:6723715", "3D만 아니었어도 별 다섯 개 줬을텐데.. 왜 3D로 나와서 제 심기를 불편하게 하죠??")]


def test_nsmc_faults():
    records = read("nsmc", FAULTS / "nsmc_faults.txt")
    assert outcome_counts(records) == {"document": 1, "dead_letter:wrong_field_count": 2,
                                       "dead_letter:invalid_value": 2, "dead_letter:invalid_encoding": 1,
                                       "dead_letter:nul_byte": 1, "dropped:empty": 1}
    wrong = next(r for r in records if isinstance(r, DeadLetter))
    assert (wrong.path, wrong.line, wrong.offset, wrong.reason) == (
        str(FAULTS / "nsmc_faults.txt"), 3, 35, "wrong_field_count: 5 fields, expected 3")
    assert wrong.raw == "1002\t탭이\t없는\t행\t0\n"
    nul = next(r for r in records if isinstance(r, DeadLetter) and r.reason.startswith("nul_byte"))
    assert (nul.line, nul.offset) == (7, 109)


# --- petitions -------------------------------------------------------------------------------------------


def test_petitions_real_slice():
    records = read("petitions", DATA / "petitions_2017-08_slice")
    assert [r.id for r in records] == ["petitions:510", "petitions:511", "petitions:512", "petitions:513",
                                       "petitions:516"]
    first = records[0]
    assert first.text.split("\n")[0] == "학교는 인력센터, 취업센터가 아닙니다. 정말 간곡히 부탁드립니다."
    assert first.text.split("\n")[1].startswith("안녕하세요. 현재 사대, 교대 등 교원양성학교들의 예비교사들이")
    assert first.metadata == {"category": "육아/교육", "begin": "2017-08-25", "end": "2017-09-24", "num_agree": 88,
                              "status": "청원종료"}


def test_petitions_fault_corpus_reconciles():
    path = FAULTS / "petitions_faults.jsonl"
    records = read("petitions", path)
    assert outcome_counts(records) == {
        "document": 2, "dead_letter:truncated_json": 1, "dead_letter:invalid_json": 1,
        "dead_letter:not_an_object": 1, "dead_letter:missing_field": 1, "dead_letter:invalid_encoding": 1,
        "dead_letter:nul_byte": 1, "dead_letter:invalid_value": 1, "dropped:empty": 2}
    assert len(records) == len(path.read_bytes().split(b"\n")) - 1  # every line is exactly one record
    dead = [r for r in records if isinstance(r, DeadLetter)]
    assert [r.line for r in dead] == [2, 3, 4, 5, 6, 7, 10]
    assert all(r.path == str(path) and r.offset is not None for r in dead)
    lines = path.read_bytes().split(b"\n")
    assert [r.raw for r in dead] == [raw_prefix(lines[r.line - 1] + b"\n") for r in dead]
    assert len(lines[1]) > 100 and len(lines[6]) > 200 and dead[5].raw == raw_prefix(lines[6][:200])
    assert records[-1].id == "petitions:905" and not records[-1].text.endswith("\r")


def test_text_with_bom_and_crlf(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(b"\xef\xbb\xbf\xec\xb2\xab \xec\xa4\x84\r\n\r\n\xeb\x91\x98\xec\xa7\xb8 \xec\xa4\x84\r\n")
    records = read("text", path)
    assert [(type(r).__name__, r.id, getattr(r, "text", "")) for r in records] == [
        ("Document", "text:corpus.txt:0", "첫 줄"), ("Dropped", "text:corpus.txt:12", ""),
        ("Document", "text:corpus.txt:14", "둘째 줄")]


def test_jsonl_faults_and_configurable_fields(tmp_path):
    records = read("jsonl", FAULTS / "jsonl_faults.jsonl")
    assert outcome_counts(records) == {"document": 1, "dead_letter:missing_field": 1, "dead_letter:invalid_value": 1,
                                       "dropped:empty": 1, "dead_letter:not_an_object": 1,
                                       "dead_letter:truncated_json": 1}
    path = tmp_path / "news.jsonl"
    path.write_text('{"doc_id": "n1", "headline": "제목", "body": "본문", "lang": "ko"}\n', encoding="utf-8")
    (record,) = read("jsonl", path, text_field="body", id_field="doc_id", title_field="headline")
    assert record == Document("jsonl:n1", "제목\n본문", "jsonl", {"lang": "ko", "title": "제목"})


def test_gzip_and_bz2_line_files(tmp_path):
    plain = (DATA / "nsmc_ratings_test_slice.txt").read_bytes()
    (tmp_path / "nsmc.txt.gz").write_bytes(gzip.compress(plain))
    (tmp_path / "nsmc.txt.bz2").write_bytes(bz2.compress(plain))
    expected = read("nsmc", DATA / "nsmc_ratings_test_slice.txt")
    assert read("nsmc", tmp_path / "nsmc.txt.gz") == expected
    assert read("nsmc", tmp_path / "nsmc.txt.bz2") == expected


def test_truncated_gzip_keeps_what_was_read_and_says_where_it_broke():
    records = read("text", FAULTS / "text_truncated.txt.gz")
    assert outcome_counts(records) == {"document": 980, "dead_letter:corrupt_file": 1}
    assert records[979].text == "980번째 줄입니다"
    last = records[-1]
    assert (last.line, last.offset) == (981, 22432)
