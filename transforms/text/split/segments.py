"""The lines of a split paragraph: short sentences joined to a neighbour, over-long ones cut between words.

In a source split into sentences the character floor and ceiling of the filters (`min_chars`, `max_chars`)
bound the lines a document is written as, not the text it keeps. `join_short` joins a sentence under the floor
to the previous sentence of its paragraph, or, for the first sentence of a paragraph, to the next one; a
paragraph shorter than the floor as a whole (a title, a heading, `감사합니다.`) stays one line of its own.
`cut_long` cuts a sentence over the ceiling after a sentence end, else a comma, else a clause ending (`-고`,
`-며`, `-는데`, `-지만`), else at any space: never inside an eojeol. `join_continuations` gives a unit that
starts with a particle or ending continuing the unit before (`…아니었는지?` + `를 꼭 물어보고`, `…판결)` + `에 의거하여`),
whatever splitter made them, back to that unit; `cut_long` never cuts before one. Pure; no Beam.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# The word ends there: a space, punctuation, a closing quote or bracket, or the end of the unit.
_PARTICLE_END = r"(?=[\s.,?!~\"'”’)]|$)"
# What only continues the sentence before it: a particle or ending standing as the first word of a unit
# (`를 꼭`, `로 공수처`, `에 의거하여`, `라는 말`, `였습니다`, `는 헌법`, `의 차원을`, `란 말`). Not the one-syllable
# particles that are also words (`이` this, `가` a list letter, `도` a province, `와` wow, `만` ten thousand), nor the
# name `에도` (Edo: `에도 막부`, `에도 역소`): a standalone `에도` continues only as `에도 불구하고`.
CONTINUATION_START = re.compile(
    r"(?:를|을|로|으로|로서|로써|으로서|으로써|에|에서|에게|에는|에도(?!\s+(?!불구))|에의|께서|한테|처럼|까지|부터|조차|마저|밖에"
    r"|는|은|의|과|란|라고|라는|라며|라면서|이라고|이라는|이라며|이라|였|이었|였던|이었던|입니다|습니다)"
    + _PARTICLE_END
)
# Glued to the unit before (no space between them as written) or after a closing quote or bracket, those words are
# particles too (`…한다.”와 같이`, `…사장?이 …`, `…유포한다.’ 와 ‘나랑…`).
_CLOSERS = frozenset("\"'”’」』)")
# A unit ended by a final ending and a period: what is glued after it starts a sentence.
_ENDED = re.compile(r"[다요까]\.$")
GLUED_CONTINUATION_START = re.compile(r"(?:이|가|와|도|만|이란|이나|나|이며|며|보다)" + _PARTICLE_END)


def join_continuations(units: list[str], paragraph: str = "") -> list[str]:
    """`units` (the sentences of one `paragraph`) with every unit after the first that starts with a particle or
    ending (`CONTINUATION_START`, or `GLUED_CONTINUATION_START` where glued to the unit before or after its closing
    quote or bracket) joined to the one before it: by nothing where it followed that unit with no space in
    `paragraph` (`glued_units`), else by a space."""
    if len(units) < 2 or not any(CONTINUATION_START.match(unit) or GLUED_CONTINUATION_START.match(unit) for unit in units[1:]):
        return units
    glued = glued_units(paragraph, units) if paragraph else []
    joined = [units[0]]
    for i, unit in enumerate(units[1:], 1):
        is_glued = i < len(glued) and glued[i]
        after_quote = joined[-1][-1:] in _CLOSERS  # `…한다.” 와 같이`, `(…습니다) 가`: a quotation's particle
        after_end = _ENDED.search(joined[-1]) is not None  # `…대출되었다.이 시기에`: `이` is "this" there
        if CONTINUATION_START.match(unit) or (is_glued and not after_end or after_quote) and GLUED_CONTINUATION_START.match(unit):
            joined[-1] = f"{joined[-1]}{'' if is_glued else ' '}{unit}"
        else:
            joined.append(unit)
    return joined


# Cut points, most preferred first; each match ends where a piece ends (a space follows it).
_CUT_TIERS = (
    re.compile(r"[.?!…;:。？！][\"'”’)\]」』》〉]*(?= )"),
    re.compile(r"[,，、](?= )"),
    re.compile(r"(?:는데|지만|으며|으나|면서|[고며])(?= )"),
    re.compile(r"(?= )"),
)


def glued_units(line: str, units: Sequence[str]) -> list[bool]:
    """Per unit of a split `line`: whether it follows the previous unit with nothing between them in `line`
    ("인지.보고." split after the period), so that joining them back adds no space; False where a unit is not
    found as written (a splitter that rewrote it)."""
    flags: list[bool] = []
    end = -1
    for unit in units:
        start = line.find(unit, max(end, 0))
        flags.append(start >= 0 and start == end)
        if start >= 0:
            end = start + len(unit)
    return flags


def join_short(sentences: list[str], min_chars: int, glued: Sequence[bool] = ()) -> list[str]:
    """The sentences of one paragraph with every sentence under `min_chars` characters joined to the previous
    one, or to the next one when it comes first; a paragraph under the floor stays one line. Joined by a
    space, or by nothing where `glued[i]` says sentence i followed sentence i-1 with no space."""
    lines: list[str] = []
    carried = ""  # short sentences at the start of the paragraph, waiting for the next one
    for i, sentence in enumerate(sentences):
        gap = "" if i < len(glued) and glued[i] else " "
        if carried:
            sentence, carried = f"{carried}{gap}{sentence}", ""
        if len(sentence) >= min_chars:
            lines.append(sentence)
        elif lines:
            lines[-1] = f"{lines[-1]}{gap}{sentence}"
        else:
            carried = sentence
    if carried:
        lines.append(carried)
    return lines


def cut_long(sentence: str, max_chars: int, min_chars: int = 0) -> list[str]:
    """`sentence` cut into pieces of at most `max_chars` characters (0: no ceiling) between words.

    Each cut is the last preferred cut point (`_CUT_TIERS`) in the second half of the room left, so pieces
    stay long and the last one keeps at least `min_chars` characters where it can. A run of more than
    `max_chars` characters without a space is one piece of its own, still over the ceiling (the caller drops
    it as `too_long`).
    """
    if not max_chars or len(sentence) <= max_chars:
        return [sentence]
    pieces = []
    rest = sentence
    while len(rest) > max_chars:
        cut = _cut_point(rest, max_chars, min_chars)
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def _cut_point(text: str, max_chars: int, min_chars: int) -> int:
    """Where the first piece of a text longer than `max_chars` ends (a space follows it, or the text ends)."""
    end = min(max_chars, len(text) - min_chars - 1)  # the space after the cut goes too
    for start in (max(1, end // 2), 1):
        for pattern in _CUT_TIERS:
            matches = [m for m in pattern.finditer(text, start, end + 1) if not CONTINUATION_START.match(text, m.end() + 1)]
            if matches:
                return matches[-1].end()
    # No space in reach: the run up to the next space is one piece (never cut inside a word).
    space = text.find(" ", max_chars)
    return len(text) if space < 0 else space
