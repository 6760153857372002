"""A paragraph as the splitter's rules see it: `Paragraph` (what several rules ask of it, found once) and its
balanced quotes and brackets (`enclosed_spans`, `inside`), never split inside. A leaf module: the rule families
(`terminators`, `endings`, `quotations`, `lists`, `odds`) take a `Paragraph`, and `rules` orders them. Pure Python + `re`.
"""

from __future__ import annotations

import bisect
import re

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS

# What closes a quotation or bracket after a terminator (`다.”`, `다.)`).
CLOSERS = "\"'”’)\\]}」』》〉»"

# Regions that are never split inside: balanced quotes and brackets within one paragraph. A straight quote
# opens one only at the start of a word: the quote that closes one quotation must not open a region that runs
# to the next (`…"고 강변했습니다. 설명: 북한이 "우리는…`). One a writer closed with a curly quote (`"…발생했다”며`)
# ends there, not at the next straight quote.
_ENCLOSED = re.compile(
    r"(?<![^\s(\[{<,:·=])(?:\"[^\"“”\n]{1,400}”|\"[^\"\n]{1,400}\"|'[^'\n]{1,200}')|“(?:[^“”\"\n]|\"[^“”\"\n]{0,400}\"){1,400}”|“[^“”\"\n]{1,400}\"|‘[^‘’\n]{1,200}’"
    r"|\([^()\n]{1,400}\)|\[[^\[\]\n]{1,400}\]|「[^「」\n]{1,400}」|『[^『』\n]{1,400}』"
    r"|《[^《》\n]{1,400}》|〈[^〈〉\n]{1,400}〉|<[^<>\n]{1,200}>"
)
OPENER = re.compile("[\"'“‘(\\[「『《〈<]")

def enclosed_spans(paragraph: str) -> list[tuple[int, int]]:
    """Quoted and bracketed regions, ordered and non-overlapping."""
    # `_ENCLOSED` starts with a lookbehind, so `re` tries it at every position; it starts scanning at the
    # first opening character instead (most comments have none). Its lookbehind still sees the text before.
    first = OPENER.search(paragraph)
    if first is None:
        return []
    return [m.span() for m in _ENCLOSED.finditer(paragraph, first.start())]


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_left(spans, (pos, -1)) - 1
    return index >= 0 and pos < spans[index][1]



# A terminator after a letter or a closing bracket: a paragraph without one is written without punctuation.
# (The terminator first, so that `re` scans for its class.)
_PUNCTUATED = re.compile(
    rf"[.?!…‥。？！](?<=[{HANGUL_SYLLABLE_CLASS}{COMPATIBILITY_JAMO_CLASS}A-Za-z0-9{CLOSERS}].)"
)


class Paragraph:
    """One line of text to split (stripped, not empty); the cut rules (`CUT_RULES`) each take one.

    `punctuated`: given where the caller knows it (a paragraph without any terminator), else found when first asked.
    """

    # Slots and explicit lazy attributes, not functools.cached_property: that takes a lock on every first access
    # (Python 3.11), a cost the splitter's hot loop shows.
    __slots__ = ("_punctuated", "_spans", "text")

    def __init__(self, text: str, punctuated: bool | None = None) -> None:
        self.text = text
        self._spans: list[tuple[int, int]] | None = None
        self._punctuated = punctuated

    @property
    def spans(self) -> list[tuple[int, int]]:
        """Its balanced quotes and brackets (`enclosed_spans`), never split inside."""
        if self._spans is None:
            self._spans = enclosed_spans(self.text)
        return self._spans

    @property
    def punctuated(self) -> bool:
        """Whether its writer punctuates: it holds a terminator after a letter, digit or closing bracket."""
        if self._punctuated is None:
            self._punctuated = _PUNCTUATED.search(self.text) is not None
        return self._punctuated

    def outside(self, cuts: list[int]) -> list[int]:
        """`cuts` but those inside a quote or bracket."""
        spans = self.spans
        return [cut for cut in cuts if not inside(cut, spans)] if spans else cuts
