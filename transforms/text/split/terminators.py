"""Terminators: where a run of `.?!…` may end a Korean sentence, and the rules that say it does not.

Candidates (`TERMINATOR_CANDIDATES`, each a function of the paragraph giving matches whose group 1 is the terminator
run and group 2 the closing quotes or brackets after it): a spaced run (`terminator_runs`), one glued to the next
sentence (`glued_terminators`, `glued_before_latin`, `spaced_then_glued`) and a quotation closed then another opened
(`quote_pairs`). Rules (each `(paragraph, start, end, terminator, closers) -> bool | None`, False where the run does
not end a sentence, None where the rule has no verdict; `rules.TERMINATOR_RULES` orders them): a `(?)` remark, an
uncertain number, a name with `!`, a mark inside a Latin title, a bracket glued to `?`/`!`, a period of a number,
initial, reference or dotted words (`non_final_period`), and the pauses (`pause`): an ellipsis or glued period after
a particle, adverb or conjunction goes on, one trailing a connective in a comment ends the sentence. Pure Python +
`re`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS, syllables_with_final
from kcorpus.transforms.text.split.endings import is_formal_text
from kcorpus.transforms.text.split.paragraph import CLOSERS

_HANGUL = HANGUL_SYLLABLE_CLASS
_JAMO = COMPATIBILITY_JAMO_CLASS

# ---- Candidates: where a terminator run may end a sentence ----

# After a terminator, jamo (`ㅋㅋ`, a bullet `ㅇ`) and decorative symbols stay with the sentence
# they follow, as kss does; so do `~` (`습니다.~`) and `>`/`>>`, even glued to the next word
# (`보냈습니다.. >그래서`).
_TRAILERS = rf"[{_JAMO}★☆♡♥♪^>~]*(?:\s+[{_JAMO}★☆♡♥♪^>]+)*"
# A candidate boundary: a terminator run, closing quotes/brackets, trailers, then whitespace.
# Terminators: `.?!…` and full-width forms; `~` and runs of commas (`해요,,`) only after a
# syllable that ends a sentence.
_FINAL_SYLLABLES = "다요죠까네냐나지군래자음함"
# Citation markers after the terminator (`있다.[1][2] 다음`, `[주 1]`) stay with the sentence they cite, also where the next
# sentence is glued to them (`받는다.[6]하부측두엽에서의`), as does a bracketed remark ended by `-ㅂ니다`
# (`주셨습니다.(…안해주셨습니다)그리고`) or by a terminator (`…는데요.(…사용하겠습니다. )정의감만으로`).
_CITATIONS = r"(?:\[(?:주 ?)?\d{1,3}\]|\[[a-z]\]|\[출처 필요\]|\[\])*"
# So does a short bracket glued to the terminator itself (`하다.(EG 331, GL 380) 영어판인`, `없다.(모순) 그러므로`); not
# one after a closing quote (`"…suit."(정장 없이도…) 그리고 "Work…"`: a list of quotations goes on).
_PUNCT_TAIL = (
    rf"((?:\([^()\n]{{1,120}}\)|[{CLOSERS}]*{_CITATIONS}[{CLOSERS}]*){_TRAILERS}(?:\s*>+)?)(?=\s|$|(?<=>)|(?:(?<=\d\])|(?<=니다\))|(?<=[.?!]\))|(?<=[.?!] \)))[{_HANGUL}])"
)
_PUNCT_CANDIDATE = re.compile(rf"([.?!…‥。？！]+|(?<=[{_FINAL_SYLLABLES}]) ?(?:~+|,{{2,}})[.?!~]*){_PUNCT_TAIL}")
# `_PUNCT_CANDIDATE` without its `~`/`,,` branch, which can only match where `_TILDE_GUARD` does: where that
# finds nothing, this gives the same matches, and `re` scans for its first character class (no lookbehind
# comes first) several times faster.
_PUNCT_ONLY_CANDIDATE = re.compile(rf"([.?!…‥。？！]+){_PUNCT_TAIL}")
_TILDE_GUARD = re.compile(rf"[{_FINAL_SYLLABLES}] ?(?:~|,,)")
# What a terminator glued to the next sentence runs into: a syllable, maybe after an opening quote (`합니다.“여러분`);
# an opening bracket before a syllable, not a citation marker (`말하였다.[저는]`, not `[주 3]`); after `?`/`!`, or a
# period or ellipsis after a final ending, a number and what it counts (`감동!!10점`, `기록하였다.2017년`, `2019년입니다..50년대가`;
# not a final `!1`).
_GLUED_NEXT = rf"(?=[“‘「『]?[{_HANGUL}]|\[(?!주 ?\d|출처)[{_HANGUL}]|(?<=[?!])\d+[^\d\s.,]|(?:(?<=[다요까죠]\.)|(?<=[다요까죠]\.\.)|(?<=[다요까죠]\.\.\.))\d+[^\d\s.,])"
# `했다.그리고`: a final ending glued to the next Hangul sentence by a terminator.
# The terminator comes first and its lookbehind after it, so that `re` scans for the terminator's character
# class (a pattern that opens with a lookbehind gets no such scan).
_GLUED_CANDIDATE = re.compile(
    rf"([.?!…‥](?<=[{_HANGUL}].)[.?!…‥]*|~(?<=[다요죠까음함네]~)~*)([{_JAMO}]*){_GLUED_NEXT}"
)
# `것이었다.Coase는`: a final ending glued to a sentence that starts with a Latin name (a lost line break in
# WikiExtractor's text); group 2 (closers) is empty.
_GLUED_LATIN_CANDIDATE = re.compile(r"(\.)(?<=[다요죠까]\.)()(?=[A-Z][a-z]+[가-힣 ])")
# `환경입니다 .휴일이나`: a period spaced off a final ending and glued to the next sentence (a misplaced space); group 2
# (closers) is empty. `is_non_final_period` judges it as the spaced period it is.
_SPACED_GLUED_CANDIDATE = re.compile(rf"(\.)(?<= \.)()(?=[{_HANGUL}])")
# `폐점을 한다.""이건`: a quotation closed after a terminator and the next one opened at once.
_QUOTE_PAIR_CANDIDATE = re.compile(r"([.?!…]+)([\"”’」』])(?=[\"“‘「『][^\s\"“”‘’「」『』])")
# A match of `_GLUED_CANDIDATE` exists only where this (the same runs, `~` after any syllable) matches.
_GLUED_GUARD = re.compile(rf"[.?!…‥~](?<=[{_HANGUL}].)[.?!…‥~]*[{_JAMO}]*{_GLUED_NEXT}")

def _may_hold_tilde_ending(paragraph: str) -> bool:
    """Whether `_TILDE_GUARD` matches; substring tests first (most paragraphs have neither `~` nor `,,`)."""
    return ("~" in paragraph or ",," in paragraph) and _TILDE_GUARD.search(paragraph) is not None


def _may_hold_quote_pair(paragraph: str) -> bool:
    """False when `_QUOTE_PAIR_CANDIDATE` cannot match: it needs one of these closing quotes (a substring test
    each costs a fraction of its scan)."""
    return '"' in paragraph or "”" in paragraph or "’" in paragraph or "」" in paragraph or "』" in paragraph


def terminator_runs(paragraph: str) -> Iterable[re.Match[str]]:
    """`좋네요. 다음`, `최고!!! 배우`, `있다.[1] 다음`: a terminator run with its closers and trailers before a space."""
    return (_PUNCT_CANDIDATE if _may_hold_tilde_ending(paragraph) else _PUNCT_ONLY_CANDIDATE).finditer(paragraph)


def glued_terminators(paragraph: str) -> Iterable[re.Match[str]]:
    """`했다.그리고`: a final ending glued to the next Hangul sentence by a terminator."""
    return _GLUED_CANDIDATE.finditer(paragraph) if _GLUED_GUARD.search(paragraph) else ()


def quote_pairs(paragraph: str) -> Iterable[re.Match[str]]:
    """`한다.""이건`: a quotation closed after a terminator and the next one opened at once."""
    return _QUOTE_PAIR_CANDIDATE.finditer(paragraph) if _may_hold_quote_pair(paragraph) else ()


def glued_before_latin(paragraph: str) -> Iterable[re.Match[str]]:
    """`것이었다.Coase는`: a final ending glued to a sentence that starts with a Latin name."""
    return _GLUED_LATIN_CANDIDATE.finditer(paragraph) if "." in paragraph else ()


def spaced_then_glued(paragraph: str) -> Iterable[re.Match[str]]:
    """`환경입니다 .휴일이나`: a period spaced off a final ending and glued to the next sentence."""
    return _SPACED_GLUED_CANDIDATE.finditer(paragraph) if " ." in paragraph else ()


# The candidates, each scanned over the whole paragraph (their order changes nothing: cuts are a set).
TERMINATOR_CANDIDATES = (terminator_runs, glued_terminators, quote_pairs, glued_before_latin, spaced_then_glued)

# ---- Rules: where a terminator run does not end a sentence (False), in `rules.TERMINATOR_RULES`'s order ----
# (Each is asked of a run after the paragraph's first character: `paragraph[start - 1]` exists.)


def in_brackets(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`(?)`, `(!)`: a remark inside the sentence."""
    return False if paragraph[start - 1] == "(" else None


def uncertain_number(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`10?초`: a question mark after a digit is an uncertain number."""
    return False if terminator[0] == "?" and paragraph[start - 1].isdigit() else None


# Names spelled with `!` (`야후! 재팬 같은 회사들은`).
_EXCLAIMED_NAME = re.compile(r"(?:야후|Yahoo|YAHOO|Wham|Jeopardy)$")


def exclaimed_name(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`야후! 재팬`: a name spelled with `!`."""
    return False if terminator == "!" and _EXCLAIMED_NAME.search(paragraph, max(0, start - 8), start) else None


# Latin words after a `?`/`!` that ends a Latin word, the last of them taking a Korean particle: the mark is inside a
# title (`Where Do We Go? World Tour의`), not the end of an English sentence (`Good! Good!`).
_LATIN_NEXT = re.compile(r"\s+(?:[A-Za-z][\w'’-]*\s+){0,3}[A-Za-z][\w'’-]*[가-힣]")


def latin_title(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`Where Do We Go? World Tour의`: a mark inside a Latin title."""
    previous = paragraph[start - 1]
    if terminator in ("?", "!") and previous.isascii() and previous.isalpha() and _LATIN_NEXT.match(paragraph, end):
        return False
    return None


def bracket_after_mark(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`음주운전?(상대측) VS 교통위반?(남편)`: a bracket glued to a question or exclamation mark goes on."""
    return False if closers[:1] == "(" and terminator != "." else None


# ---- Periods ----

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


def non_final_period(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """`2017. 8. 25.`, `U.S.`, `제3조.`, `전. 부. 다.`: a period of a number, initial, reference or dotted words."""
    if terminator == "." and (is_non_final_period(paragraph, start) or is_emphatic_period(paragraph, start, end)):
        return False
    return None


# ---- Pauses ----

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


def pause(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool | None:
    """An ellipsis (or a period glued to the next word, `사고.사건.지원`) after a particle, adverb or conjunction is a
    pause inside the sentence (False); one trailing a connective in a comment ends it (True, `trails_off`)."""
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
