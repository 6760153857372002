"""Pure packing of tokenized documents into fixed-length training sequences (no Beam, no tokenizer).

Layouts:
- `pair` (default, ELECTRA/BERT): `[CLS] A [SEP] B [SEP]`, `token_type_ids` 0 for `[CLS] A [SEP]` and 1 for
  `B [SEP]`. Sequences are filled greedily with whole sentences of one document; a sequence never crosses a
  document. With `single_segment_prob` a sequence is `[CLS] A [SEP]` only; with `short_seq_prob` its target
  length is drawn from `[min_target_length, max_length]` (ELECTRA uses 0.1 and 0.05).
- `single`: always `[CLS] A [SEP]`, whole sentences of one document.
- `cross_document`: a stream of documents separated by `[SEP]`, cut every `max_length` tokens regardless of
  sentence and document boundaries (`[CLS] d1 [SEP] d2 [SEP] ... [SEP]`); for models without segment
  embeddings. Only the last sequence of a stream is short.

No token is ever dropped: a sentence longer than a sequence's room is split into pieces, and the sentences
that do not fit start the next sequence. Randomness comes from an RNG seeded by (seed, document id), so the
output does not depend on how documents are bundled or ordered across workers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

LAYOUTS = ("pair", "single", "cross_document")
UINT16_LIMIT = 1 << 16


@dataclasses.dataclass(frozen=True)
class PackConfig:
    """How sequences are laid out. `max_length` counts the special tokens."""

    max_length: int = 512
    layout: str = "pair"
    single_segment_prob: float = 0.0
    short_seq_prob: float = 0.0
    min_target_length: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}; valid: {', '.join(LAYOUTS)}")
        if self.max_length < 8:
            raise ValueError(f"max_length must be at least 8, got {self.max_length}")
        for name in ("single_segment_prob", "short_seq_prob"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value}")
        if not 4 <= self.min_target_length <= self.max_length:
            raise ValueError(f"min_target_length must be in [4, max_length], got {self.min_target_length}")


@dataclasses.dataclass(frozen=True)
class SpecialIds:
    """Token ids the packer inserts."""

    cls: int
    sep: int
    pad: int


@dataclasses.dataclass(frozen=True)
class TokenizedDoc:
    """A document's sentences as token ids (no special tokens): `ids` concatenated, `lengths` per sentence."""

    id: str
    ids: np.ndarray
    lengths: np.ndarray

    @property
    def num_tokens(self) -> int:
        return int(self.ids.shape[0])

    def sentences(self) -> list[np.ndarray]:
        bounds = np.cumsum(self.lengths)
        return [s for s in np.split(self.ids, bounds[:-1]) if s.shape[0]] if self.lengths.shape[0] else []


@dataclasses.dataclass(frozen=True)
class PackedSequence:
    """One training sequence: `input_ids` with specials, 0/1 `token_type_ids`, 0/1 `special_tokens_mask`."""

    input_ids: np.ndarray
    token_type_ids: np.ndarray
    special_tokens_mask: np.ndarray
    doc_id: str

    @property
    def length(self) -> int:
        return int(self.input_ids.shape[0])


def ids_dtype(vocab_size: int) -> np.dtype:
    """uint16 when every id (0 .. vocab_size-1, added tokens included) fits in 16 bits, else uint32."""
    if vocab_size <= 0:
        raise ValueError(f"vocab_size must be positive, got {vocab_size}")
    return np.dtype(np.uint16) if vocab_size <= UINT16_LIMIT else np.dtype(np.uint32)


def doc_rng(seed: int, doc_id: str) -> random.Random:
    """The per-document RNG: same seed and id, same draws, whatever the bundling."""
    digest = hashlib.blake2b(f"{seed}\x00{doc_id}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _split_long(sentences: Iterable[np.ndarray], room: int) -> Iterator[np.ndarray]:
    """Pieces of at most `room` tokens; an over-long sentence is cut, never dropped."""
    for sentence in sentences:
        if sentence.shape[0] <= room:
            yield sentence
        else:
            for start in range(0, sentence.shape[0], room):
                yield sentence[start : start + room]


def _target_content(config: PackConfig, rng: random.Random, specials: int) -> int:
    target = config.max_length
    if config.short_seq_prob and rng.random() < config.short_seq_prob:
        target = rng.randint(config.min_target_length, config.max_length)
    return target - specials


def _choose_split(units: Sequence[np.ndarray], rng: random.Random) -> int:
    """How many leading units form segment A (ELECTRA's rule: about half, a coin flip at the straddle)."""
    total = sum(u.shape[0] for u in units)
    half = total // 2
    first = 0
    for k, unit in enumerate(units[:-1]):
        size = unit.shape[0]
        if k == 0 or first + size < half or (first < half and rng.random() < 0.5):
            first += size
            continue
        return k
    return len(units) - 1


def _assemble(a: Sequence[np.ndarray], b: Sequence[np.ndarray], special: SpecialIds, doc_id: str) -> PackedSequence:
    cls = np.array([special.cls], dtype=np.int64)
    sep = np.array([special.sep], dtype=np.int64)
    parts_a = [cls, *a, sep]
    len_a = sum(p.shape[0] for p in parts_a)
    parts = parts_a + ([*b, sep] if b else [])
    input_ids = np.concatenate(parts).astype(np.int64, copy=False)
    types = np.zeros(input_ids.shape[0], dtype=np.uint8)
    types[len_a:] = 1
    mask = np.zeros(input_ids.shape[0], dtype=np.uint8)
    mask[0] = 1
    mask[len_a - 1] = 1
    mask[-1] = 1
    return PackedSequence(input_ids, types, mask, doc_id)


def pack_document(doc: TokenizedDoc, config: PackConfig, special: SpecialIds) -> list[PackedSequence]:
    """Pack one document's sentences into sequences (`pair` or `single` layout)."""
    if config.layout == "cross_document":
        raise ValueError("cross_document packing spans documents: use pack_documents()")
    rng = doc_rng(config.seed, doc.id)
    # pair content room is max_length - 3; a single-segment sequence would have one more slot, but using the
    # same room keeps the draw order (and so the output) independent of the single/pair coin.
    specials = 3 if config.layout == "pair" else 2
    room = config.max_length - specials
    out: list[PackedSequence] = []
    current: list[np.ndarray] = []
    used = 0
    target = _target_content(config, rng, specials)

    def flush() -> None:
        nonlocal current, used, target
        single = (
            config.layout == "single"
            or len(current) == 1
            or (config.single_segment_prob and rng.random() < config.single_segment_prob)
        )
        if single:
            out.append(_assemble(current, [], special, doc.id))
        else:
            k = _choose_split(current, rng)
            out.append(_assemble(current[:k], current[k:], special, doc.id))
        current, used = [], 0
        target = _target_content(config, rng, specials)

    for unit in _split_long(doc.sentences(), room):
        size = unit.shape[0]
        if current and used + size > target:
            flush()
        if size > target:
            # the drawn short target is smaller than this piece: the piece still fits in max_length
            current, used = [unit], size
            flush()
            continue
        current.append(unit)
        used += size
    if current:
        flush()
    return out


def pack_stream(docs: Iterable[TokenizedDoc], config: PackConfig, special: SpecialIds) -> Iterator[PackedSequence]:
    """`cross_document` layout: `[CLS] d1 [SEP] d2 [SEP] ...` cut every `max_length` tokens."""
    room = config.max_length - 1  # after [CLS]
    buf: list[np.ndarray] = []
    is_sep: list[np.ndarray] = []
    used = 0
    first_doc: str | None = None
    sep = np.array([special.sep], dtype=np.int64)

    def emit() -> PackedSequence:
        ids = np.concatenate([np.array([special.cls], dtype=np.int64), *buf])
        mask = np.concatenate([np.ones(1, dtype=np.uint8), *is_sep])
        return PackedSequence(ids, np.zeros(ids.shape[0], dtype=np.uint8), mask, first_doc or "")

    for doc in docs:
        if doc.num_tokens == 0:
            continue
        # a document is its tokens then a [SEP]; cut anywhere
        pieces = [(doc.ids.astype(np.int64, copy=False), 0), (sep, 1)]
        for piece, special_flag in pieces:
            start = 0
            while start < piece.shape[0]:
                if first_doc is None:
                    first_doc = doc.id
                take = min(room - used, piece.shape[0] - start)
                buf.append(piece[start : start + take])
                is_sep.append(np.full(take, special_flag, dtype=np.uint8))
                used += take
                start += take
                if used == room:
                    yield emit()
                    buf, is_sep, used, first_doc = [], [], 0, None
                    if start < piece.shape[0]:
                        first_doc = doc.id
    if used:
        yield emit()


def pack_documents(
    docs: Iterable[TokenizedDoc], config: PackConfig, special: SpecialIds
) -> Iterator[PackedSequence]:
    """Pack documents in the given order with any layout."""
    if config.layout == "cross_document":
        yield from pack_stream(docs, config, special)
        return
    for doc in docs:
        yield from pack_document(doc, config, special)


def content_tokens(seq: PackedSequence) -> np.ndarray:
    """The corpus tokens of a sequence: everything the packer did not insert."""
    return seq.input_ids[seq.special_tokens_mask == 0]


@dataclasses.dataclass
class PackStats:
    """Token accounting of a packing run; `dropped_tokens` must be 0."""

    documents: int = 0
    corpus_tokens: int = 0
    sequences: int = 0
    content_tokens: int = 0
    special_tokens: int = 0
    padding_tokens: int = 0

    @property
    def sequence_tokens(self) -> int:
        return self.content_tokens + self.special_tokens

    @property
    def dropped_tokens(self) -> int:
        return self.corpus_tokens - self.content_tokens

    @property
    def padding_fraction(self) -> float:
        total = self.sequence_tokens + self.padding_tokens
        return self.padding_tokens / total if total else 0.0

    def add_sequence(self, seq: PackedSequence, max_length: int) -> None:
        specials = int(seq.special_tokens_mask.sum())
        self.sequences += 1
        self.special_tokens += specials
        self.content_tokens += seq.length - specials
        self.padding_tokens += max_length - seq.length

    def merge(self, other: PackStats) -> PackStats:
        return PackStats(*(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)))

    def to_dict(self) -> dict[str, int | float]:
        out: dict[str, int | float] = dataclasses.asdict(self)
        out.update(
            sequence_tokens=self.sequence_tokens,
            dropped_tokens=self.dropped_tokens,
            padding_fraction=round(self.padding_fraction, 6),
        )
        return out
