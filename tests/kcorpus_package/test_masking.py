"""Whole-word and n-gram masking, max_predictions, 80/10/10 and the ELECTRA/RTD settings, on real packs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kcorpus.data import BatchRequest, MLMCollator, PackedDataLoader, PackedDataset
from kcorpus.data.masking import choose_tokens, ngram_weights, unit_starts, vocab_word_starts
from kcorpus.data.vocab_check import load_vocab
from packing_fixtures import PACK_DATA


def request(step: int = 0) -> BatchRequest:
    return BatchRequest(0, step, 0, np.zeros(0, np.int64))


def vocab_words(tokenizer_dir, marker: str) -> np.ndarray:
    """Per id, starts a word: computed here from the token strings, independently of the collator."""
    tokens = load_vocab(tokenizer_dir)
    if marker == "##":
        return np.asarray([not t.startswith("##") for t in tokens])
    return np.asarray([t.startswith("▁") for t in tokens])


def words_of(batch, flags: np.ndarray) -> list[np.ndarray]:
    """The flat token positions of every word of a padded batch, `flags` marking word starts (a word ends at
    the next word start or at a special or padding token)."""
    real = (batch["special_tokens_mask"].reshape(-1) == 0) & (batch["attention_mask"].reshape(-1) == 1)
    width = batch["input_ids"].shape[1]
    words, current = [], []
    for i in range(real.shape[0]):
        if not real[i] or flags[i] or i % width == 0:
            if current:
                words.append(np.asarray(current))
            current = []
        if real[i]:
            current.append(i)
    if current:
        words.append(np.asarray(current))
    return words


def test_ngram_span_lengths_follow_one_over_n():
    assert np.allclose(ngram_weights(3), np.array([6, 3, 2]) / 11)
    rng = np.random.default_rng(0)
    eligible = np.ones(20_000, dtype=bool)
    eligible[::50] = False  # a special token every 50 tokens: spans never cross it
    row_start = np.zeros_like(eligible)
    words = np.ones_like(eligible)  # every token a word
    starts = unit_starts(eligible, row_start, words, "ngram", 3, rng)
    sizes = np.diff(np.append(np.flatnonzero(starts | ~eligible), eligible.shape[0]))[starts[starts | ~eligible]]
    assert sizes.min() == 1 and sizes.max() == 3
    shares = np.bincount(sizes, minlength=4)[1:] / sizes.shape[0]
    # spans cut short by a segment's end add a few short ones; otherwise 6:3:2
    assert np.allclose(shares, ngram_weights(3), atol=0.03)
    assert not starts[~eligible].any()


def test_whole_word_units_start_at_words_and_after_specials():
    eligible = np.array([0, 1, 1, 1, 0, 1, 1, 0, 1, 1], dtype=bool)
    row_start = np.array([1, 0, 0, 0, 0, 0, 0, 0, 1, 0], dtype=bool)
    words = np.array([0, 1, 0, 1, 0, 0, 0, 0, 0, 1], dtype=bool)  # position 5 follows a special token
    starts = unit_starts(eligible, row_start, words, "whole_word", 3, np.random.default_rng(0))
    assert np.flatnonzero(starts).tolist() == [1, 3, 5, 8, 9]


def test_max_predictions_drops_whole_units():
    eligible = np.ones(12, dtype=bool)
    starts = np.zeros(12, dtype=bool)
    starts[[0, 3, 6, 9]] = True  # four units of 3 tokens
    row = np.zeros(12, dtype=np.int64)
    chosen = choose_tokens(eligible, starts, row, 1.0, 7, np.random.default_rng(1))
    assert chosen.sum() == 6  # two whole units: a third would make 9 > 7
    assert all(chosen[s : s + 3].all() or not chosen[s : s + 3].any() for s in (0, 3, 6, 9))


def test_min_predictions_adds_whole_units_to_rows_short_of_it():
    eligible = np.array([0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0], dtype=bool)
    starts = np.zeros(14, dtype=bool)
    starts[[1, 4, 8]] = True  # row 0: units of 3 and 2 tokens; row 1: one of 2; row 2: none
    row = np.repeat([0, 1, 2], [7, 4, 3])
    for seed in range(20):
        chosen = choose_tokens(eligible, starts, row, 0.0, None, np.random.default_rng(seed), min_predictions=1)
        assert chosen[[8, 9]].all() and not chosen[10:].any()
        assert chosen[1:4].all() != chosen[4:6].all() and chosen[1:4].all() == chosen[1:4].any()
    both = {tuple(np.flatnonzero(choose_tokens(eligible, starts, row, 0.0, None, np.random.default_rng(s),
                                               min_predictions=1))) for s in range(20)}
    assert both == {(1, 2, 3, 8, 9), (4, 5, 8, 9)}  # either unit of row 0, at random
    # 3 tokens wanted: row 0 stops once it has them (the 3-token unit alone, or the 2-token one then the other)
    wanted = {tuple(np.flatnonzero(choose_tokens(eligible, starts, row, 0.0, None, np.random.default_rng(s),
                                                 min_predictions=3))) for s in range(20)}
    assert wanted == {(1, 2, 3, 8, 9), (1, 2, 3, 4, 5, 8, 9)}
    # max_predictions still caps afterwards, dropping whole units
    capped = {int(choose_tokens(eligible, starts, row, 0.0, 3, np.random.default_rng(s), min_predictions=3)[:7].sum())
              for s in range(20)}
    assert capped == {2, 3}


def test_min_predictions_leaves_no_short_row_without_a_target(comments_petitions_pack, wordpiece_dir):
    ds = PackedDataset(comments_petitions_pack / "train")
    rows = np.arange(len(ds))
    empty = {}
    for minimum in (0, 1):
        collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, masking="ngram", min_predictions=minimum,
                                           seed=1)
        out = collator(ds.batch(rows, word_start=True), request())
        empty[minimum] = int(((out["labels"] != -100).sum(axis=1) == 0).sum())
    assert empty[0] > 20 and empty[1] == 0
    with pytest.raises(ValueError, match="min_predictions"):
        MLMCollator(mask_id=4, vocab_size=10, min_predictions=5, max_predictions=3)


@pytest.mark.slow
@pytest.mark.parametrize("tokenizer, marker", [("wordpiece", "##"), ("spm", "▁")])
@pytest.mark.parametrize("words", ["column", "vocabulary"])
@pytest.mark.parametrize("masking", ["whole_word", "ngram"])
def test_words_are_never_split_and_the_share_holds(packs, tokenizer, marker, words, masking):
    """Words are the pack's eojeols (`word_start`), or for a pack without that column the vocabulary's
    `##` / `▁` pieces, which the collator then says once."""
    pack, tokenizer_dir = packs[tokenizer, words]
    ds = PackedDataset(pack / "train")
    assert ds.has_word_start == (words == "column")
    if words == "column":
        collator = MLMCollator.for_dataset(ds, tokenizer=tokenizer_dir, masking=masking, seed=3)
    else:
        with pytest.warns(UserWarning, match=f"no word_start column.*{marker}"):
            collator = MLMCollator.for_dataset(ds, tokenizer=tokenizer_dir, masking=masking, seed=3)
    starts_by_id = vocab_words(tokenizer_dir, marker)
    predicted = eligible = split = joined = 0
    for step, indices in enumerate(np.array_split(np.arange(len(ds)), 8)):
        plain = ds.batch(indices, word_start=True)
        flags = plain["word_start"].reshape(-1) if words == "column" else starts_by_id[plain["input_ids"].reshape(-1)]
        out = collator(plain, request(step))
        target = (out["labels"] != -100).reshape(-1)
        for word in words_of(plain, flags):
            split += int(0 < target[word].sum() < len(word))
            joined += int(starts_by_id[plain["input_ids"].reshape(-1)[word[1:]]].any())
        assert np.array_equal(out["labels"].reshape(-1)[target], plain["input_ids"].reshape(-1)[target])
        predicted += int(target.sum())
        eligible += int(((plain["special_tokens_mask"] == 0) & (plain["attention_mask"] == 1)).sum())
    assert split == 0
    assert abs(predicted / eligible - 0.15) < 0.015
    # WordPiece eojeols hold pieces the vocabulary alone would start a word with (punctuation split off, as in
    # `달라"고`); the vocabulary's words never do
    assert joined > 0 if (tokenizer, words) == ("wordpiece", "column") else words == "column" or joined == 0
    # the check sees split words: token masking splits some
    token = MLMCollator.for_dataset(ds, seed=3)(plain, request())
    target = (token["labels"] != -100).reshape(-1)
    assert sum(0 < target[w].sum() < len(w) for w in words_of(plain, flags)) > 0


@pytest.fixture
def packs(wordpiece_pack, wordpiece_pack_without_words, wordpiece_dir, spm_pack, spm_pack_without_words, spm_dir):
    return {
        ("wordpiece", "column"): (wordpiece_pack, wordpiece_dir),
        ("wordpiece", "vocabulary"): (wordpiece_pack_without_words, wordpiece_dir),
        ("spm", "column"): (spm_pack, spm_dir),
        ("spm", "vocabulary"): (spm_pack_without_words, spm_dir),
    }


def test_a_pack_of_the_old_format_masks_words_by_the_vocabulary(wordpiece_dir):
    ds = PackedDataset(PACK_DATA / "old_pack" / "train")
    assert not ds.has_word_start and not ds.has_source and ds.sources == []
    with pytest.warns(UserWarning, match="no word_start column") as caught:
        collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, masking="whole_word")
    assert len(caught) == 1
    out = collator(ds.batch(range(len(ds))), request())
    assert (out["labels"] != -100).any()


def test_ngram_units_hold_one_to_max_ngram_words(wordpiece_pack, wordpiece_dir):
    ds = PackedDataset(wordpiece_pack / "train")
    batch = ds.batch(range(256))
    starts_by_id = vocab_words(wordpiece_dir, "##")
    flat = batch["input_ids"].reshape(-1)
    eligible = (batch["special_tokens_mask"].reshape(-1) == 0) & (batch["attention_mask"].reshape(-1) == 1)
    row_start = np.arange(flat.shape[0]) % batch["input_ids"].shape[1] == 0
    word = starts_by_id[flat]
    for max_ngram in (1, 3, 5):
        units = unit_starts(eligible, row_start, word, "ngram", max_ngram, np.random.default_rng(max_ngram))
        words = unit_starts(eligible, row_start, word, "whole_word", 1, np.random.default_rng(0))
        unit_of_word = np.cumsum(units)[words]
        per_unit = np.bincount(unit_of_word)[1:]
        assert per_unit.min() == 1 and per_unit.max() == max_ngram
        assert np.all(words[units])  # a span starts at a word


def test_max_predictions_caps_every_sequence(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, masking="ngram", max_predictions=5, mlm_probability=0.3, seed=1)
    out = collator(ds.batch(range(512), word_start=True), request())
    per_row = (out["labels"] != -100).sum(axis=1)
    assert per_row.max() == 5 and per_row.min() == 0


@pytest.mark.parametrize("mask_fraction, random_fraction", [(0.8, 0.1), (0.85, 0.0), (1.0, 0.0)])
def test_replacement_split_with_word_masking(wordpiece_pack, wordpiece_dir, mask_fraction, random_fraction):
    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, masking="whole_word", seed=2,
                                       mask_fraction=mask_fraction, random_fraction=random_fraction)
    plain = ds.batch(range(len(ds)), word_start=True)
    out = collator(plain, request())
    target = out["labels"] != -100
    masked = (out["input_ids"][target] == ds.mask_id).mean()
    kept = (out["input_ids"][target] == plain["input_ids"][target]).mean()
    assert abs(masked - mask_fraction) < 0.02
    assert abs(kept - (1 - mask_fraction - random_fraction)) < 0.02
    assert np.array_equal(out["input_ids"][~target], plain["input_ids"][~target])


def test_masks_are_the_same_whoever_builds_the_batch(wordpiece_pack, wordpiece_dir):
    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, masking="ngram", seed=7)
    runs = [list(PackedDataLoader(ds, 64, seed=7, collator=collator, num_workers=w)) for w in (0, 2)]
    assert all(np.array_equal(a["labels"], b["labels"]) for a, b in zip(*runs))


def test_vocabulary_marks():
    assert vocab_word_starts(["[CLS]", "안녕", "##하세요", "##요"])[0].tolist() == [True, True, False, False]
    assert vocab_word_starts(["<unk>", "▁안녕", "하세요", "▁"])[0].tolist() == [False, True, False, True]


def test_word_masking_without_marks_is_refused(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    with pytest.raises(ValueError, match="word_start"):
        MLMCollator(ds.mask_id, ds.vocab_size, masking="whole_word")(ds.batch([0]), request())
    with pytest.raises(ValueError, match="masking must be one of"):
        MLMCollator(ds.mask_id, ds.vocab_size, masking="span")


@pytest.mark.parametrize("pad_to", ["max_length", "none"])
def test_word_start_column_reaches_the_collator(wordpiece_pack, pad_to):
    import pyarrow as pa

    ds = PackedDataset(wordpiece_pack / "train")
    assert ds.has_word_start
    column = [flag for shard in ds.files for flag in
              pa.ipc.open_stream(shard.read_bytes()).read_all().column("word_start").to_pylist()]
    rows = [0, 7, 99, 100, 101, len(ds) - 1, 333]  # record batches of 100 rows: offsets inside them
    batch = ds.batch(rows, pad_to, word_start=True)
    if pad_to == "none":
        got = [batch["word_start"][0, a:b].tolist() for a, b in itertools.pairwise(batch["cu_seqlens"])]
    else:
        got = [w[m == 1].tolist() for w, m in zip(batch["word_start"], batch["attention_mask"])]
    assert got == [column[r] for r in rows]
    assert "word_start" not in ds.batch(rows, pad_to)
    collator = MLMCollator.for_dataset(ds, masking="whole_word")  # no warning: the pack has the column
    out = collator(batch, request())
    assert "word_start" not in out and (out["labels"] != -100).any()
