"""Replaced token detection: the discriminator's input and 0/1/-100 labels from a generator's logits."""

from __future__ import annotations

import numpy as np
import pytest

from kcorpus.data import MLMCollator, PackedDataLoader, PackedDataset, replaced_token_detection

torch = pytest.importorskip("torch")


def peaked(shape: tuple[int, int], vocab: int, tokens: dict[tuple[int, int], int]) -> torch.Tensor:
    """Logits that sample `tokens[(row, col)]` there (every other position: token 0) with certainty."""
    logits = torch.full((*shape, vocab), -1e4)
    logits[..., 0] = 1e4
    for (r, c), token in tokens.items():
        logits[r, c] = -1e4
        logits[r, c, token] = 1e4
    return logits


def test_labels_one_where_the_sample_differs_zero_on_real_tokens_ignored_on_specials():
    # [CLS] 7 [MASK] [MASK] 9 [SEP] [PAD] / [CLS] [MASK] 8 [SEP] [PAD] [PAD] [PAD]; originals 5, 6 and 7
    input_ids = torch.tensor([[2, 7, 4, 4, 9, 3, 0], [2, 4, 8, 3, 0, 0, 0]])
    labels = torch.full_like(input_ids, -100)
    labels[0, 2], labels[0, 3], labels[1, 1] = 5, 6, 7
    specials = torch.tensor([[1, 0, 0, 0, 0, 1, 1], [1, 0, 0, 1, 1, 1, 1]])
    logits = peaked((2, 7), 12, {(0, 2): 5, (0, 3): 11, (1, 1): 10})  # the first sample equals its original
    ids, disc = replaced_token_detection(input_ids, labels, logits, special_tokens_mask=specials)
    assert ids.tolist() == [[2, 7, 5, 11, 9, 3, 0], [2, 10, 8, 3, 0, 0, 0]]
    assert disc.tolist() == [[-100, 0, 0, 1, 0, -100, -100], [-100, 1, 0, -100, -100, -100, -100]]
    with pytest.raises(TypeError, match="special_tokens_mask"):
        replaced_token_detection(input_ids, labels, logits)  # without it the padding would be labelled 0
    with pytest.raises(ValueError, match="temperature"):
        replaced_token_detection(input_ids, labels, logits, temperature=0.0, special_tokens_mask=specials)
    with pytest.raises(ValueError, match="shapes differ"):
        replaced_token_detection(input_ids, labels, logits[:, :5], special_tokens_mask=specials)


def test_on_a_real_batch_samples_follow_the_logits_and_carry_no_gradient(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, mask_fraction=1.0, random_fraction=0.0, seed=3)
    batch = next(iter(PackedDataLoader(ds, 32, seed=0, collator=collator, pad_to="longest", return_tensors="pt")))
    predicted = batch["labels"] != -100
    vocab = 50  # uniform over 50 ids: a sample equals a (KcBERT) original only where that original is < 50
    logits = torch.zeros((*batch["input_ids"].shape, vocab), requires_grad=True)
    runs = [replaced_token_detection(batch["input_ids"], batch["labels"], logits,
                                     generator=torch.Generator().manual_seed(s),
                                     special_tokens_mask=batch["special_tokens_mask"]) for s in (1, 1, 2)]
    (ids, disc), (ids_again, _), (ids_other, _) = runs
    assert torch.equal(ids, ids_again) and not torch.equal(ids, ids_other)
    assert not ids.requires_grad and not disc.requires_grad
    assert torch.equal(ids[~predicted], batch["input_ids"][~predicted])
    assert ids[predicted].max() < vocab
    assert torch.equal(disc == -100, batch["special_tokens_mask"] == 1)
    assert torch.equal(disc[predicted], (ids[predicted] != batch["labels"][predicted]).long())
    assert int(disc[~predicted & (disc != -100)].sum()) == 0
    # sharper logits (temperature < 1) pick the favoured id more often
    favoured = torch.zeros_like(logits)
    favoured[..., 7] = 1.0
    share = [float((replaced_token_detection(batch["input_ids"], batch["labels"], favoured, temperature=t,
                                             generator=torch.Generator().manual_seed(0),
                                             special_tokens_mask=batch["special_tokens_mask"])[0][predicted] == 7)
                   .float().mean()) for t in (0.1, 1.0)]
    assert share[0] > 0.99 and abs(share[1] - np.e / (np.e + vocab - 1)) < 0.03
