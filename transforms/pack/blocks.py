"""The packer's data: its config, tokenized documents and blocks of them, packed sequences as columns, and the
column building every layout shares (`packer.py` plans the `pair`/`single`/`cross_document` layouts, `nsp.py`
Google's NSP pairs; both build on this module)."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

LAYOUTS = ("pair", "single", "cross_document", "full_sentences", "nsp")
# The layouts whose rows can hold a segment B (token type 1). Every row of the others is one segment, its
# token_type_ids all 0 by construction: their shards leave that column out (models default it to zeros).
TWO_SEGMENT_LAYOUTS = ("pair", "nsp")
# `nsp` layout: `balanced` holds the random-next share at 0.5 on any corpus, `google` is create_pretraining_data.py
NSP_RULES = ("balanced", "google")


# `short_seq_prob` when none is given: Google BERT's 0.1 in its own layout, else none (ELECTRA passes 0.05)
SHORT_SEQ_PROB = {"nsp": 0.1}


UINT16_LIMIT = 1 << 16


@dataclasses.dataclass(frozen=True)
class PackConfig:
    """How sequences are laid out. `max_length` counts the special tokens."""

    # `metadata`: the help and choices of `kcorpus pack`'s flag (pipeline/profile/flags.py).
    max_length: int = dataclasses.field(
        default=512, metadata={"help": "sequence length incl. special tokens"}
    )
    layout: str = dataclasses.field(default="pair", metadata={"choices": LAYOUTS, "help": (
        "pair: [CLS] A [SEP] B [SEP] in one document; single: [CLS] A [SEP]; "
        "cross_document: full-length sequences across documents separated by [SEP]; "
        "full_sentences: whole sentences filled across documents (RoBERTa, DeBERTa); "
        "nsp: Google BERT's next-sentence pairs with a next_sentence_label column"
    )})  # fmt: skip
    single_segment_prob: float = dataclasses.field(
        default=0.0, metadata={"help": "pair layout: chance a sequence has one segment (ELECTRA: 0.1)"}
    )
    short_seq_prob: float | None = dataclasses.field(default=None, metadata={"help": (  # None: the layout's
        "chance of a random shorter target length (ELECTRA: 0.05; default: 0.1 with --layout nsp, "
        "Google BERT's, else 0)"
    )})  # fmt: skip
    min_target_length: int = dataclasses.field(default=8, metadata={"flag": False})
    seed: int = dataclasses.field(
        default=0, metadata={"help": "seeds the per-document random choices (segment lengths, NSP partners)"}
    )
    word_start: bool = dataclasses.field(default=True, metadata={"help": (
        "write the word_start column (True on the first token of every eojeol) for whole-word masking"
    )})  # fmt: skip
    nsp_rule: str = dataclasses.field(default="balanced", metadata={"choices": NSP_RULES, "help": (
        "--layout nsp: balanced (random-next share 0.5 on any corpus: one-sentence documents chained, "
        "the coin leaning against the imbalance) or google (create_pretraining_data.py's exact rule)"
    )})  # fmt: skip

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}; valid: {', '.join(LAYOUTS)}")
        if self.nsp_rule not in NSP_RULES:
            raise ValueError(f"unknown nsp_rule {self.nsp_rule!r}; valid: {', '.join(NSP_RULES)}")
        if self.short_seq_prob is None:
            object.__setattr__(self, "short_seq_prob", SHORT_SEQ_PROB.get(self.layout, 0.0))
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


# (id, ids bytes, sentence lengths bytes as uint32, ids dtype string, uint8 eojeol-start flags bytes or None,
#  corpus source): what crosses Beam stages
WireDoc = tuple[str, bytes, bytes, str, bytes | None, str]


@dataclasses.dataclass(frozen=True)
class TokenizedDoc:
    """A document's sentences as token ids (no special tokens): `ids` concatenated, `lengths` per sentence,
    `word_start` 1 on every token that opens an eojeol (None when not computed), the corpus `source`."""

    id: str
    ids: np.ndarray
    lengths: np.ndarray
    word_start: np.ndarray | None = None
    source: str = ""

    @property
    def num_tokens(self) -> int:
        return int(self.ids.shape[0])

    def to_wire(self) -> WireDoc:
        """Plain strings and bytes for Beam's fast tuple coder instead of pickled arrays."""
        flags = self.word_start.astype(np.uint8, copy=False).tobytes() if self.word_start is not None else None
        return self.id, self.ids.tobytes(), self.lengths.tobytes(), self.ids.dtype.str, flags, self.source

    @classmethod
    def from_wire(cls, wire: WireDoc) -> TokenizedDoc:
        doc_id, ids, lengths, dtype, flags, source = wire
        return cls(doc_id, np.frombuffer(ids, dtype=np.dtype(dtype)), np.frombuffer(lengths, dtype=np.uint32),
                   np.frombuffer(flags, dtype=np.uint8) if flags is not None else None, source)


@dataclasses.dataclass(frozen=True)
class PackedSequence:
    """One training sequence: `input_ids` with specials, 0/1 `token_type_ids`, 0/1 `special_tokens_mask`,
    0/1 `word_start` (None when not computed), the `source` of its first document."""

    input_ids: np.ndarray
    token_type_ids: np.ndarray
    special_tokens_mask: np.ndarray
    doc_id: str
    source: str = ""
    word_start: np.ndarray | None = None
    next_sentence_label: int | None = None

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


def sentence_units(lengths: Iterable[int], room: int) -> list[tuple[int, int]]:
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


# (a_start, a_end, b_start, b_end) offsets of a sequence's segments in its shard's flat ids; b_end == b_start
# means no segment B
Segments = tuple[int, int, int, int]


@dataclasses.dataclass(frozen=True)
class DocBlock:
    """Many tokenized documents as flat arrays: `ids` concatenated, `lengths` of every sentence,
    `sentences` per document, in document order; `sources` per document; `word_start` aligned with `ids`
    (None when not computed)."""

    doc_ids: list[str]
    ids: np.ndarray
    lengths: np.ndarray
    sentences: np.ndarray
    sources: list[str]
    word_start: np.ndarray | None = None

    @classmethod
    def from_docs(cls, docs: Sequence[TokenizedDoc]) -> DocBlock:
        dtype = np.result_type(*{d.ids.dtype for d in docs}) if docs else np.dtype(np.uint32)
        flags = [d.word_start for d in docs]
        if any(f is None for f in flags) and not all(f is None for f in flags):
            raise ValueError("documents of one block mix word_start flags and none")
        return cls(
            [d.id for d in docs],
            np.concatenate([d.ids for d in docs]).astype(dtype, copy=False) if docs else np.zeros(0, dtype),
            np.concatenate([d.lengths for d in docs]).astype(np.uint32, copy=False)
            if docs else np.zeros(0, np.uint32),
            np.fromiter((d.lengths.shape[0] for d in docs), dtype=np.int64, count=len(docs)),
            [d.source for d in docs],
            np.concatenate(flags).astype(np.uint8, copy=False) if docs and flags[0] is not None else None,
        )

    def doc_tokens(self) -> np.ndarray:
        """Tokens per document (int64)."""
        return segment_sums(self.lengths.astype(np.int64), self.sentences)


def segment_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sums of consecutive runs of `values` of the given lengths (empty runs sum to 0)."""
    ends = np.cumsum(counts)
    total = np.concatenate([[0], np.cumsum(values)])
    return total[ends] - total[ends - counts]


def flat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of `arange(s, s + n)` for every (s, n), without a Python loop."""
    lengths = lengths.astype(np.int64)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts.astype(np.int64) - before, lengths) + np.arange(total, dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class PackedColumns:
    """Packed sequences as Arrow-ready columns: row i spans `offsets[i]:offsets[i+1]` of the flat arrays;
    `doc_ids` and `sources` per row; `word_start` (uint8, 0 on specials) when computed; `next_sentence_label`
    (int8 per row) in the `nsp` layout, and `nsp_counts` (what its planner copied and left out: `nsp.py`)."""

    input_ids: np.ndarray
    token_type_ids: np.ndarray
    special_tokens_mask: np.ndarray
    offsets: np.ndarray
    doc_ids: list[str]
    sources: list[str]
    word_start: np.ndarray | None = None
    next_sentence_label: np.ndarray | None = None
    nsp_counts: dict[str, int] | None = None

    @property
    def num_rows(self) -> int:
        return len(self.doc_ids)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, i: int) -> PackedSequence:
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return PackedSequence(
            self.input_ids[lo:hi], self.token_type_ids[lo:hi], self.special_tokens_mask[lo:hi], self.doc_ids[i],
            self.sources[i], self.word_start[lo:hi] if self.word_start is not None else None,
            int(self.next_sentence_label[i]) if self.next_sentence_label is not None else None,
        )

    def rows(self, lo: int, hi: int) -> PackedColumns:
        """Rows `lo:hi` (views of these columns)."""
        start, stop = int(self.offsets[lo]), int(self.offsets[hi])

        def tokens(values: np.ndarray | None) -> np.ndarray | None:
            return values[start:stop] if values is not None else None

        nsp = self.next_sentence_label
        return PackedColumns(self.input_ids[start:stop], self.token_type_ids[start:stop],
                             self.special_tokens_mask[start:stop], self.offsets[lo : hi + 1] - start,
                             self.doc_ids[lo:hi], self.sources[lo:hi], tokens(self.word_start),
                             nsp[lo:hi] if nsp is not None else None)

    def row_tokens(self) -> np.ndarray:
        """Content tokens (not inserted by the packer) of every row (int64)."""
        specials = np.add.reduceat(self.special_tokens_mask, self.offsets[:-1], dtype=np.int64) \
            if self.num_rows else np.zeros(0, np.int64)
        return self.lengths - specials

    def sequences(self) -> Iterator[PackedSequence]:
        return (self.row(i) for i in range(self.num_rows))


def columns_from_segments(block: DocBlock, doc_index: np.ndarray, segs: np.ndarray,
                           special: SpecialIds) -> PackedColumns:
    """`[CLS] A [SEP]` or `[CLS] A [SEP] B [SEP]` for every planned sequence, built with array operations."""
    la = segs[:, 1] - segs[:, 0]
    lb = segs[:, 3] - segs[:, 2]
    has_b = lb > 0
    seq_len = la + 2 + np.where(has_b, lb + 1, 0)
    offsets = np.zeros(seq_len.shape[0] + 1, dtype=np.int64)
    np.cumsum(seq_len, out=offsets[1:])
    total = int(offsets[-1])
    first, end = offsets[:-1], offsets[1:]
    mask = np.zeros(total, dtype=np.uint8)
    mask[first] = 1
    mask[first + la + 1] = 1
    mask[end - 1] = 1
    ids = np.empty(total, dtype=block.ids.dtype)
    ids[first] = special.cls
    ids[first + la + 1] = special.sep
    ids[end - 1] = special.sep
    source = flat_ranges(segs[:, [0, 2]].ravel(), np.stack([la, lb], axis=1).ravel())
    ids[mask == 0] = block.ids[source]
    flags = None
    if block.word_start is not None:
        flags = np.zeros(total, dtype=np.uint8)
        flags[mask == 0] = block.word_start[source]
    step = np.zeros(total + 1, dtype=np.int8)
    step[(first + la + 2)[has_b]] = 1
    step[end[has_b]] = -1
    types = np.cumsum(step[:-1], dtype=np.int8).view(np.uint8)
    rows = doc_index.tolist()
    return PackedColumns(ids, types, mask, offsets, [block.doc_ids[i] for i in rows],
                         [block.sources[i] for i in rows], flags)


def empty_columns(dtype: np.dtype, word_start: bool, nsp: bool = False) -> PackedColumns:
    """No rows."""
    return PackedColumns(np.zeros(0, dtype), np.zeros(0, np.uint8), np.zeros(0, np.uint8), np.zeros(1, np.int64),
                         [], [], np.zeros(0, np.uint8) if word_start else None, np.zeros(0, np.int8) if nsp else None)


def concat_columns(parts: Sequence[PackedColumns]) -> PackedColumns:
    """The rows of several parts (at least one), one after the other."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.zeros(sum(p.num_rows for p in parts) + 1, dtype=np.int64)
    np.cumsum(np.concatenate([np.diff(p.offsets) for p in parts]), out=offsets[1:])

    def joined(name: str) -> np.ndarray | None:
        values = [getattr(p, name) for p in parts]
        if any(v is None for v in values):
            if not all(v is None for v in values):
                raise ValueError(f"parts mix {name} and none")
            return None
        return np.concatenate(values)

    return PackedColumns(joined("input_ids"), joined("token_type_ids"), joined("special_tokens_mask"), offsets,
                         [i for p in parts for i in p.doc_ids], [s for p in parts for s in p.sources],
                         joined("word_start"), joined("next_sentence_label"))
