"""Merge vocabularies the KcELECTRA way: keep BASE's ids, append OTHER's missing tokens in OTHER's order.

BASE must be WordPiece (the merged vocab is written as one). OTHER may be of any kind; a SentencePiece
OTHER is first converted to the `##` convention (`▁x` -> `x`, `x` -> `##x`); its byte pieces and the bare
`▁` have no WordPiece equivalent and are counted as skipped. Special tokens are never appended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kcorpus.transforms.vocab.files import SPM_SPACE, WORDPIECE_PREFIX, is_byte_piece, is_special_token


@dataclasses.dataclass(frozen=True)
class MergeResult:
    tokens: list[str]
    base_size: int
    other_size: int
    appended: int
    skipped_special: int
    skipped_present: int
    skipped_unconvertible: int
    converted: int

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "tokens"} | {"size": len(self.tokens)}


def to_wordpiece_convention(token: str) -> str | None:
    """A SentencePiece piece in WordPiece spelling, or None when it has none (bytes, a bare `▁`)."""
    if is_byte_piece(token):
        return None
    if token.startswith(SPM_SPACE):
        word = token[len(SPM_SPACE) :]
        return word or None
    return WORDPIECE_PREFIX + token


def merge_vocabs(base: Sequence[str], other: Sequence[str], *, other_is_sentencepiece: bool = False) -> MergeResult:
    """BASE unchanged, then every token of OTHER that BASE lacks, in OTHER's order, each once."""
    merged = list(base)
    present = set(base)
    appended = special = already = unconvertible = converted = 0
    for token in other:
        if is_special_token(token):
            special += 1
            continue
        if other_is_sentencepiece:
            spelled = to_wordpiece_convention(token)
            if spelled is None:
                unconvertible += 1
                continue
            converted += spelled != token
            token = spelled
        if token in present:
            already += 1
            continue
        present.add(token)
        merged.append(token)
        appended += 1
    return MergeResult(merged, len(base), len(other), appended, special, already, unconvertible, converted)
