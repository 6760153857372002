"""Whether a period ends a Korean sentence: the judgements `sentences.split_sentences` asks of a `.`.

`is_non_final_period`: a period of a number, date, initial, abbreviation, masked name or reference (`2017. 8. 25.`,
`U.S.`, `김**. 씨는`, `제3조.`). `is_emphatic_period`: a period of a run of dotted words, letters spaced out for
emphasis (`전. 부. 다. 요!!!`) or every word of a sentence dotted (`삼성생명과. 한화생명의. 암환자. 및.`). Pure Python.
"""

from __future__ import annotations

import re

# Words that end in `.` without ending a sentence (kss's list plus a few common ones).
_ABBREVIATIONS = frozenset(
    """
    no pp vol vols al ed eds trans rev p page para comp capt dept mr miss mrs ms dr prof st co mm
    messrs mlle mme def viz etc vs cf fig jr sr inc ltd corp gen col lt sgt gov sen rep mt ft approx
    est jan feb mar apr jun jul aug sep sept oct nov dec
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# `가. 나. 다.`: Korean list letters, which a period follows without ending a sentence (alone as a word).
_LIST_LETTERS = frozenset("가나다라마바사아자차카타파하")
_BEFORE_STRAY_DA = frozenset("니했었였았겠됐갔왔")
# Final syllables that a spaced-off period (`했습니다 .`, `구성임 .`) still ends, and laughter or tears (`구나ㅉㅉ .`).
_SPACED_PERIOD_FINALS = frozenset("다요죠까임음함됨ㅋㅎㅠㅜㅉ")
# De-identification masks, and the honorifics that follow a masked name.
_MASKS = frozenset("*○◯●×OＯ")
_HONORIFIC = re.compile(r"\s*(?:씨|님|군|양)(?![가-힣])|\s*(?:씨|님)[은는이가을를의께도와]")
# Korean counters for articles and pages: `제3조.`, `2항.`, `15쪽.` are references, not endings.
_REFERENCE_COUNTERS = "항조호절목권쪽장"
_KOREAN_REFERENCE = re.compile(rf"\d+[{_REFERENCE_COUNTERS}]$")
# A word ended by a period whose neighbour is one too: letters spaced out for emphasis (`전. 부. 다. 요!!!`), or every
# word of a sentence dotted (`삼성생명과. 한화생명의. 암환자. 및.`): only a final ending ends a sentence there.
_NEXT_DOTTED_WORD = re.compile(r"\s+([^\s.]{1,8})\.(?=\s|$)")
_GLUED_DOTTED_WORD = re.compile(r"([^\s.]{1,8})\.(?=\s|$)")  # `인지.보고.`: the next dotted word glued on
_PREVIOUS_DOTTED_WORD = re.compile(r"(?:^|\s)([^\s.]{1,8})\.\s+$")
_DOTTED_FINALS = frozenset("다요죠까오")

def is_non_final_period(paragraph: str, start: int) -> bool:
    """Whether a lone `.` at `start` belongs to a number, initial, abbreviation or reference."""
    last = paragraph[start - 1] if start else ""
    if (
        "가" <= last <= "힣"
        and last not in _REFERENCE_COUNTERS
        and (
            last not in _LIST_LETTERS
            if start < 2
            else paragraph[start - 2] != "." and (last not in _LIST_LETTERS or paragraph[start - 2] not in " \t(")
        )
    ):
        # The common case, `했다.`: a syllable is no digit, initial or abbreviation, ends a reference only as
        # a counter, ends a `U.S.`-like word only right after a `.` and a list letter only alone as a word; so
        # none of the rules below applies.
        return False
    before = paragraph[max(0, start - 40) : start]
    if not before:
        return True
    if before[-1].isspace():
        # `있었습니다 . 결혼…`: a period spaced off a final ending still ends the sentence.
        return before.rstrip()[-1:] not in _SPACED_PERIOD_FINALS
    word = before.rsplit(maxsplit=1)[-1]
    last = word[-1]
    if last.isdigit():
        # Dates `2017. 8. 25.`, list items `1.`, section numbers.
        return True
    if last in _MASKS and _HONORIFIC.match(paragraph, start + 1):
        return True  # `피해자 김**. 씨는`: a masked name
    if len(word) == 1 and (last.isascii() and last.isalpha() or "ㄱ" <= last <= "ㅎ"):
        return True
    if len(word) == 1 and last in _LIST_LETTERS:
        # `나. 현재…` is a list item; `있습니 다.` an ending with a stray space.
        return last != "다" or before[:-1].rstrip()[-1:] not in _BEFORE_STRAY_DA
    if last in ")]":
        return False  # `받았습니다(2017. 2. 8.). 이와`: a period after a closed bracket ends the sentence
    if "." in word and len(word.rsplit(".", 1)[-1]) <= 1:
        # `U.S.`, `e.g.`, `Ph.D.`
        return True
    if word.lower().lstrip("(") in _ABBREVIATIONS:
        return True
    return bool(_KOREAN_REFERENCE.search(word))


def is_emphatic_period(paragraph: str, start: int, end: int) -> bool:
    """Whether the `.` at `start` is one of a run of dotted words (`전. 부. 다.`, `암환자. 및. 질병`) that does not end
    the sentence: a lone syllable among lone syllables, or a word without a final ending in a run of three or more
    dotted words."""
    if paragraph[end : end + 1] in (" ", "\t"):
        following = _NEXT_DOTTED_WORD.match(paragraph, end)
    else:  # the end of the paragraph, or glued to what follows: only a dotted word glued on (`인지.보고.`) counts
        following = _GLUED_DOTTED_WORD.match(paragraph, end)
        if not following:
            return False  # most periods
    word_start = max(paragraph.rfind(" ", 0, start), paragraph.rfind("\t", 0, start)) + 1
    word = paragraph[word_start:start]
    preceding = _PREVIOUS_DOTTED_WORD.search(paragraph, max(0, word_start - 12), word_start)
    # Numbers with periods are list items and dates, no dotted words (`…한 점. 4. 진료`, `검찰들. 1997. 12. 8`).
    if following and following.group(1).isdigit():
        following = None
    if preceding and preceding.group(1).isdigit():
        preceding = None
    if len(word) == 1 and "가" <= word <= "힣" and (
        following and len(following.group(1)) == 1 or preceding and len(preceding.group(1)) == 1
    ):
        return True
    if not word or word[-1] in _DOTTED_FINALS or not (following or preceding):
        return False
    # Two dotted neighbours on either side or one on each: a run of three dotted words (`삼성생명과. 한화생명의. 암환자.`).
    return bool(
        following and preceding
        or following and _NEXT_DOTTED_WORD.match(paragraph, following.end())
        or preceding and _PREVIOUS_DOTTED_WORD.search(paragraph, max(0, preceding.start(1) - 12), preceding.start(1))
    )
