"""Quality filters: pure functions that keep a sentence or document, or name the reason to drop it.

Each sentence rule returns `None` to keep or a reason string (`"too_short"`); the reason becomes the counter
`filter:dropped:<reason>` and the `reason` of the `Dropped` record. `check_sentence` runs the rules in a fixed
order so a line that breaks several rules always gets the same, most specific reason. The repetition rules
(the sentence spam rule and Gopher's document rules) live in `transforms/rules/repetition.py`.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

from kcorpus.transforms.korean import MASK_RUNS
from kcorpus.transforms.rules.letter_stats import letter_stats
from kcorpus.transforms.rules.pii import PII_MODES
from kcorpus.transforms.rules.repetition import document_repetition_reason, may_be_spam, spam_reason
from kcorpus.transforms.text.rewrites import MASK_MODES, PLACEHOLDER, PLACEHOLDER_MODES

_NOT_WORD = re.compile(r"[\W_]+")
# A final ending on a Hangul word (the predicate of a Korean sentence), then only closing punctuation.
_KOREAN_PREDICATE = re.compile(r"[가-힣](?:다|요|까|죠)[.!?…~\"'”’」』)\]\s]*$")
_PLACEHOLDER = PLACEHOLDER
_FRACTIONS = (
    "min_hangul_ratio",
    "max_repeated_token_ratio",
    "dup_line_fraction",
    "dup_line_char_fraction",
    "dup_paragraph_fraction",
    "dup_paragraph_char_fraction",
)


@dataclasses.dataclass(frozen=True)
class FilterConfig:
    """Filter thresholds and preparation rewrites (the `filters:` section of a profile).

    Attributes:
        min_chars: drop sentences shorter than this (KcELECTRA: 10 characters).
        max_chars: drop sentences longer than this (0 disables); such lines are tables, lists, run-ons.
        min_hangul_ratio: drop sentences whose Hangul share of letters (Hangul, Latin, digits, any script's
            letters; not punctuation, symbols or spaces) is below this.
        drop_ooo_only: drop sentences that are only masks (`OOO`, `***`, the mask token) and punctuation.
        max_repeated_token_ratio: drop a sentence as `repetitive` when one token, or runs of one short unit
            repeated back to back, make up at least this share of its letters (`좋아요 좋아요 좋아요`). 0 disables.
        repetition_min_tokens: the token share is only checked from this many tokens.
        repeated_unit_min_repeats: a unit counts as a run from this many back-to-back copies.
        repeated_unit_max_chars: the longest unit (in letters) a run is made of.
        dup_line_fraction: Gopher: drop documents where more than this share of the kept lines (sentences, or
            comments) repeat an earlier one (`dup_lines`). 0 disables.
        dup_line_char_fraction: ... where the repeated lines hold more than this share of characters
            (`dup_line_chars`).
        dup_paragraph_fraction, dup_paragraph_char_fraction: the same over the source's lines (paragraphs):
            `dup_paragraphs`, `dup_paragraph_chars`.
        top_ngram_char_fractions: Gopher: the most frequent word n-gram (n = 2, 3, 4, ...) may cover at most
            this share of the characters (`top_2gram`, ...); 0 disables one n.
        dup_ngram_char_fractions: word n-grams (n = 5, 6, ...) that occur twice or more may cover at most this
            share of the characters (`dup_5gram`, ...); 0 disables one n.
        repetition_min_lines: the line and paragraph rules apply from this many lines (paragraphs).
        repetition_min_words: the n-gram rules apply from this many words (eojeol).
        max_punctuation_run: runs of one punctuation character are squeezed to this length before cleaning
            (`......` -> `...`); 0 disables.
        masks: `keep`, `remove` (a space) or `replace` (by `mask_token`) every mask run (`OOO`, `OO`, `○○`,
            `***`), before cleaning and whatever its length.
        mask_token: the one token masks become with `masks: replace`.
        placeholders: WikiExtractor's `formula_N`/`codice_N`: `replace` them by `formula_token`/`code_token`
            (one a bracket holds alone goes with its bracket, a line of them goes), `remove` them (with their
            brackets), or `drop` the sentence that holds one (reason `placeholder`).
        formula_token, code_token: what `formula_N` and `codice_N` become with `placeholders: replace`.
        min_sentences: drop documents with fewer kept sentences than this.
        pii: personal data (`transforms/rules/pii.py`): `mask` it with typed tokens (`[PHONE]`), `drop` the
            documents that hold any (reason `pii`), or `keep` it untouched.
    """

    min_chars: int = 10
    max_chars: int = 2000
    min_hangul_ratio: float = 0.3
    drop_ooo_only: bool = True
    max_repeated_token_ratio: float = 0.8
    repetition_min_tokens: int = 3
    repeated_unit_min_repeats: int = 3
    repeated_unit_max_chars: int = 8
    dup_line_fraction: float = 0.30
    dup_line_char_fraction: float = 0.20
    dup_paragraph_fraction: float = 0.30
    dup_paragraph_char_fraction: float = 0.20
    top_ngram_char_fractions: tuple[float, ...] = (0.20, 0.18, 0.16)
    # Gopher's 0.15 ... 0.10, doubled: on a month of petitions they dropped 27 of 662 documents, most of
    # them ordinary ones that restate their title, a law's name or their demand (bench/RESULTS.md).
    dup_ngram_char_fractions: tuple[float, ...] = (0.30, 0.28, 0.26, 0.24, 0.22, 0.20)
    repetition_min_lines: int = 3
    # 100 dropped a 162-eojeol petition quoting one law clause twice (dup_7gram); from 300 eojeol (about
    # 1,400 characters) a repeated passage is no longer one quote or one restated plea (bench/RESULTS.md).
    repetition_min_words: int = 300
    max_punctuation_run: int = 3
    masks: str = "keep"
    mask_token: str = "OOO"
    # Replaced, not dropped: dropping the sentences cost kept Wikipedia articles up to half their Hangul, and a
    # token reads where a hole would not ("힘의 세기가 [수식]인 경우"; bench/RESULTS.md).
    placeholders: str = "replace"
    formula_token: str = "[수식]"
    code_token: str = "[코드]"
    min_sentences: int = 1
    pii: str = "mask"

    def __post_init__(self) -> None:
        if min(self.min_chars, self.max_chars, self.min_sentences, self.max_punctuation_run) < 0:
            raise ValueError("filters: min_chars, max_chars, min_sentences and max_punctuation_run must be >= 0")
        if self.max_chars and self.max_chars < self.min_chars:
            raise ValueError(f"filters: max_chars {self.max_chars} < min_chars {self.min_chars}")
        for name in _FRACTIONS:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"filters: {name} must be in [0, 1], got {getattr(self, name)}")
        for name in ("top_ngram_char_fractions", "dup_ngram_char_fractions"):
            if not all(0.0 <= f <= 1.0 for f in getattr(self, name)):
                raise ValueError(f"filters: every {name} must be in [0, 1], got {list(getattr(self, name))}")
        for name in ("repetition_min_tokens", "repetition_min_lines", "repetition_min_words"):
            if getattr(self, name) < 0:
                raise ValueError(f"filters: {name} must be >= 0, got {getattr(self, name)}")
        if self.repeated_unit_min_repeats < 2 or self.repeated_unit_max_chars < 1:
            raise ValueError(
                "filters: repeated_unit_min_repeats must be >= 2 and repeated_unit_max_chars >= 1"
            )
        if self.masks not in MASK_MODES:
            raise ValueError(f"filters: masks must be one of {MASK_MODES}, got {self.masks!r}")
        if not self.mask_token or any(c.isspace() for c in self.mask_token):
            raise ValueError(
                f"filters: mask_token must be a non-empty token without spaces, got {self.mask_token!r}"
            )
        if self.placeholders not in PLACEHOLDER_MODES:
            raise ValueError(
                f"filters: placeholders must be one of {PLACEHOLDER_MODES}, got {self.placeholders!r}"
            )
        for name in ("formula_token", "code_token"):
            token = getattr(self, name)
            if not token or any(c.isspace() for c in token) or PLACEHOLDER.search(token):
                raise ValueError(
                    f"filters: {name} must be a non-empty token without spaces or placeholders, got {token!r}"
                )
        if self.pii not in PII_MODES:
            raise ValueError(f"filters.pii must be one of {PII_MODES}, got {self.pii!r}")


def is_empty(text: str) -> str | None:
    """Drop sentences that are empty or only whitespace (what cleaning leaves of emoji-only lines)."""
    return "empty" if not text.strip() else None


def is_ooo_only(text: str, mask_token: str = "OOO") -> str | None:
    """Drop lines made of masks (`OOO`, `***`, `mask_token`) and nothing else but punctuation and spaces."""
    if mask_token not in text and not _may_hold_mask_run(text):
        return None
    unmasked = MASK_RUNS.sub("", text.replace(mask_token, ""))
    if unmasked == text:
        return None
    return "ooo_only" if not _NOT_WORD.sub("", unmasked) else None


def _may_hold_mask_run(text: str) -> bool:
    """False when `korean.MASK_RUNS` cannot match: every run it matches holds one of these substrings."""
    return "OO" in text or "**" in text or "○" in text or "◯" in text or "〇" in text


def holds_placeholder(text: str) -> str | None:
    """Drop sentences that hold a WikiExtractor `formula_N`/`codice_N` placeholder (`placeholders: drop`; by
    default preparation replaces them before the sentence rules run): the formula or code it stands for is
    lost, and removing the placeholder alone leaves a hole ("점근 표기법 를 사용하여")."""
    return "placeholder" if "_" in text and _PLACEHOLDER.search(text) else None


def too_short(text: str, min_chars: int) -> str | None:
    """Drop lines shorter than `min_chars` characters, spaces included (the KcELECTRA rule)."""
    return "too_short" if len(text) < min_chars else None


def too_long(text: str, max_chars: int) -> str | None:
    """Drop lines longer than `max_chars` characters; 0 disables."""
    return "too_long" if max_chars and len(text) > max_chars else None


def hangul_ratio(text: str) -> float:
    """The share of Hangul among the letters of `text`: Hangul, Latin, digits and other scripts' letters
    count; spaces, punctuation and symbols do not (`했길래......` is all Hangul). 0.0 without letters."""
    _, letters, hangul, _, _ = letter_stats(text)
    return hangul / letters if letters else 0.0


def low_hangul(text: str, min_ratio: float) -> str | None:
    """Drop lines that are mostly not Korean (code, English boilerplate, numbers) or have no letter at all; a
    line that ends in a Korean predicate is Korean whatever its Latin share (`ends_in_korean_predicate`)."""
    if min_ratio and hangul_ratio(text) < min_ratio and not ends_in_korean_predicate(text):
        return "low_hangul"
    return None


def ends_in_korean_predicate(text: str) -> bool:
    """Whether a line ends in a Korean predicate: a Hangul word ending in a final ending (`-다`, `-요`, `-까`,
    `-죠`), then only closing punctuation (`그 외 Tokyo Prefecture와 Osaka Prefecture가 있다.`)."""
    return _KOREAN_PREDICATE.search(text) is not None


def repetitive(text: str, config: FilterConfig) -> str | None:
    """Drop true spam: one token or one short unit repeated makes up nearly the whole sentence."""
    return spam_reason(
        text,
        config.max_repeated_token_ratio,
        config.repetition_min_tokens,
        config.repeated_unit_min_repeats,
        config.repeated_unit_max_chars,
    )


def check_sentence(text: str, config: FilterConfig) -> str | None:
    """Every sentence rule in a fixed order: `None` to keep, else the first rule's reason.

    The same as `is_empty`, `holds_placeholder`, `is_ooo_only`, `too_short`, `too_long`, `low_hangul` and
    `repetitive` in turn; the last two share one pass that cuts the sentence into letter tokens (the hot loop
    of every build).
    """
    # `is_empty`, `holds_placeholder`, `too_short` and `too_long` inlined (a call costs more than their test); `isspace` is True
    # exactly for the non-empty texts that `strip` empties.
    if not text or text.isspace():
        return "empty"
    if "_" in text and _PLACEHOLDER.search(text):
        return "placeholder"
    reason = (is_ooo_only(text, config.mask_token) if config.drop_ooo_only else None) or (
        "too_short" if len(text) < config.min_chars else None
    )
    if reason is None and config.max_chars and len(text) > config.max_chars:
        reason = "too_long"
    if reason or not (config.min_hangul_ratio or config.max_repeated_token_ratio):
        return reason
    # One pass counts what `low_hangul` and the spam rule's necessary conditions need; only the rare sentence
    # that meets those has its tokens built.
    tokens, letters, hangul, distinct_letters, distinct_tokens = letter_stats(text)
    if (
        config.min_hangul_ratio
        and (hangul / letters if letters else 0.0) < config.min_hangul_ratio
        and not ends_in_korean_predicate(text)
    ):
        return "low_hangul"
    share = config.max_repeated_token_ratio
    if share and may_be_spam(
        tokens,
        letters,
        distinct_tokens,
        distinct_letters,
        share,
        config.repetition_min_tokens,
        config.repeated_unit_min_repeats,
        config.repeated_unit_max_chars,
    ):
        return repetitive(text, config)
    return None


def check_document(
    kept: Sequence[str],
    sentence_reasons: Sequence[str],
    config: FilterConfig,
    paragraphs: Sequence[str] | None = None,
) -> str | None:
    """The document rules: `None` to keep, else a reason.

    A document with no sentence left takes the most frequent sentence reason (ties go to the reason seen
    first), so a single too-short comment is reported as `too_short`, not as a generic document rule. Then
    `min_sentences`, then the repetition rules over the kept sentences and `paragraphs` (the kept sentences of
    each source line joined by "\\n"; the kept sentences themselves when not given).
    """
    if not kept:
        if not sentence_reasons:
            return "empty"
        counts = Counter(sentence_reasons)
        best = max(counts.values())
        return next(r for r in sentence_reasons if counts[r] == best)
    if len(kept) < config.min_sentences:
        return "too_few_sentences"
    return document_repetition_reason(
        kept,
        kept if paragraphs is None else paragraphs,
        line_fractions=(config.dup_line_fraction, config.dup_line_char_fraction),
        paragraph_fractions=(config.dup_paragraph_fraction, config.dup_paragraph_char_fraction),
        top_fractions=config.top_ngram_char_fractions,
        dup_fractions=config.dup_ngram_char_fractions,
        min_lines=config.repetition_min_lines,
        min_words=config.repetition_min_words,
    )
