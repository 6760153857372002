"""SentencePiece model files: read the few fields kcorpus needs, and append pieces (`vocab-merge`).

A small protobuf wire-format reader and writer: sentencepiece's generated protobuf module pins a protobuf
runtime version. Appending: the base's pieces, ids and scores stay as they are; each appended piece is a
NORMAL piece scored below the base's lowest NORMAL score, in the given order (earlier pieces score higher). For
a unigram model an appended piece therefore never outranks a base piece of its own: Viterbi picks it where it
beats the base's best segmentation of the same text (always where the base has no piece for a character). For
a BPE model its merge ranks after every base merge. The result is a valid model file that `sentencepiece` and
`tokenizers` load.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterator, Sequence
from typing import Any

from kcorpus.transforms.korean import CLS, MASK, PAD, SEP, UNK

# Scores go down by this step per appended piece. A BPE model's scores are minus the merge rank, so a step of
# one keeps its convention; unigram scores are log probabilities, where appended pieces stay close together.
SCORE_STEP = {"unigram": 0.001, "bpe": 1.0}
_PIECES_FIELD = 1


@dataclasses.dataclass(frozen=True)
class SpmModel:
    """What a SentencePiece model file says about itself."""

    pieces: list[tuple[str, float]]
    piece_types: list[int]
    model_type: str
    byte_fallback: bool
    precompiled_charsmap: bytes = b""  # the normalizer's rules (nmt_nfkc, ...); empty for identity


_SPM_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}
SPM_NORMAL, SPM_UNKNOWN, SPM_CONTROL, SPM_USER_DEFINED, SPM_UNUSED, SPM_BYTE = 1, 2, 3, 4, 5, 6


def read_spm_model(model_proto: bytes) -> SpmModel:
    """Parse the few ModelProto fields we need (pieces, trainer_spec.model_type/byte_fallback,
    normalizer_spec.precompiled_charsmap)."""
    pieces: list[tuple[str, float]] = []
    types: list[int] = []
    model_type, byte_fallback, charsmap = 1, False, b""
    for field, value in _proto_fields(model_proto):
        if field == 1:  # repeated SentencePiece {1: piece, 2: score (float), 3: type}
            piece, score, kind = "", 0.0, SPM_NORMAL
            for sub, sub_value in _proto_fields(value):
                if sub == 1:
                    piece = sub_value.decode("utf-8")
                elif sub == 2:
                    score = struct.unpack("<f", sub_value)[0]
                elif sub == 3:
                    kind = sub_value
            pieces.append((piece, score))
            types.append(kind)
        elif field == 2:  # TrainerSpec {3: model_type, 35: byte_fallback}
            for sub, sub_value in _proto_fields(value):
                if sub == 3:
                    model_type = sub_value
                elif sub == 35:
                    byte_fallback = bool(sub_value)
        elif field == 3:  # NormalizerSpec {2: precompiled_charsmap}
            for sub, sub_value in _proto_fields(value):
                if sub == 2:
                    charsmap = bytes(sub_value)
    if not pieces:
        raise ValueError("no pieces in the model")
    return SpmModel(pieces, types, _SPM_TYPES.get(model_type, "unigram"), byte_fallback, charsmap)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated protobuf varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _proto_fields(data: bytes) -> Iterator[tuple[int, Any]]:
    """(field number, value) pairs: int for varints, bytes for length-delimited and fixed-width fields."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos : pos + length], pos + length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, pos = data[pos : pos + width], pos + width
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if pos > len(data):
            raise ValueError("truncated protobuf field")
        yield field, value


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def piece_message(piece: str, score: float, kind: int = SPM_NORMAL) -> bytes:
    """One `ModelProto.pieces` entry: SentencePiece {1: piece, 2: score, 3: type}."""
    text = piece.encode("utf-8")
    body = b"\x0a" + _varint_bytes(len(text)) + text + b"\x15" + struct.pack("<f", score) + b"\x18" + bytes([kind])
    return b"\x0a" + _varint_bytes(len(body)) + body


def _top_level_fields(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(field number, start, end) of every top-level field of a serialized message."""
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            pos += length
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield key >> 3, start, pos


def appended_scores(model_proto: bytes, count: int) -> list[float]:
    """Scores for `count` appended pieces: below the base's lowest NORMAL score, decreasing."""
    spm = read_spm_model(model_proto)
    normal = [score for (_, score), kind in zip(spm.pieces, spm.piece_types) if kind == SPM_NORMAL]
    lowest = min(normal, default=0.0)
    step = SCORE_STEP.get(spm.model_type, SCORE_STEP["unigram"])
    return [lowest - step * (i + 1) for i in range(count)]


def append_pieces(model_proto: bytes, pieces: Sequence[str]) -> bytes:
    """The model with `pieces` appended after its last piece (ids len(base)...), scored by `appended_scores`."""
    existing = {p for p, _ in read_spm_model(model_proto).pieces}
    clash = [p for p in pieces if p in existing or not p]
    if clash or len(set(pieces)) != len(pieces):
        raise ValueError(f"cannot append empty, duplicate or present pieces: {clash[:5]}")
    added = b"".join(piece_message(p, s) for p, s in zip(pieces, appended_scores(model_proto, len(pieces))))
    return _after_last_piece(model_proto, added)


def _after_last_piece(model_proto: bytes, messages: bytes) -> bytes:
    spans = list(_top_level_fields(model_proto))
    last_piece_end = max(end for field, _, end in spans if field == _PIECES_FIELD)
    return model_proto[:last_piece_end] + messages + model_proto[last_piece_end:]


@dataclasses.dataclass(frozen=True)
class SpecialsAdded:
    """What `with_bert_specials` changed: the unknown piece's old name (or None), the pieces appended."""

    renamed_unknown: str | None
    appended: list[str]

    def notice(self) -> str:
        parts = []
        if self.renamed_unknown is not None:
            parts.append(f"its unknown piece {self.renamed_unknown} is now {BERT_UNK} (same id)")
        if self.appended:
            parts.append(f"{' '.join(self.appended)} appended after its pieces")
        return "; ".join(parts)


# BERT's specials as kcorpus's own SentencePiece vocabs have them (train-vocab): [PAD] a control piece,
# [CLS] [SEP] [MASK] user-defined (matched in text), [UNK] the unknown piece.
BERT_UNK = UNK
BERT_SPECIAL_PIECES = ((PAD, SPM_CONTROL), (CLS, SPM_USER_DEFINED), (SEP, SPM_USER_DEFINED), (MASK, SPM_USER_DEFINED))


def with_bert_specials(model_proto: bytes) -> tuple[bytes, SpecialsAdded]:
    """A stock SentencePiece model (`<unk> <s> </s>`, like KoBERT's) with BERT's specials: the unknown piece
    renamed `[UNK]` where the model has no `[UNK]` (its id stays), and the specials it lacks appended after its
    pieces (score 0, as SentencePiece gives special pieces). Every other piece keeps its id, score and type."""
    spm = read_spm_model(model_proto)
    names = [p for p, _ in spm.pieces]
    renamed = None
    if BERT_UNK not in names and SPM_UNKNOWN in spm.piece_types:
        index = spm.piece_types.index(SPM_UNKNOWN)
        renamed = names[index]
        spans = [(start, end) for field, start, end in _top_level_fields(model_proto) if field == _PIECES_FIELD]
        start, end = spans[index]
        message = piece_message(BERT_UNK, spm.pieces[index][1], SPM_UNKNOWN)
        model_proto = model_proto[:start] + message + model_proto[end:]
    missing = [(piece, kind) for piece, kind in BERT_SPECIAL_PIECES if piece not in names]
    if missing:
        model_proto = _after_last_piece(model_proto, b"".join(piece_message(p, 0.0, k) for p, k in missing))
    return model_proto, SpecialsAdded(renamed, [p for p, _ in missing])


def bpe_reachable(base: Sequence[str], candidates: Sequence[str]) -> list[str]:
    """The candidates a BPE model can build: one character, or a merge of two pieces it can build."""
    known = set(base)
    reachable = {p for p in candidates if len(p) == 1}
    pending = [p for p in candidates if len(p) > 1]
    changed = True
    while changed:
        changed = False
        for piece in pending:
            if piece in reachable:
                continue
            if any(
                (piece[:cut] in known or piece[:cut] in reachable) and (piece[cut:] in known or piece[cut:] in reachable)
                for cut in range(1, len(piece))
            ):
                reachable.add(piece)
                changed = True
    return [p for p in candidates if p in reachable]
