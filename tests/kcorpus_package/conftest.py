"""Packs of the real fixture corpus (tests/testdata/pack/) shared by the loader tests of this folder."""

from __future__ import annotations

import pytest

from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.transforms.packing.packer import PackConfig
from packing_fixtures import CORPUS, kcbert_tokenizer_dir, spm_tokenizer_dir


def build_pack(out, tokenizer_dir, **pack):
    job = PackJob(corpus=str(CORPUS), tokenizer=str(tokenizer_dir), out=str(out), pack=PackConfig(**pack),
                  validation_fraction=0.1, num_shards=2, num_validation_shards=1, rows_per_batch=100)
    run(job, local_mode="in_memory")
    return out


@pytest.fixture(scope="session")
def wordpiece_dir(tmp_path_factory):
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("wordpiece"))


@pytest.fixture(scope="session")
def spm_dir(tmp_path_factory):
    return spm_tokenizer_dir(tmp_path_factory.mktemp("spm"))


@pytest.fixture(scope="session")
def wordpiece_pack(tmp_path_factory, wordpiece_dir):
    """KcBERT WordPiece, `pair` layout, 128 tokens."""
    return build_pack(tmp_path_factory.mktemp("wp") / "out", wordpiece_dir, max_length=128)


@pytest.fixture(scope="session")
def spm_pack(tmp_path_factory, spm_dir):
    """A SentencePiece unigram model trained on the corpus, `pair` layout, 128 tokens."""
    return build_pack(tmp_path_factory.mktemp("sp") / "out", spm_dir, max_length=128)


@pytest.fixture(scope="session")
def stream_pack(tmp_path_factory, wordpiece_dir):
    """KcBERT WordPiece, `cross_document` layout, 128 tokens."""
    return build_pack(tmp_path_factory.mktemp("cd") / "out", wordpiece_dir, max_length=128, layout="cross_document")


def add_word_start_column(pack, tokenizer_dir):
    """Until pack writes it: a `word_start` column (list<bool>), True on the tokens the vocabulary marks as
    starting a word (no `##`), for the loader's plumbing only (the real column comes from offsets)."""
    import pyarrow as pa

    from kcorpus.data.masking import vocab_word_starts
    from kcorpus.data.vocab_check import load_vocab

    starts = vocab_word_starts(load_vocab(tokenizer_dir))[0]
    for shard in sorted(pack.glob("*/*.arrow")):
        table = pa.ipc.open_stream(shard.read_bytes()).read_all()  # not mapped: rewritten below
        ids = table.column("input_ids").combine_chunks()
        flags = starts[ids.values.to_numpy()] & (table.column("special_tokens_mask").combine_chunks().values
                                                 .to_numpy() == 0)
        column = pa.ListArray.from_arrays(ids.offsets, pa.array(flags, type=pa.bool_()))
        table = table.append_column("word_start", column)
        with pa.OSFile(str(shard), "wb") as f, pa.ipc.new_stream(f, table.schema) as writer:
            for batch in table.to_batches(max_chunksize=100):
                writer.write_batch(batch)
    return pack


def add_source_column(pack):
    """Until pack writes it: each row's `source` (dictionary<int32, string>), the corpus `source` of its
    document, as the shared pack interface defines the column."""
    import json

    import pyarrow as pa

    source_of = {}
    for path in sorted((CORPUS / "docs").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            doc = json.loads(line)
            source_of[doc["id"]] = doc["source"]
    for shard in sorted(pack.glob("*/*.arrow")):
        table = pa.ipc.open_stream(shard.read_bytes()).read_all()  # not mapped: rewritten below
        names = [source_of[d] for d in table.column("doc_id").to_pylist()]
        source = pa.array(names, type=pa.string()).dictionary_encode()
        table = table.append_column("source", pa.chunked_array([source]).cast(pa.dictionary(pa.int32(), pa.string())))
        with pa.OSFile(str(shard), "wb") as f, pa.ipc.new_stream(f, table.schema) as writer:
            for batch in table.to_batches(max_chunksize=100):
                writer.write_batch(batch)
    return pack


@pytest.fixture(scope="session")
def sourced_pack(tmp_path_factory, wordpiece_dir):
    """KcBERT WordPiece, `pair` layout, 128 tokens, with each row's source."""
    return add_source_column(build_pack(tmp_path_factory.mktemp("src") / "out", wordpiece_dir, max_length=128))


@pytest.fixture(scope="session")
def worded_pack(tmp_path_factory, wordpiece_dir):
    """KcBERT WordPiece, `pair` layout, 128 tokens, with a `word_start` column."""
    out = build_pack(tmp_path_factory.mktemp("ws") / "out", wordpiece_dir, max_length=128)
    return add_word_start_column(out, wordpiece_dir)
