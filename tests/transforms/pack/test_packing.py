"""Pure packing functions on the real fixture corpus tokenized with the real KcBERT vocab."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

from kcorpus.transforms.pack.blocks import DocBlock, PackConfig, SpecialIds, TokenizedDoc, ids_dtype
from kcorpus.transforms.pack.packer import content_tokens, pack_block, pack_documents
from kcorpus.transforms.pack.stats import PackStats, padding_warning
from kcorpus.transforms.pack.tokenize import (
    full_vocab_size,
    sentence_lines,
    special_ids,
    tokenize_documents,
)
from packing_fixtures import CORPUS, kcbert_vocab, wordpiece_tokenizer

SPECIAL = SpecialIds(cls=2, sep=3, pad=0)


@pytest.fixture(scope="module")
def tokenizer():
    return wordpiece_tokenizer(kcbert_vocab())


@pytest.fixture(scope="module")
def docs(tokenizer) -> list[TokenizedDoc]:
    raw = [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]
    return tokenize_documents(tokenizer, [(d["id"], d["text"]) for d in raw])


def doc(doc_id: str, *lengths: int, start: int = 100) -> TokenizedDoc:
    ids = np.arange(start, start + sum(lengths), dtype=np.uint32)
    return TokenizedDoc(doc_id, ids, np.array(lengths, dtype=np.uint32), np.ones(ids.shape[0], np.uint8))


def test_fixture_corpus_tokens_match_one_by_one_encoding(tokenizer, docs):
    assert len(docs) == 645
    assert sum(d.num_tokens for d in docs) == 58140
    raw = json.loads((CORPUS / "docs" / "part-00000-of-00002.jsonl").open().readline())
    one_by_one = [tokenizer.encode(s, add_special_tokens=False).ids for s in sentence_lines(raw["text"])]
    assert docs[0].id == raw["id"]
    assert docs[0].ids.tolist() == [i for s in one_by_one for i in s]
    assert docs[0].lengths.tolist() == [len(s) for s in one_by_one]


def check_sequences(seqs, config: PackConfig, vocab_size: int) -> None:
    for seq in seqs:
        assert 3 <= seq.length <= config.max_length if config.layout != "cross_document" else seq.length >= 2
        assert seq.input_ids[0] == SPECIAL.cls and seq.input_ids[-1] == SPECIAL.sep
        assert int(seq.input_ids.max()) < vocab_size
        assert seq.special_tokens_mask[0] == 1 and seq.special_tokens_mask[-1] == 1
        # specials are exactly the inserted [CLS]/[SEP] positions
        assert set(seq.input_ids[seq.special_tokens_mask == 1].tolist()) <= {SPECIAL.cls, SPECIAL.sep}
        types = seq.token_type_ids
        assert set(np.unique(types).tolist()) <= {0, 1}
        assert np.all(np.diff(types.astype(int)) >= 0)  # zeros then ones
        if types[-1] == 1:  # pair: [CLS] A [SEP] B [SEP]
            a_end = int(np.argmax(types)) - 1
            assert seq.input_ids[a_end] == SPECIAL.sep and seq.special_tokens_mask.sum() == 3
            assert a_end >= 2 and seq.length - a_end >= 3  # both segments non-empty


@pytest.mark.parametrize("max_length", [32, 128, 512])
@pytest.mark.parametrize("layout", ["pair", "single"])
def test_every_corpus_token_in_exactly_one_sequence_within_its_document(docs, layout, max_length):
    config = PackConfig(max_length=max_length, layout=layout, single_segment_prob=0.1, short_seq_prob=0.05)
    seqs = list(pack_documents(docs, config, SPECIAL))
    check_sequences(seqs, config, 30000)
    per_doc: dict[str, list[int]] = defaultdict(list)
    for seq in seqs:
        per_doc[seq.doc_id].extend(content_tokens(seq).tolist())
    assert {d.id: d.ids.tolist() for d in docs} == dict(per_doc)
    if layout == "single":
        assert all(s.token_type_ids.max() == 0 and s.special_tokens_mask.sum() == 2 for s in seqs)


def test_cross_document_stream_is_full_length_and_reconciles(docs):
    config = PackConfig(max_length=128, layout="cross_document")
    seqs = list(pack_documents(docs, config, SPECIAL))
    assert all(s.length == 128 for s in seqs[:-1]) and 2 <= seqs[-1].length <= 128
    stream = np.concatenate([s.input_ids[1:] for s in seqs]).tolist()  # drop each [CLS]
    expected = [t for d in docs for t in [*d.ids.tolist(), SPECIAL.sep]]
    assert stream == expected
    columns = pack_block(DocBlock.from_docs(docs), config, SPECIAL)
    stats = PackStats.of_columns(columns, {"": len(docs)}, sum(d.num_tokens for d in docs), 128)
    assert stats.dropped_tokens == 0
    assert stats.sequences == 463 == -(-(58140 + 645) // 127)
    assert stats.padding_tokens == 16
    assert stats.padding_fraction < 0.01


def test_pair_layout_ab_split_and_greedy_fill():
    # sentences of 5, 4, 6, 3 tokens; room for content is 16 - 3 = 13
    seqs = list(pack_documents([doc("d", 5, 4, 6, 3)], PackConfig(max_length=16), SPECIAL))
    assert [s.input_ids.tolist() for s in seqs] == [
        [2, 100, 101, 102, 103, 104, 3, 105, 106, 107, 108, 3],
        [2, 109, 110, 111, 112, 113, 114, 3, 115, 116, 117, 3],
    ]
    assert seqs[0].token_type_ids.tolist() == [0] * 7 + [1] * 5
    assert seqs[0].special_tokens_mask.tolist() == [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def test_long_sentence_is_split_not_dropped_and_tail_starts_next_sequence():
    # a 30-token sentence with max_length 16: pieces of 13, 13, 4; then a 2-token sentence joins the tail
    seqs = list(pack_documents([doc("d", 30, 2)], PackConfig(max_length=16), SPECIAL))
    assert [s.length for s in seqs] == [15, 15, 9]
    assert np.concatenate([content_tokens(s) for s in seqs]).tolist() == list(range(100, 132))
    assert seqs[2].input_ids.tolist() == [2, 126, 127, 128, 129, 3, 130, 131, 3]


def test_single_document_sentence_gives_one_segment():
    (seq,) = pack_documents([doc("d", 3)], PackConfig(max_length=16), SPECIAL)
    assert seq.input_ids.tolist() == [2, 100, 101, 102, 3]
    assert seq.token_type_ids.tolist() == [0] * 5


def test_packing_depends_on_seed_and_id_not_on_order_or_bundling(docs):
    config = PackConfig(max_length=64, single_segment_prob=0.5, short_seq_prob=0.3, seed=7)
    forward = {d.id: [s.input_ids.tolist() for s in pack_documents([d], config, SPECIAL)] for d in docs}
    backward = {d.id: [s.input_ids.tolist() for s in pack_documents([d], config, SPECIAL)] for d in reversed(docs)}
    assert forward == backward
    reseeded = PackConfig(max_length=64, single_segment_prob=0.5, short_seq_prob=0.3, seed=8)
    other = {d.id: [s.input_ids.tolist() for s in pack_documents([d], reseeded, SPECIAL)] for d in docs}
    assert other != forward


def test_short_seq_and_single_segment_probabilities_take_effect(docs):
    dense = list(pack_documents(docs, PackConfig(max_length=128), SPECIAL))
    shorter = list(pack_documents(docs, PackConfig(max_length=128, short_seq_prob=0.5), SPECIAL))
    assert len(shorter) > len(dense)
    pairs = sum(int(s.token_type_ids[-1] == 1) for s in dense)
    singles_forced = list(pack_documents(docs, PackConfig(max_length=128, single_segment_prob=1.0), SPECIAL))
    assert pairs > 0 and all(s.token_type_ids.max() == 0 for s in singles_forced)


@pytest.mark.parametrize(
    ("vocab_size", "dtype"), [(1, np.uint16), (30000, np.uint16), (65536, np.uint16), (65537, np.uint32),
                              (250002, np.uint32)]
)
def test_ids_dtype_at_the_65536_boundary(vocab_size, dtype):
    assert ids_dtype(vocab_size) == np.dtype(dtype)


def test_full_vocab_size_counts_added_tokens():
    from tokenizers import Tokenizer, models

    base = {f"t{i}": i for i in range(65535)} | {"[UNK]": 65535}
    tok = Tokenizer(models.WordLevel(base, unk_token="[UNK]"))
    assert full_vocab_size(tok) == 65536 and ids_dtype(full_vocab_size(tok)) == np.uint16
    tok.add_special_tokens(["[EXTRA]"])
    assert full_vocab_size(tok) == 65537 and ids_dtype(full_vocab_size(tok)) == np.uint32
    assert tok.token_to_id("[EXTRA]") == 65536


def test_missing_special_token_is_a_clear_error(tokenizer):
    with pytest.raises(ValueError, match="no <s> token"):
        special_ids(tokenizer, cls="<s>")


@pytest.mark.parametrize(
    "kwargs", [{"layout": "sop"}, {"max_length": 4}, {"short_seq_prob": 1.5}, {"min_target_length": 1000}]
)
def test_bad_config_is_rejected(kwargs):
    with pytest.raises(ValueError):
        PackConfig(**kwargs)


@pytest.mark.parametrize("layout", ["pair", "single"])
@pytest.mark.parametrize("max_length", [32, 512])
def test_array_planned_documents_match_the_per_document_plan(docs, layout, max_length):
    from kcorpus.transforms.pack.blocks import DocBlock
    from kcorpus.transforms.pack.packer import _LazyRng, _plan_block, _plan_document

    config = PackConfig(max_length=max_length, layout=layout)
    block = DocBlock.from_docs(docs + [doc("empty")] + [doc("zeros", 0, 3, 0)])
    doc_index, segs = _plan_block(block, config)
    expected, base = [], 0
    for i, d in enumerate(docs + [doc("empty"), doc("zeros", 0, 3, 0)]):
        plan = _plan_document(d.lengths.tolist(), base, config, _LazyRng(config.seed, d.id))
        expected.extend((i, *s) for s in plan)
        base += d.num_tokens
    assert [(int(i), *map(int, s)) for i, s in zip(doc_index, segs)] == expected


def test_padding_warning_past_a_fifth_names_the_layouts_that_fill_rows_across_documents():
    assert padding_warning(0.20, "pair", 512) is None
    assert padding_warning(0.474, "pair", 512) == (
        "padding is 47.4% of the 512-token positions (layout pair): rows filled across documents waste less, "
        "--layout full_sentences (whole sentences across documents) or cross_document (no padding at all)"
    )
    assert padding_warning(0.25, "full_sentences") == (
        "padding is 25.0% of the positions (layout full_sentences): rows filled across documents waste less, "
        "--layout cross_document (no padding at all)"
    )
