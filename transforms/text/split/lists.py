"""List items in Korean text: periods glued between nouns, a numbered list's first item, `- ` items.

Rule (`rules.TERMINATOR_RULES`): `between_list_items`, a period glued between two nouns separates list items
(`신문.방송에도`, `화.목`: `in_item_run`, `inside_item_run`, `separates_items`) unless the syllable before it ends a
sentence (`GLUED_FINALS`). Cuts (`rules.CUT_RULES`): `first_item_cuts`, a numbered list's `1.` after an unterminated
title starts a sentence (`FIRST_ITEM`); `dash_item_cuts`, each `- ` item of a list of three or more (`DASH_MARKER`)
starts one. Pure Python + `re`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kcorpus.transforms.korean import HANGUL_SYLLABLE_CLASS
from kcorpus.transforms.text.split.endings import is_formal_text

if TYPE_CHECKING:
    from kcorpus.transforms.text.split.paragraph import Paragraph

_HANGUL = HANGUL_SYLLABLE_CLASS

# A period glued between two syllables after a noun, not one of these final syllables (`했다.그리고`, `좋아요.근데`),
# separates the items of a list when the next item takes a particle (`신문.방송에도`, `어지럼증.알러지가`,
# `아들.딸들을`) or both are one syllable (`화.목 장사를`); a nominal sentence still ends there (`가족사.장대하고`,
# `머피.제이슨`).
GLUED_FINALS = frozenset("다요죠까네냐나지군래자음함임됨옴어아야니라오게걸데")
_LIST_PARTICLES = ("에도", "에서", "에게", "가", "을", "를", "은", "는", "의", "와", "과", "도", "로")
# Formal text (`-ㅂ니다` style) longer than a comment ends a sentence with a predicate, so a period glued between two
# words of up to 4 syllables where the second ends in no ending of a predicate separates two nouns (`안전.환경에`,
# `한노.민노`), where `가족사.장대하고` ends a nominal sentence.
_SHORT_ITEM = 4
# Not in a comment (NSMC's and Naver's limit), whose writers end nominal sentences so too (`최고의 프로그램.가장 오래`).
_COMMENT_MAX_CHARS = 140
_PREDICATE_ENDS = frozenset("고며서면지게다요니나데야아어해여라자까네죠음함임됨")
_HANGUL_RUN = re.compile(f"[{_HANGUL}]+")
_LIST_END = re.compile(r"\s*등(?=[\s의을이과도])")
# The first item of a numbered list after a title without a terminator (`…동물학대죄 적용 등 청원 1. 1인 가구 등`)
# starts a sentence: `1.` or `1)` after a word ending in a syllable, not after a clause of a law (`시행규칙 제 7조 3항 1.
# 전기설비`: the item is cited).
FIRST_ITEM = re.compile(rf"(?<=[{_HANGUL}])(?<!\d[항조호])(?=\s+1[.)]\s+(?!\d+[.)])[{_HANGUL}0-9])")
# A `- ` item after a title, heading or item without a terminator (`《차례》 - 북핵위협…`, `…감시단체 활동) - 상위 글`)
# starts a sentence: after a syllable or a closing bracket, before Hangul; not a range (`서울-부산`, `3 - 2`) and not
# inside a chain of short terms joined by dashes (`도 - 시 - 군`, `주어 - 수식어 - 술어의 어순`): no dash in the 10
# characters either side. Only in a paragraph with three such items or more: a list, not a dash that sets off a phrase
# (`임명되었으며 - 아마도 헬름홀츠의 중재`).
DASH_MARKER = re.compile(r"(?:^|\s)-\s+[가-힣]")
_BEFORE_SPACE = re.compile(r"(?=\s)")
_DASH_LABEL = re.compile(r"(?<=\S)\s+\d{1,2}[가-힣)]{0,2}$")
_DASH_ITEM = re.compile(r"(?<=[가-힣》)\]])(?=\s+-\s+[가-힣][^-\n]{9})")


def _item_start(paragraph: str, start: int) -> int:
    """Where the Hangul run that ends at `start` (the item before a period) begins."""
    item = start
    while item > 0 and "가" <= paragraph[item - 1] <= "힣":
        item -= 1
    return item


def _glued_before(paragraph: str, item: int) -> bool:
    """Whether a period glued after a syllable stands right before the item at `item` (`엄마.|언니`)."""
    return paragraph[item - 1 : item] == "." and "가" <= paragraph[item - 2 : item - 1] <= "힣"


def _glued_after(paragraph: str, after: int) -> bool:
    """Whether a period glued before a syllable stands at `after`, the end of an item (`언니|.동생`)."""
    return paragraph[after : after + 1] == "." and "가" <= paragraph[after + 1 : after + 2] <= "힣"


def in_item_run(paragraph: str, start: int, end: int) -> bool:
    """Whether the period at `start`, glued between two syllables, is one of a run of glued items
    (`압박감.부담감.억울함을`, `야마하.스즈키.가와사키.** 등의`) or before the last of a list (`덕양구청.강화군청 등`); a
    final syllable still ends a sentence there (`뭘한건지.위급함.긴장감은`, and so `혼다.야마하` is cut)."""
    after = _HANGUL_RUN.match(paragraph, end).end()
    if _glued_after(paragraph, after) or _LIST_END.match(paragraph, after):
        return True
    return _glued_before(paragraph, _item_start(paragraph, start))


def inside_item_run(paragraph: str, start: int, end: int) -> bool:
    """Whether the period at `start` has a short glued item on both sides that a glued period also parts from the next
    (`엄마.언니.동생`): inside such a run any syllable ends a noun, not a sentence (`언니`)."""
    after = _HANGUL_RUN.match(paragraph, end).end()
    if after - end > _SHORT_ITEM or not _glued_after(paragraph, after):
        return False
    item = _item_start(paragraph, start)
    return start - item <= _SHORT_ITEM and _glued_before(paragraph, item)


def separates_items(paragraph: str, start: int, end: int) -> bool:
    """Whether the period at `start`, glued between two syllables after a noun, joins two list items (`신문.방송에도`,
    `화.목`); in formal text, any two short words that end in no predicate (`안전.환경에`, `한노.민노 고소고발건은`)."""
    following = _HANGUL_RUN.match(paragraph, end).group()
    if len(following) == 1:
        return start < 2 or not "가" <= paragraph[start - 2] <= "힣"  # `화.목`: two one-syllable items
    if following.endswith(_LIST_PARTICLES):
        return True
    item = _item_start(paragraph, start)
    return (
        start - item <= _SHORT_ITEM
        and (item == 0 or paragraph[item - 1].isspace())
        and len(following) <= _SHORT_ITEM
        and following[-1] not in _PREDICATE_ENDS
        and len(paragraph) > _COMMENT_MAX_CHARS
        and is_formal_text(paragraph)
    )


def between_list_items(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`신문.방송에도`, `스즈키.가와사키`: a period glued between two nouns separates them."""
    previous = paragraph[start - 1]
    if (
        terminator == "."
        and "가" <= previous <= "힣"
        and "가" <= paragraph[end : end + 1] <= "힣"
        and (
            previous not in GLUED_FINALS
            and (in_item_run(paragraph, start, end) or separates_items(paragraph, start, end))
            or previous == "자" and in_item_run(paragraph, start, end)  # `운전자.주선사업자.화물화주`: nouns in -자
            or inside_item_run(paragraph, start, end)  # `자식.아내.엄마.언니.동생.친구입니다`
        )
    ):
        return False
    return None


def first_item_cuts(p: Paragraph) -> list[int]:
    """`…적용 등 청원 | 1. 1인 가구`: a numbered list's first item after a title without a terminator."""
    return [match.end() for match in FIRST_ITEM.finditer(p.text)] if "1" in p.text else []


def dash_item_cuts(p: Paragraph) -> list[int]:
    """`《차례》 | - 북핵위협…`: each `- ` item of a list of three or more after one without a terminator."""
    text = p.text
    if " - " in text and len(DASH_MARKER.findall(text)) >= 2:
        return [match.end() for match in dash_items(text)]
    return []


def dash_items(paragraph: str) -> Iterator[re.Match[str]]:
    """The matches of `_DASH_ITEM` with no dash in the 10 characters before; a numbered label before the dash
    (`…해제 2단계 - 북한의`, `1) - `) belongs to the item it opens: the cut goes before it."""
    for match in _DASH_ITEM.finditer(paragraph):
        if "-" in paragraph[max(0, match.end() - 10) : match.end()]:
            continue
        label = _DASH_LABEL.search(paragraph, 0, match.end())
        yield _BEFORE_SPACE.match(paragraph, label.start()) if label else match
