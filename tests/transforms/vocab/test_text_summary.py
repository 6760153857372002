"""The summary the trainers and checks read instead of the text, on the real test slices (tests/testdata/vocab*)."""

from collections import Counter

import pytest

from kcorpus.transforms.vocab import text_summary
from kcorpus.transforms.vocab.checks import check_vocab
from kcorpus.transforms.vocab.files import wordpiece_tokenizer
from kcorpus.transforms.vocab.sample import read_sample
from kcorpus.transforms.vocab.text_summary import summarize
from kcorpus.transforms.vocab.train import (
    WordPieceConfig,
    _spm_input,
    isolate_jamo,
    jamo_delimiter,
    split_long_sentence,
    train_wordpiece,
)
from testdata_paths import TESTDATA

JAMO_COMMENTS = TESTDATA / "vocab_jamo" / "jamo_comments.txt"


@pytest.fixture(scope="module")
def comments():
    return read_sample([str(JAMO_COMMENTS)], max_sentences=10_000, seed=0)[0]


def test_counts_every_character_and_keeps_the_first_sentences(comments):
    summary = summarize(iter(comments), round_trip=7)
    assert summary.sentences == 601
    assert summary.char_counts == Counter("".join(comments))
    assert summary.round_trip == comments[:7]
    assert summary.genuine_jamo == {"ᆢ": 140, "ᅠ": 55, "ᄏ": 22, "ᆞ": 2}  # 219, as train-vocab reports
    assert summary.syllables == Counter(c for s in comments for c in s if "가" <= c <= "힣")


def test_counts_across_batches_as_in_one(comments, monkeypatch):
    whole = summarize(comments)
    monkeypatch.setattr(text_summary, "_BATCH_CHARS", 50)
    batched = summarize(comments)
    assert batched == whole


def test_jamo_words_are_the_distinct_words_holding_jamo(comments):
    words = {w for s in comments for w in s.split(" ") if any("\u1100" <= c <= "\u11ff" for c in w)}
    assert summarize(comments).jamo_words == words and len(words) == 193  # of 198 occurrences


def test_jamo_words_beyond_the_cap_are_counted_and_named_in_the_error(comments, monkeypatch):
    monkeypatch.setattr(text_summary, "MAX_JAMO_WORDS", 2)
    summary = summarize(comments)
    assert len(summary.jamo_words) == 2 and summary.jamo_words_dropped == 196  # the other occurrences
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "영화", "ᄒ"]
    errors = check_vocab(wordpiece_tokenizer(tokens), "wordpiece", tokens, summary).errors
    assert errors[0].startswith(
        "1 tokens contain conjoining jamo (U+1100-U+11FF) that the NFC training text does not contain (only the "
        "first 2 distinct words holding jamo were kept, not 196 later occurrences of others: pass --allow-jamo if "
        "the text has these), e.g. \\u1112"
    )


def test_sentencepiece_figures_are_those_of_the_split_and_isolated_sentences(comments):
    # 60 bytes: long comments are split, and isolating their jamo makes some pieces longer than the limit
    summary = summarize(comments, max_sentence_bytes=60)
    pieces = [p for s in comments for p in split_long_sentence(s, 60)]
    assert summary.long_sentences == sum(len(split_long_sentence(s, 60)) > 1 for s in comments) == 320
    assert summary.pieces == len(pieces) == 1196
    delimiter = jamo_delimiter(summary.char_counts)
    longest = max(len(isolate_jamo(p, delimiter).encode("utf-8")) for p in pieces if isolate_jamo(p, delimiter) != p)
    assert summary.max_isolated_bytes == longest == 113
    known = summary.spm_input()
    assert (known.pieces, known.max_isolated_bytes) == (_spm_input(pieces).pieces, _spm_input(pieces).max_isolated_bytes)
    assert jamo_delimiter(known.counts) == jamo_delimiter(_spm_input(pieces).counts) == "\ue000"
    with pytest.raises(ValueError, match="max_sentence_bytes"):
        summarize(comments).spm_input()


def test_wordpiece_trained_on_a_stream_with_its_summary_is_the_one_trained_on_the_list(comments):
    config = WordPieceConfig(vocab_size=2500)
    summary = summarize(comments)
    alphabet = config.alphabet(summary.char_counts)
    streamed = train_wordpiece(iter(comments), config, alphabet=alphabet, length=len(comments))
    assert streamed == train_wordpiece(comments, config)


def test_spread_sentences_are_taken_at_a_regular_stride(monkeypatch):
    monkeypatch.setattr(text_summary, "SPREAD_SENTENCES", 4)
    sentences = [f"문장 {i}" for i in range(21)]
    assert summarize(sentences[:3]).spread == sentences[:3]
    assert summarize(sentences).spread == sentences[::4]  # 8 filled at stride 1, then 2, then 4
