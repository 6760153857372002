"""Korean script facts, each in one place: Hangul code point ranges, the OOO censor masks, special tokens.

Ranges are inclusive `(first, last)` code points. Regex character-class fragments are given as strings so
patterns elsewhere can embed them (`rf"[{HANGUL_SYLLABLE_CLASS}]"`).
"""

from __future__ import annotations

import re

# The 11,172 precomposed Hangul syllables 가-힣.
HANGUL_SYLLABLES: tuple[int, int] = (0xAC00, 0xD7A3)
# Finals (jongseong) per initial+medial block of syllables: a syllable's final index is (code - 0xAC00) % 28.
FINALS_PER_SYLLABLE_BLOCK = 28
# Hangul compatibility jamo in modern use: consonants ㄱ-ㅎ (U+3131-314E) and vowels ㅏ-ㅣ (U+314F-3163).
COMPATIBILITY_JAMO: tuple[int, int] = (0x3131, 0x3163)
# Conjoining jamo (Hangul Jamo and its Extended-A/B blocks): what NFD/NFKC decompose syllables into.
CONJOINING_JAMO: tuple[tuple[int, int], ...] = ((0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))
# The same ranges as a regex character-class fragment.
CONJOINING_JAMO_CLASS = "".join(f"\\u{first:04x}-\\u{last:04x}" for first, last in CONJOINING_JAMO)

HANGUL_SYLLABLE_CLASS = "가-힣"
COMPATIBILITY_JAMO_CLASS = "ㄱ-ㅎㅏ-ㅣ"
# Syllables plus every compatibility jamo, archaic ones (up to ㆎ U+318E) included: "a Korean letter".
HANGUL_LETTER_CLASS = "가-힣ㄱ-ㆎ"

# Naver's mask for a censored word, exactly "OOO" as a token of its own (not in "GOOOD", not in "OOOO"):
# what `clean()` replaces by a space.
NAVER_OOO_MASK = re.compile(r"(?<![A-Za-z])OOO(?![A-Za-z])")
# Every mask a source uses to hide a word, whatever its length: runs of 2+ Latin "O" not touching another
# Latin letter (Naver's `OOO`, users' `OO같은`; not "GOOD"), of circles `○○`/`◯◯`/`〇〇` (`김○○`), and of 2+ `*`
# (petitions' `***씨`, `김**`, masked ids and URLs `chhy****`, `http://m.********`). A single `*` is a bullet or
# part of an emoticon (`^^*`), never a mask here.
MASK_RUNS = re.compile(r"(?<![A-Za-z])O{2,}(?![A-Za-z])|[○◯〇]{2,}|\*{2,}")
# The symbols masks are runs of: a run of two or more of them is a mask, never punctuation to squeeze.
MASK_SYMBOLS = "*○◯〇"

# The special tokens of every vocabulary kcorpus trains, in id order (`[PAD]` = 0 ... `[MASK]` = 4).
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PAD, UNK, CLS, SEP, MASK = SPECIAL_TOKENS


def is_hangul_syllable(char: str) -> bool:
    """Whether `char` is one precomposed Hangul syllable (가-힣)."""
    return chr(HANGUL_SYLLABLES[0]) <= char <= chr(HANGUL_SYLLABLES[1])


def is_conjoining_jamo(char: str) -> bool:
    """Hangul Jamo U+1100–U+11FF and its Extended-A/B blocks (what NFD/NFKC produce from Hangul)."""
    code = ord(char)
    return any(first <= code <= last for first, last in CONJOINING_JAMO)


def all_syllables() -> list[str]:
    """The 11,172 Hangul syllables in code point order."""
    return [chr(code) for code in range(HANGUL_SYLLABLES[0], HANGUL_SYLLABLES[1] + 1)]


def syllables_with_final(final_index: int) -> str:
    """Every syllable whose final consonant (jongseong) has index `final_index` (0: none, 17: ㅂ)."""
    first = HANGUL_SYLLABLES[0]
    return "".join(c for c in all_syllables() if (ord(c) - first) % FINALS_PER_SYLLABLE_BLOCK == final_index)
