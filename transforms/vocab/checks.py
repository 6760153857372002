"""Checks run after training; a failed check makes `train-vocab` exit non-zero with the evidence.

Conjoining jamo. The training text is NFC, which composes every modern jamo run into a syllable, so jamo left in
it were typed by people (`ᆢ` as an ellipsis, `ᄏ`, the filler `ᅠ` as a blank): genuine characters, kept as
single-character tokens and counted. Decomposition shows as jamo tokens the NFC text does not contain (`ᄒ`
from `한`) or as a normalizer that turns Hangul into jamo; either fails the check unless `allow_jamo`.

Round-trip rules. SentencePiece: `decode(encode(s)) == s` for pre-normalized text (NFC, single spaces,
stripped). WordPiece: whitespace is not kept and punctuation is split off (BertPreTokenizer), so
`decode(encode(s))` must equal `wordpiece_spacing(s)`: the pre-tokenized words of `s` joined by one space,
e.g. "재밌다!!(진짜)" -> "재밌다 ! ! ( 진짜 )". Sentences containing `[UNK]` are counted, not compared.

Cost. The checks read the text's summary (`text_summary.summarize`, made while the text streams past), never
the text: every Hangul syllable of it is encoded twice, the first `round_trip` sentences are encoded and
decoded, the jamo tokens are looked up among the distinct words holding jamo. So they take about a second on
any corpus.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from kcorpus.transforms.korean import UNK, is_conjoining_jamo
from kcorpus.transforms.vocab.files import SPM_SPACE, WORDPIECE, WORDPIECE_PREFIX
from kcorpus.transforms.vocab.text_summary import TextSummary

MAX_EXAMPLES = 10


class VocabCheckError(RuntimeError):
    """A trained vocabulary failed a post-training check."""


def strip_marker(token: str) -> str:
    if token.startswith(WORDPIECE_PREFIX) and len(token) > len(WORDPIECE_PREFIX):
        return token[len(WORDPIECE_PREFIX) :]
    return token.lstrip(SPM_SPACE) or token


def jamo_tokens(tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if any(is_conjoining_jamo(c) for c in t)]


def visible_jamo(text: str) -> str:
    """`text` with each conjoining jamo as `\\uXXXX`: decomposed Hangul otherwise displays like syllables."""
    return "".join(f"\\u{ord(c):04x}" if is_conjoining_jamo(c) else c for c in text)


def decomposed_tokens(tokens: Sequence[str], jamo_words: Iterable[str]) -> list[str]:
    """Jamo tokens whose text (marker stripped) the NFC training text does not contain: made by decomposition.

    NFC composes every modern initial+medial(+final) run into a syllable, so a decomposed `한` (ᄒ+ᅡ+ᆫ) or a
    lone `ᄒ` can only appear in the NFC text where someone typed it. `jamo_words`: the text's words (or
    sentences) holding a conjoining jamo; a token holds no space, so it is in the text where it is in one of them.
    """
    candidates = jamo_tokens(tokens)
    if not candidates:
        return []
    with_jamo = "\n".join(w for w in jamo_words if any(is_conjoining_jamo(c) for c in w))
    return [t for t in candidates if strip_marker(t) not in with_jamo]


# Syllables of every shape (no final, a final, a double final) and a compatibility jamo, which NFKC turns into
# a conjoining one.
NORMALIZER_PROBE = "한국어 읽었다 ㅋㅋ"


def normalizer_decomposition(tokenizer: Any, spm_processor: Any = None) -> str | None:
    """What a normalizer that decomposes Hangul makes of `NORMALIZER_PROBE`, or None when none does."""
    outputs = []
    if getattr(tokenizer, "normalizer", None) is not None:
        outputs.append(tokenizer.normalizer.normalize_str(NORMALIZER_PROBE))
    if spm_processor is not None:
        outputs.append(spm_processor.normalize(NORMALIZER_PROBE))
    return next((out for out in outputs if any(is_conjoining_jamo(c) for c in out)), None)


def wordpiece_spacing(tokenizer: Any, text: str) -> str:
    """What WordPiece decoding gives back for `text`: its normalized, pre-tokenized words joined by spaces."""
    normalized = tokenizer.normalizer.normalize_str(text)
    return " ".join(word for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized))


def unencodable_syllables(
    tokenizer: Any, unk_id: int | None, syllables: Sequence[str], anchor: str, bar: Any = None
) -> list[str]:
    """Syllables that encode to `[UNK]` alone or inside a word (after `anchor`, a syllable known to encode)."""
    if unk_id is None or not syllables:
        return []
    texts = [s for s in syllables] + [anchor + s for s in syllables]
    encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
    _advance(bar, len(texts))
    bad = {texts[i][-1] for i, enc in enumerate(encodings) if unk_id in enc.ids}
    return sorted(bad)


def unk_rate(tokenizer: Any, sentences: Sequence[str]) -> dict[str, Any]:
    """How many of the tokens `tokenizer` makes of `sentences` are [UNK]."""
    unk_id = tokenizer.token_to_id(UNK)
    encodings = tokenizer.encode_batch(list(sentences), add_special_tokens=False)
    tokens = sum(len(enc.ids) for enc in encodings)
    unk = sum(enc.ids.count(unk_id) for enc in encodings) if unk_id is not None else 0
    return {
        "sentences": len(sentences),
        "tokens": tokens,
        "unk": unk,
        "per_token": round(unk / tokens, 6) if tokens else 0.0,
    }


@dataclasses.dataclass
class CheckReport:
    jamo_tokens: list[str]
    decomposed_tokens: list[str]
    genuine_jamo: Counter[str]
    decomposing_normalizer: str | None
    sample_syllables: int
    unencodable_syllables: list[str]
    round_trip_checked: int
    round_trip_with_unk: int
    round_trip_failures: list[dict[str, str]]
    failure_count: int
    spm_disagreements: list[str] = dataclasses.field(default_factory=list)
    spm_equal_score_ties: int = 0
    allow_jamo: bool = False
    jamo_words_kept: int = 0
    jamo_words_dropped: int = 0

    @property
    def errors(self) -> list[str]:
        errors = []
        if self.decomposed_tokens and not self.allow_jamo:
            unchecked = (
                f" (only the first {self.jamo_words_kept:,} distinct words holding jamo were kept, not "
                f"{self.jamo_words_dropped:,} later occurrences of others: pass --allow-jamo if the text has these)"
                if self.jamo_words_dropped else ""
            )
            errors.append(
                f"{len(self.decomposed_tokens)} tokens contain conjoining jamo (U+1100-U+11FF) that the NFC "
                f"training text does not contain{unchecked}, e.g. "
                f"{' '.join(map(visible_jamo, self.decomposed_tokens[:MAX_EXAMPLES]))}"
                "; the text was decomposed (NFD/NFKC)"
            )
        if self.decomposing_normalizer is not None and not self.allow_jamo:
            errors.append(
                f"the tokenizer's normalizer decomposes Hangul into conjoining jamo: {NORMALIZER_PROBE!r} -> "
                f"'{visible_jamo(self.decomposing_normalizer)}' (NFD/NFKD, NFKC or accent stripping)"
            )
        if self.unencodable_syllables:
            errors.append(
                f"{len(self.unencodable_syllables)} Hangul syllables of the sample encode to [UNK]: "
                f"{''.join(self.unencodable_syllables[:50])}"
            )
        if self.failure_count:
            errors.append(
                f"{self.failure_count} of {self.round_trip_checked} sentences do not round-trip, e.g. "
                f"{self.round_trip_failures[:3]}"
            )
        if self.spm_disagreements:
            errors.append(
                f"{len(self.spm_disagreements)} sentences encode differently with spm.model and tokenizer.json,"
                f" e.g. {self.spm_disagreements[:3]}"
            )
        return errors

    @property
    def genuine_jamo_tokens(self) -> list[str]:
        """Jamo tokens of the genuine characters: one character each, apart from a `##`/`▁` marker."""
        return [t for t in self.jamo_tokens if t not in set(self.decomposed_tokens)]

    def genuine_jamo_json(self) -> dict[str, Any]:
        """The genuine jamo of the training text: characters (by count), occurrences, the tokens holding them."""
        return {
            "characters": "".join(c for c, _ in sorted(self.genuine_jamo.items(), key=lambda x: (-x[1], x[0]))),
            "occurrences": sum(self.genuine_jamo.values()),
            "tokens": len(self.genuine_jamo_tokens),
            "single_character_tokens": sum(len(strip_marker(t)) == 1 for t in self.genuine_jamo_tokens),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": not self.errors,
            "errors": self.errors,
            "jamo_tokens": len(self.jamo_tokens),
            "decomposed_jamo_tokens": len(self.decomposed_tokens),
            "decomposing_normalizer": self.decomposing_normalizer is not None,
            "genuine_jamo": self.genuine_jamo_json(),
            "allow_jamo": self.allow_jamo,
            "sample_hangul_syllables": self.sample_syllables,
            "unencodable_syllables": "".join(self.unencodable_syllables),
            "round_trip_checked": self.round_trip_checked,
            "round_trip_with_unk": self.round_trip_with_unk,
            "round_trip_failures": self.failure_count,
            "spm_disagreements": len(self.spm_disagreements),
            "spm_equal_score_ties": self.spm_equal_score_ties,
        }


def check_vocab(
    tokenizer: Any,
    kind: str,
    tokens: Sequence[str],
    text: TextSummary,
    *,
    allow_jamo: bool = False,
    spm_processor: Any = None,
    progress: bool = False,
) -> CheckReport:
    """Run every check on a trained tokenizer against the summary of its (pre-normalized) training text.

    The round trip covers `text.round_trip`, the first sentences (`summarize(round_trip=N)`); `progress`
    shows a bar over the texts encoded.
    """
    unk_id = tokenizer.token_to_id(UNK)
    syllable_counts = text.syllables
    syllables = sorted(syllable_counts)
    # the most frequent syllable (the first in code-point order among equals): it surely encodes
    anchor = min(syllable_counts, key=lambda c: (-syllable_counts[c], c)) if syllable_counts else "가"
    checked = text.round_trip
    total = 2 * len(syllables) + len(checked) * (2 if spm_processor is not None else 1)
    bar = _check_bar(total, progress)
    unencodable = unencodable_syllables(tokenizer, unk_id, syllables, anchor, bar)

    encodings = tokenizer.encode_batch(checked, add_special_tokens=False)
    decoded = tokenizer.decode_batch([e.ids for e in encodings], skip_special_tokens=False)
    _advance(bar, len(checked))
    with_unk, failures, failure_count = _round_trip(tokenizer, kind, unk_id, checked, encodings, decoded)
    disagreements: list[str] = []
    ties = 0
    if spm_processor is not None:
        disagreements, ties = _spm_disagreements(spm_processor, checked, encodings, bar)
    if bar is not None:
        bar.close()
    return CheckReport(
        jamo_tokens=jamo_tokens(tokens),
        decomposed_tokens=decomposed_tokens(tokens, text.jamo_words),
        genuine_jamo=text.genuine_jamo,
        decomposing_normalizer=normalizer_decomposition(tokenizer, spm_processor),
        sample_syllables=len(syllables),
        unencodable_syllables=unencodable,
        round_trip_checked=len(checked),
        round_trip_with_unk=with_unk,
        round_trip_failures=failures,
        failure_count=failure_count,
        spm_disagreements=disagreements,
        spm_equal_score_ties=ties,
        allow_jamo=allow_jamo,
        jamo_words_kept=len(text.jamo_words),
        jamo_words_dropped=text.jamo_words_dropped,
    )


def _round_trip(
    tokenizer: Any, kind: str, unk_id: int | None, checked: Sequence[str], encodings: Sequence[Any],
    decoded: Sequence[str],
) -> tuple[int, list[dict[str, str]], int]:
    """The sentences whose encoding holds [UNK]; the others that do not decode back (the first
    `MAX_EXAMPLES` of them, and how many)."""
    with_unk = 0
    failures: list[dict[str, str]] = []
    failure_count = 0
    for sentence, enc, back in zip(checked, encodings, decoded):
        if unk_id is not None and unk_id in enc.ids:
            with_unk += 1
            continue
        expected = wordpiece_spacing(tokenizer, sentence) if kind == WORDPIECE else sentence
        if back != expected:
            failure_count += 1
            if len(failures) < MAX_EXAMPLES:
                failures.append({"text": sentence, "expected": expected, "decoded": back})
    return with_unk, failures, failure_count


def _spm_disagreements(
    spm_processor: Any, checked: Sequence[str], encodings: Sequence[Any], bar: Any
) -> tuple[list[str], int]:
    """The sentences SentencePiece encodes otherwise than the tokenizer, and the ties among the rest."""
    disagreements: list[str] = []
    ties = 0
    for sentence, enc in zip(checked, encodings):
        ids = spm_processor.encode(sentence)
        _advance(bar, 1)
        if ids == enc.ids:
            continue
        # Viterbi ties (equal total score, same text) may break differently in the two libraries.
        score = sum(spm_processor.get_score(i) for i in ids)
        other = sum(spm_processor.get_score(i) for i in enc.ids)
        if abs(score - other) < 1e-3 and spm_processor.decode(ids) == spm_processor.decode(enc.ids):
            ties += 1
        else:
            disagreements.append(sentence)
    return disagreements, ties


def _check_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    import sys

    from tqdm import tqdm

    return tqdm(total=total, desc="check", unit=" texts", file=sys.stderr, mininterval=0.5)


def _advance(bar: Any, count: int) -> None:
    if bar is not None:
        bar.update(count)
