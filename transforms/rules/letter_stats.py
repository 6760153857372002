"""`letter_stats(text)`: what the sentence rules count in a sentence's letters, in one call.

`(tokens, letters, hangul, distinct_letters, distinct_tokens)`: the number of letter tokens (runs of letters
and digits, `repetition.letter_tokens`), of letters in them, of Hangul letters among those
(`korean.HANGUL_LETTER_CLASS`), and of distinct letters and distinct tokens. `low_hangul` needs the first
three, the spam rule's necessary conditions all five; only a sentence that meets them has its tokens built.

The install compiles `_letter_stats.c` where a C compiler is at hand (0.7 against 10.7 us per sentence of the
bundled sample for these regexes and sets: the sentence rules' hot loop); elsewhere `python_letter_stats`, the
reference the compiled one is tested against, does the same. `COMPILED` says which one runs.
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import HANGUL_LETTER_CLASS
from kcorpus.transforms.rules.repetition import letter_tokens

_HANGUL_RUNS = re.compile(rf"[{HANGUL_LETTER_CLASS}]+")

LetterStats = tuple[int, int, int, int, int]


def python_letter_stats(text: str) -> LetterStats:
    """`(tokens, letters, hangul, distinct_letters, distinct_tokens)` of `text`, in Python."""
    tokens = letter_tokens(text)
    letters = "".join(tokens)
    hangul = len(letters) - len(_HANGUL_RUNS.sub("", letters))
    return len(tokens), len(letters), hangul, len(set(letters)), len(set(tokens))


try:
    from kcorpus.transforms.rules._letter_stats import letter_stats

    COMPILED = True
except ImportError:  # installed without a C compiler: the same counts, slower
    letter_stats = python_letter_stats
    COMPILED = False
