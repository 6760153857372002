"""Packs of the real fixture corpus (tests/testdata/pack/) shared by the loader tests of this folder."""

from __future__ import annotations

import json

import pytest

from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.transforms.pack.blocks import PackConfig
from packing_fixtures import CORPUS, kcbert_tokenizer_dir, spm_tokenizer_dir


def build_pack(out, tokenizer_dir, corpus=CORPUS, **pack):
    job = PackJob(corpus=str(corpus), tokenizer=str(tokenizer_dir), out=str(out), pack=PackConfig(**pack),
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
    """KcBERT WordPiece, `pair` layout, 128 tokens (with the `word_start` and `source` columns)."""
    return build_pack(tmp_path_factory.mktemp("wp") / "out", wordpiece_dir, max_length=128)


@pytest.fixture(scope="session")
def wordpiece_pack_without_words(tmp_path_factory, wordpiece_dir):
    """The same without the `word_start` column (`--no-word-start`, as packs written before it)."""
    return build_pack(tmp_path_factory.mktemp("wpn") / "out", wordpiece_dir, max_length=128, word_start=False)


@pytest.fixture(scope="session")
def spm_pack_without_words(tmp_path_factory, spm_dir):
    return build_pack(tmp_path_factory.mktemp("spn") / "out", spm_dir, max_length=128, word_start=False)


@pytest.fixture(scope="session")
def spm_pack(tmp_path_factory, spm_dir):
    """A SentencePiece unigram model trained on the corpus, `pair` layout, 128 tokens."""
    return build_pack(tmp_path_factory.mktemp("sp") / "out", spm_dir, max_length=128)


@pytest.fixture(scope="session")
def stream_pack(tmp_path_factory, wordpiece_dir):
    """KcBERT WordPiece, `cross_document` layout, 128 tokens."""
    return build_pack(tmp_path_factory.mktemp("cd") / "out", wordpiece_dir, max_length=128, layout="cross_document")


@pytest.fixture(scope="session")
def comments_petitions_corpus(tmp_path_factory):
    """The fixture corpus less its Wikipedia articles: NSMC comments (one comment a document) and petitions."""
    out = tmp_path_factory.mktemp("comments_petitions") / "corpus"
    (out / "docs").mkdir(parents=True)
    for path in sorted((CORPUS / "docs").glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines()
                 if json.loads(line)["source"] in ("nsmc", "petitions")]
        (out / "docs" / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def comments_petitions_pack(tmp_path_factory, wordpiece_dir, comments_petitions_corpus):
    """KcBERT WordPiece, `pair` layout, 128 tokens, of the comments + petitions corpus."""
    return build_pack(tmp_path_factory.mktemp("cp") / "out", wordpiece_dir, comments_petitions_corpus, max_length=128)
