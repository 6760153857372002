"""Packing in chunks where documents are encoded, merged into id order where a shard is written: the rows of
packing the sorted shard in one place."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kcorpus.transforms.pack import arrow_shards, chunks
from kcorpus.transforms.pack.blocks import DocBlock, PackConfig, SpecialIds, TokenizedDoc
from kcorpus.transforms.pack.chunks import PackedChunk
from kcorpus.transforms.pack.packer import pack_block_by_document
from kcorpus.transforms.pack.tokenize import tokenize_wire
from packing_fixtures import CORPUS, kcbert_vocab, wordpiece_tokenizer

SPECIAL = SpecialIds(cls=2, sep=3, pad=0)
SCHEMA = arrow_shards.packed_schema(np.dtype(np.uint16))
CONFIGS = [
    PackConfig(max_length=32),
    PackConfig(max_length=64, single_segment_prob=0.1, short_seq_prob=0.05, seed=3),
    PackConfig(max_length=32, layout="single"),
]


@pytest.fixture(scope="module")
def wires():
    tok = wordpiece_tokenizer(kcbert_vocab())
    raw = [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]
    return [w for w in tokenize_wire(tok, [(d["id"], d["text"]) for d in raw], np.uint16) if w[1]]


def synthetic(doc_id: str, ids: np.ndarray, lengths: np.ndarray, source: str = "nsmc") -> TokenizedDoc:
    """A made-up document: every token opens a word."""
    return TokenizedDoc(doc_id, ids, lengths, np.ones(ids.shape[0], np.uint8), source)


def chunked(wires, size: int, config: PackConfig, seed: int = 0) -> list[PackedChunk]:
    """Shuffled documents packed `size` at a time, the chunks through their wire form, in shuffled order."""
    docs = list(wires)
    random.Random(seed).shuffle(docs)
    out = [PackedChunk.from_wire(chunks.pack_chunk(docs[i : i + size], config, SPECIAL).to_wire())
           for i in range(0, len(docs), size)]
    random.Random(seed + 1).shuffle(out)
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=["pair", "pair-probs", "single"])
@pytest.mark.parametrize("size", [1, 37, 1000])
def test_merged_chunks_are_the_rows_and_stats_of_packing_the_sorted_shard(wires, config, size):
    expected, expected_stats = chunks.pack_sorted(wires, config, SPECIAL)
    columns, stats = chunks.merge_chunks(chunked(wires, size, config), config.max_length)
    assert columns.doc_ids == expected.doc_ids
    for name in ("input_ids", "token_type_ids", "special_tokens_mask", "offsets"):
        assert np.array_equal(getattr(columns, name), getattr(expected, name)), name
    assert stats == expected_stats
    assert stats.documents == 645 and stats.dropped_tokens == 0


def test_documents_sharing_an_id_are_ordered_by_their_tokens_in_any_chunking():
    a = synthetic("같은-문서", np.array([5, 6, 7], np.uint16), np.array([2, 1], np.uint32)).to_wire()
    b = synthetic("같은-문서", np.array([9, 8], np.uint16), np.array([2], np.uint32)).to_wire()
    c = synthetic("가-먼저", np.array([11], np.uint16), np.array([1], np.uint32)).to_wire()
    config = PackConfig(max_length=8)
    expected, _ = chunks.pack_sorted([a, b, c], config, SPECIAL)
    for parts in ([[a, b, c]], [[b], [c, a]], [[a], [b], [c]], [[c, b], [a]]):
        packed = [chunks.pack_chunk(p, config, SPECIAL) for p in parts]
        columns, stats = chunks.merge_chunks(packed, config.max_length)
        assert columns.input_ids.tolist() == expected.input_ids.tolist()
        assert columns.doc_ids == ["가-먼저", "같은-문서", "같은-문서"] and stats.documents == 3


def test_doc_rows_and_concat_chunks_keep_each_documents_rows_and_tie_key(wires):
    config = PackConfig(max_length=32)
    chunk = chunks.pack_chunk(wires, config, SPECIAL)
    ties = {d[0]: chunks.tie_key(d[1]) for d in wires}
    entries = list(chunks.doc_rows(chunk))
    assert [key for key, _, _ in entries] == sorted((d[0], ties[d[0]]) for d in wires)
    assert [lo for _, lo, _ in entries][1:] == [hi for _, _, hi in entries][:-1] and entries[-1][2] == chunk.columns.num_rows == 2829
    halves = [chunk.rows(0, 100), chunk.rows(100, chunk.columns.num_rows)]
    joined = chunks.concat_chunks(halves)
    assert joined.row_ties == chunk.row_ties == b"".join(ties[i] for i in chunk.columns.doc_ids)
    assert np.array_equal(joined.columns.input_ids, chunk.columns.input_ids)
    assert np.array_equal(joined.columns.offsets, chunk.columns.offsets)


def test_cross_document_is_not_packed_per_document():
    block = DocBlock.from_docs([synthetic("문서", np.array([5], np.uint16), np.array([1], np.uint32))])
    with pytest.raises(ValueError, match="cross_document sequences span documents"):
        pack_block_by_document(block, PackConfig(layout="cross_document"), SPECIAL)
