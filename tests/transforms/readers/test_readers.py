"""Pure-Python readers: real slices, synthetic Modu/dump fixtures, and the fault corpus with exact counts."""

from __future__ import annotations

import bz2
import collections
import dataclasses
import gzip
import json
import shutil
from pathlib import Path

import pytest

from kcorpus.transforms.readers import (
    FORMATS,
    ReadOptions,
    expand_paths,
    read_file,
    read_files,
    reason_code,
    unquote_nsmc,
)
from kcorpus.transforms.readers.wiki import wikitext_to_text
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"
FAULTS = DATA / "faults"


def read(fmt: str, path: Path | str, source: str | None = None, **options) -> list:
    return list(read_file(fmt, str(path), options or None, source))


def docs(records: list) -> list[Document]:
    return [r for r in records if isinstance(r, Document)]


def outcome_counts(records: list) -> dict[str, int]:
    """`document`, `dead_letter:<code>` and `dropped:<reason>` counts."""
    counts: collections.Counter = collections.Counter()
    for r in records:
        if isinstance(r, Document):
            counts["document"] += 1
        elif isinstance(r, DeadLetter):
            counts[f"dead_letter:{reason_code(r.reason)}"] += 1
        else:
            counts[f"dropped:{r.reason}"] += 1
    return dict(counts)


# --- options ---------------------------------------------------------------------------------------------


def test_formats_are_the_contract():
    assert FORMATS == ("modu", "wikiextractor", "wiki-dump", "petitions", "comments", "nsmc", "text", "jsonl",
                       "parquet", "hf-datasets")


def test_unknown_option_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown read option\(s\) txt_field; valid: encoding, text_field"):
        ReadOptions(txt_field="x")


def test_options_are_frozen_and_validated():
    options = ReadOptions(encoding="cp949")
    with pytest.raises(AttributeError):
        options.encoding = "utf-8"
    with pytest.raises(ValueError, match="unknown encoding"):
        ReadOptions(encoding="klingon")
    with pytest.raises(ValueError, match="layout must be one of auto, lines, tsv, csv, jsonl"):
        ReadOptions(layout="xml")


def test_options_from_cli_strings_are_typed():
    options = ReadOptions.from_strings(["join_turns=yes", "namespaces=0,14", "tags=keep"], encoding="cp949")
    assert (options.join_turns, options.namespaces, options.tags, options.encoding) == (True, (0, 14), "keep", "cp949")
    with pytest.raises(ValueError, match="expects true/false"):
        ReadOptions.from_strings(["headline=maybe"])
    with pytest.raises(ValueError, match="is not key=value"):
        ReadOptions.from_strings(["headline"])
    assert ReadOptions(namespaces=14).namespaces == (14,) and ReadOptions(namespaces=[0, 1]).namespaces == (0, 1)
    assert dataclasses.replace(options, tags="remove").tags == "remove"
    assert ReadOptions(encoding="cp949") == ReadOptions(encoding="cp949")


def test_unknown_format_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown format 'csv'; valid: modu, wikiextractor"):
        read("csv", DATA / "comments_lines.txt")


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


def test_unreadable_file_is_reported_by_name_and_the_rest_continue(tmp_path):
    missing = str(tmp_path / "missing.txt")
    records = list(read_files("nsmc", [missing, str(DATA / "nsmc_bom_crlf.txt"), str(tmp_path)]))
    dead = [r for r in records if isinstance(r, DeadLetter)]
    assert [(r.path, reason_code(r.reason)) for r in dead] == [(missing, "unreadable_file"),
                                                               (str(tmp_path), "unreadable_file")]
    assert "No such file or directory" in dead[0].reason
    assert len(docs(records)) == 5


def test_folders_expand_to_their_files_except_modu_and_datasets(tmp_path):
    (tmp_path / "AA").mkdir()
    (tmp_path / "AA" / "wiki_01").write_text("x")
    (tmp_path / "AA" / "wiki_00").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    assert expand_paths("wikiextractor", [str(tmp_path)]) == [str(tmp_path / "AA" / "wiki_00"),
                                                              str(tmp_path / "AA" / "wiki_01")]
    assert expand_paths("modu", [str(tmp_path)]) == [str(tmp_path)]


# --- Wikipedia -------------------------------------------------------------------------------------------

WIKI_IDS = ["wikiextractor:5", "wikiextractor:10", "wikiextractor:40"]


@pytest.mark.parametrize("name", ["kowiki_wiki_00", "kowiki_wiki_00.bz2", "kowiki_wiki_00.json"])
def test_wikiextractor_plain_bz2_and_json_agree(name):
    records = read("wikiextractor", DATA / name)
    assert [r.id for r in docs(records)] == WIKI_IDS
    assert [(r.id, r.reason, r.text) for r in records if isinstance(r, Dropped)] == [
        ("wikiextractor:60", "empty", "새천년 민주당")]
    carter = records[0]
    assert carter.text.split("\n")[:3] == [
        "지미 카터", "제임스 얼 카터 주니어(, 1924년 10월 1일 ~ )는 민주당 출신 미국 39대 대통령 (1977년 ~ 1981년)이다.", "생애."]
    assert carter.metadata["url"] == "https://ko.wikipedia.org/wiki?curid=5"
    assert records[2].text == "12월 19일\n12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."


def test_wikiextractor_title_line_optional():
    records = read("wikiextractor", DATA / "kowiki_wiki_00", title=False)
    assert records[2].text == "12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."


def test_wikiextractor_category_residue_lines_are_not_text(tmp_path):
    path = tmp_path / "wiki_00"
    path.write_text('<doc id="7" url="u" title="하이젠베르크">\n하이젠베르크\n\n본문 [[분류:물리]] 안의 링크.\n'
                    "[[분류:베르너 하이젠베르크| ]]\n[[분류:1901년 출생]] [[Category:Physicists]]\n</doc>\n",
                    encoding="utf-8")
    (record,) = read("wikiextractor", path)
    assert record.text == "하이젠베르크\n본문 [[분류:물리]] 안의 링크."


def test_wikiextractor_faults():
    records = read("wikiextractor", FAULTS / "wikiextractor_faults")
    summary = [(type(r).__name__, r.id if isinstance(r, Document) else r.reason, getattr(r, "line", None))
               for r in records]
    assert summary == [
        ("DeadLetter", "outside_doc: text outside <doc>", 1),
        ("DeadLetter", "truncated_doc: <doc> without </doc>", 2),
        ("Document", "wikiextractor:2", None),
        ("DeadLetter", "truncated_doc: <doc> without </doc>", 11)]
    assert records[1].raw == '<doc id="1" url="https://ko.wikipedia.org/wiki?curid=1" title="잘린 문서">\n잘린 문서\n\n닫히지 않았다.\n'


CARTER = ("지미 카터\n제임스 얼 카터 주니어(James Earl Carter Jr., 1924년 10월 1일 ~ )는 민주당 출신 미국 39대 대통령이다.\n"
          "어린 시절\n지미 카터는 조지아주 섬터 카운티 플레인스 마을에서 태어났다.")


def test_wiki_dump_keeps_articles_and_drops_redirects_and_other_namespaces():
    records = read("wiki-dump", DATA / "kowiki-20240101-pages-articles.xml.bz2", source="kowiki")
    assert records == [
        Document("kowiki:5", CARTER, "kowiki", {"title": "지미 카터", "revid": "5000",
                                                "timestamp": "2024-01-01T00:00:00Z"}),
        Dropped("kowiki:101", "kowiki", "read", "redirect", "카터"),
        Dropped("kowiki:102", "kowiki", "read", "namespace", "토론:지미 카터"),
        Dropped("kowiki:103", "kowiki", "read", "namespace", "분류:미국의 대통령"),
        Dropped("kowiki:104", "kowiki", "read", "empty", "틀만 있는 문서"),
        Document("kowiki:9", "수학\n수학(數學)은 수, 양, 구조, 공간 등의 개념을 다루는 학문이다.", "kowiki",
                 {"title": "수학", "revid": "9000", "timestamp": "2024-01-01T00:00:00Z"}),
    ]


def test_wiki_dump_namespaces_option():
    records = read("wiki-dump", DATA / "kowiki-20240101-pages-articles.xml.bz2", namespaces="0,1")
    assert outcome_counts(records) == {"document": 3, "dropped:redirect": 1, "dropped:namespace": 1,
                                       "dropped:empty": 1}


def test_wiki_dump_malformed_xml_and_truncated_stream(tmp_path):
    records = read("wiki-dump", FAULTS / "kowiki-truncated-pages-articles.xml.bz2")
    assert outcome_counts(records) == {"document": 1, "dropped:redirect": 1, "dropped:namespace": 2,
                                       "dead_letter:invalid_xml": 1}
    assert records[-1].line == 95
    cut = tmp_path / "cut-pages-articles.xml.bz2"
    cut.write_bytes((DATA / "kowiki-20240101-pages-articles.xml.bz2").read_bytes()[:700])
    assert reason_code(read("wiki-dump", cut)[-1].reason) == "corrupt_file"


def test_wikitext_to_text_removes_non_prose():
    wikitext = ("{{정보상자|이름=x}}\n'''굵게''' 쓴 [[링크|보이는 글]]과 [[파일:x.jpg|섬네일|캡션]] [[en:Link]]"
                "<ref>출처</ref>입니다.\n== 빈 절 ==\n== 역사 ==\n{| class=\"wikitable\"\n| 표 ||칸\n|}\n역사 본문.\n"
                "== 각주 ==\n<references/>\n[[분류:예시]]")
    assert wikitext_to_text(wikitext) == "굵게 쓴 보이는 글과 입니다.\n역사\n역사 본문."


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


# --- parquet and datasets --------------------------------------------------------------------------------


def petition_rows() -> list[dict]:
    lines = (DATA / "petitions_2017-08_slice").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = petition_rows()
    table = pa.table({"petition_idx": [r["petition_idx"] for r in rows] + ["x"],
                      "text": [r["content"] for r in rows] + [None],
                      "num_agree": [r["num_agree"] for r in rows] + [0]})
    pq.write_table(table, tmp_path / "part-0.parquet", row_group_size=2)
    records = read("parquet", tmp_path / "part-0.parquet", id_field="petition_idx")
    assert [r.id for r in records] == ["parquet:510", "parquet:511", "parquet:512", "parquet:513", "parquet:516",
                                       "parquet:x"]
    assert isinstance(records[-1], Dropped) and records[-1].reason == "empty"
    assert records[0].text == rows[0]["content"] and records[0].metadata == {"num_agree": 88}
    no_ids = read("parquet", tmp_path / "part-0.parquet")
    assert no_ids[3].id == "parquet:part-0.parquet:3"
    assert [reason_code(r.reason) for r in read("parquet", tmp_path / "part-0.parquet", text_field="body")] == [
        "missing_field"]
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 broken")
    assert [reason_code(r.reason) for r in read("parquet", tmp_path / "bad.parquet")] == ["unreadable_file"]


def test_hf_datasets_folder(tmp_path):
    import datasets

    rows = petition_rows()
    train = datasets.Dataset.from_dict({"text": [r["title"] for r in rows[:3]], "category": [r["category"] for r in rows[:3]]})
    test = datasets.Dataset.from_dict({"text": [r["title"] for r in rows[3:]], "category": [r["category"] for r in rows[3:]]})
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(tmp_path / "petitions_ds"))
    records = read("hf-datasets", tmp_path / "petitions_ds", source="pet")
    assert [r.id for r in records] == ["pet:petitions_ds:test:0", "pet:petitions_ds:test:1",
                                       "pet:petitions_ds:train:0", "pet:petitions_ds:train:1",
                                       "pet:petitions_ds:train:2"]
    assert records[2] == Document("pet:petitions_ds:train:0", rows[0]["title"], "pet", {"category": "육아/교육"})
    only_train = read("hf-datasets", tmp_path / "petitions_ds", split="train")
    assert len(only_train) == 3
    assert reason_code(read("hf-datasets", tmp_path / "petitions_ds", split="dev")[0].reason) == "missing_split"
    assert reason_code(read("hf-datasets", tmp_path / "nothing")[0].reason) == "unreadable_file"


# --- reconciliation over the whole fault corpus -----------------------------------------------------------


FAULT_CORPUS = [
    ("nsmc", "nsmc_faults.txt", {}, 8),
    ("petitions", "petitions_faults.jsonl", {}, 11),
    ("jsonl", "jsonl_faults.jsonl", {}, 6),
    ("comments", "comments_faults.tsv", {"thread_field": "article_id"}, 6),
    ("text", "text_truncated.txt.gz", {}, 981),
    ("wikiextractor", "wikiextractor_faults", {}, 4),
    ("modu", "modu", {}, 11),
    ("modu", "modu_corrupt_member.zip", {}, 2),
    ("wiki-dump", "kowiki-truncated-pages-articles.xml.bz2", {}, 5),
]


@pytest.mark.parametrize("fmt, name, options, seen", FAULT_CORPUS)
def test_fault_corpus_counts_reconcile(fmt, name, options, seen):
    records = read(fmt, FAULTS / name, **options)
    documents = docs(records)
    rows_in_documents = sum(d.metadata.get("comments", 1) if "thread" in d.metadata else 1 for d in documents)
    dead = sum(isinstance(r, DeadLetter) for r in records)
    dropped = sum(isinstance(r, Dropped) for r in records)
    assert rows_in_documents + dead + dropped == seen
    assert dead >= 1


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
