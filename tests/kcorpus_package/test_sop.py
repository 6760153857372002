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
