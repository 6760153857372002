"""Eojeol starts: which token of a tokenized sentence opens a whitespace-delimited Korean word.

A word for whole-word masking is an eojeol, the unit Korean readers use. WordPiece's `##` does not mark it:
the BERT pre-tokenizer splits punctuation off an eojeol, so in `달라"고` the pieces `"` and `고` carry no `##`
yet sit inside the word that `달` opens. SentencePiece's `▁` marks it, but only for SentencePiece vocabs. The
tokenizer's character offsets against the text's whitespace mark it for any vocab: a token belongs to the
eojeol of the first non-space character at or after its start (a bare `▁` piece belongs to the word it
precedes), and the first token of every eojeol is flagged.
"""

from __future__ import annotations

import numpy as np

# Python's `str.isspace` code points (the highest is U+3000), as a lookup table
_MAX_SPACE = 0x3000
_IS_SPACE = np.array([chr(c).isspace() for c in range(_MAX_SPACE + 1)], dtype=bool)


def space_mask(text: str) -> np.ndarray:
    """True at every character of `text` that `str.isspace` calls whitespace."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    mask = np.zeros(codes.shape[0], dtype=bool)
    low = codes <= _MAX_SPACE
    mask[low] = _IS_SPACE[codes[low]]
    return mask


def word_start_flags(text: str, token_starts: np.ndarray, sentence_firsts: np.ndarray) -> np.ndarray:
    """uint8 per token, 1 on the first token of each eojeol of `text`.

    `token_starts` are the tokens' character offsets in `text` (ascending within a sentence);
    `sentence_firsts` the index of every sentence's first token: sentences are joined by whitespace in
    `text`, and a sentence's first token always opens a word.
    """
    n = len(text)
    space = space_mask(text)
    opens = ~space
    opens[1:] &= space[:-1]
    eojeol = np.cumsum(opens, dtype=np.int64)
    # the first non-space character at or after every position (n past the end)
    positions = np.where(space, n, np.arange(n, dtype=np.int64))
    next_word = np.minimum.accumulate(positions[::-1])[::-1] if n else positions
    word_of = np.append(eojeol, eojeol[-1] + 1 if n else 0)[np.append(next_word, n)[token_starts]]
    flags = np.ones(word_of.shape[0], dtype=np.uint8)
    flags[1:] = word_of[1:] != word_of[:-1]
    flags[sentence_firsts] = 1
    return flags
