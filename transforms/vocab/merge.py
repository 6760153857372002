"""Merge vocabularies the KcELECTRA way: keep BASE's ids, append OTHER's missing tokens in OTHER's order.

The merged vocab has BASE's kind and convention. Into a WordPiece BASE, a SentencePiece OTHER is respelled
`▁x` -> `x`, `x` -> `##x` (its byte pieces and the bare `▁` have no WordPiece equivalent: skipped, counted).
Into a SentencePiece BASE, a WordPiece OTHER is respelled `x` -> `▁x` (a word start), `##x` -> `x`; byte
pieces are skipped (a byte-fallback BASE has its own). Special tokens are never appended.
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
    skipped_unreachable: int = 0  # BPE BASE: pieces no merge of its pieces can build

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "tokens"} | {"size": len(self.tokens)}

    def keep_appended(self, kept: Sequence[str]) -> MergeResult:
        """The same merge with only `kept` of the appended tokens (in their order); the rest counted unreachable."""
        appended = self.tokens[self.base_size :]
        keep = set(kept)
        tail = [t for t in appended if t in keep]
        return dataclasses.replace(self, tokens=self.tokens[: self.base_size] + tail, appended=len(tail),
                                   skipped_unreachable=self.skipped_unreachable + len(appended) - len(tail))


def to_wordpiece_convention(token: str) -> str | None:
    """A SentencePiece piece in WordPiece spelling, or None when it has none (bytes, a bare `▁`)."""
    if is_byte_piece(token):
        return None
    if token.startswith(SPM_SPACE):
        word = token[len(SPM_SPACE) :]
        return word or None
    return WORDPIECE_PREFIX + token


def to_sentencepiece_convention(token: str) -> str | None:
    """A WordPiece token in SentencePiece spelling (`x` -> `▁x`, `##x` -> `x`), or None for a byte piece."""
    if is_byte_piece(token):
        return None
    if token.startswith(WORDPIECE_PREFIX) and len(token) > len(WORDPIECE_PREFIX):
        return token[len(WORDPIECE_PREFIX) :]
    return SPM_SPACE + token


def merge_vocabs(
    base: Sequence[str],
    other: Sequence[str],
    *,
    other_is_sentencepiece: bool = False,
    base_is_sentencepiece: bool = False,
) -> MergeResult:
    """BASE unchanged, then every token of OTHER that BASE lacks (in BASE's spelling), in OTHER's order, once."""
    merged = list(base)
    present = set(base)
    appended = special = already = unconvertible = converted = 0
    respell = None
    if other_is_sentencepiece and not base_is_sentencepiece:
        respell = to_wordpiece_convention
    elif base_is_sentencepiece and not other_is_sentencepiece:
        respell = to_sentencepiece_convention
    for token in other:
        if is_special_token(token):
            special += 1
            continue
        if base_is_sentencepiece and is_byte_piece(token):
            unconvertible += 1
            continue
        if respell is not None:
            spelled = respell(token)
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
