"""The `nsp` layout: Google BERT's next-sentence pairs and the balanced rule, on the real fixture corpus
(invariants, the random-next share) and on made-up documents of many short sentences (Google's probabilities
need many documents of one shape)."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from kcorpus.transforms.pack import chunks
from kcorpus.transforms.pack.blocks import DocBlock, PackConfig, SpecialIds, TokenizedDoc
from kcorpus.transforms.pack.nsp import pack_nsp, plan_nsp
from kcorpus.transforms.pack.packer import pack_block_by_document
from kcorpus.transforms.pack.stats import PackStats, documents_by_source
from kcorpus.transforms.pack.tokenize import tokenize_documents
from packing_fixtures import CORPUS, kcbert_vocab, wordpiece_tokenizer

SPECIAL = SpecialIds(cls=2, sep=3, pad=0)


@pytest.fixture(scope="module")
def docs() -> list[TokenizedDoc]:
    raw = [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]
    tok = wordpiece_tokenizer(kcbert_vocab())
    docs = tokenize_documents(tok, [(d["id"], d["text"]) for d in raw], sources=[d["source"] for d in raw])
    return sorted(docs, key=lambda d: d.id)


@pytest.mark.parametrize("max_length", [64, 128, 512])
def test_pairs_follow_or_come_from_another_document_and_every_own_token_is_used_once(docs, max_length):
    block = DocBlock.from_docs(docs)
    config = PackConfig(max_length=max_length, layout="nsp", short_seq_prob=0.1, seed=11, nsp_rule="google")
    room = max_length - 3
    plan = plan_nsp(block, config)
    doc_index, table = plan.doc_index, plan.table
    assert plan.block is block and plan.counts["left_out_documents"] == 0  # Google's rule keeps every document
    tokens = block.doc_tokens()
    bounds = np.concatenate([[0], np.cumsum(tokens)])
    owner = np.searchsorted(bounds, np.arange(bounds[-1]), side="right") - 1  # the document of every offset
    a_start, a_end, b_start, b_end, label = table.T
    assert np.all(a_end > a_start) and np.all(b_end > b_start)
    assert np.all((a_end - a_start) + (b_end - b_start) <= room)
    assert np.all(np.diff(doc_index) >= 0)  # rows in document order
    assert np.all(owner[a_start] == doc_index) and np.all(owner[a_end - 1] == doc_index)
    assert np.all(owner[b_start] == owner[b_end - 1])  # B is one document's run of tokens
    follows = label == 0
    assert np.all(owner[b_start[follows]] == doc_index[follows]) and np.all(b_start[follows] >= a_end[follows])
    assert np.all(owner[b_start[~follows]] != doc_index[~follows])  # 645 documents: another one is found
    assert 0 < follows.sum() < len(label)
    # a document's own tokens (every A, the B that follows) are used at most once; the rest was truncated
    own = np.zeros(bounds[-1], dtype=np.int64)
    for lo, hi in [*zip(a_start, a_end), *zip(b_start[follows], b_end[follows])]:
        own[lo:hi] += 1
    assert own.max() == 1
    columns, index = pack_nsp(block, config, SPECIAL)
    assert np.array_equal(index, doc_index) and columns.next_sentence_label.tolist() == label.tolist()
    for r, row in enumerate(columns.sequences()):
        a = block.ids[a_start[r] : a_end[r]].tolist()
        b = block.ids[b_start[r] : b_end[r]].tolist()
        assert row.input_ids.tolist() == [SPECIAL.cls, *a, SPECIAL.sep, *b, SPECIAL.sep]
        assert row.token_type_ids.tolist() == [0] * (len(a) + 2) + [1] * (len(b) + 1)
        assert row.word_start.tolist() == [0, *block.word_start[a_start[r] : a_end[r]], 0,
                                           *block.word_start[b_start[r] : b_end[r]], 0]
        assert row.source == block.sources[doc_index[r]] and row.next_sentence_label == label[r]
    stats = PackStats.of_columns(columns, documents_by_source(block.sources), int(tokens.sum()), max_length)
    assert stats.borrowed_tokens == int((b_end - b_start)[~follows].sum())
    assert stats.dropped_tokens == int(tokens.sum()) - int(own.sum()) > 0
    assert stats.random_next == int((~follows).sum()) and stats.left_out_documents == 0


@pytest.mark.parametrize("max_length", [64, 128, 512])
def test_balanced_pairs_are_half_random_and_use_every_own_token_at_most_once(docs, max_length):
    block = DocBlock.from_docs(docs)
    config = PackConfig(max_length=max_length, layout="nsp", short_seq_prob=0.1, seed=11)
    assert config.nsp_rule == "balanced"
    plan = plan_nsp(block, config)
    n = block.ids.shape[0]
    extended = plan.block
    assert np.array_equal(extended.ids[:n], block.ids) and np.array_equal(extended.ids[n:], block.ids[plan.appended])
    assert np.array_equal(extended.word_start[n:], block.word_start[plan.appended])
    origin = np.concatenate([np.arange(n), plan.appended])  # every extended offset's offset in the shard
    tokens = block.doc_tokens()
    bounds = np.concatenate([[0], np.cumsum(tokens)])
    owner = (np.searchsorted(bounds, np.arange(n), side="right") - 1)[origin]
    doc_index, (a_start, a_end, b_start, b_end, label) = plan.doc_index, plan.table.T
    assert np.all(np.diff(doc_index) >= 0) and np.all(a_end > a_start) and np.all(b_end > b_start)
    assert np.all((a_end - a_start) + (b_end - b_start) <= max_length - 3)
    assert np.all(owner[a_start] == doc_index) and np.all(owner[a_end - 1] == doc_index)
    follows, chained = label == 0, (label == 1) & (b_start >= n)
    assert np.all(owner[b_start[follows]] == doc_index[follows]) and np.all(b_start[follows] >= a_end[follows])
    assert np.all(owner[b_start[label == 1]] != doc_index[label == 1])
    # a chained row: A one one-sentence document, B the next ones, each of them whole (but a truncated end)
    sentences = [np.count_nonzero(block.lengths[lo:hi]) for lo, hi in
                 zip(np.cumsum(block.sentences) - block.sentences, np.cumsum(block.sentences))]
    for r in np.flatnonzero(chained):
        b_docs = owner[b_start[r] : b_end[r]]
        assert sentences[doc_index[r]] == 1 and all(sentences[d] == 1 for d in b_docs)
        assert doc_index[r] not in b_docs and 1 + np.count_nonzero(np.diff(b_docs)) == len(set(b_docs.tolist()))
    # every own token (A, a following B, a chained B) at most once; a copied B is another document's, again
    own = np.zeros(n, dtype=np.int64)
    for lo, hi in [*zip(a_start, a_end), *zip(b_start[follows | chained], b_end[follows | chained])]:
        np.add.at(own, origin[lo:hi], 1)
    assert own.max() == 1
    used = np.bincount(owner[:n][own > 0], minlength=len(tokens)) if n else np.zeros(len(tokens), int)
    left_out = np.flatnonzero((used == 0) & (tokens > 0))
    assert plan.counts["left_out_documents"] == len(left_out)
    assert plan.counts["left_out_tokens"] == int(tokens[left_out].sum())
    assert all(sentences[d] == 1 for d in left_out)  # only one-sentence documents are ever left out
    columns, index = pack_nsp(block, config, SPECIAL)
    assert np.array_equal(index, doc_index) and columns.nsp_counts == plan.counts
    stats = PackStats.of_columns(columns, documents_by_source(block.sources), int(tokens.sum()), max_length)
    copied = (label == 1) & ~chained
    assert stats.borrowed_tokens == int((b_end - b_start)[copied].sum())
    assert stats.dropped_tokens == int(tokens.sum()) - int(own.sum())
    assert stats.random_next == int(label.sum()) and stats.left_out_documents == len(left_out)
    for r, row in enumerate(columns.sequences()):
        a, b = extended.ids[a_start[r] : a_end[r]].tolist(), extended.ids[b_start[r] : b_end[r]].tolist()
        assert row.input_ids.tolist() == [SPECIAL.cls, *a, SPECIAL.sep, *b, SPECIAL.sep]
        assert row.next_sentence_label == label[r] and row.doc_id == block.doc_ids[doc_index[r]]
    # the share: Google's rule gives (459, 1172), (333, 901), (177, 711) here: 72-80% random (645 documents,
    # 432 of them one sentence: NSMC comments and Wikipedia stubs)
    assert (int((label == 0).sum()), int(label.sum()), len(left_out)) == BALANCED[max_length]


# (is-next rows, random-next rows, documents left out), seed 11
BALANCED = {64: (579, 579, 0), 128: (388, 385, 0), 512: (213, 209, 0)}


def test_balanced_on_one_sentence_documents_only_and_on_long_documents_only(docs):
    config = PackConfig(max_length=128, layout="nsp", seed=4)
    singles = [d for d in docs if np.count_nonzero(d.lengths) == 1]  # 428 NSMC comments, 4 Wikipedia stubs
    block = DocBlock.from_docs(singles)
    columns, _ = pack_nsp(block, config, SPECIAL)
    # no B can follow an A: no row at all, every document left out, and counted
    assert columns.num_rows == 0
    assert columns.nsp_counts == {"borrowed_tokens": 0, "left_out_documents": 432,
                                  "left_out_tokens": int(block.ids.shape[0])}  # fmt: skip
    stats = PackStats.of_columns(columns, documents_by_source(block.sources), int(block.ids.shape[0]), 128)
    assert stats.dropped_tokens == stats.left_out_tokens == block.ids.shape[0] and stats.left_out_documents == 432
    # petitions only (every one several sentences): no chain, the leaning coin alone holds the share
    long = DocBlock.from_docs([d for d in docs if d.source == "petitions"])
    plan = plan_nsp(long, config)
    assert plan.block is long and plan.appended.shape == (0,)
    labels = plan.table[:, 4]
    google = plan_nsp(long, dataclasses.replace(config, nsp_rule="google")).table[:, 4]
    # Google's random Bs leave a sentence behind that can only take a random B in turn: 0.573 random
    assert (int((google == 0).sum()), int(google.sum())) == (109, 146)
    assert (int((labels == 0).sum()), int(labels.sum())) == (118, 120)


def test_rows_depend_on_the_shard_documents_and_the_seed_only(docs):
    config = PackConfig(max_length=128, layout="nsp", short_seq_prob=0.1, seed=5)
    wires = [d.to_wire() for d in docs]
    expected, stats = chunks.pack_sorted(wires, config, SPECIAL)
    shuffled = list(wires)
    random.Random(3).shuffle(shuffled)
    again, again_stats = chunks.pack_sorted(shuffled, config, SPECIAL)
    one_chunk = chunks.pack_chunk(shuffled, config, SPECIAL)
    merged, merged_stats = chunks.merge_chunks([chunks.PackedChunk.from_wire(one_chunk.to_wire())], 128)
    for columns in (again, merged):
        assert np.array_equal(columns.input_ids, expected.input_ids) and columns.doc_ids == expected.doc_ids
        assert np.array_equal(columns.next_sentence_label, expected.next_sentence_label)
    assert stats == again_stats == merged_stats
    other, _ = chunks.pack_sorted(wires, PackConfig(max_length=128, layout="nsp", short_seq_prob=0.1, seed=6),
                                  SPECIAL)
    assert not np.array_equal(other.next_sentence_label, expected.next_sentence_label)
    with pytest.raises(ValueError, match="nsp draws segment B from other documents"):
        pack_block_by_document(DocBlock.from_docs(docs), config, SPECIAL)


def test_google_short_sequence_share_is_the_default_of_the_nsp_layout_only():
    assert PackConfig(layout="nsp").short_seq_prob == 0.1
    assert PackConfig().short_seq_prob == PackConfig(layout="cross_document").short_seq_prob == 0.0
    assert PackConfig(layout="nsp", short_seq_prob=0.0).short_seq_prob == 0.0


def made_up_documents(count: int, sentences: int, seed: int = 0) -> DocBlock:
    """`count` documents of `sentences` sentences of 2-6 tokens each."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        lengths = rng.integers(2, 7, size=sentences).astype(np.uint32)
        ids = rng.integers(10, 1000, size=int(lengths.sum())).astype(np.uint16)
        out.append(TokenizedDoc(f"doc-{i:04d}", ids, lengths, np.ones(ids.shape[0], np.uint8), "made-up"))
    return DocBlock.from_docs(out)


def test_half_of_the_pairs_of_many_sentence_chunks_are_random_and_a_tenth_of_documents_short():
    block = made_up_documents(400, 60)
    plan = plan_nsp(block, PackConfig(max_length=64, layout="nsp", short_seq_prob=0.1, seed=2, nsp_rule="google"))
    doc_index, table = plan.doc_index, plan.table
    # every chunk gathers several 2-6 token sentences: B is random on a coin flip alone
    assert abs(table[:, 4].mean() - 0.5) < 0.03
    # a document's target length is drawn once: a short one makes all its full rows short
    content = (table[:, 1] - table[:, 0]) + (table[:, 3] - table[:, 2])
    short_docs = [d for d in range(400) if np.median(content[doc_index == d]) < 61 - 6]
    assert 0.07 < len(short_docs) / 400 < 0.13
    no_short = plan_nsp(block, PackConfig(max_length=64, layout="nsp", short_seq_prob=0.0, seed=2)).table
    content = (no_short[:, 1] - no_short[:, 0]) + (no_short[:, 3] - no_short[:, 2])
    assert np.median(content) == 61
