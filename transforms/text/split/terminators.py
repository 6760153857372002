"""What a terminator means in a Korean sentence: whether a period ends one, and the pauses that do not.

Periods (the judgements `rules` asks of a `.`): `is_non_final_period`: a period of a number, date, initial,
abbreviation, masked name or reference (`2017. 8. 25.`, `U.S.`, `김**. 씨는`, `제3조.`). `is_emphatic_period`: a
period of a run of dotted words, letters spaced out for emphasis (`전. 부. 다. 요!!!`) or every word of a sentence
dotted (`삼성생명과. 한화생명의. 암환자. 및.`).

Pauses (the ellipses and glued periods `rules` does not cut at): an ellipsis after a particle or connective
(`PAUSE_SYLLABLES`, but not a question's `-가`: `QUESTION_GA`) or after an adverb or conjunction standing as a word
(`ADVERB_PAUSE`) is a pause; a period glued before a conjunction that opens a sentence (`CONJUNCTION`) still ends
one, and so does an ellipsis trailing a connective in informal text (`trails_off`); in formal text one after `-하여`
or `처럼` is a pause too (`CONNECTIVE_PAUSE`). `judge_pause` gives the verdict the splitter asks. Pure Python + `re`.
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import syllables_with_final
from kcorpus.transforms.text.split.endings import is_formal_text

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


# An ellipsis after a particle or a connective is a pause inside the sentence (`그런데..... 양이.... 어마어마 하쥬...`,
# `좋겠지만... 그렇지`); `최고...` is no particle.
PAUSE_SYLLABLES = frozenset("은는이가을를에의도로와과만서고며면께데")
# An ellipsis after an adverb or conjunction standing as a word (`정말정말... 지루하고`, `여튼.. 진짜 재밌음`,
# `그리고... 마지막`) is a pause before what it modifies, not a sentence end; not after a word that ends a sentence
# (`재미없네 진짜........ 웃기지도않고`: the adverb trails it).
# So is one after `-ㄹ 뿐(만) 아니라` ("not only ... but also": `뿐만아니라.. 2018년`), which always goes on, and one after
# `등` ("etc.": `비상먼지기타 등.... 몇개월째`), which closes a list inside a sentence.
ADVERB_PAUSE = re.compile(
    r"(?:^|(?<![다네요죠음함군까])\s)(?:정말|진짜|여튼|암튼|아무튼|그냥|너무|완전|근데|그래서|그리고|하지만|그런데|그러나|또|참)+$"
    r"|뿐(?:만)?\s?아니라$|(?<!\S)등$"
)
# In formal text, so is one after the connective `-하여` (`인하여.. 모든`, `위하여...`) or the particle `처럼` (`주민들처럼..
# 소송으로`), where a comment trails off (`그들도우리처럼.... 근래본`).
CONNECTIVE_PAUSE = re.compile(r"(?:하여|처럼)$")
# `-ㄴ가`, `-는가`, `-던가` end a question (`잊고있었던건가.하하하`): that `가` is no particle.
QUESTION_GA = frozenset("건는은인던한운할을")
# A conjunction that opens a sentence (`개인적으로.그러나 추천은`): a period glued before it ends one even after a particle.
CONJUNCTION = re.compile(r"\s*(?:그러나|그런데|그래서|그리고|하지만|그러므로|따라서|근데|그럼|또한)(?![가-힣])")
# A word ending in the background ending `-ㄴ데` (`봤는데`, `없는데`, `좋은데`), not the conjunctions `그런데`, `근데`.
_TRAILING_BACKGROUND = re.compile(rf"(?:^|\s)(?!그런데$|근데$)[^\s]*[{syllables_with_final(4)}]데$")


def trails_off(paragraph: str, start: int) -> bool:
    """Whether the ellipsis at `start` ends a sentence that trails off on a connective, as comments write it: a
    background `-ㄴ데` (`봤는데... 너무 실망했다`, `재미있던데..내용이해도`) or `-고` after a syllable (`좋고... 가족들과`,
    `없고.. 배우들`). Not in formal text, where the same ellipsis joins two clauses (`싶은데.. 페이지 번호를`)."""
    previous = paragraph[start - 1]
    if previous == "고":
        trailing = "가" <= paragraph[start - 2 : start - 1] <= "힣"
    elif previous == "데":
        trailing = _TRAILING_BACKGROUND.search(paragraph, max(0, start - 12), start) is not None
    else:
        return False
    return trailing and not is_formal_text(paragraph)


def judge_pause(paragraph: str, start: int, end: int, terminator: str) -> bool | None:
    """The verdict on the terminator run `terminator` at `start`..`end` of `paragraph` where a pause rule gives one: False
    where an ellipsis (or a period glued to the next word, `사고.사건.지원`) is a pause inside the sentence, True where an
    ellipsis ends a sentence that trails off (`trails_off`), None where no pause rule decides."""
    previous = paragraph[start - 1]
    is_ellipsis = len(terminator) > 1 and terminator.strip(".…‥") == "" or terminator in "…‥"
    if is_ellipsis and previous == " ":
        # `얹고 .. 스스로에게`, `있는데 ..... 힘없는`: an ellipsis spaced off its word is judged after that word.
        start = len(paragraph[:start].rstrip())
        previous = paragraph[start - 1 : start]
    if is_ellipsis and (
        ADVERB_PAUSE.search(paragraph, max(0, start - 13), start)
        or CONNECTIVE_PAUSE.search(paragraph, max(0, start - 3), start) and is_formal_text(paragraph)
    ):
        return False
    if is_ellipsis and trails_off(paragraph, start):
        return True  # `봤는데... 너무 실망했다`, `좋고... 가족들과`: a connective trailing off ends a comment's sentence
    if (
        (is_ellipsis or terminator == "." and "가" <= paragraph[end : end + 1] <= "힣")
        and previous in PAUSE_SYLLABLES
        # a particle ends a longer word (`와..` is an interjection), or follows a quoted one (`'집'을...`)
        and (start >= 2 and ("가" <= paragraph[start - 2] <= "힣" or paragraph[start - 2] in "'’\"”"))
        and paragraph[start - 2 : start] != "최고"
        and not (previous == "가" and paragraph[start - 2] in QUESTION_GA)
        and not (terminator == "." and CONJUNCTION.match(paragraph, end))
    ):
        return False  # an ellipsis, or a period glued to the next word (`사고.사건.지원`), inside the sentence
    return None
