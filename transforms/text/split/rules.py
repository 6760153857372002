"""The splitter's decision as ordered rules: `split_sentences` (the package docstring lists the rules in order).

Each rule is a function beside its pattern in the module of its family (`terminators`, `endings`, `quotations`,
`lists`, `odds`); this module says in which order they apply: `CUT_RULES` propose where a sentence may end,
`TERMINATOR_RULES` judge a terminator run (the first with a verdict decides), no cut falls inside quotes or brackets,
and `settle` moves a cut past what stays with the sentence before, or cancels it. `paragraph.Paragraph` holds what several
rules ask of a paragraph, found once. Pure Python + `re`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kcorpus.transforms.text.split import endings, lists, odds, quotations, terminators
from kcorpus.transforms.text.split.endings import BARE_ENDING_HINT_CLASS, EMOTICON_MARK
from kcorpus.transforms.text.split.paragraph import Paragraph, inside
from kcorpus.transforms.text.split.quotations import ends_inner_remark, past_spaced_closer
from kcorpus.transforms.text.split.terminators import TERMINATOR_CANDIDATES

# Whether a terminator run ends a sentence: each rule says False (it does not), True (it does) or None (no
# verdict); the first verdict decides, and a run no rule stops ends one. All but `pause` only ever say False.
TERMINATOR_RULES: tuple[Callable[[str, int, int, str, str], bool | None], ...] = (
    terminators.in_brackets,
    terminators.uncertain_number,
    terminators.exclaimed_name,
    terminators.latin_title,
    terminators.bracket_after_mark,
    lists.between_list_items,
    terminators.non_final_period,
    terminators.pause,
    quotations.mark_quotative,
    quotations.period_quotative,
    quotations.unquoted_quotative,
    quotations.glued_quotative,
    quotations.quoted_quotative,
)


def ends_sentence(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool:
    """Whether the terminator run `terminator` at `start` > 0 (its closers `closers` end at `end`) ends a sentence."""
    for rule in TERMINATOR_RULES:
        verdict = rule(paragraph, start, end, terminator, closers)
        if verdict is not None:
            return verdict
    return True


def terminator_cuts(p: Paragraph) -> list[int]:
    """`좋네요. | 다음`, `했다.|그리고`: after a terminator run (`terminators.TERMINATOR_CANDIDATES`) that ends a
    sentence (`ends_sentence`); past a closing quote spaced off it, never after a remark in brackets inside one."""
    paragraph = p.text
    cuts = []
    for candidates in TERMINATOR_CANDIDATES:
        for match in candidates(paragraph):
            terminator, closers = match.group(1), match.group(2)
            start, end = match.start(1), match.end()
            if start == 0 or not ends_sentence(paragraph, start, end, terminator, closers):
                continue  # (a terminator run that opens the paragraph ends no sentence)
            spans = p.spans
            if inside(end, spans):
                end = past_spaced_closer(paragraph, end, spans)  # `…싶습니다. " 학생들을`
            if terminator.strip(".…") == "" and ")" in closers and ends_inner_remark(paragraph, start, spans):
                continue  # `낮을 경우 (…쉬워진다.) 공공재가`: the sentence goes on after the bracket
            cuts.append(end)
    return cuts


# Where a sentence may end: each rule proposes cuts (offsets into the paragraph); their order changes nothing.
CUT_RULES: tuple[Callable[[Paragraph], list[int]], ...] = (
    terminator_cuts,
    endings.bare_ending_cuts,
    endings.emoticon_cuts,
    endings.glued_formal_cuts,
    quotations.dialogue_cuts,
    lists.first_item_cuts,
    quotations.closed_formal_cuts,
    lists.dash_item_cuts,
    odds.learned_cuts,
    odds.polite_glued_cuts,
)
# What every paragraph with a cut holds (a terminator, `~`, `,,`, a smiles/tears run, a bare ending's last
# syllable or `니다`): where it finds nothing, none of the scans below runs (most comments are one sentence).
MAY_CUT = re.compile(
    rf"[.?!…‥。？！~;ㅋㅎㅠㅜㄷㅡ♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF\"”]|,,|{BARE_ENDING_HINT_CLASS}|니다"
)
# Without any of those, only the learned odds can cut.
UNMARKED_RULES: tuple[Callable[[Paragraph], list[int]], ...] = (odds.learned_cuts,)


def cuts(p: Paragraph, rules: tuple[Callable[[Paragraph], list[int]], ...] = CUT_RULES) -> list[int]:
    """Where `rules` end a sentence in `p`, ordered, none inside quotes or brackets (before `settle`)."""
    found: list[int] = []
    for rule in rules:
        found += rule(p)
    if not found:
        return found
    found = p.outside(found)
    return sorted(set(found)) if len(found) > 1 else found


# What no sentence starts with, checked after every cut. A dash glued to the end (`막아주십시오- 존경하는`),
# terminators, even spaced out (`했습니다. . . 제발`, `놀랍고... ...슬프다`), a separator (`주십시오.. -----`, as in kss),
# emoticons (`추천합니다 :-)`) and a short remark in brackets (`좋습니다. (호전사례 有) 그런데`; not a list number `(1)`,
# `(가)`, nor a sentence of its own, `(…따라 다르다.)`; at the paragraph's end, not one ending in a final syllable
# either, `(나만당할수없지)`, where inside it `(대단히 중요)` still is a remark) stay with the sentence before: the cut
# moves past them (group 1). A comma or a closing bracket, a copula or quotative ending (`됩니까? 였습니다.`, `…요
# 라는`), or a word that only continues one (`'…않는다.' , '다양한…'`) cancels the cut (group 2).
AFTER_CUT = re.compile(
    rf"((?:-(?=\s))?(?:\s*(?:[.?!…‥~;。？！]+|[:;]-?[)(DP](?![A-Za-z])|{EMOTICON_MARK}++|[-=_]{{3,}}(?![->])|-[-_]*;+))*"
    r"(?:\s*(?!\(\w{1,2}\))\((?:(?![^()\n]*[.?!]\s*\))[^()\n]{1,30}\)(?=\s)"
    r"|(?![^()\n]*(?:[.?!]|[다요지죠음네까])\s*\))[^()\n]{1,30}\)$))?)"
    r"(\s*(?:[,，)\]}]|였|이었|이였|입니[다까]|습니[다까]|이다[\s.?!]|이라(?:고|는|며|면|서)|라고|라는|라며|라면서"
    r"|[라고](?=\s)|[요죠](?=[\s.?!~]|$)))?"
)


def settle(paragraph: str, cuts: list[int]) -> list[int]:
    """`cuts` after `AFTER_CUT`: moved past the terminators, emoticons and remarks that follow them, or dropped where
    what follows continues the sentence (or nothing follows)."""
    settled: list[int] = []
    end = len(paragraph)
    for cut in cuts:
        after = AFTER_CUT.match(paragraph, cut)
        if after.group(2):
            continue
        cut = after.end(1)
        if cut < end and (not settled or cut > settled[-1]):
            settled.append(cut)
    return settled


def split_paragraph(paragraph: str) -> list[str]:
    """The sentences of one stripped, non-empty line."""
    if MAY_CUT.search(paragraph):
        found = cuts(Paragraph(paragraph))
    else:
        found = cuts(Paragraph(paragraph, punctuated=False), UNMARKED_RULES)  # no terminator: no punctuation
    if found:
        found = settle(paragraph, found)
    if not found:
        return [paragraph]
    pieces = []
    previous = 0
    for cut in found:
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
            sentences.extend(split_paragraph(paragraph))
    return sentences
