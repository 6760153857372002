"""Korean sentence splitting: a fast rule-based splitter (default); Kiwi and kss as optional backends.

`split_sentences` is pure Python + `re`. It splits where a sentence ends in punctuation
(`.?!…` plus closing quotes/brackets) and where a final ending (`습니다`, `십시오`, `재밌음`, ...) runs
into the next sentence without punctuation. It never splits decimals, initials (`U.S.`), URLs,
e-mails, dates (`2017. 8. 25.`), list numbers (`1.`, `가.`) or text inside quotes and brackets, and no
sentence it makes starts with punctuation or a continuing ending. Newlines are always boundaries. The
rules were tuned against kss's default backend, then Kiwi's `split_into_sents`, on real petitions, Korean
Wikipedia and NSMC comments; `bench/bench_split.py` measures agreement and speed.
"""

from __future__ import annotations

import bisect
import re
import warnings
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from typing import Any

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS, syllables_with_final

BACKENDS = ("kcorpus", "kiwi", "kss", "kss-fast", "none")

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
# Citation markers after the terminator (`있다.[1][2] 다음`, `[주 1]`) stay with the sentence they cite.
_CITATIONS = r"(?:\[(?:주 ?)?\d{1,3}\]|\[[a-z]\]|\[출처 필요\])*"
_PUNCT_TAIL = rf"([{_CLOSERS}]*{_CITATIONS}[{_CLOSERS}]*{_TRAILERS}(?:\s*>+)?)(?=\s|$|(?<=>))"
_PUNCT_CANDIDATE = re.compile(rf"([.?!…‥。？！]+|(?<=[{_FINAL_SYLLABLES}]) ?(?:~+|,{{2,}})[.?!~]*){_PUNCT_TAIL}")
# `_PUNCT_CANDIDATE` without its `~`/`,,` branch, which can only match where `_TILDE_GUARD` does: where that
# finds nothing, this gives the same matches, and `re` scans for its first character class (no lookbehind
# comes first) several times faster.
_PUNCT_ONLY_CANDIDATE = re.compile(rf"([.?!…‥。？！]+){_PUNCT_TAIL}")
_TILDE_GUARD = re.compile(rf"[{_FINAL_SYLLABLES}] ?(?:~|,,)")
# `했다.그리고`: a final ending glued to the next Hangul sentence by a terminator.
# The terminator comes first and its lookbehind after it, so that `re` scans for the terminator's character
# class (a pattern that opens with a lookbehind gets no such scan).
_GLUED_CANDIDATE = re.compile(
    rf"([.?!…‥](?<=[{_HANGUL}].)[.?!…‥]*|~(?<=[다요죠까음함네]~)~*)([{_JAMO}]*)(?=[{_HANGUL}])"
)
# `폐점을 한다.""이건`: a quotation closed after a terminator and the next one opened at once.
_QUOTE_PAIR_CANDIDATE = re.compile(r"([.?!…]+)([\"”’」』])(?=[\"“‘「『])")
# Final endings that end a sentence even without punctuation. Formal `-ㅂ니다`/`-십시오` end one
# before anything but punctuation (`들어왔습니다 50평인`, `있습니다(신기독`); polite `-요`/`-죠`
# before Hangul or a bullet; nominal `-음`/`-함` before a bullet, taking a jamo bullet (`있음 ㅇ`) along.
_BULLETS = "ㆍ※□■○●◆▶"
# Syllables with final ㅂ: the formal endings `-ㅂ니다`, `-ㅂ니까`, `-ㅂ시다` (`습니다`, `갑니다`, `합시다`).
_B_FINAL = syllables_with_final(17)
# Plain `-다` after any syllable but those of the particle `보다` and the nouns and connectives `마다`, `바다`, `려다`,
# `데다`, `에다`, `까다`.
_NOT_BEFORE_DA = "보마바려데에까"
_NOT_CONTINUED = r"(?!\s+(?:하|해|했|한|할|라|고|며|는|가|면|싶|보|시피|생각|말|전해|였|등|못|치))"
# Informal endings of comments (`대박이네`, `뭐냐`, `봐라`, `재밌더라`); nominal `-음` after a tense or
# adjective stem (`재밌음`, `좋았음`), `-됨` and `-옴` (`욕나옴`); not `-함`, `-임` (`포함`, `게임`, `취임`).
_INFORMAL_ENDINGS = (
    "(?:[가-힣](?<![동우너그저니네걔얘쟤아댁])네|[가-힣]냐|[뭐거]야|[해봐]라|더라|구[만먼나]"
    "|[니았었겠였했있없좋같]군)"
)
_BEFORE_EUM = "었았였했겠있없같좋밌"
# Nominal endings besides `-음` (`잘만듦`, `재미있게봄`, `돌려버림`, `나오게함`): after a stem or auxiliary syllable only,
# so that the nouns `봄`, `포함`, `밀림` stay.
_NOMINAL_ENDINGS = rf"(?:[{_BEFORE_EUM}]음|[됨옴듦]|[버해게어아]림|[해게어아]봄|[게안못잘]함)"
# A review's nominal sentence: one of these nouns after an adnominal word (`…해준 영화`, `감동의 영화`), before the
# next sentence's Hangul word.
_ADNOMINAL = syllables_with_final(4) + syllables_with_final(8) + "의"
_REVIEW_NOUNS = "(?:영화|드라마|작품|애니|느낌|기분|명작)"
_BARE_ENDING = re.compile(
    rf"(?:[{_B_FINAL}임림](?:니다|니까|시다)|십시[오요])(?=\s+[^\s.,?!~)\]}}」』》〉>]|\s*[{_BULLETS}(])"
    rf"|(?:[아어여해봐와줘워져쳐돼네데지게래세까나군든걸대에예구고]요|[가-힣]죠)(?=\s+[{_HANGUL}{_BULLETS}\d-])"
    rf"|(?:(?<=[{_HANGUL}])(?<![{_NOT_BEFORE_DA}])다|(?<=[{_HANGUL}\s]){_INFORMAL_ENDINGS})(?=\s+[{_HANGUL}]){_NOT_CONTINUED}"
    rf"|(?<=[{_HANGUL}\s])(?:있음|없음|[음함됨임])(?:\s+[{_JAMO}]+(?=\s)|(?=\s*[{_BULLETS}]))"
    rf"|(?<=[{_HANGUL}]){_NOMINAL_ENDINGS}(?=\s+[{_HANGUL}]){_NOT_CONTINUED}"
    rf"|(?:(?<=[{_ADNOMINAL}] )|(?<=[{_ADNOMINAL}])){_REVIEW_NOUNS}(?=\s+[{_HANGUL}]){_NOT_CONTINUED}"
)
# `-ㅂ니다` run into the next word (`계약했습니다그래서`, `합니다저도`), but not `-ㅂ니다만` and the like.
_GLUED_FORMAL = re.compile(rf"(?:니다(?<=[{_B_FINAL}]니다)|세요)(?=[{_HANGUL}])(?![만마요라다])")
# The last syllable of every match of `_BARE_ENDING` but those that take a jamo bullet along, and what every
# match is followed by (the bullet's space included): each match starts at most 2 characters before this.
_BARE_ENDING_HINT_CLASS = rf"[다까오요죠음함됨임옴네냐야라만먼나니군듦림봄화마품낌분작](?=[\s{_BULLETS}(])"
_BARE_ENDING_HINT = re.compile(_BARE_ENDING_HINT_CLASS)
# A match of `_GLUED_CANDIDATE` exists only where this (the same runs, `~` after any syllable) matches.
_GLUED_GUARD = re.compile(rf"[.?!…‥~](?<=[{_HANGUL}].)[.?!…‥~]*[{_JAMO}]*(?=[{_HANGUL}])")
# A run of smiles or tears after a syllable or terminator ends a sentence before the next Hangul word, spaced or
# not (`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`). Not `ㅋㅋ`, `;;`, `ㅡㅡ`, `♥♥`: as often inside a sentence as at
# its end on the bench's comments.
# A run of laughter, tears, smiles, hearts, notes or emoji after a word or terminator ends the sentence before the
# next Hangul word, spaced or not (`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`, `깜놀 ㅋㅋ 정말`, `영화♥ 시리즈`); the run
# may mix marks and spaces (`드라마 ㅠ_ㅠ ♡ 아직까지`). Not after a particle or a connective of cause or condition
# (`연기력이 ㅋㅋ`, `빡쳐서ㅋㅋㅋ 무슨`, `보면 ㅎㅎ`): the sentence goes on.
_EMOTICON_MARK = r"(?:[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆]|\^[-_.o]?\^?|[\U0001F300-\U0001FAFF\u2600-\u27BF])"
_EMOTICON_RUN = re.compile(
    rf"(?<=[{_HANGUL}.?!~,])(?<![은는이가을를에의도로와과만서면])\s?(?>{_EMOTICON_MARK}+(?:[\s_.~!?-]*{_EMOTICON_MARK}+)*)[.~!?]*+"
    rf"(?=\s*[{_HANGUL}])"
)
_EMOTICON_GUARD = re.compile(r"[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF]")
# What every paragraph with a cut holds (a terminator, `~`, `,,`, a smiles/tears run, a bare ending's last
# syllable or `니다`): where it finds nothing, none of the scans below runs (most comments are one sentence).
_MAY_CUT = re.compile(
    rf"[.?!…‥。？！~;ㅋㅎㅠㅜㄷㅡ♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF\"”]|,,|{_BARE_ENDING_HINT_CLASS}|니다"
)
# Regions that are never split inside: balanced quotes and brackets within one paragraph. A straight quote
# opens one only at the start of a word: the quote that closes one quotation must not open a region that runs
# to the next (`…"고 강변했습니다. 설명: 북한이 "우리는…`).
_ENCLOSED = re.compile(
    r"(?<![^\s(\[{<,:·=])(?:\"[^\"\n]{1,400}\"|'[^'\n]{1,200}')|“[^“”\n]{1,400}”|‘[^‘’\n]{1,200}’"
    r"|\([^()\n]{1,400}\)|\[[^\[\]\n]{1,400}\]|「[^「」\n]{1,400}」|『[^『』\n]{1,400}』"
    r"|《[^《》\n]{1,400}》|〈[^〈〉\n]{1,400}〉|<[^<>\n]{1,200}>"
)
_OPENER = re.compile("[\"'“‘(\\[「『《〈<]")
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
# Final syllables that a spaced-off period (`했습니다 .`) still ends.
_SPACED_PERIOD_FINALS = frozenset("다요죠까")
# De-identification masks, and the honorifics that follow a masked name.
_MASKS = frozenset("*○◯●×OＯ")
_HONORIFIC = re.compile(r"\s*(?:씨|님|군|양)(?![가-힣])|\s*(?:씨|님)[은는이가을를의께도와]")
# Names spelled with `!` (`야후! 재팬 같은 회사들은`).
_EXCLAIMED_NAME = re.compile(r"(?:야후|Yahoo|YAHOO|Wham|Jeopardy)$")
# Korean counters for articles and pages: `제3조.`, `2항.`, `15쪽.` are references, not endings.
_REFERENCE_COUNTERS = "항조호절목권쪽장"
_KOREAN_REFERENCE = re.compile(rf"\d+[{_REFERENCE_COUNTERS}]$")
# A quotation followed by a quotative particle (`"좋아." 라고 답했다`) or `등` continues the sentence.
_QUOTATIVE = re.compile(r"\s*(?:라고|라는|라며|라면서|하고|하며|고\s|라\s|등(?=[의을이과도]?\s))")
# `라는`, `라고` never start a sentence: an unquoted question or claim before them continues (`법이다? 라는`).
_QUOTATIVE_UNQUOTED = re.compile(r"\s*(?:라고|라는|라며|라면서)")
_QUOTES = frozenset("\"'”’」』")
# An ellipsis after a particle or a connective is a pause inside the sentence (`그런데..... 양이.... 어마어마 하쥬...`,
# `좋겠지만... 그렇지`); `최고...` is no particle.
_PAUSE_SYLLABLES = frozenset("은는이가을를에의도로와과만서고며면께데")
# A question, exclamation or ellipsis quoted by what follows (`이게 뭐지?? 하고 검색을`, `이게뭔가... 싶어서`) continues.
_MARK_QUOTATIVE = re.compile(r"\s*(?:하고|하는|하며|하면서|하더니|하길래|하니|싶|인가|인지|이라|라(?=[\s.?!~]|$))")
# A word ended by a period whose neighbour is one too: letters spaced out for emphasis (`전. 부. 다. 요!!!`), or every
# word of a sentence dotted (`삼성생명과. 한화생명의. 암환자. 및.`): only a final ending ends a sentence there.
_NEXT_DOTTED_WORD = re.compile(r"\s+([^\s.]{1,8})\.(?=\s|$)")
_PREVIOUS_DOTTED_WORD = re.compile(r"(?:^|\s)([^\s.]{1,8})\.\s+$")
_DOTTED_FINALS = frozenset("다요죠까오")
# A dialogue line `이름:"…"` after a closed quotation starts a sentence, terminator or not.
_DIALOGUE = re.compile(r'["”](?=\s*[^\s"“:]{1,10}\s?:\s?["“])')
# A separator line (`-----`, `=====`) after a sentence stays with it, as in kss.
_SEPARATOR = re.compile(r"\s*[-=_]{3,}")
# What no sentence starts with, checked after every cut. Terminators, even spaced out (`했습니다. . . 제발`,
# `놀랍고... ...슬프다`), emoticons (`추천합니다 :-)`) and a short remark in brackets (`좋습니다. (호전사례 有)
# 그런데`; not a list number `(1)`, `(가)`) stay with the sentence before: the cut moves past them (group 1).
# A comma or a closing bracket, a copula or quotative ending (`됩니까? 였습니다.`, `…요 라는`), or a word that
# only continues one (`'…않는다.' , '다양한…'`) cancels the cut (group 2).
_AFTER_CUT = re.compile(
    rf"((?:\s*(?:[.?!…‥~;。？！]+|[:;]-?[)(DP](?![A-Za-z])|{_EMOTICON_MARK}++))*"
    r"(?:\s*(?!\(\w{1,2}\))\([^()\n]{1,30}\)(?=\s))?)"
    r"(\s*(?:[,，)\]}]|였|이었|이였|입니[다까]|습니[다까]|이다[\s.?!]|이라(?:고|는|며|면|서)|라고|라는|라며|라면서"
    r"|[라고](?=\s)|[요죠](?=[\s.?!~]|$)))?"
)


def hinted_finditer(
    pattern: re.Pattern[str], hint: re.Pattern[str], text: str, before: int, first: int = 0
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, trying `pattern.match` only from `before` characters before each match of
    `hint` up to its start.

    The same matches, in order, when every match of `pattern` is non-empty and starts at most `before`
    characters before the start of some match of `hint`: positions are tried in increasing order from the
    end of the previous match, as `finditer` does, and lookbehinds see the text before the position. A
    pattern whose alternatives start with lookbehinds gets no prefix scan from `re`; a character-class hint
    does, and the full pattern runs only near it. `first`: where `hint` is known to match first (or 0).
    """
    match = pattern.match
    position = 0  # the first position not tried yet (the end of the last match, or past a tried one)
    for found in hint.finditer(text, first):
        start = found.start()
        candidate = max(position, start - before)
        while candidate <= start:
            m = match(text, candidate)
            if m is None:
                candidate += 1
            else:
                yield m
                candidate = position = m.end()
        position = max(position, start + 1)


def _enclosed_spans(paragraph: str) -> list[tuple[int, int]]:
    """Quoted and bracketed regions, ordered and non-overlapping."""
    # `_ENCLOSED` starts with a lookbehind, so `re` tries it at every position; it starts scanning at the
    # first opening character instead (most comments have none). Its lookbehind still sees the text before.
    first = _OPENER.search(paragraph)
    if first is None:
        return []
    return [m.span() for m in _ENCLOSED.finditer(paragraph, first.start())]


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_left(spans, (pos, -1)) - 1
    return index >= 0 and pos < spans[index][1]


def _is_non_final_period(paragraph: str, start: int) -> bool:
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
    if "." in word and len(word.rsplit(".", 1)[-1]) <= 1:
        # `U.S.`, `e.g.`, `Ph.D.`
        return True
    if word.lower().lstrip("(") in _ABBREVIATIONS:
        return True
    return bool(_KOREAN_REFERENCE.search(word))


def _is_emphatic_period(paragraph: str, start: int, end: int) -> bool:
    """Whether the `.` at `start` is one of a run of dotted words (`전. 부. 다.`, `암환자. 및. 질병`) that does not end
    the sentence: a lone syllable among lone syllables, or a word without a final ending among dotted words."""
    if paragraph[end : end + 1] not in (" ", "\t"):
        return False  # most periods: the end of the paragraph, or glued to what follows
    word_start = max(paragraph.rfind(" ", 0, start), paragraph.rfind("\t", 0, start)) + 1
    word = paragraph[word_start:start]
    following = _NEXT_DOTTED_WORD.match(paragraph, end)
    preceding = _PREVIOUS_DOTTED_WORD.search(paragraph, max(0, word_start - 12), word_start)
    if len(word) == 1 and "가" <= word <= "힣":
        return bool(following and len(following.group(1)) == 1 or preceding and len(preceding.group(1)) == 1)
    return bool(following and preceding and word and word[-1] not in _DOTTED_FINALS)


def _is_boundary(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool:
    previous = paragraph[start - 1]
    if previous == "(":
        return False  # `(?)`, `(!)`: a remark inside the sentence
    if terminator[0] == "?" and previous.isdigit():
        return False  # `10?초`: an uncertain number
    if terminator == "!" and _EXCLAIMED_NAME.search(paragraph, max(0, start - 8), start):
        return False  # `야후! 재팬`: a name
    if _SEPARATOR.match(paragraph, end):
        return False
    if terminator == "." and (_is_non_final_period(paragraph, start) or _is_emphatic_period(paragraph, start, end)):
        return False
    if (
        (len(terminator) > 1 and terminator.strip(".…‥") == "" or terminator in "…‥" or "가" <= paragraph[end : end + 1] <= "힣")
        and previous in _PAUSE_SYLLABLES
        and "가" <= paragraph[start - 2 : start - 1] <= "힣"  # a particle ends a longer word: `와..` is an interjection
        and paragraph[start - 2 : start] != "최고"
    ):
        return False  # an ellipsis, or a period glued to the next word (`사고.사건.지원`), inside the sentence
    if (len(terminator) > 1 or terminator in "?!…‥") and _MARK_QUOTATIVE.match(paragraph, end):
        return False
    if _QUOTATIVE_UNQUOTED.match(paragraph, end):
        return False
    return not (_QUOTES.intersection(closers) and _QUOTATIVE.match(paragraph, end))


def _may_hold_tilde_ending(paragraph: str) -> bool:
    """Whether `_TILDE_GUARD` matches; substring tests first (most paragraphs have neither `~` nor `,,`)."""
    return ("~" in paragraph or ",," in paragraph) and _TILDE_GUARD.search(paragraph) is not None


def _may_hold_quote_pair(paragraph: str) -> bool:
    """False when `_QUOTE_PAIR_CANDIDATE` cannot match: it needs one of these closing quotes (a substring test
    each costs a fraction of its scan)."""
    return '"' in paragraph or "”" in paragraph or "’" in paragraph or "」" in paragraph or "』" in paragraph


def _boundaries(paragraph: str) -> list[int]:
    spans: list[tuple[int, int]] | None = None
    cuts: list[int] = []
    scans = [(_PUNCT_CANDIDATE if _may_hold_tilde_ending(paragraph) else _PUNCT_ONLY_CANDIDATE).finditer(paragraph)]
    if _GLUED_GUARD.search(paragraph):
        scans.append(_GLUED_CANDIDATE.finditer(paragraph))
    if _may_hold_quote_pair(paragraph):
        scans.append(_QUOTE_PAIR_CANDIDATE.finditer(paragraph))
    for matches in scans:
        for match in matches:
            start, end = match.start(1), match.end()
            if start == 0 or not _is_boundary(paragraph, start, end, match.group(1), match.group(2)):
                continue
            if spans is None:
                spans = _enclosed_spans(paragraph)
            if not _inside(end, spans):
                cuts.append(end)
    scans = []
    hint = _BARE_ENDING_HINT.search(paragraph)  # none in most comments: no generator to start
    if hint is not None:
        scans.append(hinted_finditer(_BARE_ENDING, _BARE_ENDING_HINT, paragraph, 2, hint.start()))
    if _EMOTICON_GUARD.search(paragraph):
        scans.append(_EMOTICON_RUN.finditer(paragraph))
    if "니다" in paragraph or "세요" in paragraph:
        scans.append(_GLUED_FORMAL.finditer(paragraph))
    if ":" in paragraph:
        scans.append(_DIALOGUE.finditer(paragraph))
    for matches in scans:
        for match in matches:
            end = match.end()
            if spans is None:
                spans = _enclosed_spans(paragraph)
            if not _inside(end, spans):
                cuts.append(end)
    return sorted(set(cuts)) if len(cuts) > 1 else cuts


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
    if _MAY_CUT.search(paragraph) is None:
        return [paragraph]
    cuts = _boundaries(paragraph)
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


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


KIWI_MISSING = "split.backend kiwi needs kiwipiepy and kiwipiepy_model: pip install 'kcorpus[kiwi]'"


def backend_problem(backend: str) -> str | None:
    """Why `backend` cannot run here (its optional package is not installed), or None; imports nothing."""
    if backend == "kiwi" and (find_spec("kiwipiepy") is None or find_spec("kiwipiepy_model") is None):
        return KIWI_MISSING
    return None


class SentenceSplitter:
    """A sentence splitter for one backend, cheap to pickle; kss or Kiwi is loaded on first use.

    Backends: `kcorpus` (this module's rules), `kiwi` (kiwipiepy's `Kiwi.split_into_sents`, an optional
    dependency: the `kiwi` extra), `kss` (kss's default backend), `kss-fast` (kss's `fast` backend), `none`
    (one sentence per non-empty line).
    """

    def __init__(self, backend: str = "kcorpus") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown sentence splitter backend {backend!r}; valid: {', '.join(BACKENDS)}")
        self.backend = backend
        self._kss_split: Callable[..., Any] | None = None
        self._kiwi: Any = None

    def load(self) -> SentenceSplitter:
        """Import kss (5-7 s) or load Kiwi's model (1-3 s) now for those backends; a no-op otherwise.

        Raises:
            ImportError: `kiwi` without kiwipiepy installed (the message says what to install).
        """
        if self.backend.startswith("kss") and self._kss_split is None:
            import kss  # heavy: imported once per worker, in DoFn.setup()

            self._kss_split = kss.split_sentences
        elif self.backend == "kiwi" and self._kiwi is None:
            problem = backend_problem("kiwi")
            if problem:
                raise ImportError(problem)
            from kiwipiepy import Kiwi  # heavy: the model loads once per worker, in DoFn.setup()

            # num_workers=0: one thread (Beam runs one worker per core); Kiwi warns that 0 meant all cores
            # before 0.21, which is not news here.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self._kiwi = Kiwi(num_workers=0)
        return self

    def __call__(self, text: str) -> list[str]:
        if self.backend == "kcorpus":
            return split_sentences(text)
        if self.backend == "none":
            return _paragraphs(text)
        if self.backend == "kiwi":
            return self._split_with_kiwi(text)
        return self._split_with_kss(text)

    def _split_with_kiwi(self, text: str) -> list[str]:
        self.load()
        sentences = []
        for paragraph in _paragraphs(text):
            sentences.extend(s.text.strip() for s in self._kiwi.split_into_sents(paragraph))
        return [s for s in sentences if s]

    def _split_with_kss(self, text: str) -> list[str]:
        paragraphs = _paragraphs(text)
        if not paragraphs:
            return []
        self.load()
        kss_backend = "fast" if self.backend == "kss-fast" else "auto"
        # num_workers=1: kss's default starts a process pool per call.
        per_paragraph = self._kss_split(paragraphs, backend=kss_backend, num_workers=1)
        return [s.strip() for sentences in per_paragraph for s in sentences if s.strip()]

    def __getstate__(self) -> dict[str, Any]:
        return {"backend": self.backend, "_kss_split": None, "_kiwi": None}


def make_splitter(backend: str = "kcorpus") -> SentenceSplitter:
    """Create a ready splitter (kss imported, Kiwi's model loaded now for those backends); call it in
    `DoFn.setup()`."""
    return SentenceSplitter(backend).load()
