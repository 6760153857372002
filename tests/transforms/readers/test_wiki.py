"""Wikipedia: WikiExtractor text and JSON, MediaWiki dumps, wikitext to text."""

from __future__ import annotations

import dataclasses

import pytest
from reader_fixtures import DATA, FAULTS, docs, outcome_counts, read

from kcorpus.transforms.readers import as_options, reader_for, reason_code
from kcorpus.transforms.readers.wiki import wikitext_to_text
from kcorpus.transforms.record import DeadLetter, Document, Dropped
from testdata_paths import TESTDATA

# --- Wikipedia -------------------------------------------------------------------------------------------

WIKI_IDS = ["wikiextractor:5", "wikiextractor:10"]


@pytest.mark.parametrize("name", ["kowiki_wiki_00", "kowiki_wiki_00.bz2", "kowiki_wiki_00.json"])
def test_wikiextractor_plain_bz2_and_json_agree(name):
    records = read("wikiextractor", DATA / name)
    assert [r.id for r in docs(records)] == WIKI_IDS
    assert [(r.id, r.reason, r.text) for r in records if isinstance(r, Dropped)] == [
        ("wikiextractor:40", "calendar_stub", "12월 19일\n12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."),
        ("wikiextractor:60", "empty", "새천년 민주당")]
    carter = records[0]
    assert carter.text.split("\n")[:3] == [
        "지미 카터", "제임스 얼 카터 주니어(, 1924년 10월 1일 ~ )는 민주당 출신 미국 39대 대통령 (1977년 ~ 1981년)이다.", "생애."]
    assert carter.metadata["url"] == "https://ko.wikipedia.org/wiki?curid=5"
    assert records[2].text == "12월 19일\n12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."


def test_wikiextractor_unescapes_the_body_and_drops_template_stubs():
    """Real paragraphs (tests/testdata/readers/kowiki_fidelity): WikiExtractor's escaping undone in the body,
    calendar and disambiguation pages that lost their lists dropped with a named reason."""
    records = read("wikiextractor", DATA / "kowiki_fidelity", "kowiki")
    assert outcome_counts(records) == {
        "document": 8, "dropped:calendar_stub": 2, "dropped:empty_disambiguation": 2}
    assert [(r.id, r.reason, r.text) for r in records if isinstance(r, Dropped)] == [
        ("kowiki:40", "calendar_stub", "12월 19일\n12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."),
        ("kowiki:373", "calendar_stub", "2003년\n2003년은 수요일로 시작하는 평년이다."),
        ("kowiki:331", "empty_disambiguation", "네트워크\n네트워크(network), 망(網)은 다음을 가리킨다."),
        ("kowiki:169", "empty_disambiguation", "소수\n소수에는 다음과 같은 뜻이 있다."),
    ]
    texts = {r.id: r.text for r in docs(records)}
    assert "1958년 5월 잡지 <사상계>에 발표한" in texts["kowiki:36"]
    assert "오락실, H&M 등이" in texts["kowiki:271"]
    assert texts["kowiki:289"].split("\n")[1] == "홑원소 물질 생성열 =0 -> 예외 : <chem>O3"
    assert not any("&lt;" in t or "&gt;" in t or "&amp;" in t for t in texts.values())
    assert texts["kowiki:379"].startswith("1950년대\n1950년대는 1950년부터 1959년까지를 가리킨다.\n1950년대는 전후")


def test_calendar_pages_with_one_short_extra_line_are_stubs():
    """Real date and year pages (tests/testdata/readers/kowiki_calendar_stubs): a lead with only a short line
    beside it (a vandal's, one event of the lost list) is a stub; a page with a real paragraph is an article."""
    records = read("wikiextractor", DATA / "kowiki_calendar_stubs", "kowiki")
    assert [(r.id, r.reason if isinstance(r, Dropped) else "kept") for r in records] == [
        ("kowiki:1785", "calendar_stub"),  # 5월 5일 + "2020481384년 -[네버렌드]]가없어졌다"
        ("kowiki:1808", "calendar_stub"),  # 5월 28일 + "1945년 나치독일이 멸망했다"
        ("kowiki:4139", "calendar_stub"),  # 254년: two short lines, no lead
        ("kowiki:1483", "kept"),  # 1월 5일: the KTX derailment, a paragraph
        ("kowiki:10309", "kept"),  # 1990년대: the decade's summary
    ]
    assert records[0].text.split("\n")[-1] == "2020481384년 -[네버렌드]]가없어졌다"


def test_wikiextractor_json_is_unescaped_and_stub_checked_too(tmp_path):
    path = tmp_path / "wiki_00.json"
    path.write_text(
        '{"id": "1", "url": "u", "title": "AT&T", "text": "AT&T\\n\\nAT&amp;T는 &lt;미국&gt;의 통신 회사이다."}\n'
        '{"id": "2", "url": "u", "title": "2003년", "text": "2003년\\n\\n2003년은 수요일로 시작하는 평년이다."}\n',
        encoding="utf-8",
    )
    records = read("wikiextractor", path, "kowiki")
    assert records[0].text == "AT&T\nAT&T는 <미국>의 통신 회사이다."
    assert (records[1].id, records[1].reason) == ("kowiki:2", "calendar_stub")


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


# Cutting the 1 MB sample at every byte took 40 s (38 us a range) and reached no kind of boundary that the 8 KB
# and 15 KB files cut at every byte do not: 1-byte ranges stop after its first 32 KiB (five articles, the cut
# falls inside the fifth) and one range reads the rest. 97-byte ranges still cut all of it.
ONE_BYTE_SPAN = 32 * 1024


def _ranges(path, size, range_bytes):
    span = min(size, ONE_BYTE_SPAN) if range_bytes == 1 else size
    ranges = [(start, min(start + range_bytes, span)) for start in range(0, span, range_bytes)]
    return ranges + [(span, size)] if span < size else ranges


def _without_line(record):
    return dataclasses.replace(record, line=None) if isinstance(record, DeadLetter) else record


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [TESTDATA / "sample" / "wiki_00_head", DATA / "kowiki_wiki_00", DATA / "kowiki_wiki_00.json",
     FAULTS / "wikiextractor_faults"],
    ids=lambda p: p.name,
)
@pytest.mark.parametrize("range_bytes", [1, 97, 4096, 1 << 30])
def test_wikiextractor_byte_ranges_give_the_records_of_one_pass(path, range_bytes):
    reader = reader_for("wikiextractor")
    options = as_options(None)
    whole = read("wikiextractor", path, source="wiki")
    assert reader.range_readable(str(path), options)
    ranged = [r for start, end in _ranges(path, path.stat().st_size, range_bytes)
              for r in reader.read_range(str(path), options, "wiki", start, end)]
    # Line numbers are only known in the first range (the only one when it covers the file).
    if range_bytes == 1 << 30:
        assert ranged == whole
    assert [_without_line(r) for r in ranged] == [_without_line(r) for r in whole]


def test_wikiextractor_range_ends_at_the_first_doc_line_after_it(tmp_path):
    path = tmp_path / "wiki_00"
    first = '<doc id="1" url="u1" title="가">\n가\n\n첫 문서 본문입니다.\n</doc>\n'
    second = '<doc id="2" url="u2" title="나">\n나\n\n둘째 문서 본문입니다.\n</doc>\n'
    path.write_text(first + "문서 밖 글\n" + second, encoding="utf-8")
    reader, options = reader_for("wikiextractor"), as_options(None)
    cut = len(first.encode()) + 3  # inside the stray line: it belongs to the first range
    head = list(reader.read_range(str(path), options, "wiki", 0, cut))
    tail = list(reader.read_range(str(path), options, "wiki", cut, path.stat().st_size))
    assert [getattr(r, "id", None) or r.reason for r in head] == ["wiki:1", "outside_doc: text outside <doc>"]
    assert head[1].line == 6
    assert [r.id for r in tail] == ["wiki:2"]
    assert not reader_for("wikiextractor").range_readable(str(path), as_options({"encoding": "utf-16"}))
