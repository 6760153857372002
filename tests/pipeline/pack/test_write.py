import hashlib
import itertools
import json
from collections import defaultdict

import numpy as np
import pytest

from kcorpus.pipeline import external_sort
from kcorpus.pipeline.pack import runs
from kcorpus.pipeline.pack.write import ShardStream, sort_wire, write_nsp, write_rows, write_stream
from kcorpus.transforms.pack import arrow_shards, chunks
from kcorpus.transforms.pack.blocks import PackConfig, TokenizedDoc
from kcorpus.transforms.pack.chunks import pack_sorted
from kcorpus.transforms.pack.tokenize import special_ids, tokenize_wire, tokenizer_from_bytes
from kcorpus.transforms.sharding import split_and_shard
from packing_fixtures import CORPUS, kcbert_tokenizer_dir

LAYOUTS = ("pair", "single", "cross_document", "full_sentences", "nsp")


def sort_documents(docs: list[TokenizedDoc]) -> list[TokenizedDoc]:
    return [TokenizedDoc.from_wire(w) for w in sort_wire(d.to_wire() for d in docs)]


def test_documents_sharing_an_id_sort_reproducibly():
    a = TokenizedDoc("same", np.array([5, 6], np.uint16), np.array([2], np.uint32))
    b = TokenizedDoc("same", np.array([7], np.uint16), np.array([1], np.uint32))
    c = TokenizedDoc("a-first", np.array([9], np.uint16), np.array([1], np.uint32))
    forward = [d.ids.tolist() for d in sort_documents([a, b, c])]
    assert forward == [d.ids.tolist() for d in sort_documents([b, c, a])]
    assert forward[0] == [9]


@pytest.fixture(scope="module")
def tokenized(tmp_path_factory):
    """The fixture corpus tokenized with KcBERT's vocab: (tokenizer folder, special ids, wire documents)."""
    tok_dir = kcbert_tokenizer_dir(tmp_path_factory.mktemp("tok"))
    tok = tokenizer_from_bytes((tok_dir / "tokenizer.json").read_bytes())
    raw = [json.loads(line) for p in sorted((CORPUS / "docs").glob("*.jsonl")) for line in p.open()]
    wires = tokenize_wire(tok, [(d["id"], d["text"]) for d in raw], np.uint16, sources=[d["source"] for d in raw])
    return tok_dir, special_ids(tok), wires


def config_of(layout: str) -> PackConfig:
    return PackConfig(max_length=64, layout=layout, single_segment_prob=0.1 if layout == "pair" else 0.0,
                      short_seq_prob=0.05 if layout == "pair" else None, seed=5)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_many_runs_merged_in_passes_give_the_bytes_and_stats_of_one_sorted_pack(tmp_path, tokenized, layout):
    """The bounded-memory path in one process: the documents of one shard spilled by several "workers" with a
    tiny buffer (a run every few documents), blocks of a few rows, merged two runs at a time over several
    passes, written a record batch at a time: the bytes and stats of packing the sorted shard in one place."""
    _, special, wires = tokenized
    config = config_of(layout)
    schema = arrow_shards.packed_schema(np.dtype(np.uint16), layout=layout)
    expected, expected_stats = pack_sorted(wires, config, special)
    kind = runs.ROWS if layout in ("pair", "single") else runs.DOCS
    refs = []
    for worker in range(3):  # documents in batches of 10, dealt to three workers round-robin
        buffer = runs.SpillBuffer(str(tmp_path / "runs"), kind, limit=3000, max_length=64)
        for start in range(worker * 10, len(wires), 30):
            batch = wires[start : start + 10]
            items = [chunks.pack_chunk(batch, config, special)] if kind == runs.ROWS else batch
            for item in items:
                refs += [ref for _, ref in buffer.add(("train", 0), item)]
        refs += [ref for _, ref in buffer.flush()]
    assert len(refs) > 20
    paths = external_sort.reduce_runs([r.path for r in refs], kind, str(tmp_path / "merged"), fan_in=2)
    assert len(paths) == 2
    stream = ShardStream(str(tmp_path / "shard.arrow"), schema, 7)
    if kind == runs.ROWS:
        stats = write_rows(stream, paths, refs)
    elif layout == "nsp":
        stats = write_nsp(stream, paths, config, special)
    else:
        stats = write_stream(stream, paths, config, special)
    digest = stream.close()
    data = (tmp_path / "shard.arrow").read_bytes()
    assert data == arrow_shards.stream_bytes(expected, schema, 7)
    assert stats == expected_stats and stats.documents == 645
    assert digest == hashlib.sha256(data).hexdigest() and stream.size == len(data)
    assert not list(tmp_path.glob(".*.tmp-*"))


def test_run_blocks_end_at_a_document_end(tokenized, monkeypatch):
    _, special, wires = tokenized
    monkeypatch.setattr(runs, "BLOCK_BYTES", 200)
    chunk = chunks.pack_chunk(wires[:80], PackConfig(max_length=16), special)
    blocks = [chunks.PackedChunk.from_wire(b) for b in runs.rows_blocks(runs.chunk_entries(chunk))]
    assert len(blocks) > 10 and sum(b.columns.num_rows for b in blocks) == chunk.columns.num_rows
    for before, after in itertools.pairwise(blocks):
        assert before.columns.doc_ids[-1] != after.columns.doc_ids[0]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_empty_shard_is_one_empty_record_batch(tmp_path, layout):
    schema = arrow_shards.packed_schema(np.dtype(np.uint16), layout=layout)
    stream = ShardStream(str(tmp_path / "empty.arrow"), schema, 1024)
    stream.close()
    assert (tmp_path / "empty.arrow").read_bytes() == arrow_shards.join_stream(schema, [])


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS)
def test_shards_spilled_by_two_workers_are_the_bytes_of_one_sorted_pack(tmp_path, tokenized, layout):
    """The pipeline with a worker buffer of 2 KB (a run every few documents) on two worker processes: every
    shard is still the stream of packing its sorted documents in one place; no temporary file is left."""
    from kcorpus.pipeline.pack.build import PackJob, run

    tok_dir, special, wires = tokenized
    counts = {"train": 2, "validation": 1}
    by_shard = defaultdict(list)
    for w in wires:
        by_shard[split_and_shard(w[0], 0.1, counts)].append(w)
    schema = arrow_shards.packed_schema(np.dtype(np.uint16), layout=layout)
    config = config_of(layout)
    out = tmp_path / layout
    job = PackJob(corpus=str(CORPUS), tokenizer=str(tok_dir), out=str(out), pack=config, validation_fraction=0.1,
                  num_shards=2, num_validation_shards=1, rows_per_batch=8, spill_bytes=2048, batch_documents=16,
                  profile_stages=True)
    manifest = run(job, ["--direct_num_workers=2"], local_mode="multi_processing")
    for (split, index), docs in by_shard.items():
        expected = arrow_shards.stream_bytes(pack_sorted(docs, config, special)[0], schema, 8)
        assert (out / split / arrow_shards.shard_name(index, counts[split])).read_bytes() == expected
    assert manifest["counts"]["documents"] == 645 and manifest["counts"]["corpus_tokens"] == 58140
    steps = {s["step"]: s for s in json.loads((out / "stages.json").read_text())["steps"]}
    assert steps["WriteShards"]["elements"] == 3
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
