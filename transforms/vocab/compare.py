"""Compare two vocabularies: exact and convention-normalized overlap, and encoding figures on a corpus.

Normalized form: a token's surface text with its position made explicit the same way for both conventions,
`▁x` (starts a word) or `x` (inside a word). WordPiece `x` becomes `▁x` and `##x` becomes `x`; SentencePiece
pieces are already spelled so. Special tokens and byte pieces are left out of the normalized comparison.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from kcorpus.transforms.korean import all_syllables, is_hangul_syllable
from kcorpus.transforms.vocab.checks import jamo_tokens, strip_marker
from kcorpus.transforms.vocab.files import (
    SPM_SPACE,
    WORDPIECE,
    WORDPIECE_PREFIX,
    LoadedVocab,
    is_byte_piece,
    is_special_token,
)

MAX_EXAMPLES = 50
MAX_TOKEN_LENGTH_BIN = 8


def ks_x_1001_syllables() -> list[str]:
    """The 2,350 Hangul syllables of KS X 1001 (EUC-KR rows 0xB0-0xC8, cells 0xA1-0xFE)."""
    return [bytes([row, cell]).decode("euc-kr") for row in range(0xB0, 0xC9) for cell in range(0xA1, 0xFF)]


def normalized_token(token: str, kind: str) -> str | None:
    if is_special_token(token) or is_byte_piece(token) or token == SPM_SPACE:
        return None
    if kind == WORDPIECE:
        if token.startswith(WORDPIECE_PREFIX) and len(token) > len(WORDPIECE_PREFIX):
            return token[len(WORDPIECE_PREFIX) :]
        return SPM_SPACE + token
    return token


def set_comparison(a: Iterable[str], b: Iterable[str]) -> dict[str, Any]:
    set_a, set_b = set(a), set(b)
    overlap, union = set_a & set_b, set_a | set_b
    return {
        "size_a": len(set_a),
        "size_b": len(set_b),
        "overlap": len(overlap),
        "only_a": len(set_a - set_b),
        "only_b": len(set_b - set_a),
        "union": len(union),
        "jaccard": round(len(overlap) / len(union), 6) if union else 0.0,
    }


def _examples(tokens: Sequence[str], other: set[str]) -> list[str]:
    """The first tokens (in id order) missing from `other`, skipping specials."""
    return [t for t in tokens if t not in other and not is_special_token(t)][:MAX_EXAMPLES]


def frequent_only(tokens: Sequence[str], other: set[str], uses: Counter[int]) -> list[list[Any]]:
    """`[token, uses]` of the tokens missing from `other` that the corpus uses most (ties in id order),
    skipping specials and tokens it never uses."""
    ids = [i for i, t in enumerate(tokens) if uses[i] and t not in other and not is_special_token(t)]
    ids.sort(key=lambda i: (-uses[i], i))
    return [[tokens[i], uses[i]] for i in ids[:MAX_EXAMPLES]]


def token_script(token: str) -> str:
    text = strip_marker(token)
    if is_special_token(token) or is_byte_piece(token):
        return "special/byte"
    if all(is_hangul_syllable(c) for c in text):
        return "hangul"
    if all("a" <= c.lower() <= "z" for c in text):
        return "latin"
    if text.isdigit():
        return "digit"
    if all(unicodedata.category(c).startswith(("P", "S")) for c in text):
        return "punct/symbol"
    if any(is_hangul_syllable(c) for c in text):
        return "hangul+other"
    return "other"


def vocab_profile(vocab: LoadedVocab) -> dict[str, Any]:
    """Intrinsic figures: sizes, length and script histograms, syllable coverage, jamo tokens."""
    singles = {strip_marker(t) for t in vocab.tokens if len(strip_marker(t)) == 1}
    lengths = Counter(min(len(strip_marker(t)), MAX_TOKEN_LENGTH_BIN) for t in vocab.tokens
                      if not is_special_token(t))
    ks = ks_x_1001_syllables()
    every = all_syllables()
    return {
        "path": vocab.path,
        "kind": vocab.kind,
        "size": len(vocab.tokens),
        "specials": sum(is_special_token(t) for t in vocab.tokens),
        "continuation_tokens": sum(
            t.startswith(WORDPIECE_PREFIX) if vocab.kind == WORDPIECE else not t.startswith(SPM_SPACE)
            for t in vocab.tokens if not is_special_token(t)
        ),
        "token_length": {str(k): lengths[k] for k in sorted(lengths)},
        "script": dict(sorted(Counter(token_script(t) for t in vocab.tokens).items())),
        "ksx1001_syllables_in_vocab": sum(s in singles for s in ks),
        "all_syllables_in_vocab": sum(s in singles for s in every),
        "jamo_tokens": len(jamo_tokens(vocab.tokens)),
    }


def corpus_figures(vocab: LoadedVocab, lines: Sequence[str], uses: Counter[int] | None = None) -> dict[str, Any]:
    """Fertility (tokens per eojeol), continued words (eojeol in >1 piece), [UNK] rate, syllable coverage.

    `uses`, when given, gets how often each token id occurs in the encoded corpus."""
    words = [line.split() for line in lines]
    words = [w for w in words if w]
    encodings = vocab.tokenizer.encode_batch(words, is_pretokenized=True, add_special_tokens=False)
    if uses is not None:
        for enc in encodings:
            uses.update(enc.ids)
    unk_id = vocab.unk_id
    n_words = n_tokens = continued = unk = unk_words = 0
    for sentence, enc in zip(words, encodings):
        pieces = Counter(w for w in enc.word_ids if w is not None)
        n_words += len(sentence)
        n_tokens += len(enc.ids)
        continued += sum(1 for i in range(len(sentence)) if pieces[i] > 1)
        if unk_id is not None:
            unk_positions = [w for w, i in zip(enc.word_ids, enc.ids) if i == unk_id]
            unk += len(unk_positions)
            unk_words += len(set(unk_positions))
    syllables = Counter(c for line in lines for c in line if is_hangul_syllable(c))
    covered = _encodable(vocab, sorted(syllables))
    ks = set(ks_x_1001_syllables())
    return {
        "eojeol": n_words,
        "tokens": n_tokens,
        "fertility": round(n_tokens / n_words, 6) if n_words else 0.0,
        "continued_words": round(continued / n_words, 6) if n_words else 0.0,
        "unk_rate": round(unk / n_tokens, 6) if n_tokens else 0.0,
        "unk_words": round(unk_words / n_words, 6) if n_words else 0.0,
        "corpus_syllables": len(syllables),
        "corpus_syllables_encodable": len(covered),
        "corpus_syllable_occurrence_coverage": (
            round(sum(syllables[s] for s in covered) / sum(syllables.values()), 6) if syllables else 0.0
        ),
        "corpus_ksx1001_syllables": sum(s in ks for s in syllables),
        "corpus_non_ksx1001_syllables": sum(s not in ks for s in syllables),
    }


def _encodable(vocab: LoadedVocab, syllables: Sequence[str]) -> set[str]:
    if not syllables:
        return set()
    encodings = vocab.tokenizer.encode_batch(list(syllables), add_special_tokens=False)
    unk_id = vocab.unk_id
    return {s for s, enc in zip(syllables, encodings) if unk_id is None or unk_id not in enc.ids}


def compare_vocabs(a: LoadedVocab, b: LoadedVocab, corpus: Sequence[str] | None = None) -> dict[str, Any]:
    """The whole report as one JSON-ready dict; exact-string figures at the top level."""
    exact = set_comparison(a.tokens, b.tokens)
    norm_a = {n for t in a.tokens if (n := normalized_token(t, a.kind)) is not None}
    norm_b = {n for t in b.tokens if (n := normalized_token(t, b.kind)) is not None}
    surface_a = {n.lstrip(SPM_SPACE) or n for n in norm_a}
    surface_b = {n.lstrip(SPM_SPACE) or n for n in norm_b}
    set_a, set_b = set(a.tokens), set(b.tokens)
    report: dict[str, Any] = {
        **exact,
        "a": vocab_profile(a),
        "b": vocab_profile(b),
        "normalized": set_comparison(norm_a, norm_b),
        "surface": set_comparison(surface_a, surface_b),
        "examples_only_a": _examples(a.tokens, set_b),
        "examples_only_b": _examples(b.tokens, set_a),
        "examples_normalized_only_a": sorted(norm_a - norm_b)[:MAX_EXAMPLES],
        "examples_normalized_only_b": sorted(norm_b - norm_a)[:MAX_EXAMPLES],
    }
    if corpus is not None:
        lines = [line for line in corpus if line.strip()]
        uses_a: Counter[int] = Counter()
        uses_b: Counter[int] = Counter()
        report["corpus"] = {
            "lines": len(lines), "a": corpus_figures(a, lines, uses_a), "b": corpus_figures(b, lines, uses_b)
        }
        report["frequent_only_a"] = frequent_only(a.tokens, set_b, uses_a)
        report["frequent_only_b"] = frequent_only(b.tokens, set_a, uses_b)
    return report
