from kcorpus.transforms import corpus_layout


def test_shard_paths_of_a_corpus():
    assert corpus_layout.text_shard(1, 4) == "text/part-00001-of-00004.txt"
    assert corpus_layout.docs_shard(0, 2) == "docs/part-00000-of-00002.jsonl"
    assert corpus_layout.dropped_shard(3, 4) == "rejected/dropped-00003-of-00004.jsonl"
    assert corpus_layout.duplicates_shard(3, 4) == "rejected/duplicates-00003-of-00004.jsonl"
    assert corpus_layout.DEAD_LETTER_FILE == "rejected/dead_letter.jsonl"


def test_pack_layouts_prefer_docs():
    assert list(corpus_layout.LAYOUTS) == ["docs", "text"]
    assert corpus_layout.LAYOUTS["text"] == corpus_layout.TEXT_GLOB == "text/*.txt"
