"""Sentence-order prediction: labels match the swap, token types follow it, single segments get -100."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kcorpus.data import BatchRequest, MLMCollator, PackedDataset
from kcorpus.data.sop import swap_segments


def segments(ids, types, specials):
    """(A, B) token lists of one unpadded `[CLS] A [SEP] B [SEP]` row (B None for one segment)."""
    real = ids[specials == 0]
    real_types = types[specials == 0]
    if not (types == 1).any():
        return real.tolist(), None
    return real[real_types == 0].tolist(), real[real_types == 1].tolist()


def swapped(types, starts, lengths, rng):
    """(gather index, new token types, labels) of one swap."""
    swap = swap_segments(types, starts, lengths, rng)
    return swap.apply(np.arange(len(types))), swap.apply_types(types), swap.labels


def test_swap_of_one_row():
    types = np.array([0, 0, 0, 0, 1, 1, 1, 0, 0, 0])  # [CLS] a a [SEP] b b [SEP] | [CLS] c [SEP]
    rng = np.random.default_rng(0)
    while True:
        index, new_types, labels = swapped(types, np.array([0, 7]), np.array([7, 3]), rng)
        if labels[0] == 1:
            break
    assert labels.tolist() == [1, -100]
    assert index.tolist() == [0, 4, 5, 3, 1, 2, 6, 7, 8, 9]  # [CLS] b b [SEP] a a [SEP]
    assert new_types.tolist() == [0, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    types = np.array([0, 0, 0, 0, 1, 1])  # [CLS] a a [SEP] b [SEP]
    draws = [swapped(types, np.array([0]), np.array([6]), np.random.default_rng(s)) for s in range(8)]
    assert {int(labels[0]) for _, _, labels in draws} == {0, 1}
    for index, new_types, labels in draws:
        if labels[0] == 1:
            assert index.tolist() == [0, 4, 3, 1, 2, 5] and new_types.tolist() == [0, 0, 0, 1, 1, 1]
        else:
            assert index.tolist() == list(range(6)) and new_types.tolist() == types.tolist()


@pytest.mark.parametrize("pad_to", ["max_length", "none"])
def test_labels_match_the_swap(wordpiece_pack, pad_to):
    ds = PackedDataset(wordpiece_pack / "train")
    rows = np.arange(min(len(ds), 400))
    collator = MLMCollator.for_dataset(ds, sentence_order=True, mlm_probability=0.0, seed=5)
    out = collator(ds.batch(rows, pad_to), BatchRequest(0, 0, 0, rows))
    labels = out["sentence_order_label"]
    assert labels.shape == (len(rows),)
    ids, types = out["input_ids"], out["token_type_ids"]
    if pad_to == "none":
        cu = out["cu_seqlens"]
        pieces = [(ids[0, a:b], types[0, a:b], out["special_tokens_mask"][0, a:b]) for a, b in itertools.pairwise(cu)]
    else:
        pieces = [(i[m == 1], t[m == 1], s[m == 1]) for i, t, s, m in
                  zip(ids, types, out["special_tokens_mask"], out["attention_mask"])]
    counts = {-100: 0, 0: 0, 1: 0}
    for k, (row_ids, row_types, row_specials) in enumerate(pieces):
        a, b = segments(*ds.views(int(rows[k])))
        got_a, got_b = segments(row_ids, row_types, row_specials)
        counts[int(labels[k])] += 1
        assert row_ids[0] == ds.views(int(rows[k]))[0][0] and len(row_ids) == len(ds.views(int(rows[k]))[0])
        if b is None:
            assert labels[k] == -100 and got_a == a
        elif labels[k] == 1:
            assert (got_a, got_b) == (b, a)
        else:
            assert (got_a, got_b) == (a, b)
        # token types: 0 up to and including the first [SEP], then 1
        first_sep = int(np.flatnonzero(row_specials[1:])[0]) + 1
        assert row_types[: first_sep + 1].sum() == 0 and np.all(row_types[first_sep + 1 :] == (b is not None))
    assert counts[0] > 50 and counts[1] > 50 and counts[-100] > 0
    assert abs(counts[1] / (counts[0] + counts[1]) - 0.5) < 0.1


def test_sop_then_ngram_masking_predicts_the_swapped_tokens(wordpiece_pack, wordpiece_dir):
    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, sentence_order=True, masking="ngram")
    plain = ds.batch(range(200), word_start=True)
    out = collator(plain, BatchRequest(0, 0, 0, np.arange(200)))
    target = out["labels"] != -100
    assert np.all(out["special_tokens_mask"][target] == 0)
    # the labels are the swapped row's own tokens
    swapped = MLMCollator.for_dataset(ds, sentence_order=True, mlm_probability=0.0)(plain, BatchRequest(0, 0, 0, None))
    assert np.array_equal(out["labels"][target], swapped["input_ids"][target])


def test_split_of_one_row_and_what_stays_single():
    from kcorpus.data.sop import split_single_segments

    # rows: [CLS] w1 w1' w2 w3 [SEP] (cut at w2: 2 tokens | 2 tokens) / [CLS] a [SEP] b [SEP] (two segments
    # already) / [CLS] x x' [SEP] (one word) / [CLS] p q r [SEP] (cut at q or r: 1|2 vs 2|1, the earlier)
    ids = np.array([2, 10, 11, 12, 13, 3, 2, 20, 3, 21, 3, 2, 30, 31, 3, 2, 40, 41, 42, 3])
    types = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    specials = (ids < 4).astype(np.int64)
    words = np.array([0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0], bool)
    positions = np.array([2, 3, 4, 5, 6, 7, 2, 3, 4, 5, 6, 2, 3, 4, 5, 2, 3, 4, 5, 6])
    columns = {"input_ids": ids, "token_type_ids": types, "special_tokens_mask": specials,
               "word_start": words.astype(np.uint8), "position_ids": positions}
    out = split_single_segments(columns, np.array([6, 5, 4, 5]), words, sep_id=3, max_length=128)
    assert out.split.tolist() == [True, False, False, True]
    assert out.lengths.tolist() == [7, 5, 4, 6]
    assert out.columns["input_ids"].tolist() == [2, 10, 11, 3, 12, 13, 3, 2, 20, 3, 21, 3, 2, 30, 31, 3,
                                                 2, 40, 3, 41, 42, 3]
    assert out.columns["token_type_ids"].tolist() == [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0,
                                                      0, 0, 0, 1, 1, 1]
    assert out.columns["special_tokens_mask"].tolist() == (out.columns["input_ids"] < 4).astype(int).tolist()
    assert out.columns["word_start"].tolist() == [0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0,
                                                  0, 1, 0, 1, 1, 0]
    assert out.columns["position_ids"].tolist() == [2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 2, 3, 4, 5,
                                                    2, 3, 4, 5, 6, 7]
    # a row as long as max_length has no room for the [SEP]
    full = split_single_segments(columns, np.array([6, 5, 4, 5]), words, sep_id=3, max_length=5)
    assert full.split.tolist() == [False, False, False, False]
    assert full.columns["input_ids"].tolist() == ids.tolist()


@pytest.mark.parametrize("pad_to", ["max_length", "longest", "none"])
def test_split_rows_keep_their_tokens_and_most_rows_train_sop(comments_petitions_pack, pad_to):
    ds = PackedDataset(comments_petitions_pack / "train")
    rows = np.arange(len(ds))
    plain = MLMCollator.for_dataset(ds, sentence_order=True, mlm_probability=0.0, seed=5)
    split = MLMCollator.for_dataset(ds, sentence_order=True, split_single_segments=True, mlm_probability=0.0, seed=5)
    assert split.needs_word_start and split.sep_id == 3 and split.max_length == 128
    batch = ds.batch(rows, pad_to, word_start=True)
    before = plain(batch, BatchRequest(0, 0, 0, rows))["sentence_order_label"]
    out = split(batch, BatchRequest(0, 0, 0, rows))
    labels = out["sentence_order_label"]
    if pad_to == "none":
        cu = out["cu_seqlens"]
        pieces = [(out["input_ids"][0, a:b], out["token_type_ids"][0, a:b], out["special_tokens_mask"][0, a:b])
                  for a, b in itertools.pairwise(cu)]
        assert out["max_seqlen"] == np.diff(cu).max()
        assert out["position_ids"][0].tolist() == [p for a, b in itertools.pairwise(cu) for p in range(b - a)]
    else:
        width = batch["input_ids"].shape[1]  # 128, or the longest row: one more if that row was cut
        assert out["input_ids"].shape[1] == max(width, out["attention_mask"].sum(axis=1).max())
        pieces = [(i[m == 1], t[m == 1], s[m == 1]) for i, t, s, m in
                  zip(out["input_ids"], out["token_type_ids"], out["special_tokens_mask"], out["attention_mask"])]
    cut = 0
    for k, (row_ids, row_types, row_specials) in enumerate(pieces):
        a, b = segments(*ds.views(int(rows[k])))
        got_a, got_b = segments(row_ids, row_types, row_specials)
        if b is not None:  # a pair already: swapped or not, as without the split
            assert labels[k] == before[k] and (got_a, got_b) == ((b, a) if labels[k] == 1 else (a, b))
            continue
        if got_b is None:  # stayed single: one word
            assert labels[k] == -100 and got_a == a
            continue
        cut += 1
        assert len(row_ids) == len(ds.views(int(rows[k]))[0]) + 1 and got_a and got_b
        assert (got_b + got_a if labels[k] == 1 else got_a + got_b) == a
    share = (labels != -100).mean()
    assert share >= 0.8 and (before != -100).mean() < share
    assert cut == (labels != -100).sum() - (before != -100).sum()
