"""Quotations and brackets in a Korean sentence: never split inside, quotatives that continue, cuts they make.

The balanced quotes and brackets themselves are `paragraph.enclosed_spans` (`past_spaced_closer`:
a cut before a spaced-off closing quote moves past it; `ends_inner_remark`: a period that ends a remark in brackets
inside a sentence). Rules (`rules.TERMINATOR_RULES`): a quotative after a terminator continues the sentence
(`mark_quotative`, `period_quotative`, `unquoted_quotative`, `glued_quotative`, `quoted_quotative`: `라고`, `하고`,
`싶어서` after a quotation or a quoted question). Cuts (`rules.CUT_RULES`) a quotation makes without a terminator:
`dialogue_cuts` (`이름:"…"`), `closed_formal_cuts` (a quotation closed after `-ㅂ니다`). Pure Python + `re`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kcorpus.transforms.text.split.segments import CONTINUATION_START

if TYPE_CHECKING:
    from kcorpus.transforms.text.split.paragraph import Paragraph

QUOTES = frozenset("\"'”’」』")

# ---- Rules: a quotative after a terminator continues the sentence (False), in `rules.TERMINATOR_RULES`'s order ----

# A question, exclamation or ellipsis quoted by what follows (`이게 뭐지?? 하고 검색을`, `이게뭔가... 싶어서`, `밥먹자.. 하면`)
# continues.
MARK_QUOTATIVE = re.compile(
    r"\s*(?:하고|하는|하며|하면서|하면(?=[\s,])|하더니|했더니|했고|했는데|했지만|하자|하길래|하니|싶|인가|인지|이라|라(?=[\s.?!~]|$))"
)


def mark_quotative(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`이게 뭐지?? 하고 검색을`, `이게뭔가... 싶어서`: a question, exclamation or ellipsis quoted by what follows."""
    return False if (len(terminator) > 1 or terminator in "?!…‥") and MARK_QUOTATIVE.match(paragraph, end) else None


# Speech quoted without quotation marks, closed by the writer's period and taken by a quotative verb (`촬영하겠습니다. 하고
# 동의를`); not `하고 싶은`, `하고 있는`, which start a sentence.
PERIOD_QUOTATIVE = re.compile(r"\s+(?:하고|하며|하면서|하자|하니|하길래)\s+(?!싶|있)")


def period_quotative(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`촬영하겠습니다. 하고 동의를`: speech quoted without quotes, taken by a quotative verb."""
    return False if terminator == "." and PERIOD_QUOTATIVE.match(paragraph, end) else None


# `라는`, `라고` never start a sentence: an unquoted question or claim before them continues (`법이다? 라는`).
QUOTATIVE_UNQUOTED = re.compile(r"\s*(?:라고|라는|라며|라면서)")


def unquoted_quotative(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`법이다? 라는`: `라고`, `라는` never start a sentence."""
    return False if QUOTATIVE_UNQUOTED.match(paragraph, end) else None


# Nor a quotative verb glued to the period of unquoted speech (`들어주는 곳이 아닙니다.하며 전화를 끊어버리더군요`).
QUOTATIVE_GLUED = re.compile(r"(?:하며|하면서|하고|하더니|했더니|하자|하니|하길래)(?=[\s,])")


def glued_quotative(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`아닙니다.하며 전화를`: a quotative verb glued to the period of unquoted speech."""
    return False if not closers and QUOTATIVE_GLUED.match(paragraph, end) else None


# A quotation followed by a quotative particle (`"좋아." 라고 답했다`) or `등` continues the sentence.
QUOTATIVE = re.compile(
    r"\s*(?:라고|라는|라며|라면서|하고|하며|하면서|하니|하자|하더니|했더니|했고|했는데|했지만|고\s|라\s|등(?=[의을이과도]?\s))"
)


def quoted_quotative(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`"좋아." 라고 답했다`: a quotation taken by a quotative particle or `등`."""
    return False if QUOTES.intersection(closers) and QUOTATIVE.match(paragraph, end) else None


# ---- Cuts a quotation makes without a terminator ----

# A dialogue line `이름:"…"` after a closed quotation starts a sentence, terminator or not.
DIALOGUE = re.compile(r'["”](?=\s*[^\s"“:]{1,10}\s?:\s?["“])')
# A quotation or title closed right after a formal final ending (`문자 '이걸로 비긴겁니다' 이해가`, `《…가능합니다》 홍현익
# 수석연구위원은`, `…하겠습니다) 5. 형사고소사건`: before a list number too; `( …약합니다 ) 이러니`) ends the sentence unless a
# quotative particle, a continuing particle or a noun naming it follows (`closed_formal`).
_CLOSED_FORMAL = re.compile(r"[\"'”’》〉」』)]+(?:(?<=니다[\"'”’》〉」』)])|(?<=니다 \)))(?=\s+(?:[가-힣]|\d{1,2}[.)]\s|[①-⑳]))")
# Nor before a noun that names the quotation or title (`"탄핵을 청원합니다" 국민청원이`) or the act it is (`"죄송합니다" 거듭
# 사과를`).
_NAMED = re.compile(r"\s*(?:국민청원|청원|기사|뉴스|제목|문구|구호|글[이을은의]|(?:\S+\s+)?(?:사과|인사|대답|답변)[를을하했])")


def ends_inner_remark(paragraph: str, start: int, spans: list[tuple[int, int]]) -> bool:
    """Whether the period (or run of periods) at `start` ends a remark in brackets opened inside a sentence (`낮을 경우
    (…쉬워진다.) 공공재가`, `않았고 (…않은듯..) 얼마전까지는`): the sentence goes on after the bracket. A bracket opened after a sentence's end is a sentence; a
    quoted question in brackets (`불친절함(“…계십니까?”) - 책임회피성`) still ends one."""
    index = bisect.bisect_left(spans, (start, -1)) - 1
    if index < 0 or not spans[index][0] < start < spans[index][1] or paragraph[spans[index][0]] != "(":
        return False
    before = paragraph[: spans[index][0]].rstrip()[-1:]
    return "가" <= before <= "힣" or before.isascii() and before.isalnum()  # not after Hanja (a translation)


def closed_formal(paragraph: str) -> Iterator[re.Match[str]]:
    """The matches of `_CLOSED_FORMAL` not followed by a quotative (`QUOTATIVE`: `라고`, `하고`, ...) or a word that
    only continues a sentence (`CONTINUATION_START`: `라는`, `로`, `에`, ...)."""
    for match in _CLOSED_FORMAL.finditer(paragraph):
        end = match.end()
        if (
            not QUOTATIVE.match(paragraph, end)
            and not CONTINUATION_START.match(paragraph[end:].lstrip())
            and not _NAMED.match(paragraph, end)
        ):
            yield match


def past_spaced_closer(paragraph: str, end: int, spans: list[tuple[int, int]]) -> int:
    """`end`, or the end of the quotation it lies in where only spaces stand between it and the closing quote (`…하고
    싶습니다. " 학생들을`: the writer spaced the quote off the period)."""
    index = bisect.bisect_left(spans, (end, -1)) - 1
    if index < 0:
        return end
    start, stop = spans[index]
    if start < end < stop and paragraph[stop - 1] in QUOTES and not paragraph[end : stop - 1].strip():
        return stop
    return end


def dialogue_cuts(p: Paragraph) -> list[int]:
    """`…했다" 철수:"그래`: a dialogue line after a closed quotation starts a sentence."""
    return [match.end() for match in DIALOGUE.finditer(p.text)] if ":" in p.text else []


def closed_formal_cuts(p: Paragraph) -> list[int]:
    """`문자 '이걸로 비긴겁니다' | 이해가`: a quotation or title closed right after `-ㅂ니다` ends the sentence."""
    return [match.end() for match in closed_formal(p.text)] if "니다" in p.text else []
