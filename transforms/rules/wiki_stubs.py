"""Wikipedia pages that are templates without their content: `stub_reason(title, body)` names the kind or None.

WikiExtractor drops lists, so two kinds of Korean Wikipedia page arrive as their one-line lead alone:
- `calendar_stub`: a date, year, decade or century page ("12월 19일", "2003년", "1950년대", "20세기") whose
  body is one line: "12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다." or "2003년은
  수요일로 시작하는 평년이다.", the same sentence with other numbers on hundreds of pages, its events lost.
- `empty_disambiguation`: a disambiguation page whose one line promises a list that is not there
  ("네트워크(network), 망(網)은 다음을 가리킨다.", "소수에는 다음과 같은 뜻이 있다.").
  A calendar page whose lead has only one short extra line beside it (under `SHORT_LINE` characters; section
  headings such as "사건." do not count) is a stub too: a vandal's or a test's line ("5월 5일" + "2020481384년
  -[네버렌드]]가없어졌다"), or one event of the list WikiExtractor lost ("1945년 나치독일이 멸망했다").
A page with more than that (a date page whose events survived, an article that ends in "다음과 같다.") is an
article and stays. The wiki readers drop these pages with the kind as the reason (`read:dropped:<kind>`).
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


# The longest extra line a calendar page may hold beside its lead and still be a stub: of 52 Korean
# Wikipedia date/year pages with one extra line, those under 60 characters are single events, vandalism or
# notes ("관리비", "1945년 나치독일이 멸망했다"); from 97 they are the century's or decade's summary.
SHORT_LINE = 60
# A WikiExtractor section heading: a few words and a period, no sentence ending ("사건.", "주요 사건.").
_HEADING = re.compile(r"[가-힣A-Za-z ]{1,12}\.")


def stub_reason(title: str, body: Sequence[str]) -> str | None:
    """`calendar_stub`, `empty_disambiguation` or None for a page's title and its body lines (no title line)."""
    lines = [line.strip() for line in body if line.strip()]
    if CALENDAR_TITLE.fullmatch(title.strip()):
        content = [line for line in lines if not (_HEADING.fullmatch(line) and not line.endswith("다."))]
        if len(content) == 1 or (len(content) == 2 and len(content[1]) < SHORT_LINE):
            return "calendar_stub"
        return None
    if len(lines) == 1 and _LIST_INTRO.search(lines[0]):
        return "empty_disambiguation"
    return None
