"""Repetition rules on real lines: the sentence spam rule keeps parallel constructions, Gopher's document
rules drop repeated documents (a 5 MB line of one sentence included) and keep ordinary petitions."""

import json

import pytest

from kcorpus.transforms.prepare import DocumentPreparer
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.filters import FilterConfig, check_sentence
from kcorpus.transforms.rules.repetition import (
    document_repetition_reason,
    dup_ngram_share,
    duplicate_share,
    ngram_repetition_reason,
    repeated_token_share,
    repeated_unit_share,
    spam_reason,
    title_repeat_reason,
    top_ngram_share,
    words,
)
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.split import make_splitter
from testdata_paths import TESTDATA

CFG = FilterConfig()
QUALITY = TESTDATA / "quality"


def _nsmc_lines() -> list[tuple[str, str]]:
    lines = (QUALITY / "nsmc_lines.tsv").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if not line.startswith("#")]


@pytest.mark.parametrize(
    "text",
    [
        "좋아요 좋아요 좋아요 좋아요",
        "ㅋㅋ ㅋㅋ ㅋㅋ ㅋㅋ",
        "최고 최고 최고 최고 최고",
        "최고 최고 최고 최고 좋아",
        "좋아요! 좋아요! 좋아요!",
    ],
)
def test_true_spam_is_repetitive(text):
    assert check_sentence(text, CFG) == "repetitive"


@pytest.mark.parametrize(
    "text",
    [
        "완벽한 스토리, 완벽한 연기",
        "잔잔한 웃음 잔잔한 감동",
        "그저 감사합니다. 정말 감사합니다.",
        "최고의 배우들 최고의 영화",
        "정말 정말 정말 재밌어요",
        "너무너무너무 좋아요 너무너무너무 재밌어요",
    ],
)
def test_parallel_constructions_are_kept(text):
    assert check_sentence(text, CFG) is None


@pytest.mark.parametrize(("reason", "text"), _nsmc_lines())
def test_real_nsmc_lines(reason, text):
    preparer = DocumentPreparer(cleaner=make_cleaner("kcelectra"), splitter=None, filters=CFG)
    out = preparer.prepare(Document("nsmc:1", text, "nsmc"))
    assert (out.reason or "keep") == reason


def test_shares_are_measured_over_letters():
    assert words("좋아요!! 좋아요... ~~ 최고") == ["좋아요", "좋아요", "최고"]
    assert repeated_token_share(["좋아요", "좋아요", "최고"]) == pytest.approx(2 / 3)
    assert repeated_unit_share("좋아요좋아요좋아요최고", 3, 8) == pytest.approx(9 / 11)
    assert repeated_unit_share("좋아요좋아요최고", 3, 8) == 0.0  # two copies are not a run
    assert spam_reason("최고 최고 최고 최고", 0.0, 3, 3, 8) is None  # 0 disables


def test_duplicate_share_counts_items_and_characters():
    assert duplicate_share(["가나다", "라마", "가나다", "가나다"]) == (0.5, 6 / 11)


def test_ngram_rules_name_the_rule():
    sentence = ["오늘", "날씨가", "정말", "좋아서", "공원에", "산책을", "나갔다"]
    assert ngram_repetition_reason(sentence * 3, (0.20, 0.18, 0.16), ()) == "top_2gram"
    assert ngram_repetition_reason(sentence * 3, (), (0.15,)) == "dup_5gram"
    assert ngram_repetition_reason(sentence, (0.20,), (0.15,)) is None  # nothing repeats
    assert ngram_repetition_reason(sentence * 3, (0.0, 0.0, 0.0), (0.0,)) is None  # all disabled


def test_document_rules_need_enough_lines_and_words():
    kwargs = {
        "line_fractions": (0.3, 0.2),
        "paragraph_fractions": (0.3, 0.2),
        "top_fractions": (0.2,),
        "dup_fractions": (0.15,),
        "min_lines": 3,
        "min_words": 10,
    }
    thread = ["기사 잘 봤습니다 감사합니다", "기사 잘 봤습니다 감사합니다"]
    assert document_repetition_reason(thread, thread, **kwargs) is None  # two lines: a reply, not a page
    assert document_repetition_reason(thread * 2, thread * 2, **kwargs) == "dup_paragraphs"
    lines = [*thread, "전혀 다른 의견입니다"]
    assert document_repetition_reason(lines, ["\n".join(lines)], **kwargs) == "dup_lines"


def _petitions() -> dict[str, Document]:
    rows = [json.loads(line) for line in (QUALITY / "petitions_repetition.jsonl").open(encoding="utf-8")]
    return {
        r["title"]: Document(r["petition_idx"], f"{r['title']}\n{r['content']}", "petitions") for r in rows
    }


def test_real_petitions_repeated_pasted_text_is_dropped_title_echo_is_kept():
    preparer = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=make_splitter("kcorpus"), filters=CFG
    )
    reasons = {title: preparer.prepare(doc).reason for title, doc in _petitions().items()}
    assert (
        reasons
        == {
            "보육교사처우개선": "dup_lines",  # the same two sentences pasted three times
            # the body pasted twice; its short title is a line of its own now, so 2 of 9 lines repeat (under
            # the 30% of dup_lines) but they hold 28% of the characters (dup_line_chars: 20%)
            "어린이집 보육료 인상": "dup_line_chars",
            "청와대 행정의 최대 피해자인 영어회화 전문강사 / 정규직이 아닌 무기계약직 전환해주세요.": None,  # restates its title
            "생리대 안전 검증 위원회 여성환경연대를 빼주시기 바랍니다.": None,  # the same
            "다자녀혜택": None,
        }
    )


def _short_petitions() -> dict[str, Document]:
    """Petitions 2017-08 rows 1003, 1172 and 1107 (tests/testdata/quality/README.md)."""
    path = QUALITY / "petitions_short_docs.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return {
        r["petition_idx"]: Document(r["petition_idx"], f"{r['title']}\n{r['content']}", "petitions") for r in rows
    }


def test_a_short_petition_quoting_a_law_clause_twice_is_kept():
    """162 eojeol that quote 유아교육법 24조 twice: `dup_7gram` once (the 100-word floor, and its short sentences
    cut out), kept now: the n-gram rules start at 300 eojeol, and its kept text is whole (under a 100-word floor
    too)."""
    doc = _short_petitions()["1003"]
    split = make_splitter("kcorpus")
    old_floor = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=split, filters=FilterConfig(repetition_min_words=100)
    )
    assert old_floor.prepare(doc).reason is None
    assert CFG.repetition_min_words == 300
    new = DocumentPreparer(cleaner=make_cleaner("kcelectra"), splitter=split, filters=CFG)
    assert new.prepare(doc).reason is None


def test_a_petition_whose_body_repeats_its_title_is_caught_by_name():
    docs = _short_petitions()
    titled = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=make_splitter("kcorpus"), filters=CFG, title_line=True
    )
    assert titled.prepare(docs["1172"]).reason == "title_repeat"  # 사립유치원 어린이도 평등하게 지원해주세요 x2
    assert titled.prepare(docs["1003"]).reason is None
    # 청원에 동의합니다 x2: too short for KcELECTRA's 10 characters first; with a lower floor, the title rule.
    assert titled.prepare(docs["1107"]).reason == "too_short"
    low_floor = DocumentPreparer(
        cleaner=lambda t: t, splitter=None, filters=FilterConfig(min_chars=5), title_line=True
    )
    assert low_floor.prepare(docs["1107"]).reason == "title_repeat"
    # Only where the reader says the first line is a title: a reply that repeats a comment is not a stub.
    untitled = DocumentPreparer(cleaner=make_cleaner("kcelectra"), splitter=None, filters=CFG)
    assert untitled.prepare(docs["1172"]).reason is None


def test_title_repeat_reason():
    assert title_repeat_reason(["청원합니다 꼭 들어주세요", "청원합니다, 꼭 들어주세요!"]) == "title_repeat"
    assert title_repeat_reason(["꼭 들어주세요", "꼭 들어주세요 꼭 들어주세요"]) == "title_repeat"
    assert title_repeat_reason(["꼭 들어주세요", "꼭 들어주세요 감사합니다"]) is None
    assert title_repeat_reason(["꼭 들어주세요"]) is None
    assert title_repeat_reason(["...", "..."]) is None  # no letter in the title


def test_readers_say_which_formats_start_with_a_title():
    from kcorpus.transforms.readers.options import ReadOptions

    assert reader_for("petitions").title_line(ReadOptions())
    assert reader_for("wikiextractor").title_line(ReadOptions())
    assert not reader_for("wikiextractor").title_line(ReadOptions(title=False))
    assert not reader_for("nsmc").title_line(ReadOptions())
    assert reader_for("jsonl").title_line(ReadOptions(title_field="title"))


@pytest.mark.slow
def test_five_megabyte_line_of_one_sentence_is_dropped():
    sentence = "국민 여러분, 이 청원은 같은 문장을 처음부터 끝까지 계속 반복합니다. "
    text = sentence * 62_501
    assert len(text.encode()) > 5_000_000
    split = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=make_splitter("kcorpus"), filters=CFG
    )
    assert split.prepare(Document("p:1", text, "petitions")).reason == "dup_lines"
    whole = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=None, filters=FilterConfig(max_chars=0)
    )
    assert whole.prepare(Document("c:1", text, "comments")).reason == "top_3gram"


def test_ngram_shares_count_covered_characters_once():
    # words: 가 나 다 가 나 라 가 나 (lengths 1 2 1 1 2 3 1 2: 13 characters)
    ids, lengths = [0, 1, 2, 0, 1, 3, 0, 1], [1, 2, 1, 1, 2, 3, 1, 2]
    assert top_ngram_share(ids, lengths, 13, 2) == 9 / 13  # "가 나" three times: 3 x 3 characters
    assert top_ngram_share(ids, lengths, 13, 3) == 0.0  # no 3-gram repeats
    assert dup_ngram_share([0, 1, 0, 1, 0], [2, 2, 2, 2, 2], 10, 2) == 1.0  # overlapping occurrences
    assert dup_ngram_share([0, 1, 2, 3], [1, 1, 1, 1], 4, 2) == 0.0
