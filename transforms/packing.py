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

    def to_wire(self) -> tuple[str, bytes, bytes, str]:
        """Plain (str, bytes, bytes, str) for Beam's fast tuple coder instead of pickled arrays."""
        return self.id, self.ids.tobytes(), self.lengths.tobytes(), self.ids.dtype.str

    @classmethod
    def from_wire(cls, wire: tuple[str, bytes, bytes, str]) -> TokenizedDoc:
        doc_id, ids, lengths, dtype = wire
        return cls(doc_id, np.frombuffer(ids, dtype=np.dtype(dtype)), np.frombuffer(lengths, dtype=np.uint32))


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


class _LazyRng:
    """`doc_rng` created on first use: most short documents never draw."""

    def __init__(self, seed: int, doc_id: str):
        self._seed, self._doc_id, self._rng = seed, doc_id, None

    def get(self) -> random.Random:
        if self._rng is None:
            self._rng = doc_rng(self._seed, self._doc_id)
        return self._rng


def _units(lengths: Iterable[int], room: int) -> list[tuple[int, int]]:
    """(start, end) offsets of sentences in a document's flat ids; an over-long sentence is cut into pieces
    of at most `room` tokens, never dropped."""
    units: list[tuple[int, int]] = []
    pos = 0
    for n in lengths:
        if n <= room:
            if n:
                units.append((pos, pos + n))
        else:
            units.extend((s, min(s + room, pos + n)) for s in range(pos, pos + n, room))
        pos += n
    return units


def _target_content(config: PackConfig, rng: _LazyRng, specials: int) -> int:
    target = config.max_length
    if config.short_seq_prob and rng.get().random() < config.short_seq_prob:
        target = rng.get().randint(config.min_target_length, config.max_length)
    return target - specials


def _choose_split(sizes: Sequence[int], rng: _LazyRng) -> int:
    """How many leading units form segment A (ELECTRA's rule: about half, a coin flip at the straddle)."""
    half = sum(sizes) // 2
    first = sizes[0]
    for k in range(1, len(sizes) - 1):
        size = sizes[k]
        if first + size < half or (first < half and rng.get().random() < 0.5):
            first += size
            continue
        return k
    return len(sizes) - 1


def _assemble(ids: np.ndarray, a: tuple[int, int], b: tuple[int, int] | None, special: SpecialIds,
              doc_id: str) -> PackedSequence:
    """`[CLS] ids[a] [SEP]` or `[CLS] ids[a] [SEP] ids[b] [SEP]` (segments are contiguous in the document)."""
    la = a[1] - a[0]
    lb = b[1] - b[0] if b else 0
    length = la + 2 + (lb + 1 if b else 0)
    out = np.empty(length, dtype=ids.dtype)
    out[0] = special.cls
    out[1 : la + 1] = ids[a[0] : a[1]]
    out[la + 1] = special.sep
    types = np.zeros(length, dtype=np.uint8)
    mask = np.zeros(length, dtype=np.uint8)
    mask[0] = mask[la + 1] = mask[-1] = 1
    if b:
        out[la + 2 : length - 1] = ids[b[0] : b[1]]
        out[-1] = special.sep
        types[la + 2 :] = 1
    return PackedSequence(out, types, mask, doc_id)


def pack_document(doc: TokenizedDoc, config: PackConfig, special: SpecialIds) -> list[PackedSequence]:
    """Pack one document's sentences into sequences (`pair` or `single` layout)."""
    if config.layout == "cross_document":
        raise ValueError("cross_document packing spans documents: use pack_documents()")
    rng = _LazyRng(config.seed, doc.id)
    # pair content room is max_length - 3; a single-segment sequence would have one more slot, but using the
    # same room keeps the draw order (and so the output) independent of the single/pair coin.
    specials = 3 if config.layout == "pair" else 2
    units = _units(doc.lengths.tolist(), config.max_length - specials)
    groups: list[tuple[int, int]] = []  # [first unit, last unit) of each sequence
    targets = [_target_content(config, rng, specials)]
    first, used = 0, 0
    for k, (lo, hi) in enumerate(units):
        size = hi - lo
        if k > first and used + size > targets[-1]:
            groups.append((first, k))
            targets.append(_target_content(config, rng, specials))
            first, used = k, 0
        used += size
        if used > targets[-1]:
            # the drawn short target is smaller than this piece alone: the piece still fits in max_length
            groups.append((first, k + 1))
            targets.append(_target_content(config, rng, specials))
            first, used = k + 1, 0
    if first < len(units):
        groups.append((first, len(units)))
    out: list[PackedSequence] = []
    for g_first, g_end in groups:
        group = units[g_first:g_end]
        single = (
            config.layout == "single"
            or len(group) == 1
            or (config.single_segment_prob and rng.get().random() < config.single_segment_prob)
        )
        if single:
            out.append(_assemble(doc.ids, (group[0][0], group[-1][1]), None, special, doc.id))
        else:
            k = _choose_split([hi - lo for lo, hi in group], rng)
            a, b = (group[0][0], group[k - 1][1]), (group[k][0], group[-1][1])
            out.append(_assemble(doc.ids, a, b, special, doc.id))
    return out


def pack_stream(docs: Iterable[TokenizedDoc], config: PackConfig, special: SpecialIds) -> Iterator[PackedSequence]:
    """`cross_document` layout: `[CLS] d1 [SEP] d2 [SEP] ...` cut every `max_length` tokens."""
    docs = [d for d in docs if d.num_tokens]
    if not docs:
        return
    room = config.max_length - 1  # after [CLS]
    dtype = np.result_type(*(d.ids.dtype for d in docs))
    sep = np.array([special.sep], dtype=dtype)
    stream = np.concatenate([part for d in docs for part in (d.ids, sep)]).astype(dtype, copy=False)
    ends = np.cumsum([d.num_tokens + 1 for d in docs])
    is_sep = np.zeros(stream.shape[0], dtype=np.uint8)
    is_sep[ends - 1] = 1
    for start in range(0, stream.shape[0], room):
        body = stream[start : start + room]
        ids = np.empty(body.shape[0] + 1, dtype=dtype)
        ids[0] = special.cls
        ids[1:] = body
        mask = np.empty(ids.shape[0], dtype=np.uint8)
        mask[0] = 1
        mask[1:] = is_sep[start : start + room]
        doc_id = docs[int(np.searchsorted(ends, start, side="right"))].id
        yield PackedSequence(ids, np.zeros(ids.shape[0], dtype=np.uint8), mask, doc_id)


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
