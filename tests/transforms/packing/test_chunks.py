"""Packing in chunks where documents are encoded, merging and serializing in groups: the bytes of packing the
sorted shard in one place."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from kcorpus.transforms.packing import arrow_shards, chunks
from kcorpus.transforms.packing.blocks import DocBlock, PackConfig, SpecialIds, TokenizedDoc
from kcorpus.transforms.packing.chunks import PackedChunk
from kcorpus.transforms.packing.packer import pack_block_by_document
from kcorpus.transforms.packing.tokenize import tokenize_wire
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


def grouped_stream(parts: list[PackedChunk], rows_per_batch: int, max_groups: int) -> tuple[bytes, int]:
    """What the pipeline does after `Encode`: plan, route, merge and serialize each group, join; and the
    number of groups."""
    keys = [k for c in parts for k in chunks.row_keys(c)]
    splitters = chunks.plan_splitters(keys, chunks.rows_per_group(len(keys), rows_per_batch, max_groups))
    groups: dict[int, list[PackedChunk]] = {}
    for chunk in parts:
        for group, rows in chunks.split_by_group(chunk, splitters):
            groups.setdefault(group, []).append(PackedChunk.from_wire(rows.to_wire()))
    messages = [arrow_shards.batch_messages(chunks.merge_rows(groups[g]), SCHEMA, rows_per_batch)
                for g in sorted(groups)]
    return arrow_shards.join_stream(SCHEMA, messages), len(groups)


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


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=["pair", "pair-probs", "single"])
@pytest.mark.parametrize(("rows_per_batch", "max_groups"), [(7, 64), (5, 3), (1024, 64)])
def test_groups_serialized_apart_join_into_the_bytes_of_one_stream(wires, config, rows_per_batch, max_groups):
    sorted_columns, _ = chunks.pack_sorted(wires, config, SPECIAL)
    expected = arrow_shards.stream_bytes(sorted_columns, SCHEMA, rows_per_batch)
    data, groups = grouped_stream(chunked(wires, 50, config), rows_per_batch, max_groups)
    assert data == expected
    batches = math.ceil(sorted_columns.num_rows / rows_per_batch)
    assert groups == math.ceil(batches / math.ceil(batches / max_groups)) <= max_groups


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
        data, _ = grouped_stream(packed, 1, 64)
        assert data == arrow_shards.stream_bytes(expected, SCHEMA, 1)


def test_the_same_document_in_two_chunks_makes_its_shard_one_group():
    a = synthetic("반복", np.array([5, 6, 7], np.uint16), np.array([2, 1], np.uint32)).to_wire()
    b = synthetic("하나", np.array([9], np.uint16), np.array([1], np.uint32)).to_wire()
    config = PackConfig(max_length=8)
    packed = [chunks.pack_chunk([a, b], config, SPECIAL), chunks.pack_chunk([a], config, SPECIAL)]
    keys = [k for c in packed for k in chunks.row_keys(c)]
    assert chunks.plan_splitters(keys, 1) == []
    data, groups = grouped_stream(packed, 1, 64)
    assert groups == 1
    assert data == arrow_shards.stream_bytes(chunks.pack_sorted([a, b, a], config, SPECIAL)[0], SCHEMA, 1)


def test_row_keys_number_the_rows_of_each_document():
    long_doc = synthetic("긴-글", np.arange(100, 120, dtype=np.uint16), np.array([6, 6, 8], np.uint32))
    short_doc = synthetic("짧은-글", np.array([7], np.uint16), np.array([1], np.uint32))
    chunk = chunks.pack_chunk([short_doc.to_wire(), long_doc.to_wire()], PackConfig(max_length=10), SPECIAL)
    tie = chunks.tie_key(long_doc.ids.tobytes())
    # room 7 after [CLS] [SEP] [SEP]: sentences of 6, 6 and 8 tokens (cut into 7 + 1) fill four rows
    assert chunks.row_keys(chunk) == [
        ("긴-글", tie, 0), ("긴-글", tie, 1), ("긴-글", tie, 2), ("긴-글", tie, 3),
        ("짧은-글", chunks.tie_key(short_doc.ids.tobytes()), 0),
    ]


def test_rows_per_group_is_whole_batches_and_at_most_max_groups():
    assert chunks.rows_per_group(87_520, 1024, 64) == 2048  # 86 batches -> 43 groups of 2
    assert chunks.rows_per_group(64 * 1024, 1024, 64) == 1024
    assert chunks.rows_per_group(0, 1024, 64) == 1024
    assert chunks.rows_per_group(10, 7, 64) == 7


def test_cross_document_is_not_packed_per_document():
    block = DocBlock.from_docs([synthetic("문서", np.array([5], np.uint16), np.array([1], np.uint32))])
    with pytest.raises(ValueError, match="cross_document sequences span documents"):
        pack_block_by_document(block, PackConfig(layout="cross_document"), SPECIAL)


def stream_groups(parts: list[list], config: PackConfig, rows_per_batch: int, max_groups: int):
    """What the pipeline does for `cross_document`: plan the stream, route the pieces, pack and serialize each
    group, join; and the stats and number of groups."""
    from kcorpus.transforms.packing import stream_chunks

    keys = [k for part in parts for k in stream_chunks.doc_keys(part)]
    splitters, stats = stream_chunks.plan_stream(keys, config, rows_per_batch, max_groups)
    groups: dict[int, list] = {}
    for part in parts:
        for group, pieces in stream_chunks.split_documents(part, splitters).items():
            groups.setdefault(group, []).extend(pieces)
    messages = [arrow_shards.batch_messages(stream_chunks.stream_piece_columns(groups[g], config, SPECIAL), SCHEMA,
                                            rows_per_batch) for g in sorted(groups)]
    return arrow_shards.join_stream(SCHEMA, messages), stats, len(groups)


@pytest.mark.slow
@pytest.mark.parametrize("max_length", [16, 128, 512])
@pytest.mark.parametrize(("rows_per_batch", "max_groups"), [(3, 64), (2, 5), (1024, 64)])
def test_cross_document_groups_join_into_the_bytes_of_one_stream(wires, max_length, rows_per_batch, max_groups):
    config = PackConfig(max_length=max_length, layout="cross_document")
    columns, expected_stats = chunks.pack_sorted(wires, config, SPECIAL)
    docs = list(wires)
    random.Random(7).shuffle(docs)
    data, stats, groups = stream_groups([docs[i : i + 40] for i in range(0, len(docs), 40)], config, rows_per_batch,
                                        max_groups)
    assert data == arrow_shards.stream_bytes(columns, SCHEMA, rows_per_batch)
    assert stats == expected_stats and stats.dropped_tokens == 0
    batches = math.ceil(columns.num_rows / rows_per_batch)
    assert groups == math.ceil(batches / math.ceil(batches / max_groups))


def test_cross_document_document_spanning_groups_and_repeated_documents():
    long_doc = synthetic("긴-글", np.arange(100, 140, dtype=np.uint16), np.array([40], np.uint32)).to_wire()
    short_doc = synthetic("짧은-글", np.array([7, 8], np.uint16), np.array([2], np.uint32)).to_wire()
    empty = synthetic("빈-글", np.zeros(0, np.uint16), np.zeros(0, np.uint32)).to_wire()
    config = PackConfig(max_length=8, layout="cross_document")
    # 41 + 3 stream tokens, 7 per row: 7 rows; groups of one row: five start inside the long document
    data, stats, groups = stream_groups([[short_doc, empty], [long_doc]], config, 1, 64)
    columns, expected = chunks.pack_sorted([long_doc, short_doc, empty], config, SPECIAL)
    assert data == arrow_shards.stream_bytes(columns, SCHEMA, 1) and stats == expected and groups == 7
    assert columns.doc_ids == ["긴-글"] * 6 + ["짧은-글"] and stats.documents == 3
    # the same document twice cannot be told apart by its key: one group, still the same bytes
    data, stats, groups = stream_groups([[long_doc], [long_doc, short_doc]], config, 1, 64)
    columns, expected = chunks.pack_sorted([long_doc, long_doc, short_doc], config, SPECIAL)
    assert data == arrow_shards.stream_bytes(columns, SCHEMA, 1) and stats == expected and groups == 1
