"""The `nsp` layout: next-sentence-prediction pairs, Google BERT's (`create_pretraining_data.py`) or balanced.

`google` (`PackConfig.nsp_rule`), per document, as `create_instances_from_document` does: a target length
(`max_length - 3` content tokens, or with `short_seq_prob` one drawn from `[min_target_length, max_length]`,
once per document); sentences are gathered until they reach it (or the document ends), the first `a_end` of
them (drawn from 1 .. n-1) are A; when the gathered text is one sentence, or on a coin flip, B is random
(`next_sentence_label` 1): sentences of another document from a random sentence on, up to the room A leaves,
and the sentences not used as A go back to the document; else B is the rest (label 0). Then
`truncate_seq_pair`: while A and B exceed `max_length - 3`, one token goes from the longer, from its front or
its back on a coin flip. A document of one sentence can only take a random B, so on comments the label is
mostly 1 (97% on the sample's NSMC comments and petitions at 512 tokens).

`balanced` (the default) holds the shard's random-next share at 0.5 whatever its documents:
- one-sentence documents are chained, in a seeded order: A is one of them, B the next ones while they fit
  the target (at least one), label 1 (B follows another document, and no token is copied); the last one
  alone takes a random B as in `google`;
- the other documents take Google's rule, but the coin that makes B random comes up with probability
  `0.5 + (is_next - random_next - goal) / BALANCE_WINDOW` (clipped to [0, 1]), `goal` growing from 0 to the
  number of chained rows as the shard's documents go by (in a seeded order, so sources mix): they give that
  many more is-next than random rows, which the chained rows balance;
- when they cannot (too few sentences for that many is-next rows), only as many chained rows are kept as
  they gave more is-next than random rows, the smallest left out: their documents are counted
  (`left_out_documents`, `left_out_tokens`; their tokens as dropped). A shard of one-sentence documents only
  has no row at all: no B can follow an A there.

The random document is drawn from the shard's non-empty documents (Google: from all documents of the run's
input files), ten tries to draw one other than the document itself. A sentence longer than a sequence is cut
into pieces first (as in every layout). The RNG is seeded by (seed, document id), the seeded order by a digest
of both, and rows are in (id, tie key) order, so a shard's rows depend only on its documents and the seed.
Unlike the other layouts, `nsp` drops tokens (what the truncation cuts, and left-out documents:
`dropped_tokens`) and copies some (random Bs: `borrowed_tokens`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random

import numpy as np

from kcorpus.transforms.pack.blocks import (
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
# `balanced`: how fast the coin leans against the imbalance; the share ends within about this many rows of 0.5.
BALANCE_WINDOW = 8
# (a_start, a_end, b_start, b_end, next_sentence_label, B copied from another document)
Row = tuple[int, int, int, int, int, bool]


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


class _Balance:
    """The chance that a choosing chunk's B is random: Google's 0.5, or (`balanced`) leaning against the
    imbalance between is-next and random rows, less a goal that grows to `extra_is_next` over `documents`."""

    def __init__(self, balanced: bool, extra_is_next: int = 0, documents: int = 1):
        self.balanced = balanced
        # The coin only leans once the count trails the goal, so it ends a few rows short of it: aiming half a
        # window past it leaves a row or two to spare rather than a chain (dozens of comments) left out.
        self.extra = extra_is_next + BALANCE_WINDOW // 2 if extra_is_next else 0
        self.documents = max(documents, 1)
        self.done = self.is_next = self.random_next = 0

    def p_random(self) -> float:
        if not self.balanced:
            return 0.5
        goal = self.extra * self.done / self.documents
        return min(1.0, max(0.0, 0.5 + (self.is_next - self.random_next - goal) / BALANCE_WINDOW))

    def note(self, label: int) -> None:
        """One more row."""
        if label:
            self.random_next += 1
        else:
            self.is_next += 1


def _random_b(doc: int, units: _Units, others: list[int], want: int, rng: random.Random) -> list[int]:
    """Google's random B: another document's sentences from a random one on, until they reach `want` tokens."""
    for _ in range(RANDOM_DOCUMENT_TRIES):
        other = others[rng.randint(0, len(others) - 1)]
        if other != doc:
            break
    other_sentences = units(other)
    first = rng.randint(0, len(other_sentences) - 1)
    b = [other_sentences[first][0], other_sentences[first][0]]
    for _start, end in other_sentences[first:]:
        b[1] = end
        if b[1] - b[0] >= want:
            break
    return b


def _target(config: PackConfig, rng: random.Random) -> int:
    """A document's target of content tokens: the room, or with `short_seq_prob` a shorter one."""
    room = config.max_length - SPECIALS
    if config.short_seq_prob and rng.random() < config.short_seq_prob:
        return rng.randint(config.min_target_length, config.max_length) - SPECIALS
    return room


def _document_pairs(doc: int, units: _Units, others: list[int], config: PackConfig, rng: random.Random,
                    balance: _Balance) -> list[Row]:
    """The rows of one document (Google's `create_instances_from_document`, the coin from `balance`)."""
    room = config.max_length - SPECIALS
    target = _target(config, rng)
    sentences = units(doc)
    out: list[Row] = []
    chunk: list[tuple[int, int]] = []
    length = 0
    k = 0
    while k < len(sentences):
        chunk.append(sentences[k])
        length += sentences[k][1] - sentences[k][0]
        if k == len(sentences) - 1 or length >= target:
            a_end = rng.randint(1, len(chunk) - 1) if len(chunk) >= 2 else 1
            a = [chunk[0][0], chunk[a_end - 1][1]]
            if len(chunk) == 1 or rng.random() < balance.p_random():
                label = 1
                b = _random_b(doc, units, others, target - (a[1] - a[0]), rng)
                k -= len(chunk) - a_end  # the sentences not used go back to the document
            else:
                label = 0
                b = [chunk[a_end][0], chunk[-1][1]]
            _truncate_pair(a, b, room, rng)
            out.append((a[0], a[1], b[0], b[1], label, label == 1))
            balance.note(label)
            chunk, length = [], 0
        k += 1
    balance.done += 1
    return out


def _seeded_order(docs: list[int], block: DocBlock, seed: int) -> list[int]:
    """`docs` in an order drawn from (seed, document id), the block index breaking ties of equal ids."""

    def key(doc: int) -> tuple[bytes, int]:
        return hashlib.blake2b(f"{seed}\x00nsp\x00{block.doc_ids[doc]}".encode(), digest_size=8).digest(), doc

    return sorted(docs, key=key)


@dataclasses.dataclass(frozen=True)
class _Chain:
    """A row of chained one-sentence documents: A is `docs[0]`, B the rest (alone: a random B), drawn with the
    RNG of A's document."""

    docs: list[int]
    target: int
    rng: random.Random


def _chains(singles: list[int], lengths: dict[int, int], block: DocBlock, config: PackConfig) -> list[_Chain]:
    """One-sentence documents (in the seeded order) cut into rows: B takes the next ones while A and B stay
    within A's target, at least one."""
    out = []
    i = 0
    while i < len(singles):
        rng = doc_rng(config.seed, block.doc_ids[singles[i]])
        target = _target(config, rng)
        j, used = i + 1, lengths[singles[i]]
        while j < len(singles) and (j == i + 1 or used + lengths[singles[j]] <= target):
            used += lengths[singles[j]]
            j += 1
        out.append(_Chain(singles[i:j], target, rng))
        i = j
    return out


@dataclasses.dataclass(frozen=True)
class NspPlan:
    """The rows of a shard: `doc_index` (the block index of A's document, rows in block order), `table`
    (a_start, a_end, b_start, b_end, next_sentence_label) with offsets in `block.ids`, where `block` is the
    shard's, its ids extended by the chained one-sentence documents (`balanced`; `appended`: the offset in
    the shard's ids of each appended one), and `counts`: the tokens copied into random Bs
    (`borrowed_tokens`), the documents left out and their tokens."""

    doc_index: np.ndarray
    table: np.ndarray
    block: DocBlock
    counts: dict[str, int]
    appended: np.ndarray


def plan_nsp(block: DocBlock, config: PackConfig) -> NspPlan:
    """Every row of the documents of `block` (a whole shard, in its order) with `config.nsp_rule`."""
    room = config.max_length - SPECIALS
    units = _Units(block, room)
    others = np.flatnonzero(block.doc_tokens() > 0).tolist()
    rows: list[tuple[int, Row]] = []  # (A's document, row)
    counts = {"borrowed_tokens": 0, "left_out_documents": 0, "left_out_tokens": 0}
    if config.nsp_rule == "google":
        google = _Balance(balanced=False)
        for doc in others:
            rng = doc_rng(config.seed, block.doc_ids[doc])
            rows += [(doc, r) for r in _document_pairs(doc, units, others, config, rng, google)]
        return _plan(rows, block, counts)
    singles = _seeded_order([d for d in others if len(units(d)) == 1], block, config.seed)
    several = _seeded_order([d for d in others if len(units(d)) > 1], block, config.seed)
    lengths = {d: units(d)[0][1] - units(d)[0][0] for d in singles}
    chains = _chains(singles, lengths, block, config)
    balance = _Balance(balanced=True, extra_is_next=len(chains), documents=len(several))
    for doc in several:
        pairs = _document_pairs(doc, units, others, config, doc_rng(config.seed, block.doc_ids[doc]), balance)
        rows += [(doc, r) for r in pairs]
    # As many chained rows as the other documents gave more is-next than random rows; the smallest go.
    tokens = [sum(lengths[d] for d in chain.docs) for chain in chains]
    short = len(chains) - max(0, balance.is_next - balance.random_next)
    left_out = set(sorted(range(len(chains)), key=lambda c: (tokens[c], c))[:short]) if short > 0 else set()
    for c in sorted(left_out):
        counts["left_out_documents"] += len(chains[c].docs)
        counts["left_out_tokens"] += tokens[c]
    appended: list[tuple[int, int]] = []  # the chained documents' ids, in chain order, after the block's
    end = int(block.ids.shape[0])
    for chain in (chain for c, chain in enumerate(chains) if c not in left_out):
        first = chain.docs[0]
        if len(chain.docs) == 1:  # the last one-sentence document alone: a random B, as Google
            a = list(units(first)[0])
            b = _random_b(first, units, others, chain.target - (a[1] - a[0]), chain.rng)
        else:
            a = [end, end + lengths[first]]
            b = [a[1], a[1] + sum(lengths[d] for d in chain.docs[1:])]
            appended += [units(d)[0] for d in chain.docs]
            end = b[1]
        _truncate_pair(a, b, room, chain.rng)
        rows.append((first, (a[0], a[1], b[0], b[1], 1, len(chain.docs) == 1)))
    take = np.concatenate([np.arange(lo, hi, dtype=np.int64) for lo, hi in appended]) if appended else _NONE
    return _plan(rows, _extended(block, take) if appended else block, counts, take)


_NONE = np.zeros(0, dtype=np.int64)


def _extended(block: DocBlock, take: np.ndarray) -> DocBlock:
    """`block` with its ids (and word starts) at `take` appended after its own."""
    word_start = block.word_start
    if word_start is not None:
        word_start = np.concatenate([word_start, word_start[take]])
    return dataclasses.replace(block, ids=np.concatenate([block.ids, block.ids[take]]), word_start=word_start)


def _plan(rows: list[tuple[int, Row]], block: DocBlock, counts: dict[str, int], appended: np.ndarray = _NONE
          ) -> NspPlan:
    """Rows in block order (a document's in the order made), the tokens their random Bs copied counted."""
    rows.sort(key=lambda r: r[0])  # stable: a document's rows keep their order
    table = np.array([r[:5] for _, r in rows], dtype=np.int64).reshape(-1, 5)
    copied = np.array([r[5] for _, r in rows], dtype=bool)
    counts["borrowed_tokens"] = int((table[copied, 3] - table[copied, 2]).sum())
    return NspPlan(np.array([d for d, _ in rows], dtype=np.int64), table, block, counts, appended)


def pack_nsp(block: DocBlock, config: PackConfig, special: SpecialIds) -> tuple[PackedColumns, np.ndarray]:
    """`[CLS] A [SEP] B [SEP]` rows of `plan_nsp` with their `next_sentence_label` and `nsp_counts`; and, for
    every row, the block index of its document (A's)."""
    plan = plan_nsp(block, config)
    columns = columns_from_segments(plan.block, plan.doc_index, plan.table[:, :4], special)
    labels = plan.table[:, 4].astype(np.int8)
    return dataclasses.replace(columns, next_sentence_label=labels, nsp_counts=plan.counts), plan.doc_index
