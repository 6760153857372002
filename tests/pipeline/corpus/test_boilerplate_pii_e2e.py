"""build-corpus end to end: per-format boilerplate sets on by default, PII masked, everything counted."""

import json
from pathlib import Path

import pytest
from corpus_files import read_shard, rows

from kcorpus.pipeline.commands.build_corpus import run
from testdata_paths import TESTDATA

FIXTURES = TESTDATA / "boilerplate"

# What must not reach text/: every boilerplate kind in the fixtures and every personal number or address.
BOILERPLATE = [
    "관리자에 의해",
    "청원 요건",
    "http://m.",
    "클린봇",
    "삭제된 댓글입니다.",
    "표시할 수 없는 댓글",
    "=연합뉴스",
    "=뉴시스",
    "기자 =",
    "김철수 기자",
    "무단 전재",
    "무단전재",
    "재배포",
    "▶",
    "기사 더보기",
    "(끝)",
    "사진=",
    "formula_",
    "()",
    "(, ",
]
PII = [
    "gildong99",
    "@naver.com",
    "officer@",
    "staff@",
    "kimcs@",
    "010-1234-5678",
    "031-123-4567",
    "044-200-1234",
    "900101-1234567",
    "4111-1111-1111-1111",
    "110-123-456789",
    "192.168.10.25",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("boilerplate")
    cfg = tmp / "profile.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: petitions, format: petitions, paths: ["{FIXTURES}/petitions"], split_sentences: true}}
  - {{name: comments, format: comments, paths: ["{FIXTURES}/comments.txt"]}}
  - {{name: kowiki, format: wikiextractor, paths: ["{FIXTURES}/kowiki_wiki_00"], preset: none,
      split_sentences: true}}
  - {{name: news, format: modu, paths: ["{FIXTURES}/modu"], preset: none, split_sentences: true}}
dedup: {{near: {{enabled: false}}}}
output: {{num_shards: 1, text: true}}
""",
        encoding="utf-8",
    )
    out = tmp / "out"
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    return out


def test_no_boilerplate_and_no_pii_reach_text(built):
    text = read_shard(built, "text/part-00000-of-00001.txt")
    assert [s for s in BOILERPLATE if s in text] == []
    assert [s for s in PII if s in text] == []
    # What stays: the quoting comment, the news body, numbers that are not PII, the typed tokens.
    for kept in [
        "삭제된 댓글입니다 라는 말만 보이네 뭐가 있었던거야",
        "4일 오전 서울 도심에 올겨울 첫눈이 내려 출근길 차량들이 거북이걸음을 했다.",
        "기획재정부는 다음 달부터 신청을 받는다고 밝혔다.",
        "저는 2017-08-25부터 매달 15,000원씩 3개월 동안 피해를 입었고, 오후 12:30에 고객센터 1588-1234에 신고했습니다.",
        "보이스피싱 조직이 제 주민등록번호 [RRN]와 카드번호 [CARD], 계좌 [ACCOUNT]를 알고 있었습니다.",
        "접속 기록에는 [IP]가 남아 있었다고 합니다.",
    ]:
        assert kept in text


def test_every_removal_is_counted_per_source_set_and_rule(built):
    stats = json.loads((built / "stats.json").read_text())
    assert stats["total"]["reconciled"]
    sources = stats["sources"]

    def rewrites(name: str) -> dict[str, int]:
        return {
            k: v
            for k, v in sources[name]["counters"].items()
            if k.startswith(("boilerplate:", "pii:")) and "_removed:" not in k
        }

    assert rewrites("comments") == {
        "boilerplate:lines_removed": 5,
        "boilerplate:naver_comments:cleanbot": 1,
        "boilerplate:naver_comments:deleted": 3,
        "boilerplate:naver_comments:hidden": 1,
    }
    assert sources["comments"]["dropped_by_reason"] == {"boilerplate": 5, "too_short": 1}
    assert rewrites("petitions") == {
        "boilerplate:lines_removed": 2,
        "boilerplate:petitions:admin_notice": 4,
        "boilerplate:petitions:masked_url": 1,
        "pii:account": 1,
        "pii:card": 1,
        "pii:email": 3,
        "pii:ip": 1,
        "pii:landline": 3,
        "pii:mobile": 1,
        "pii:rrn": 1,
    }
    assert sources["petitions"]["dropped_by_reason"] == {"boilerplate": 1}
    assert rewrites("kowiki") == {"boilerplate:wikiextractor:empty_brackets": 4}
    # The six formula_N placeholders are replaced by `[수식]` (their sentences kept, no hole left), and counted.
    assert "filter:sentences_dropped:placeholder" not in sources["kowiki"]["counters"]
    assert sources["kowiki"]["removed_inside_kept"]["prepare:placeholders"] == {"spans": 6, "characters": 33}
    assert rewrites("news") == {
        "boilerplate:lines_removed": 6,
        "boilerplate:news:byline_email": 1,
        "boilerplate:news:copyright": 3,
        "boilerplate:news:dateline": 2,
        "boilerplate:news:end_mark": 1,
        "boilerplate:news:more_link": 1,
        "boilerplate:news:photo_credit": 1,
        "boilerplate:news:trailer": 1,
    }
    assert sources["news"]["dropped_by_reason"] == {"boilerplate": 1}
    dropped = rows(built, "rejected/dropped*.jsonl")
    assert sorted(d["id"] for d in dropped if d["reason"] == "boilerplate") == [
        "comments:comments.txt:158",  # ids are byte offsets: the five notice lines
        "comments:comments.txt:185",
        "comments:comments.txt:305",
        "comments:comments.txt:365",
        "comments:comments.txt:8",
        "news:NIRW2100000001.3",
        "petitions:900002",
    ]
