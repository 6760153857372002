"""The stream layouts (`cross_document`, `full_sentences`) packed a block of documents at a time."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kcorpus.transforms.pack.blocks import DocBlock, PackConfig, PackedColumns, SpecialIds, TokenizedDoc
from kcorpus.transforms.pack.packer import pack_block, pack_block_by_document
from kcorpus.transforms.pack.stats import PackStats
from kcorpus.transforms.pack.stream_chunks import StreamPacker
from kcorpus.transforms.pack.tokenize import tokenize_documents
from packing_fixtures import CORPUS, kcbert_vocab, wordpiece_tokenizer

SPECIAL = SpecialIds(cls=2, sep=3, pad=0)


@pytest.fixture(scope="module")
def docs() -> list[TokenizedDoc]:
    raw = [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]
    return tokenize_documents(wordpiece_tokenizer(kcbert_vocab()), [(d["id"], d["text"]) for d in raw],
                              sources=[d["source"] for d in raw])


def doc(doc_id: str, *lengths: int, start: int = 100, source: str = "") -> TokenizedDoc:
    ids = np.arange(start, start + sum(lengths), dtype=np.uint32)
    return TokenizedDoc(doc_id, ids, np.array(lengths, dtype=np.uint32), np.ones(ids.shape[0], np.uint8), source)


def rows_of(columns: PackedColumns) -> list[list[int]]:
    return [s.input_ids.tolist() for s in columns.sequences()]


def full_sentences_reference(docs: list[TokenizedDoc], max_length: int) -> list[list[int]]:
    """RoBERTa's FULL-SENTENCES written plainly: a row takes whole sentences (pieces of at most max_length - 2
    tokens) while they fit with its closing [SEP], a document's last sentence brings its [SEP] along."""
    limit = max_length - 2
    rows: list[list[int]] = []
    row: list[int] = []
    for d in docs:
        ids = d.ids.tolist()
        pieces, at = [], 0
        for n in d.lengths.tolist():
            pieces += [ids[s : min(s + limit, at + n)] for s in range(at, at + n, limit)]
            at += n
        for k, piece in enumerate(pieces):
            if row and len(row) + len(piece) > limit:
                rows.append([SPECIAL.cls, *row] + ([] if row[-1] == SPECIAL.sep else [SPECIAL.sep]))
                row = []
            row += piece + ([SPECIAL.sep] if k == len(pieces) - 1 else [])
    if row:
        rows.append([SPECIAL.cls, *row] + ([] if row[-1] == SPECIAL.sep else [SPECIAL.sep]))
    return rows


def test_full_sentences_fill_rows_with_whole_sentences_across_documents():
    # room for content and inner [SEP]s before the closing [SEP]: 10 - 2 = 8
    docs = [doc("a", 3, 2, start=100), doc("b", 4, start=200), doc("c", 2, 9, 1, start=300)]
    columns = pack_block(DocBlock.from_docs(docs), PackConfig(max_length=10, layout="full_sentences"), SPECIAL)
    assert rows_of(columns) == [
        [2, 100, 101, 102, 103, 104, 3],            # a and its [SEP]; b's 4 tokens would not fit
        [2, 200, 201, 202, 203, 3, 300, 301, 3],    # b, [SEP], c's first sentence, closing [SEP]
        [2, 302, 303, 304, 305, 306, 307, 308, 309, 3],  # a 9-token sentence cut at 8 ...
        [2, 310, 311, 3],                           # ... its last token and c's last sentence with [SEP]
    ]
    assert columns.doc_ids == ["a", "b", "c", "c"]
    assert columns.special_tokens_mask[:16].tolist() == [1, 0, 0, 0, 0, 0, 1] + [1, 0, 0, 0, 0, 1, 0, 0, 1]
    assert not columns.token_type_ids.any()
    assert columns.word_start.tolist()[:16] == [0, 1, 1, 1, 1, 1, 0] + [0, 1, 1, 1, 1, 0, 1, 1, 0]
    assert rows_of(columns) == full_sentences_reference(docs, 10)


@pytest.mark.parametrize("max_length", [16, 64, 128, 512])
def test_full_sentences_on_the_corpus_is_the_reference_and_reconciles(docs, max_length):
    config = PackConfig(max_length=max_length, layout="full_sentences")
    columns = pack_block(DocBlock.from_docs(docs), config, SPECIAL)
    assert rows_of(columns) == full_sentences_reference(docs, max_length)
    assert int(columns.lengths.max()) <= max_length
    content = columns.input_ids[columns.special_tokens_mask == 0]
    assert content.tolist() == [t for d in docs for t in d.ids.tolist()]
    stats = PackStats.of_columns(columns, {"": len(docs)}, sum(d.num_tokens for d in docs), max_length)
    assert stats.dropped_tokens == 0
    if max_length == 512:  # whole sentences (a comment is one): a little padding, cross_document and pair:
        assert stats.sequences == 121 and stats.padding_tokens == 2944  # 4.75%, as against 0.8% and 84%


@pytest.mark.parametrize("layout", ["cross_document", "full_sentences"])
@pytest.mark.parametrize("block", [1, 7, 100])
def test_rows_do_not_depend_on_the_blocks_the_documents_come_in(docs, layout, block):
    config = PackConfig(max_length=64, layout=layout)
    whole = pack_block(DocBlock.from_docs(docs), config, SPECIAL)
    packer = StreamPacker(config, SPECIAL)
    parts = [packer.add(DocBlock.from_docs(docs[i : i + block])) for i in range(0, len(docs), block)]
    parts = [p for p in [*parts, packer.finish()] if p is not None]
    assert [r for p in parts for r in rows_of(p)] == rows_of(whole)
    assert [i for p in parts for i in p.doc_ids] == whole.doc_ids
    assert [s for p in parts for s in p.sources] == whole.sources
    flags = np.concatenate([p.word_start for p in parts])
    assert np.array_equal(flags, whole.word_start)
    assert packer.corpus_tokens == sum(d.num_tokens for d in docs) and sum(packer.documents.values()) == 645


def test_a_row_belongs_to_the_document_of_its_first_token():
    docs = [doc("a", 5, source="x"), doc("b", 2, source="y"), doc("c", 6, source="z")]
    packer = StreamPacker(PackConfig(max_length=8, layout="cross_document"), SPECIAL)
    first = packer.add(DocBlock.from_docs(docs[:1]))  # 6 stream tokens, a row takes 7: none complete
    second = packer.add(DocBlock.from_docs(docs[1:]))  # stream: a 0-5, b 6-8, c 9-15; rows at 0, 7, 14
    last = packer.finish()
    assert first is None
    assert second.doc_ids == ["a", "b"] and second.sources == ["x", "y"]
    assert rows_of(second) == [[2, 100, 101, 102, 103, 104, 3, 100], [2, 101, 3, 100, 101, 102, 103, 104]]
    assert last.doc_ids == ["c"] and last.sources == ["z"] and rows_of(last) == [[2, 105, 3]]
    assert packer.finish() is None


def test_stream_layouts_are_not_packed_per_document():
    block = DocBlock.from_docs([doc("a", 3)])
    for layout in ("cross_document", "full_sentences"):
        with pytest.raises(ValueError, match="span documents"):
            pack_block_by_document(block, PackConfig(layout=layout), SPECIAL)
    with pytest.raises(ValueError, match="do not cross documents"):
        StreamPacker(PackConfig(layout="pair"), SPECIAL)
