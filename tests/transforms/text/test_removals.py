"""removals.py: spans cut out with the brackets, markers, separators and spaces they would leave behind."""

import re

import pytest

from kcorpus.transforms.text.removals import bracketed, cut_spans, holds_hangul, url_span
from kcorpus.transforms.text.rewrites import PLACEHOLDER, rewrite_placeholders

URL = re.compile(r"https?://[-A-Za-z0-9()@:%_+.~#?&/=]+")  # the reference URL rule's characters


def cut_urls(text: str) -> str:
    return cut_spans(text, [url_span(m) for m in URL.finditer(text)], markers=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The cases (a month of petitions): the brackets go with what they held.
        ("경찰민원포탈(https://www.police.go.kr/main.do)에서 신고", "경찰민원포탈에서 신고"),
        ("(https://a.com/x) (https://b.com/y) 또한", "또한"),
        ("링크(https://a.com, https://b.com)를 보라", "링크를 보라"),
        ("「https://a.com」 참고", "참고"),
        # A separator left against a bracket or a line end goes; a sentence's own marks stay.
        ("(참고, https://a.com/x)", "(참고)"),
        ("(https://a.com/x; 참고)", "(참고)"),
        ("자세한 것은 https://a.com/x.", "자세한 것은."),
        ("주소는 https://a.com 입니다", "주소는 입니다"),
        ("끝 https://a.com", "끝"),
        ("https://a.com 시작", "시작"),
        # A particle written against the URL joins the word before it; a word does not.
        ("국민신문고 https://a.com에서 신고", "국민신문고에서 신고"),
        ("서울↔부산 https://a.com가족", "서울↔부산 가족"),
        # List markers and pointers go with what they stood for.
        ("1. https://a.com 2. https://b.com 3. 기대효과", "3. 기대효과"),
        ("원문보기: https://a.com/1", "원문보기"),
        ("예시링크-> https://a.com/2 그리고", "예시링크 그리고"),
        ("시간 12:https://a.com 나", "시간 12: 나"),
        # Line breaks are never removed.
        ("가 https://a.com\nhttps://b.com\n나", "가\n\n나"),
    ],
)
def test_cut_spans(text, expected):
    assert cut_urls(text) == expected


def test_cut_spans_without_spans_or_glue():
    assert cut_spans("그대로", []) == "그대로"
    assert cut_spans("만약 X가 참이면", [(3, 4)]) == "만약가 참이면"
    assert cut_spans("만약 X가 참이면", [(3, 4)], glue=False) == "만약 가 참이면"
    assert cut_spans("즉, X의 값", [(3, 4)]) == "즉, 의 값"  # no particle glued to a comma
    assert cut_spans("진동수의 비 (X)이다.", [(8, 9)]) == "진동수의 비이다."  # written against the aside


def test_url_span_leaves_the_sentence_its_punctuation():
    text = "국민신문고(https://www.epeople.go.kr)를, 위키 https://en.wikipedia.org/wiki/Foo_(bar). 끝"
    spans = [url_span(m) for m in re.finditer(r"https?://[^\s가-힣]+", text)]
    assert [text[s:e] for s, e in spans] == ["https://www.epeople.go.kr", "https://en.wikipedia.org/wiki/Foo_(bar)"]


def test_bracketed_placeholders():
    text = "㈁은 formula_36 대신 formula_37 (formula_38)를, 상수(formula_2)에 (formula_1, formula_2) (formula_6는 광속)"
    assert bracketed(text, [m.span() for m in PLACEHOLDER.finditer(text)]) == [
        False, False, True, True, True, True, False]  # fmt: skip


def test_placeholder_modes():
    text = "함수 formula_1가 조건을 만족하면 거리(formula_2)의 제곱에 반비례한다.\nformula_3\n끝 codice_1로"
    assert rewrite_placeholders(text, "replace") == "함수 [수식]가 조건을 만족하면 거리의 제곱에 반비례한다.\n\n끝 [코드]로"
    assert rewrite_placeholders(text, "remove") == "함수 가 조건을 만족하면 거리의 제곱에 반비례한다.\n\n끝 로"
    assert rewrite_placeholders(text, "drop") == text
    assert rewrite_placeholders(text, "replace", "<f>", "<c>").startswith("함수 <f>가")
    trace = []
    rewrite_placeholders(text, "replace", trace=trace)
    assert trace == [
        ("placeholders", "formula_1", "[수식]"), ("placeholders", "formula_2", ""), ("placeholders", "formula_3", ""),
        ("placeholders", "codice_1", "[코드]")]  # fmt: skip


def test_holds_hangul_is_modern_hangul():
    assert holds_hangul("관리자에 의해") and holds_hangul("ㅋㅋ")
    assert not holds_hangul("ㆍㆍㆍ") and not holds_hangul("https://a.com")


def test_a_displayed_formula_the_next_line_continues_is_kept():
    # kowiki text/AA (테일러 급수): WikiExtractor puts a displayed formula on a line of its own, and the sentence
    # goes on after it; the token starts the next line, and both join the line before (no terminator there).
    text = (
        "그리고 원점 근방에서 정의된 무한번 미분 가능한 함수 formula_26에 대하여 멱급수\nformula_302\n"
        "를 formula_1의 테일러 급수라고 한다.\n다음과 같다.\nformula_3\n와 같다.\nformula_4\n이 식은 유명하다."
    )
    assert rewrite_placeholders(text, "replace").split("\n") == [
        "그리고 원점 근방에서 정의된 무한번 미분 가능한 함수 [수식]에 대하여 멱급수 [수식]를 [수식]의 테일러 급수라고 한다.",
        "다음과 같다.",
        "[수식]와 같다.",
        "",  # `이` may begin `이 식은`: no continuation, the displayed formula goes
        "이 식은 유명하다.",
    ]
    assert rewrite_placeholders(text, "remove").split("\n")[:3] == [
        "그리고 원점 근방에서 정의된 무한번 미분 가능한 함수 에 대하여 멱급수", "", "를 의 테일러 급수라고 한다."]  # fmt: skip


def test_many_placeholders_on_a_line_are_one_walk():
    line = "(" + ", ".join(f"formula_{i}" for i in range(50_000)) + ")의 " + " ".join(["formula_1"] * 50_000) + "가"
    after = rewrite_placeholders(line, "replace")
    assert after == "의 " + " ".join(["[수식]"] * 50_000) + "가"


def test_a_line_ending_in_a_placeholder_joins_the_line_that_continues_it():
    # kowiki text/AA (테일러 급수): the formula ends a line and its particle starts the next one.
    text = "formula_1의 formula_115차 근사 다항식이라하고,formula_299\n를 formula_115차 테일러 나머지 항이라고 하자."
    assert rewrite_placeholders(text, "replace") == "[수식]의 [수식]차 근사 다항식이라하고,[수식]를 [수식]차 테일러 나머지 항이라고 하자."


def test_nested_lists_of_spans_settle_in_one_walk():
    # "((((X) X) X) X)": every level needs the one inside it merged and widened first.
    levels = 50_000
    text = "가 " + "(" * levels + "X" + " X)" * levels + " 나"
    spans = [m.span() for m in re.finditer("X", text)]
    assert cut_spans(text, spans) == "가 나"


def test_markers_go_with_addresses_only():
    # A list marker stood for the URL it announced; before an emoji or a placeholder it is the text's own.
    assert cut_spans("2. X 둘째", [(3, 4)]) == "2. 둘째"
    assert cut_spans("2. X 둘째", [(3, 4)], markers=True) == "둘째"
