"""The WordPiece alphabet: which characters get a token of their own, and which also a `##` continuation form.

By coverage, as SentencePiece chooses its required characters: the alphabet holds `character_coverage` of the
sample's character occurrences (whitespace and the characters BERT's normalizer removes aside). Every Hangul
syllable, printable ASCII character and punctuation mark of the sample is in it whatever its count
(`is_always_kept`), so those cover first and the other characters, the most frequent first (ties by code point),
fill the rest. A character left out encodes to [UNK] (and with it the word holding it, as WordPiece does), so the
cut trades rare characters, Hanja above all, for ids that Korean subwords get instead. `limit` keeps the N most
frequent instead (and every Hangul syllable).

Every character of the alphabet that BERT's pre-tokenizer does not split off (punctuation, CJK ideographs and
jamo are words of their own) also gets a `##c` form, given up front (see `train.py`). Giving one only to the
characters that continue a word in the sample saved ~150 ids at 0.9999 but made whole held-out words `[UNK]`
(`좋아요♥` after Wikipedia): measured and left out (bench/RESULTS.md, "WordPiece coverage").
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Mapping
from typing import Any

from kcorpus.transforms.korean import is_conjoining_jamo, is_hangul_syllable

# What the WordPiece pipeline (BertNormalizer, BertPreTokenizer, jamo isolation) makes of a character.
SPACE, REMOVED, ALONE, WORD = 1, 2, 3, 4

# tokenizers' `is_chinese_char` (BertNormalizer pads these with spaces: each is a word of its own)
_CJK_RANGES = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)  # fmt: skip


def is_bert_punctuation(char: str) -> bool:
    """BertPreTokenizer's rule: such characters are always words of their own, never `##` continuations."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_cjk_ideograph(char: str) -> bool:
    code = ord(char)
    return any(first <= code <= last for first, last in _CJK_RANGES)


def is_bert_removed(char: str) -> bool:
    """BertNormalizer(clean_text=True) removes NUL, U+FFFD and the `C*` categories but tab, newline, return."""
    if char in ("\t", "\n", "\r"):
        return False
    return char in ("\x00", "\ufffd") or unicodedata.category(char).startswith("C")


def is_always_kept(char: str) -> bool:
    """Kept by coverage whatever its count: a Hangul syllable, printable ASCII or punctuation.

    Korean text of every register uses them, and there are few: in a small sample a quote mark or `Z` is rare by
    chance (a cut one is `[UNK]` in every text that has it), while Hanja and other scripts have long tails.
    """
    return is_hangul_syllable(char) or "!" <= char <= "~" or unicodedata.category(char).startswith("P")


def char_class(char: str) -> int:
    """SPACE, REMOVED, ALONE (a word of its own: punctuation, CJK ideographs, jamo) or WORD."""
    if char.isspace():
        return SPACE
    if is_bert_removed(char):
        return REMOVED
    if is_bert_punctuation(char) or is_cjk_ideograph(char) or is_conjoining_jamo(char):
        return ALONE
    return WORD


@dataclasses.dataclass(frozen=True)
class Alphabet:
    """The characters of a WordPiece vocabulary and what they cover of the sample.

    Attributes:
        characters: the alphabet, by code point.
        continuations: the characters also given a `##` form, by code point.
        covered: occurrences in the sample of the alphabet's characters.
        total: occurrences of every character that could be in it (not whitespace, not removed).
        cut: distinct characters of the sample left out.
        text_has_jamo: the sample holds conjoining jamo (isolated as words for training, as when encoding).
    """

    characters: tuple[str, ...]
    continuations: tuple[str, ...]
    covered: int
    total: int
    cut: int
    text_has_jamo: bool = False

    @property
    def coverage(self) -> float:
        """The share of the sample's character occurrences the alphabet holds."""
        return self.covered / self.total if self.total else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "characters": len(self.characters),
            "continuations": len(self.continuations),
            "coverage": round(self.coverage, 6),
            "cut_characters": self.cut,
            "cut_occurrences": self.total - self.covered,
        }


def choose_alphabet(
    counts: Mapping[str, int],
    *,
    coverage: float = 1.0,
    limit: int | None = None,
) -> Alphabet:
    """The alphabet of a sample whose characters are `counts`: by `coverage`, or the `limit` most frequent.

    Every Hangul syllable of `counts` is kept either way; by coverage, every `is_always_kept` character too.
    """
    eligible = {c: n for c, n in counts.items() if n > 0 and char_class(c) not in (SPACE, REMOVED)}
    hangul = {c for c in eligible if is_hangul_syllable(c)}
    total = sum(eligible.values())
    if limit is not None:
        ranked = sorted(eligible, key=lambda c: (-eligible[c], c))
        chosen = set(ranked[:limit]) | hangul
    else:
        # the kept characters cover first whatever their counts; the others fill the rest, most frequent first
        chosen = {c for c in eligible if is_always_kept(c)}
        covered, need = sum(eligible[c] for c in chosen), coverage * total
        others = sorted((c for c in eligible if c not in chosen), key=lambda c: (-eligible[c], c))
        for char in others:
            if covered >= need:
                break
            chosen.add(char)
            covered += eligible[char]
    characters = tuple(sorted(chosen))
    forms = tuple(c for c in characters if char_class(c) == WORD)
    return Alphabet(
        characters=characters,
        continuations=forms,
        covered=sum(eligible[c] for c in characters),
        total=total,
        cut=len(eligible) - len(characters),
        text_has_jamo=any(is_conjoining_jamo(c) for c in eligible),
    )
