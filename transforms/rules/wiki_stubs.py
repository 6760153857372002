"""Wikipedia pages that are templates without their content: `stub_reason(title, body)` names the kind or None.

WikiExtractor drops lists, so two kinds of Korean Wikipedia page arrive as their one-line lead alone:
- `calendar_stub`: a date, year, decade or century page ("12월 19일", "2003년", "1950년대", "20세기") whose
  body is one line: "12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다." or "2003년은
  수요일로 시작하는 평년이다.", the same sentence with other numbers on hundreds of pages, its events lost.
- `empty_disambiguation`: a disambiguation page whose one line promises a list that is not there
  ("네트워크(network), 망(網)은 다음을 가리킨다.", "소수에는 다음과 같은 뜻이 있다.").
A page with more than its lead (a date page whose events survived, an article that ends in "다음과 같다.")
is an article and stays. The wiki readers drop these pages with the kind as the reason (`read:dropped:<kind>`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CALENDAR_TITLE = re.compile(r"(?:1[0-2]|[1-9])월 (?:3[01]|[12][0-9]|[1-9])일|[0-9]{1,4}년(?:대)?|[0-9]{1,2}세기")
# The lead of a disambiguation page ends by announcing its list: "다음을 가리킨다", "다음 중 하나를 뜻한다",
# "다음과 같은 뜻이 있다", "다음의 의미가 있다", "다음과 같다", optionally with "." or ":".
_LIST_INTRO = re.compile(
    r"다음(?:을|를| 중 하나를|과 같은 [가-힣]{1,4}[이가을를]?|의 [가-힣]{1,4}[이가을를]?|과) [가-힣]{1,6}\s*[.:]?$"
)


def stub_reason(title: str, body: Sequence[str]) -> str | None:
    """`calendar_stub`, `empty_disambiguation` or None for a page's title and its body lines (no title line)."""
    lines = [line for line in body if line.strip()]
    if len(lines) != 1:
        return None
    if CALENDAR_TITLE.fullmatch(title.strip()):
        return "calendar_stub"
    if _LIST_INTRO.search(lines[0].strip()):
        return "empty_disambiguation"
    return None
