"""Padding-free batches reach stock transformers models right with every attention implementation:
`block_diagonal_mask` (bool for SDPA, additive float for SDPA and eager) and `ModelInputs` (only the model's
own arguments), checked against the padded batch's loss with weights large enough that a leak shows. On the
SentencePiece pack: its 3,000-token vocabulary keeps the LM heads cheap."""

from __future__ import annotations

import numpy as np
import pytest

from kcorpus.data import MLMCollator, ModelInputs, PackedDataLoader, PackedDataset
from kcorpus.data.flatten import block_diagonal_mask

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128,
        "initializer_range": 0.5}  # large weights: attention across sequences moves the loss by far more than 1e-3


def family(name: str, vocab_size: int, pad_id: int, attention: str):
    """A tiny masked LM of one family, seeded."""
    torch.manual_seed(0)
    configs = {
        "bert": (transformers.BertConfig, transformers.BertForMaskedLM, {"max_position_embeddings": 128}),
        # RoBERTa counts positions from padding_idx + 1; the pack's [PAD] is id 0 and its rows have 2 segments
        "roberta": (transformers.RobertaConfig, transformers.RobertaForMaskedLM,
                    {"max_position_embeddings": 128 + pad_id + 1, "pad_token_id": pad_id, "type_vocab_size": 2}),
        "albert": (transformers.AlbertConfig, transformers.AlbertForMaskedLM,
                   {"max_position_embeddings": 128, "embedding_size": 32}),
    }
    config_class, model_class, extra = configs[name]
    return model_class(config_class(vocab_size=vocab_size, attn_implementation=attention, **TINY, **extra)).eval()


def releases_right_or_wrong(loss, want) -> bool:
    """A loss the installed transformers gives without ModelInputs: the padded batch's, or clearly off."""
    return bool(torch.allclose(loss, want, rtol=1e-5) or abs(loss - want) > 0.05)


def batches(ds, **loader):
    collator = MLMCollator.for_dataset(ds, seed=0)
    return next(iter(PackedDataLoader(ds, 8, seed=1, collator=collator, return_tensors="pt", **loader)))


def test_block_diagonal_mask_bool_and_additive():
    cu = np.array([0, 2, 5], dtype=np.int32)
    allowed = np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 1, 1, 1]], bool)
    mask = block_diagonal_mask(cu)
    assert mask.dtype == bool and mask.shape == (1, 1, 5, 5) and np.array_equal(mask[0, 0], allowed)
    additive = block_diagonal_mask(cu, np.float32)
    assert additive.dtype == np.float32
    assert np.array_equal(additive[0, 0], np.where(allowed, 0.0, np.finfo(np.float32).min).astype(np.float32))
    bf16 = block_diagonal_mask(torch.from_numpy(cu), torch.bfloat16)
    assert bf16.dtype == torch.bfloat16 and torch.equal(
        bf16[0, 0], torch.where(torch.from_numpy(allowed), 0.0, torch.finfo(torch.bfloat16).min).to(torch.bfloat16))
    assert torch.equal(block_diagonal_mask(torch.from_numpy(cu)), torch.from_numpy(mask))
    with pytest.raises(ValueError, match="float dtype"):
        block_diagonal_mask(cu, np.int64)


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize("name", ["bert", "roberta", "albert"])
def test_a_flat_batch_gives_the_padded_loss(spm_pack, name, attention):
    ds = PackedDataset(spm_pack / "train")
    model = family(name, ds.vocab_size, ds.pad_id, attention)
    inputs = ModelInputs.for_model(model)
    padded = batches(ds, pad_to="longest", model_inputs=inputs)
    raw = batches(ds, pad_to="none", position_start=inputs.position_start)
    flat = inputs(raw)
    assert set(flat) == {"input_ids", "token_type_ids", "position_ids", "labels", "attention_mask"}
    assert set(padded) == {"input_ids", "token_type_ids", "labels", "attention_mask"}
    assert flat["attention_mask"].dtype == (torch.bool if attention == "sdpa" else torch.float32)
    with torch.no_grad():
        want, got = model(**padded), model(**flat)
        real = padded["attention_mask"] == 1
        assert torch.allclose(got.loss, want.loss, rtol=1e-5)
        assert (got.logits[0] - want.logits[real]).abs().max() < 1e-2  # logits of size ~30
        keys = {k: v for k, v in flat.items() if k != "attention_mask"}
        # the bug this guards against: eager adds a bool mask (+1 / +0) instead of applying it
        leaky = model(**keys, attention_mask=block_diagonal_mask(raw["cu_seqlens"])).loss
        assert (abs(leaky - want.loss) > 0.05) == (attention == "eager")
        # without a mask the release decides: transformers 5.25 finds BERT's and RoBERTa's sequences from
        # position_ids, earlier releases (and ALBERT in 5.25) attend across the whole flat row; never in between
        assert releases_right_or_wrong(model(**keys).loss, want.loss)


def test_a_raw_flat_batch_is_taken_as_it_is_and_model_inputs_keeps_only_arguments(spm_pack):
    ds = PackedDataset(spm_pack / "train")
    model = family("bert", ds.vocab_size, ds.pad_id, "sdpa")
    raw = batches(ds, pad_to="none")
    assert {"cu_seqlens", "max_seqlen", "special_tokens_mask", "source"} <= set(raw)
    safe = batches(ds, pad_to="none", model_inputs=ModelInputs.for_model(model))
    padded = batches(ds, pad_to="longest")
    with torch.no_grad():
        want = model(**{k: padded[k] for k in ("input_ids", "token_type_ids", "attention_mask", "labels")}).loss
        # transformers takes cu_seqlens & co. without a word; whether the loss is right is the release's choice
        assert releases_right_or_wrong(model(**raw).loss, want)
        assert torch.allclose(model(**safe).loss, want, rtol=1e-5)


def test_what_a_model_cannot_take_is_refused(spm_pack):
    ds = PackedDataset(spm_pack / "train")
    roberta = ModelInputs.for_model(family("roberta", ds.vocab_size, ds.pad_id, "sdpa"))
    assert roberta.position_start == ds.pad_id + 1
    with pytest.raises(ValueError, match=r"position_start=1"):
        PackedDataLoader(ds, 8, pad_to="none", return_tensors="pt", model_inputs=roberta)
    deberta = transformers.DebertaV2ForMaskedLM(transformers.DebertaV2Config(vocab_size=ds.vocab_size, **TINY))
    with pytest.raises(ValueError, match="cannot take a padding-free batch"):
        PackedDataLoader(ds, 8, pad_to="none", return_tensors="pt", model_inputs=ModelInputs.for_model(deberta))
    PackedDataLoader(ds, 8, pad_to="longest", return_tensors="pt", model_inputs=ModelInputs.for_model(deberta))
    bert = family("bert", ds.vocab_size, ds.pad_id, "sdpa")
    with pytest.raises(ValueError, match="return_tensors='pt'"):
        PackedDataLoader(ds, 8, model_inputs=ModelInputs.for_model(bert))
    # a label the model has no argument for is an error, not a key that vanishes
    sop = MLMCollator.for_dataset(ds, sentence_order=True, seed=0)
    pretraining = transformers.BertForPreTraining(transformers.BertConfig(vocab_size=ds.vocab_size, **TINY))
    loader = PackedDataLoader(ds, 8, collator=sop, return_tensors="pt", model_inputs=ModelInputs.for_model(pretraining))
    with pytest.raises(ValueError, match="sentence_order_label is not an argument of BertForPreTraining"):
        next(iter(loader))
    renamed = ModelInputs.for_model(pretraining, rename={"sentence_order_label": "next_sentence_label"})
    batch = next(iter(PackedDataLoader(ds, 8, collator=sop, return_tensors="pt", model_inputs=renamed)))
    assert set(batch) == {"input_ids", "token_type_ids", "attention_mask", "labels", "next_sentence_label"}
    with pytest.raises(ValueError, match="not an argument of BertForMaskedLM"):
        ModelInputs.for_model(bert, rename={"sentence_order_label": "next_sentence_label"})
