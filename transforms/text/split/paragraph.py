"""A paragraph being split: its text, and what several rules ask of it, found once when first asked."""

from __future__ import annotations

import re

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS
from kcorpus.transforms.text.split.quotations import enclosed_spans, inside
from kcorpus.transforms.text.split.terminators import CLOSERS

# A terminator after a letter or a closing bracket: a paragraph without one is written without punctuation.
# (The terminator first, so that `re` scans for its class.)
_PUNCTUATED = re.compile(
    rf"[.?!…‥。？！](?<=[{HANGUL_SYLLABLE_CLASS}{COMPATIBILITY_JAMO_CLASS}A-Za-z0-9{CLOSERS}].)"
)


class Paragraph:
    """One line of text to split (stripped, not empty); the cut rules (`rules.CUT_RULES`) each take one.

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
        """Its balanced quotes and brackets (`quotations.enclosed_spans`), never split inside."""
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
