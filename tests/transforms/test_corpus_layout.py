import pytest

from kcorpus.transforms import corpus_layout


def test_shard_paths_of_a_corpus():
    assert corpus_layout.text_shard(1, 4, compression="zstd") == "text/part-00001-of-00004.txt.zst"
    assert corpus_layout.docs_shard(0, 2, compression="zstd") == "docs/part-00000-of-00002.jsonl.zst"
    assert corpus_layout.dropped_shard(3, 4, compression="zstd") == "rejected/dropped-00003-of-00004.jsonl.zst"
    assert corpus_layout.duplicates_shard(3, 4, compression="zstd") == "rejected/duplicates-00003-of-00004.jsonl.zst"
    assert corpus_layout.dead_letter_file(compression="zstd") == "rejected/dead_letter.jsonl.zst"


def test_plain_shard_paths_without_compression():
    assert corpus_layout.text_shard(1, 4, compression="none") == "text/part-00001-of-00004.txt"
    assert corpus_layout.docs_shard(0, 2, compression="none") == "docs/part-00000-of-00002.jsonl"
    assert corpus_layout.dropped_shard(3, 4, compression="none") == "rejected/dropped-00003-of-00004.jsonl"
    assert corpus_layout.duplicates_shard(3, 4, compression="none") == "rejected/duplicates-00003-of-00004.jsonl"
    assert corpus_layout.dead_letter_file(compression="none") == "rejected/dead_letter.jsonl"
    with pytest.raises(ValueError, match="unknown compression 'gzip'"):
        corpus_layout.docs_shard(0, 1, compression="gzip")


def test_pack_layouts_prefer_docs_plain_or_compressed():
    assert list(corpus_layout.LAYOUTS) == ["docs", "text"]
    assert corpus_layout.LAYOUTS["text"] == corpus_layout.TEXT_GLOBS == ("text/*.txt", "text/*.txt.zst")
    assert corpus_layout.matches("docs/part-00000-of-00001.jsonl.zst", corpus_layout.DOCS_GLOBS)
    assert corpus_layout.matches("docs/part-00000-of-00001.jsonl", corpus_layout.DOCS_GLOBS)
    assert not corpus_layout.matches("docs/part-00000-of-00001.jsonl.zst.tmp-0a1b2c", corpus_layout.DOCS_GLOBS)
    assert not corpus_layout.matches("docs/old/part-00000-of-00001.jsonl", corpus_layout.DOCS_GLOBS)
