"""Sentence ends without punctuation, scored by statistics learned from punctuated text.

A comment written without any terminator (`슬픈장면없이 슬픈영화 말로표현할수 없는 무언가가 존재한다`) still holds
sentences; where one ends is mostly told by how the word before a space ends and how the word after it starts.
`end_log_odds` sums the learned weights (`WEIGHTS`, read from the package data file `end_odds.tsv`, generated
by bench/generators/make_sentence_end_table.py from NSMC reviews and petitions whose writers punctuate) of a boundary's keys
(`boundary_keys`); `unpunctuated_cuts` lists the spaces of a paragraph where that sum reaches `END_LOG_ODDS`,
`glued_cuts` the final endings glued to the next sentence. Cuts (`rules.CUT_RULES`): `learned_cuts`, asked only in
paragraphs without any terminator (a writer who punctuates ends sentences with it, and a false cut in edited text is
damage); `polite_glued_cuts`, a polite, `-죠` or `-냐` ending glued on in a paragraph that punctuates. Pure Python;
the table loads with the module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kcorpus.transforms.korean import HANGUL_SYLLABLE_CLASS
from kcorpus.transforms.package_data import read_rows
from kcorpus.transforms.text.split.segments import CONTINUATION_START

if TYPE_CHECKING:
    from kcorpus.transforms.text.split.paragraph import Paragraph

# Cut where the learned probability of an end reaches 0.5 (more likely than not). That probability is the one of a
# terminator in the training text, below the one of an end in text written without any (punctuating writers also
# leave some ends unmarked); on the dev part of the hand-made gold (`bench/bench_split_gold.py`) 0.35-0.5 score the
# same, and 0.5 is the most precise of them.
END_LOG_ODDS = 0.0
# The learned table: one weight per key, and the bias (the log-odds of a boundary none of whose keys has a weight).
TABLE = "end_odds.tsv"
WEIGHTS: dict[str, float] = {key: float(weight) for key, weight in read_rows(__package__, TABLE)}
BIAS = WEIGHTS.pop("BIAS")
# Before a word starting with a digit or a Latin letter, the odds must be this much higher (log-odds): in edited text
# without punctuation those are formulas and names inside a phrase (`주어진 집합 formula_1 위의`, `광자의 에너지 E와`).
_NON_HANGUL_MARGIN = 1.0
_WORD = re.compile(r"\S+")
# What a paragraph needs to be asked about: a space between a word ending in a syllable and a word starting with a
# syllable, a digit or a Latin letter.
_CANDIDATE = re.compile(r"[가-힣]\s+[가-힣0-9A-Za-z]")


def _tail_keys(word: str) -> list[str]:
    """The keys of `word`'s end: `e` + its last 1, 2 and 3 syllables, `w` + itself if it is all of them."""
    start = 0
    while start < len(word) and start < 3 and "가" <= word[-1 - start] <= "힣":
        start += 1
    keys = ["e" + word[-k:] for k in range(1, start + 1)]
    if start == len(word):
        keys.append("w" + word)
    return keys


def _head_keys(following: str) -> list[str]:
    """The keys of `following`'s start: `n` + its first 1, 2 and 3 syllables, `m` + itself if it is all of them;
    `c0`, `cA` for a digit or Latin start (it starts with one of these three)."""
    first = following[0]
    if "가" <= first <= "힣":
        head = 1
        while head < len(following) and head < 3 and "가" <= following[head] <= "힣":
            head += 1
        keys = ["n" + following[:k] for k in range(1, head + 1)]
        if head == len(following):
            keys.append("m" + following)
        return keys
    return ["c0" if first.isdigit() else "cA"]


def _starts_a_candidate(following: str) -> bool:
    first = following[:1]
    return "가" <= first <= "힣" or first.isdigit() or first.isascii() and first.isalpha()


def boundary_keys(word: str, following: str, previous: str = "", following_is_last: bool = False) -> list[str] | None:
    """The keys of the space between `word` (without a terminator) and `following`; None where `word` does not end
    in a syllable or `following` starts with neither a syllable, a digit nor a Latin letter.

    Keys: `e` + the last 1, 2 and 3 syllables of `word`, `w` + `word` itself (up to 3 syllables, all Hangul),
    `n` + the first 1, 2 and 3 syllables of `following`, `m` + `following` itself (likewise), or `c0`/`cA` for a
    digit or Latin start; `p` + the last syllable of `previous` (`p.` for anything else), `L` when `following`
    is the paragraph's last word, `x` + the last syllable of `word` and the first of `following` (both syllables).
    """
    last = word[-1:]
    if not "가" <= last <= "힣" or not _starts_a_candidate(following):
        return None
    keys = _tail_keys(word) + _head_keys(following)
    if "가" <= following[0] <= "힣":
        keys.append("x" + last + following[0])
    if previous:
        keys.append("p" + (previous[-1] if "가" <= previous[-1] <= "힣" else "."))
    if following_is_last:
        keys.append("L")
    return keys


def end_log_odds(keys: list[str]) -> float:
    """The learned log-odds that a sentence ends at a boundary with these keys."""
    get = WEIGHTS.get
    return BIAS + sum(get(key, 0.0) for key in keys)


def end_log_odds_at(paragraph: str, end: int) -> float | None:
    """`end_log_odds` of the space at `end` of `paragraph` (the end of a word), or None where it has no keys (no space
    there, a word not ending in a syllable, ...)."""
    if not paragraph[end : end + 1].isspace():
        return None
    start = end
    while start and not paragraph[start - 1].isspace():
        start -= 1
    following = _WORD.search(paragraph, end)
    if start == end or following is None:
        return None
    before = paragraph[max(0, start - 40) : start].split()
    keys = boundary_keys(
        paragraph[start:end], following.group(), before[-1] if before else "", _WORD.search(paragraph, following.end()) is None
    )
    return None if keys is None else end_log_odds(keys)


# The summed weights of a word's tail keys and of a word's head keys, per word: comments repeat their words, and these
# two sums are most of the work. Cleared when full (a bounded memory for any corpus).
_TAIL_SUMS: dict[str, float] = {}
_HEAD_SUMS: dict[str, float] = {}
_SUMS_LIMIT = 200_000


def _summed(cache: dict[str, float], word: str, keys_of: Callable[[str], Iterable[str]], base: float) -> float:
    """`base` plus the weights of `keys_of(word)`, remembered in `cache` (cleared when full)."""
    total = cache.get(word)
    if total is None:
        if len(cache) >= _SUMS_LIMIT:
            cache.clear()
        get = WEIGHTS.get
        total = cache[word] = base + sum(get(key, 0.0) for key in keys_of(word))
    return total


def _tail_sum(word: str) -> float:
    return _summed(_TAIL_SUMS, word, _tail_keys, BIAS)


def _head_sum(word: str) -> float:
    return _summed(_HEAD_SUMS, word, _head_keys, 0.0)


def unpunctuated_cuts(paragraph: str, threshold: float = END_LOG_ODDS) -> list[int]:
    """The ends of the words of `paragraph` after which a sentence ends by the learned odds (offsets into it): the
    sums of `end_log_odds(boundary_keys(...))`, in parts; `_NON_HANGUL_MARGIN` more before a digit or Latin letter,
    never before a particle or ending that continues a sentence (`segments.CONTINUATION_START`)."""
    if _CANDIDATE.search(paragraph) is None:
        return []
    words = paragraph.split()
    get = WEIGHTS.get
    found = []
    last = len(words) - 1
    previous = ""
    for i in range(last):
        word = words[i]
        following = words[i + 1]
        end_syllable = word[-1]
        if "가" <= end_syllable <= "힣" and _starts_a_candidate(following):
            total = _tail_sum(word) + _head_sum(following)
            first = following[0]
            if "가" <= first <= "힣":
                total += get("x" + end_syllable + first, 0.0)
            else:
                total -= _NON_HANGUL_MARGIN
            if previous:
                total += get("p" + (previous if "가" <= previous <= "힣" else "."), 0.0)
            if i + 1 == last:
                total += get("L", 0.0)
            if total >= threshold and not CONTINUATION_START.match(following):
                found.append(i)
        previous = end_syllable
    if not found:
        return []
    ends = [match.end() for match in _WORD.finditer(paragraph)]
    return [ends[i] for i in found]


# A final ending run into the next sentence without a space (`느낌이 좋다대사도`, `보여준다이국적이지만`, `쥑이네억수로`,
# `몰랐어요중년`, `되죠나`, `아니냐이게`), as comments pasted from several lines are (NSMC lost their line breaks): the
# ending, then at least two syllables. Only after the stem or tense syllables of a verb or adjective ending (`한다`,
# `준다`, `했다`, `좋다`, `이네`, `거야`, `어요`, `네요`, `되죠`, `아니냐`): not after the nouns, names and particles
# these syllables also follow (`아만다`, `3편다`, `안다녀온`, `이런다큐`, `중요한`, `토요일`).
# The last syllables of the endings looked for (a paragraph without one holds no glued end).
GLUED_ENDINGS = "다네야요죠냐"
_GLUED_END = re.compile(rf"[{GLUED_ENDINGS}](?<=[가-힣].)(?=[가-힣][가-힣])")
_GLUED_END_STEMS = {
    "다": "한준간본온난된친는린진낸킨든았었였했겠있없좋같싶하",
    "네": "이하겠었았했였있없좋같",
    "야": "거이",
    "요": "어아여해워져와봐줘네데지게래대애세에",
    "죠": "되하이었았했겠있없좋같잖지",
    "냐": "니하있없거는",
}
# What continues after such an ending inside one word: particles and connective endings (`한다는`, `했다가`, `없다고`,
# `하다보니`, `한다길래`, `좋네요`, `거야말로`, `했냐고`), `습` (`고온다습`), and the nouns `요` starts (`방해요소`,
# `화요일`, `요즘`), and the honorifics after a name in `죠` (`다이죠씨의`).
_GLUED_CONTINUES = frozenset("는고거가며면지니라더든만시보리른렸운음을를은의에로와과도요서기게죠네냐나구던려랑치손해하길습")
_GLUED_CONTINUES_AFTER = {"요": frozenset("소일즘청약령원"), "죠": frozenset("씨군양님")}
# An ending drawn out by repeating its vowel (`해요오오`, `그렇죠오~`, `든다아아`; not `한다아주`, `해요오늘`).
_ELONGATED = re.compile("(?:요오|죠오|다아|네에|야아|냐아)(?:(?<=오)오|(?<=아)아|(?<=에)에|[^가-힣]|$)")
# The glued endings asked about in paragraphs that punctuate too: polite and question endings, which edited text does
# not run into a following word (`같네요중간에`); a glued `다` there is mostly a noun or a name (`우간다인들`).
POLITE_GLUED_ENDINGS = "요죠냐"


def glued_cuts(paragraph: str, threshold: float = END_LOG_ODDS, endings: str = "") -> list[int]:
    """Where a sentence ends inside a word of `paragraph` (a final ending glued to the next sentence) by the learned
    odds: the keys of the word's part up to the ending and of the rest, as if a space stood between them
    (`boundary_keys`); offsets into `paragraph`, after the ending. Only endings in `endings`, where given."""
    found = []
    for match in _GLUED_END.finditer(paragraph):
        end = match.end()
        if endings and paragraph[end - 1] not in endings:
            continue
        if paragraph[end] in _GLUED_CONTINUES or paragraph[end] in _GLUED_CONTINUES_AFTER.get(paragraph[end - 1], ""):
            continue
        if _ELONGATED.match(paragraph, end - 1):
            continue  # `사랑해요오오오`, `재밋엇어요오오오오몽`: the ending drawn out
        start = end - 1
        while start and not paragraph[start - 1].isspace():
            start -= 1
        word = paragraph[start:end]
        if len(word) < 2 or word[-2] not in _GLUED_END_STEMS[word[-1]]:
            continue
        rest = _WORD.match(paragraph, end).group()
        keys = boundary_keys(word, rest)
        if keys is not None and end_log_odds(keys) >= threshold:
            found.append(end)
    return found


# The last syllable of a glued final ending: a paragraph without one holds no glued end (no `glued_cuts` to run).
_GLUED_END_HINT = re.compile(f"[{GLUED_ENDINGS}]")


def learned_cuts(p: Paragraph) -> list[int]:
    """`슬픈장면없이 슬픈영화 | 말로표현할수`: where a writer who never punctuates ends a sentence by the learned odds,
    at a space or inside a word (a final ending glued to the next sentence)."""
    if p.punctuated:
        return []
    cuts = unpunctuated_cuts(p.text)
    if _GLUED_END_HINT.search(p.text):
        glued = glued_cuts(p.text)
        if glued:
            cuts = sorted(cuts + glued)
    return cuts


# Where a polite, `-죠` or `-냐` ending may run into the next sentence (`같네요중간에`): one glued to two syllables.
_POLITE_GLUED_HINT = re.compile(f"[{POLITE_GLUED_ENDINGS}][{HANGUL_SYLLABLE_CLASS}]{{2}}")


def polite_glued_cuts(p: Paragraph) -> list[int]:
    """`같네요 | 중간에`: in a paragraph that punctuates, a polite, `-죠` or `-냐` ending glued to the next sentence."""
    if not p.punctuated or _POLITE_GLUED_HINT.search(p.text) is None:
        return []
    return glued_cuts(p.text, endings=POLITE_GLUED_ENDINGS)
