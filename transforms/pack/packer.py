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
- `full_sentences`: RoBERTa's FULL-SENTENCES (DeBERTa's packing): whole sentences filled across documents,
  `[SEP]` after every document, a closing `[SEP]` on a row that ends inside one (`stream_chunks.py`).
- `nsp`: Google BERT's next-sentence-prediction pairs, B from another document half of the time
  (`nsp.py`); the only layout that drops tokens (its truncation) and copies some (a random B).

No token is ever dropped (but in `nsp`): a sentence longer than a sequence's room is split into pieces, and
the sentences that do not fit start the next sequence. Randomness comes from an RNG seeded by (seed,
document id), so the output does not depend on how documents are bundled or ordered across workers.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from kcorpus.transforms.pack.blocks import (
    DocBlock,
    PackConfig,
    PackedColumns,
    PackedSequence,
    Segments,
    SpecialIds,
    TokenizedDoc,
    columns_from_segments,
    doc_rng,
    segment_sums,
    sentence_units,
)
from kcorpus.transforms.pack.nsp import pack_nsp
from kcorpus.transforms.pack.stream_chunks import STREAM_LAYOUTS, pack_stream


class _LazyRng:
    """`doc_rng` created on first use: most short documents never draw."""

    def __init__(self, seed: int, doc_id: str):
        self._seed, self._doc_id, self._rng = seed, doc_id, None

    def get(self) -> random.Random:
        if self._rng is None:
            self._rng = doc_rng(self._seed, self._doc_id)
        return self._rng


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


def _plan_document(lengths: list[int], base: int, config: PackConfig, rng: _LazyRng) -> list[Segments]:
    """The segments of one document's sequences (`pair` or `single` layout); offsets start at `base`."""
    # pair content room is max_length - 3; a single-segment sequence would have one more slot, but using the
    # same room keeps the draw order (and so the output) independent of the single/pair coin.
    specials = 3 if config.layout == "pair" else 2
    units = sentence_units(lengths, config.max_length - specials)
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
    out: list[Segments] = []
    for g_first, g_end in groups:
        group = units[g_first:g_end]
        single = (
            config.layout == "single"
            or len(group) == 1
            or (config.single_segment_prob and rng.get().random() < config.single_segment_prob)
        )
        if single:
            out.append((base + group[0][0], base + group[-1][1], 0, 0))
        else:
            k = _choose_split([hi - lo for lo, hi in group], rng)
            out.append((base + group[0][0], base + group[k - 1][1], base + group[k][0], base + group[-1][1]))
    return out


def _plan_block(block: DocBlock, config: PackConfig) -> tuple[np.ndarray, np.ndarray]:
    """(document index, segments) of every sequence, in document order. Documents that fit one sequence
    without any random draw (one sentence, or the `single` layout) are planned with array operations."""
    specials = 3 if config.layout == "pair" else 2
    room = config.max_length - specials
    tokens = block.doc_tokens()
    starts = np.cumsum(tokens) - tokens
    nonempty = segment_sums((block.lengths > 0).astype(np.int64), block.sentences)
    fast = (tokens > 0) & (tokens <= room) & (config.short_seq_prob == 0)
    fast &= (nonempty == 1) if config.layout == "pair" else True
    fast_idx = np.flatnonzero(fast)
    fast_segs = np.zeros((fast_idx.shape[0], 4), dtype=np.int64)
    fast_segs[:, 0] = starts[fast_idx]
    fast_segs[:, 1] = starts[fast_idx] + tokens[fast_idx]
    slow_idx: list[int] = []
    slow_segs: list[Segments] = []
    sentence_starts = np.cumsum(block.sentences) - block.sentences
    for i in np.flatnonzero(~fast & (tokens > 0)).tolist():
        lo = int(sentence_starts[i])
        lengths = block.lengths[lo : lo + int(block.sentences[i])].tolist()
        segs = _plan_document(lengths, int(starts[i]), config, _LazyRng(config.seed, block.doc_ids[i]))
        slow_idx.extend([i] * len(segs))
        slow_segs.extend(segs)
    doc_index = np.concatenate([fast_idx, np.array(slow_idx, dtype=np.int64)])
    segs = np.concatenate([fast_segs, np.array(slow_segs, dtype=np.int64).reshape(-1, 4)])
    order = np.argsort(doc_index, kind="stable")
    return doc_index[order], segs[order]


def pack_block_by_document(
    block: DocBlock, config: PackConfig, special: SpecialIds
) -> tuple[PackedColumns, np.ndarray]:
    """`pair` or `single` layout: the packed columns and, for every row, the block index of its document."""
    if config.layout in STREAM_LAYOUTS:
        raise ValueError(f"{config.layout} sequences span documents; use pack_block")
    if config.layout == "nsp":
        raise ValueError("nsp draws segment B from other documents; use pack_block")
    doc_index, segs = _plan_block(block, config)
    return columns_from_segments(block, doc_index, segs, special), doc_index


def pack_block(block: DocBlock, config: PackConfig, special: SpecialIds) -> PackedColumns:
    """Pack documents in block order with any layout, as columns."""
    if config.layout in STREAM_LAYOUTS:
        return pack_stream(block, config, special)
    if config.layout == "nsp":
        return pack_nsp(block, config, special)[0]
    doc_index, segs = _plan_block(block, config)
    return columns_from_segments(block, doc_index, segs, special)


def pack_documents(
    docs: Iterable[TokenizedDoc], config: PackConfig, special: SpecialIds
) -> Iterator[PackedSequence]:
    """Pack documents in the given order with any layout."""
    return pack_block(DocBlock.from_docs(list(docs)), config, special).sequences()


def content_tokens(seq: PackedSequence) -> np.ndarray:
    """The corpus tokens of a sequence: everything the packer did not insert."""
    return seq.input_ids[seq.special_tokens_mask == 0]
