"""The lines of a split paragraph: short sentences joined to a neighbour, over-long ones cut between words.

In a source split into sentences the character floor and ceiling of the filters (`min_chars`, `max_chars`)
bound the lines a document is written as, not the text it keeps. `join_short` joins a sentence under the floor
to the previous sentence of its paragraph, or, for the first sentence of a paragraph, to the next one; a
paragraph shorter than the floor as a whole (a title, a heading, `감사합니다.`) stays one line of its own.
`cut_long` cuts a sentence over the ceiling after a sentence end, else a comma, else a clause ending (`-고`,
`-며`, `-는데`, `-지만`), else at any space: never inside an eojeol. Pure; no Beam.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
            matches = list(pattern.finditer(text, start, end + 1))
            if matches:
                return matches[-1].end()
    # No space in reach: the run up to the next space is one piece (never cut inside a word).
    space = text.find(" ", max_chars)
    return len(text) if space < 0 else space
