"""The `word_start` flags: the first token of every eojeol, from the tokenizer's offsets against the text's
whitespace, for WordPiece and SentencePiece, through every layout of the packer."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from kcorpus.transforms.pack.blocks import DocBlock, PackConfig, SpecialIds
from kcorpus.transforms.pack.packer import pack_block
from kcorpus.transforms.pack.tokenize import (
    encode_flat,
    sentence_lines,
    tokenize_documents,
    tokenizer_from_bytes,
)
from kcorpus.transforms.pack.word_starts import space_mask, word_start_flags
from packing_fixtures import CORPUS, kcbert_vocab, spm_tokenizer_dir, wordpiece_tokenizer


@pytest.fixture(scope="module")
def wordpiece():
    return wordpiece_tokenizer(kcbert_vocab())


@pytest.fixture(scope="module")
def sentencepiece(tmp_path_factory):
    directory = spm_tokenizer_dir(tmp_path_factory.mktemp("spm"))
    return tokenizer_from_bytes((directory / "tokenizer.json").read_bytes())


def flagged(tok, text: str) -> list[tuple[str, int]]:
    _ids, _lengths, _counts, flags = encode_flat(tok, [text], word_starts=True)
    return list(zip(tok.encode(text, add_special_tokens=False).tokens, flags.tolist(), strict=True))


def test_punctuation_split_off_an_eojeol_does_not_start_a_word(wordpiece):
    # the BERT pre-tokenizer cuts `달라"고` into 달라 " 고 without `##`: only 달라 opens the eojeol
    assert flagged(wordpiece, '그는 "돈을 달라"고 말했다.') == [
        ("그는", 1), ('"', 1), ("돈을", 0), ("달라", 1), ('"', 0), ("고", 0), ("말했다", 1), (".", 0)]
    assert flagged(wordpiece, "NEP인증세제 사용 (강제) 요청건의서") == [
        ("N", 1), ("##E", 0), ("##P", 0), ("##인증", 0), ("##세", 0), ("##제", 0), ("사용", 1), ("(", 1),
        ("강제", 0), (")", 0), ("요청", 1), ("##건", 0), ("##의", 0), ("##서", 0)]


def test_a_bare_metaspace_piece_belongs_to_the_word_it_precedes(sentencepiece):
    pieces = flagged(sentencepiece, "NEP인증세제 사용 (강제) 요청건의서")
    assert pieces[:2] == [("▁", 1), ("N", 0)]
    assert [p for p in pieces if p[1]] == [("▁", 1), ("▁사용", 1), ("▁", 1), ("▁요청", 1)]
    assert pieces[pieces.index(("▁", 1), 1) + 1] == ("(", 0)


def test_runs_of_whitespace_and_sentences_joined():
    text = "가나  다\n라"
    # tokens at 가(0) 나(1) 다(4) 라(6); 라 opens a sentence
    assert word_start_flags(text, np.array([0, 1, 4, 6]), np.array([0, 3])).tolist() == [1, 0, 1, 1]
    # a token on whitespace belongs to the next word
    assert word_start_flags(text, np.array([0, 2, 3, 4]), np.array([0])).tolist() == [1, 1, 0, 0]
    assert space_mask("a\u3000b\xa0c").tolist() == [False, True, False, True, False]
    assert word_start_flags("", np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []


def eojeol_starts(tok, sentence: str) -> list[int]:
    """Independently of the packer: one `encode` per sentence, and for every eojeol (a `\\S+` match) the first
    token that starts at or after the end of the eojeol before it."""
    offsets = tok.encode(sentence, add_special_tokens=False).offsets
    flags = [0] * len(offsets)
    previous_end = 0
    for word in re.finditer(r"\S+", sentence):
        first = next(i for i, (start, _end) in enumerate(offsets) if start >= previous_end)
        flags[first] = 1
        previous_end = word.end()
    return flags


def corpus() -> list[dict]:
    return [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]


@pytest.mark.slow
@pytest.mark.parametrize("vocab", ["wordpiece", "sentencepiece"])
@pytest.mark.parametrize("layout", ["pair", "single", "cross_document"])
def test_every_flag_of_a_real_pack_is_the_eojeol_start_computed_from_the_text(request, vocab, layout):
    tok = request.getfixturevalue(vocab)
    raw = corpus()
    expected = {d["id"]: [f for s in sentence_lines(d["text"]) for f in eojeol_starts(tok, s)] for d in raw}
    docs = tokenize_documents(tok, [(d["id"], d["text"]) for d in raw], sources=[d["source"] for d in raw])
    assert sum(len(f) for f in expected.values()) == sum(d.num_tokens for d in docs) > 50_000
    config = PackConfig(max_length=64, layout=layout, single_segment_prob=0.1, short_seq_prob=0.05, seed=1)
    special = SpecialIds(tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]"), tok.token_to_id("[PAD]"))
    columns = pack_block(DocBlock.from_docs(docs), config, special)
    flags, mask = columns.word_start, columns.special_tokens_mask
    assert flags.shape == columns.input_ids.shape and not flags[mask == 1].any()
    # rows are in document order, so their content flags are the documents' flags one after another
    assert flags[mask == 0].tolist() == [f for d in docs for f in expected[d.id]]
    rows = list(columns.sequences())
    assert {r.source for r in rows} == {"nsmc", "petitions", "wiki"}
    assert all(r.source == {d["id"]: d["source"] for d in raw}[r.doc_id] for r in rows)
    if vocab == "sentencepiece":
        # SentencePiece's own mark agrees (a piece opens a word iff it starts with `▁`) but where two spaces
        # part words (4 places in the corpus): `▁ ▁대` is one word, opened by the bare `▁`
        pieces = [tok.id_to_token(i) for i in columns.input_ids[mask == 0].tolist()]
        content = flags[mask == 0].tolist()
        differ = [i for i, p in enumerate(pieces) if p.startswith("▁") != bool(content[i])]
        assert len(differ) == 4 and all(pieces[i - 1] == "▁" and content[i - 1] for i in differ)


def test_flags_off_encode_without_offsets(wordpiece):
    with_flags = encode_flat(wordpiece, ["가나 다라\n마바"], word_starts=True)
    without = encode_flat(wordpiece, ["가나 다라\n마바"])
    assert without[3] is None and with_flags[3] is not None
    assert np.array_equal(with_flags[0], without[0]) and np.array_equal(with_flags[1], without[1])
