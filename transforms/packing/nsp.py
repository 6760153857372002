"""The `nsp` layout: Google BERT's next-sentence-prediction pairs (`create_pretraining_data.py`).

Per document, as `create_instances_from_document` does: a target length (`max_length - 3` content tokens, or
with `short_seq_prob` one drawn from `[min_target_length, max_length]`, once per document); sentences are
gathered until they reach it (or the document ends), the first `a_end` of them (drawn from 1 .. n-1) are A;
when the gathered text is one sentence, or on a coin flip, B is random (`next_sentence_label` 1): sentences
of another document from a random sentence on, up to the room A leaves, and the sentences not used as A go
back to the document; else B is the rest (label 0). Then `truncate_seq_pair`: while A and B exceed
`max_length - 3`, one token goes from the longer, from its front or its back on a coin flip.

The random document is drawn from the shard's non-empty documents (Google: from all documents of the run's
input files), ten tries to draw one other than the document itself. A sentence longer than a sequence is cut
into pieces first (as in every layout). The RNG is seeded by (seed, document id) and documents are in
(id, tie key) order, so a shard's rows depend only on its documents. Unlike the other layouts, `nsp` drops
tokens (what the truncation cuts: `dropped_tokens`) and copies some (random Bs: `borrowed_tokens`).
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np

from kcorpus.transforms.packing.blocks import (
    DocBlock,
    PackConfig,
    PackedColumns,
    SpecialIds,
    columns_from_segments,
    doc_rng,
    sentence_units,
)

SPECIALS = 3  # [CLS] A [SEP] B [SEP]
RANDOM_DOCUMENT_TRIES = 10


def _truncate_pair(a: list[int], b: list[int], room: int, rng: random.Random) -> None:
    """Google's `truncate_seq_pair` on [start, end) offsets: cut the longer, front or back at random."""
    while (a[1] - a[0]) + (b[1] - b[0]) > room:
        longer = a if a[1] - a[0] > b[1] - b[0] else b
        if rng.random() < 0.5:
            longer[0] += 1
        else:
            longer[1] -= 1


class _Units:
    """Every document's sentence pieces as flat [start, end) offsets, computed when first needed."""

    def __init__(self, block: DocBlock, room: int):
        tokens = block.doc_tokens()
        self._starts = (np.cumsum(tokens) - tokens).tolist()
        self._sentence_starts = (np.cumsum(block.sentences) - block.sentences).tolist()
        self._sentences = block.sentences.tolist()
        self._lengths = block.lengths
        self._room = room
        self._cache: dict[int, list[tuple[int, int]]] = {}

    def __call__(self, doc: int) -> list[tuple[int, int]]:
        if doc not in self._cache:
            lo = self._sentence_starts[doc]
            lengths = self._lengths[lo : lo + self._sentences[doc]].tolist()
            base = self._starts[doc]
            self._cache[doc] = [(base + s, base + e) for s, e in sentence_units(lengths, self._room)]
        return self._cache[doc]


def _document_pairs(doc: int, units: _Units, others: list[int], config: PackConfig,
                    rng: random.Random) -> list[tuple[int, int, int, int, int]]:
    """(a_start, a_end, b_start, b_end, next_sentence_label) of one document's instances."""
    room = config.max_length - SPECIALS
    target = room
    if config.short_seq_prob and rng.random() < config.short_seq_prob:
        target = rng.randint(config.min_target_length, config.max_length) - SPECIALS
    sentences = units(doc)
    out = []
    chunk: list[tuple[int, int]] = []
    length = 0
    k = 0
    while k < len(sentences):
        chunk.append(sentences[k])
        length += sentences[k][1] - sentences[k][0]
        if k == len(sentences) - 1 or length >= target:
            a_end = rng.randint(1, len(chunk) - 1) if len(chunk) >= 2 else 1
            a = [chunk[0][0], chunk[a_end - 1][1]]
            if len(chunk) == 1 or rng.random() < 0.5:
                label = 1
                for _ in range(RANDOM_DOCUMENT_TRIES):
                    other = others[rng.randint(0, len(others) - 1)]
                    if other != doc:
                        break
                other_sentences = units(other)
                first = rng.randint(0, len(other_sentences) - 1)
                b = [other_sentences[first][0], other_sentences[first][0]]
                for _start, end in other_sentences[first:]:
                    b[1] = end
                    if b[1] - b[0] >= target - (a[1] - a[0]):
                        break
                k -= len(chunk) - a_end  # the sentences not used go back to the document
            else:
                label = 0
                b = [chunk[a_end][0], chunk[-1][1]]
            _truncate_pair(a, b, room, rng)
            out.append((a[0], a[1], b[0], b[1], label))
            chunk, length = [], 0
        k += 1
    return out


def plan_nsp(block: DocBlock, config: PackConfig) -> tuple[np.ndarray, np.ndarray]:
    """For every instance of the documents of `block` (a whole shard, in its order): the block index of its
    document (A's), and (a_start, a_end, b_start, b_end, next_sentence_label) with offsets in `block.ids`."""
    units = _Units(block, config.max_length - SPECIALS)
    others = np.flatnonzero(block.doc_tokens() > 0).tolist()
    doc_index: list[int] = []
    rows: list[tuple[int, int, int, int, int]] = []
    for doc in others:
        pairs = _document_pairs(doc, units, others, config, doc_rng(config.seed, block.doc_ids[doc]))
        doc_index.extend([doc] * len(pairs))
        rows.extend(pairs)
    return np.array(doc_index, dtype=np.int64), np.array(rows, dtype=np.int64).reshape(-1, 5)


def pack_nsp(block: DocBlock, config: PackConfig, special: SpecialIds) -> tuple[PackedColumns, np.ndarray]:
    """`[CLS] A [SEP] B [SEP]` rows of `plan_nsp` with their `next_sentence_label`; and, for every row, the
    block index of its document."""
    index, table = plan_nsp(block, config)
    columns = columns_from_segments(block, index, table[:, :4], special)
    return dataclasses.replace(columns, next_sentence_label=table[:, 4].astype(np.int8)), index
