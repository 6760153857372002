"""Quality filters: pure functions that keep a sentence or document, or name the reason to drop it.

Each sentence rule returns `None` to keep or a reason string (`"too_short"`); the reason becomes the counter
`filter:dropped:<reason>` and the `reason` of the `Dropped` record. `check_sentence` runs the rules in a fixed
order so a line that breaks several rules always gets the same, most specific reason.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

from kcorpus.transforms.korean import HANGUL_LETTER_CLASS, OOO_MASK_RUNS
from kcorpus.transforms.pii import PII_MODES

_NOT_WORD = re.compile(r"[\W_]+")
_HANGUL = re.compile(rf"[{HANGUL_LETTER_CLASS}]")
_SPACE = re.compile(r"\s+")
# A short unit repeated to fill the whole line: "ㅋㅋㅋㅋㅋㅋ", "좋아요좋아요좋아요좋아요".
_REPEATED_UNIT = re.compile(r"(.{1,8}?)\1{3,}", re.DOTALL)


@dataclasses.dataclass(frozen=True)
class FilterConfig:
    """Filter thresholds (the `filters:` section of a profile).

    Attributes:
        min_chars: drop sentences shorter than this (KcELECTRA: 10 characters).
        max_chars: drop sentences longer than this (0 disables); such lines are tables, lists, run-ons.
        min_hangul_ratio: drop sentences whose Hangul share of non-space characters is below this.
        drop_ooo_only: drop sentences that are only `OOO` masks and punctuation.
        max_repeated_token_ratio: drop sentences where one whitespace token is at least this share of the
            tokens (only checked from `repetition_min_tokens` tokens up); also lines that are one short
            unit repeated four or more times. 0 disables.
        repetition_min_tokens: below this many tokens the token-ratio rule does not apply.
        min_sentences: drop documents with fewer kept sentences than this.
        pii: personal data (`transforms/pii.py`): `mask` it with typed tokens (`[PHONE]`), `drop` the
            documents that hold any (reason `pii`), or `keep` it untouched.
    """

    min_chars: int = 10
    max_chars: int = 2000
    min_hangul_ratio: float = 0.3
    drop_ooo_only: bool = True
    max_repeated_token_ratio: float = 0.5
    repetition_min_tokens: int = 4
    min_sentences: int = 1
    pii: str = "mask"

    def __post_init__(self) -> None:
        if self.min_chars < 0 or self.max_chars < 0 or self.min_sentences < 0:
            raise ValueError("filters: min_chars, max_chars and min_sentences must be >= 0")
        if self.max_chars and self.max_chars < self.min_chars:
            raise ValueError(f"filters: max_chars {self.max_chars} < min_chars {self.min_chars}")
        if not 0.0 <= self.min_hangul_ratio <= 1.0:
            raise ValueError(f"filters: min_hangul_ratio must be in [0, 1], got {self.min_hangul_ratio}")
        if not 0.0 <= self.max_repeated_token_ratio <= 1.0:
            raise ValueError("filters: max_repeated_token_ratio must be in [0, 1]")
        if self.pii not in PII_MODES:
            raise ValueError(f"filters.pii must be one of {PII_MODES}, got {self.pii!r}")


def is_empty(text: str) -> str | None:
    """Drop sentences that are empty or only whitespace (what cleaning leaves of emoji-only lines)."""
    return "empty" if not text.strip() else None


def is_ooo_only(text: str) -> str | None:
    """Drop lines that contain `OOO` masks and nothing else but punctuation and spaces."""
    if not OOO_MASK_RUNS.search(text):
        return None
    return "ooo_only" if not _NOT_WORD.sub("", OOO_MASK_RUNS.sub("", text)) else None


def too_short(text: str, min_chars: int) -> str | None:
    """Drop lines shorter than `min_chars` characters, spaces included (the KcELECTRA rule)."""
    return "too_short" if len(text) < min_chars else None


def too_long(text: str, max_chars: int) -> str | None:
    """Drop lines longer than `max_chars` characters; 0 disables."""
    return "too_long" if max_chars and len(text) > max_chars else None


def hangul_ratio(text: str) -> float:
    """The share of Hangul among the non-space characters of `text` (0.0 for an empty text)."""
    compact = _SPACE.sub("", text)
    if not compact:
        return 0.0
    return len(_HANGUL.findall(compact)) / len(compact)


def low_hangul(text: str, min_ratio: float) -> str | None:
    """Drop lines that are mostly not Korean (code, English boilerplate, numbers)."""
    return "low_hangul" if min_ratio and hangul_ratio(text) < min_ratio else None


def repetitive(text: str, max_token_ratio: float, min_tokens: int) -> str | None:
    """Drop lines that are mostly one repeated token, or one short unit repeated to fill the line."""
    if not max_token_ratio:
        return None
    compact = _SPACE.sub("", text)
    if compact and _REPEATED_UNIT.fullmatch(compact):
        return "repetitive"
    tokens = text.split()
    if len(tokens) < min_tokens:
        return None
    top = Counter(tokens).most_common(1)[0][1]
    return "repetitive" if top / len(tokens) >= max_token_ratio else None


def check_sentence(text: str, config: FilterConfig) -> str | None:
    """Every sentence rule in a fixed order: `None` to keep, else the first rule's reason."""
    return (
        is_empty(text)
        or (is_ooo_only(text) if config.drop_ooo_only else None)
        or too_short(text, config.min_chars)
        or too_long(text, config.max_chars)
        or low_hangul(text, config.min_hangul_ratio)
        or repetitive(text, config.max_repeated_token_ratio, config.repetition_min_tokens)
    )


def check_document(kept: Sequence[str], sentence_reasons: Sequence[str], config: FilterConfig) -> str | None:
    """The document rule: `None` to keep, else a reason.

    A document with no sentence left takes the most frequent sentence reason (ties go to the reason seen
    first), so a single too-short comment is reported as `too_short`, not as a generic document rule.
    """
    if not kept:
        if not sentence_reasons:
            return "empty"
        counts = Counter(sentence_reasons)
        best = max(counts.values())
        return next(r for r in sentence_reasons if counts[r] == best)
    if len(kept) < config.min_sentences:
        return "too_few_sentences"
    return None
