"""The kcorpus sentence splitter's decision: where a paragraph's sentences end (`split_sentences`).

Pure Python + `re`. It splits where a sentence ends in punctuation (`.?!…` plus closing quotes/brackets) and where a
final ending (`습니다`, `십시오`, `재밌음`, ...) runs into the next sentence without punctuation. It never splits
decimals, initials (`U.S.`), URLs, e-mails, dates (`2017. 8. 25.`), list numbers (`1.`, `가.`) or text inside quotes
and brackets, and no sentence it makes starts with punctuation or a continuing ending. Newlines are always
boundaries. This module holds the candidates and the boundary decision; the judgements it asks live beside it
(`terminators`, `endings`, `quotations`, `lists`, and the learned odds of `odds`).
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS
from kcorpus.transforms.text.split.endings import (
    BARE_ENDING,
    BARE_ENDING_HINT,
    BARE_ENDING_HINT_CLASS,
    EMOTICON_GUARD,
    EMOTICON_MARK,
    EMOTICON_RUN,
    GLUED_FORMAL,
    hinted_finditer,
    is_bare_stem_da,
    is_doubled_da,
    is_edited_text,
    is_glued_mark,
)
from kcorpus.transforms.text.split.lists import (
    DASH_MARKER,
    FIRST_ITEM,
    GLUED_FINALS,
    dash_items,
    in_item_run,
    inside_item_run,
    separates_items,
)
from kcorpus.transforms.text.split.odds import (
    GLUED_ENDINGS,
    POLITE_GLUED_ENDINGS,
    end_log_odds_at,
    glued_cuts,
    unpunctuated_cuts,
)
from kcorpus.transforms.text.split.quotations import (
    DIALOGUE,
    MARK_QUOTATIVE,
    OPENER,
    PERIOD_QUOTATIVE,
    QUOTATIVE,
    QUOTATIVE_GLUED,
    QUOTATIVE_UNQUOTED,
    QUOTES,
    closed_formal,
    enclosed_spans,
    ends_inner_remark,
    inside,
    past_spaced_closer,
)
from kcorpus.transforms.text.split.terminators import is_emphatic_period, is_non_final_period, judge_pause

_HANGUL = HANGUL_SYLLABLE_CLASS
_JAMO = COMPATIBILITY_JAMO_CLASS
_CLOSERS = "\"'”’)\\]}」』》〉»"
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
    rf"((?:\([^()\n]{{1,120}}\)|[{_CLOSERS}]*{_CITATIONS}[{_CLOSERS}]*){_TRAILERS}(?:\s*>+)?)(?=\s|$|(?<=>)|(?:(?<=\d\])|(?<=니다\))|(?<=[.?!]\))|(?<=[.?!] \)))[{_HANGUL}])"
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
# (closers) is empty. `periods.is_non_final_period` judges it as the spaced period it is.
_SPACED_GLUED_CANDIDATE = re.compile(rf"(\.)(?<= \.)()(?=[{_HANGUL}])")
# `폐점을 한다.""이건`: a quotation closed after a terminator and the next one opened at once.
_QUOTE_PAIR_CANDIDATE = re.compile(r"([.?!…]+)([\"”’」』])(?=[\"“‘「『][^\s\"“”‘’「」『』])")
# A match of `_GLUED_CANDIDATE` exists only where this (the same runs, `~` after any syllable) matches.
_GLUED_GUARD = re.compile(rf"[.?!…‥~](?<=[{_HANGUL}].)[.?!…‥~]*[{_JAMO}]*{_GLUED_NEXT}")
# What every paragraph with a cut holds (a terminator, `~`, `,,`, a smiles/tears run, a bare ending's last
# syllable or `니다`): where it finds nothing, none of the scans below runs (most comments are one sentence).
_MAY_CUT = re.compile(
    rf"[.?!…‥。？！~;ㅋㅎㅠㅜㄷㅡ♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF\"”]|,,|{BARE_ENDING_HINT_CLASS}|니다"
)
# Below these learned log-odds (0.1) a listed bare ending does not cut: `odds` has seen it continue there.
_VETO_LOG_ODDS = -2.197
# A terminator after a letter or a closing bracket: a paragraph without one is written without punctuation, and only there the learned
# odds of an unpunctuated end cut (`_boundaries`).
# (The terminator first, so that `re` scans for its class.)
_GLUED_END_HINT = re.compile(f"[{GLUED_ENDINGS}]")
# Where a polite, `-죠` or `-냐` ending may run into the next sentence (`같네요중간에`): one glued to two syllables.
_POLITE_GLUED_HINT = re.compile(f"[{POLITE_GLUED_ENDINGS}][{_HANGUL}]{{2}}")
_PUNCTUATED = re.compile(rf"[.?!…‥。？！](?<=[{_HANGUL}{_JAMO}A-Za-z0-9{_CLOSERS}].)")
# Latin words after a `?`/`!` that ends a Latin word, the last of them taking a Korean particle: the mark is inside a
# title (`Where Do We Go? World Tour의`), not the end of an English sentence (`Good! Good!`).
_LATIN_NEXT = re.compile(r"\s+(?:[A-Za-z][\w'’-]*\s+){0,3}[A-Za-z][\w'’-]*[가-힣]")
# Names spelled with `!` (`야후! 재팬 같은 회사들은`).
_EXCLAIMED_NAME = re.compile(r"(?:야후|Yahoo|YAHOO|Wham|Jeopardy)$")
# What no sentence starts with, checked after every cut. A dash glued to the end (`막아주십시오- 존경하는`),
# terminators, even spaced out (`했습니다. . . 제발`, `놀랍고... ...슬프다`), a separator (`주십시오.. -----`, as in kss),
# emoticons (`추천합니다 :-)`) and a short remark in brackets (`좋습니다. (호전사례 有) 그런데`; not a list number `(1)`,
# `(가)`, nor a sentence of its own, `(…따라 다르다.)`; at the paragraph's end, not one ending in a final syllable
# either, `(나만당할수없지)`, where inside it `(대단히 중요)` still is a remark) stay with the sentence before: the cut
# moves past them (group 1). A comma or a closing bracket, a copula or quotative ending (`됩니까? 였습니다.`, `…요
# 라는`), or a word that only continues one (`'…않는다.' , '다양한…'`) cancels the cut (group 2).
_AFTER_CUT = re.compile(
    rf"((?:-(?=\s))?(?:\s*(?:[.?!…‥~;。？！]+|[:;]-?[)(DP](?![A-Za-z])|{EMOTICON_MARK}++|[-=_]{{3,}}(?![->])|-[-_]*;+))*"
    r"(?:\s*(?!\(\w{1,2}\))\((?:(?![^()\n]*[.?!]\s*\))[^()\n]{1,30}\)(?=\s)"
    r"|(?![^()\n]*(?:[.?!]|[다요지죠음네까])\s*\))[^()\n]{1,30}\)$))?)"
    r"(\s*(?:[,，)\]}]|였|이었|이였|입니[다까]|습니[다까]|이다[\s.?!]|이라(?:고|는|며|면|서)|라고|라는|라며|라면서"
    r"|[라고](?=\s)|[요죠](?=[\s.?!~]|$)))?"
)


def _is_boundary(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool:
    previous = paragraph[start - 1]
    if previous == "(":
        return False  # `(?)`, `(!)`: a remark inside the sentence
    if terminator[0] == "?" and previous.isdigit():
        return False  # `10?초`: an uncertain number
    if terminator == "!" and _EXCLAIMED_NAME.search(paragraph, max(0, start - 8), start):
        return False  # `야후! 재팬`: a name
    if terminator in ("?", "!") and previous.isascii() and previous.isalpha() and _LATIN_NEXT.match(paragraph, end):
        return False  # `Where Do We Go? World Tour의`: a mark inside a Latin title
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
        return False  # `신문.방송에도`, `스즈키.가와사키`: a period between two nouns separates them
    if terminator == "." and (is_non_final_period(paragraph, start) or is_emphatic_period(paragraph, start, end)):
        return False
    pause = judge_pause(paragraph, start, end, terminator)
    if pause is not None:
        return pause
    if (len(terminator) > 1 or terminator in "?!…‥") and MARK_QUOTATIVE.match(paragraph, end):
        return False
    if terminator == "." and PERIOD_QUOTATIVE.match(paragraph, end):
        return False  # `촬영하겠습니다. 하고 동의를`: speech quoted without quotes
    if QUOTATIVE_UNQUOTED.match(paragraph, end):
        return False
    if not closers and QUOTATIVE_GLUED.match(paragraph, end):
        return False
    return not (QUOTES.intersection(closers) and QUOTATIVE.match(paragraph, end))


def _may_hold_tilde_ending(paragraph: str) -> bool:
    """Whether `_TILDE_GUARD` matches; substring tests first (most paragraphs have neither `~` nor `,,`)."""
    return ("~" in paragraph or ",," in paragraph) and _TILDE_GUARD.search(paragraph) is not None


def _may_hold_quote_pair(paragraph: str) -> bool:
    """False when `_QUOTE_PAIR_CANDIDATE` cannot match: it needs one of these closing quotes (a substring test
    each costs a fraction of its scan)."""
    return '"' in paragraph or "”" in paragraph or "’" in paragraph or "」" in paragraph or "』" in paragraph


def _boundaries(paragraph: str) -> list[int]:
    spans: list[tuple[int, int]] | None = None
    punctuated: bool | None = None  # whether the paragraph holds a terminator, found when first needed
    cuts: list[int] = []
    scans = [(_PUNCT_CANDIDATE if _may_hold_tilde_ending(paragraph) else _PUNCT_ONLY_CANDIDATE).finditer(paragraph)]
    if _GLUED_GUARD.search(paragraph):
        scans.append(_GLUED_CANDIDATE.finditer(paragraph))
    if _may_hold_quote_pair(paragraph):
        scans.append(_QUOTE_PAIR_CANDIDATE.finditer(paragraph))
    if "." in paragraph:
        scans.append(_GLUED_LATIN_CANDIDATE.finditer(paragraph))
        if " ." in paragraph:
            scans.append(_SPACED_GLUED_CANDIDATE.finditer(paragraph))
    for matches in scans:
        for match in matches:
            start, end = match.start(1), match.end()
            if start == 0 or not _is_boundary(paragraph, start, end, match.group(1), match.group(2)):
                continue
            if match.group(2)[:1] == "(" and match.group(1) != ".":
                continue  # `음주운전?(상대측) VS 교통위반?(남편)`: a bracket glued to a question mark goes on
            if spans is None:
                spans = enclosed_spans(paragraph)
            if inside(end, spans):
                end = past_spaced_closer(paragraph, end, spans)
            if not inside(end, spans) and not (
                match.group(1).strip(".…") == "" and ")" in match.group(2) and ends_inner_remark(paragraph, start, spans)
            ):
                cuts.append(end)
    scans = []
    hint = BARE_ENDING_HINT.search(paragraph)  # none in most comments: no generator to start
    if hint is not None:
        edited: bool | None = None  # found at the first listed ending (most paragraphs with a hint have none)
        for match in hinted_finditer(BARE_ENDING, BARE_ENDING_HINT, paragraph, 2, hint.start()):
            if edited is None:
                edited = is_edited_text(paragraph)
            if edited:
                break
            end = match.end()
            if paragraph[end - 1] == "다" and is_bare_stem_da(paragraph, end) and punctuated is not False:
                if punctuated is None:
                    punctuated = _PUNCTUATED.search(paragraph) is not None
                if punctuated:
                    continue  # `기다리다 돌아가신`: the connective `-다(가)` in punctuated text
            if is_doubled_da(paragraph, end):
                continue  # `참다참다 제가`: a connective `-다(가)` said twice
            # (not `-조` for `-죠`: the odds have seen `조` end nouns, `구조`, `강조`, never this spelling)
            odds = end_log_odds_at(paragraph, end) if paragraph[end - 1] != "조" else None
            if odds is not None and odds < _VETO_LOG_ODDS:
                continue  # a listed ending that the learned odds say continues here (`밥먹다 우는장면`)
            if spans is None:
                spans = enclosed_spans(paragraph)
            if not inside(end, spans):
                cuts.append(end)
    if EMOTICON_GUARD.search(paragraph):
        scans.append(m for m in EMOTICON_RUN.finditer(paragraph) if not is_glued_mark(paragraph, m))
    if "니다" in paragraph or "세요" in paragraph:
        scans.append(GLUED_FORMAL.finditer(paragraph))
    if ":" in paragraph:
        scans.append(DIALOGUE.finditer(paragraph))
    if "1" in paragraph:
        scans.append(FIRST_ITEM.finditer(paragraph))
    if "니다" in paragraph:
        scans.append(closed_formal(paragraph))
    if " - " in paragraph and len(DASH_MARKER.findall(paragraph)) >= 2:
        scans.append(dash_items(paragraph))
    for matches in scans:
        for match in matches:
            end = match.end()
            if spans is None:
                spans = enclosed_spans(paragraph)
            if not inside(end, spans):
                cuts.append(end)
    if punctuated is None:
        punctuated = _PUNCTUATED.search(paragraph) is not None
    if not punctuated:
        cuts.extend(_learned_boundaries(paragraph, spans))
    elif _POLITE_GLUED_HINT.search(paragraph):
        glued = glued_cuts(paragraph, endings=POLITE_GLUED_ENDINGS)
        if glued:
            spans = enclosed_spans(paragraph) if spans is None else spans
            cuts.extend(cut for cut in glued if not inside(cut, spans))
    return sorted(set(cuts)) if len(cuts) > 1 else cuts


def _learned_boundaries(paragraph: str, spans: list[tuple[int, int]] | None = None) -> list[int]:
    """Where a writer who never punctuates ends a sentence by the learned odds (`odds`), at a space or
    inside a word (a final ending glued to the next sentence), outside quotes and brackets."""
    cuts = unpunctuated_cuts(paragraph)
    if _GLUED_END_HINT.search(paragraph):
        glued = glued_cuts(paragraph)
        if glued:
            cuts = sorted(cuts + glued)
    if cuts and (spans is None and OPENER.search(paragraph) or spans):
        spans = spans or enclosed_spans(paragraph)
        cuts = [cut for cut in cuts if not inside(cut, spans)]
    return cuts


def _settled(paragraph: str, cuts: list[int]) -> list[int]:
    """`cuts` after `_AFTER_CUT`: moved past the terminators that follow them, or dropped where what follows
    continues the sentence (or nothing follows)."""
    settled: list[int] = []
    end = len(paragraph)
    for cut in cuts:
        after = _AFTER_CUT.match(paragraph, cut)
        if after.group(2):
            continue
        cut = after.end(1)
        if cut < end and (not settled or cut > settled[-1]):
            settled.append(cut)
    return settled


def _split_paragraph(paragraph: str) -> list[str]:
    # Without a terminator, `~`, `,,`, an emoticon or a listed bare ending, only the learned odds can cut.
    cuts = _boundaries(paragraph) if _MAY_CUT.search(paragraph) else _learned_boundaries(paragraph)
    if cuts:
        cuts = _settled(paragraph, cuts)
    if not cuts:
        return [paragraph]
    pieces = []
    previous = 0
    for cut in cuts:
        pieces.append(paragraph[previous:cut].strip())
        previous = cut
    pieces.append(paragraph[previous:].strip())
    return [piece for piece in pieces if piece]


def split_sentences(text: str) -> list[str]:
    """Split Korean text into sentences with kcorpus's rules.

    Newlines always end a sentence. Sentences are stripped; empty ones are dropped.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        paragraph = line.strip()
        if paragraph:
            sentences.extend(_split_paragraph(paragraph))
    return sentences
