"""Padding-free batches (`pad_to="none"`), token-budget batches (`max_tokens`), resume in every mode, and
a transformers BERT step on a flattened batch."""

from __future__ import annotations

import itertools
import json
import shutil
from collections import Counter

import numpy as np
import pytest

from kcorpus.data import MLMCollator, PackedDataLoader, PackedDataset
from kcorpus.data.flatten import block_diagonal_mask, position_ids


def flat_rows(batch) -> list[tuple[int, ...]]:
    ids, cu = np.asarray(batch["input_ids"])[0], np.asarray(batch["cu_seqlens"])
    return [tuple(ids[a:b].tolist()) for a, b in itertools.pairwise(cu)]


def test_flat_batch_holds_the_rows_and_positions_restart(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    rows = [5, 0, 17, 3]
    flat = ds.batch(rows, pad_to="none")
    lengths = ds.lengths[rows]
    assert flat["input_ids"].shape == flat["position_ids"].shape == (1, lengths.sum())
    assert flat["cu_seqlens"].dtype == np.int32 and flat["cu_seqlens"].tolist() == [0, *np.cumsum(lengths)]
    assert flat["max_seqlen"] == lengths.max()
    assert flat_rows(flat) == [tuple(ds[i]["input_ids"].tolist()) for i in rows]
    assert flat["position_ids"][0].tolist() == [p for n in lengths for p in range(n)]
    assert "attention_mask" not in flat
    roberta = ds.batch(rows, pad_to="none", position_start=2)  # padding_idx 1 + 1
    assert np.array_equal(roberta["position_ids"], flat["position_ids"] + 2)
    padded = ds.batch(rows)
    assert (padded["attention_mask"] == 0).sum() > 0 and flat["input_ids"].shape[1] == padded["attention_mask"].sum()


def test_positions_restart_at_every_document_of_a_cross_document_row(stream_pack, wordpiece_pack):
    ds = PackedDataset(stream_pack / "train")
    rows = list(range(len(ds)))
    flat = ds.batch(rows, pad_to="none", restart_positions="document")
    ids, pos, cu = flat["input_ids"][0], flat["position_ids"][0], flat["cu_seqlens"]
    sep = json.loads((stream_pack / "manifest.json").read_text())["tokenizer"]["special_ids"]["sep"]
    for a, b in itertools.pairwise(cu):
        row_ids, row_pos = ids[a:b], pos[a:b]
        assert row_pos[0] == 0
        expected, p = [], 0
        for k in range(len(row_ids)):
            expected.append(p)
            p = 0 if row_ids[k] == sep else p + 1
        assert row_pos.tolist() == expected
    assert (pos == 0).sum() > len(rows)  # some rows hold several documents
    with pytest.raises(ValueError, match="cross_document"):
        PackedDataset(wordpiece_pack / "train").batch(rows, pad_to="none", restart_positions="document")


def test_position_ids_function():
    assert position_ids(np.array([3, 2]), start=2).tolist() == [2, 3, 4, 2, 3]
    assert position_ids(np.array([5]), restarts=np.array([2])).tolist() == [0, 1, 0, 1, 2]


def test_max_tokens_fills_batches_to_the_budget(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    loader = PackedDataLoader(ds, max_tokens=1024, pad_to="none", seed=3)
    batches = list(loader)
    sizes = [b["input_ids"].shape[1] for b in batches]
    assert max(sizes) <= 1024 and len(batches) == len(loader)
    assert np.mean(sizes[:-1]) > 1024 - ds.lengths.max()  # a batch closes only when the next row does not fit
    assert Counter(r for b in batches for r in flat_rows(b)) == Counter(
        tuple(ds[i]["input_ids"].tolist()) for i in range(len(ds)))
    with pytest.raises(ValueError, match="longest sequence"):
        PackedDataLoader(ds, max_tokens=16, pad_to="none")
    with pytest.raises(ValueError, match="either batch_size"):
        PackedDataLoader(ds, 8, max_tokens=1024)


def test_max_tokens_ranks_split_every_sequence_once_and_drop_last_evens_them(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    seen: Counter = Counter()
    for rank in range(3):
        loader = PackedDataLoader(ds, max_tokens=2048, pad_to="none", rank=rank, world_size=3, seed=1,
                                  num_workers=2, return_tensors="pt")
        seen.update(r for b in loader for r in flat_rows({k: np.asarray(v) for k, v in b.items()}))
    assert seen == Counter(tuple(ds[i]["input_ids"].tolist()) for i in range(len(ds)))
    even = [len(PackedDataLoader(ds, max_tokens=2048, pad_to="none", rank=r, world_size=3, drop_last=True))
            for r in range(3)]
    assert len(set(even)) == 1 and even[0] > 0


MODES = {
    "padded": {"batch_size": 32},
    "none": {"batch_size": 32, "pad_to": "none"},
    "max_tokens": {"max_tokens": 1500, "pad_to": "none"},
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("num_workers", [0, 2])
def test_resume_is_exact_in_every_mode(wordpiece_pack, wordpiece_dir, mode, num_workers):
    ds = PackedDataset(wordpiece_pack / "train")

    def loader():
        collator = MLMCollator.for_dataset(ds, tokenizer=wordpiece_dir, masking="ngram", sentence_order=True,
                                           seed=2)
        return PackedDataLoader(ds, rank=1, world_size=2, seed=9, num_workers=num_workers, collator=collator,
                                **MODES[mode])

    full = loader()
    full.set_epoch(2)
    expected = list(full)
    first = loader()
    first.set_epoch(2)
    got = []
    for batch in first:
        got.append(batch)
        if len(got) == 5:
            break
    resumed = loader()
    resumed.load_state_dict(first.state_dict())
    resumed.set_epoch(2)
    got.extend(resumed)
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert a.keys() == b.keys()
        assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.slow
def test_bert_trains_on_a_padding_free_batch(wordpiece_pack):
    """The flattened batch gives BertForMaskedLM (SDPA on CPU, with the block-diagonal mask FlashAttention's
    cu_seqlens stands for) the same loss as the padded one, and a step runs."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    ds = PackedDataset(wordpiece_pack / "train")
    collator = MLMCollator.for_dataset(ds, seed=0, mask_fraction=1.0, random_fraction=0.0)
    padded = next(iter(PackedDataLoader(ds, 6, seed=1, collator=collator, pad_to="longest", return_tensors="pt")))
    flat = next(iter(PackedDataLoader(ds, 6, seed=1, collator=collator, pad_to="none", return_tensors="pt")))
    assert torch.equal(flat["labels"][0], padded["labels"][padded["attention_mask"] == 1])

    torch.manual_seed(0)
    config = BertConfig(vocab_size=ds.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=ds.max_length, attn_implementation="sdpa")
    model = BertForMaskedLM(config).eval()
    keys = ("input_ids", "token_type_ids", "position_ids", "labels")
    with torch.no_grad():
        padded_loss = model(**{k: padded[k] for k in ("input_ids", "token_type_ids", "attention_mask", "labels")})
        mask = torch.from_numpy(block_diagonal_mask(flat["cu_seqlens"].numpy()))
        flat_loss = model(**{k: flat[k] for k in keys}, attention_mask=mask)
    assert torch.allclose(padded_loss.loss, flat_loss.loss, atol=1e-5)
    model.train()
    loss = model(**{k: flat[k] for k in keys}, attention_mask=mask).loss
    loss.backward()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    assert torch.isfinite(loss)


def test_an_empty_pack_is_refused(wordpiece_pack, tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(wordpiece_pack, pack)
    for name in ("train", "validation"):
        shutil.rmtree(pack / name)
        shutil.copytree(wordpiece_pack / "validation", pack / name)
    manifest = json.loads((pack / "manifest.json").read_text())
    split = pack / "train"
    # an empty split as pack writes it when every document was dropped: one shard, no rows
    import pyarrow as pa

    table = pa.ipc.open_stream(next(split.glob("*.arrow")).read_bytes()).read_all().slice(0, 0)
    with pa.OSFile(str(next(split.glob("*.arrow"))), "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
        w.write_table(table)
    (pack / "manifest.json").write_text(json.dumps(manifest))
    ds = PackedDataset(split)
    assert len(ds) == 0
    with pytest.raises(ValueError, match="holds 0 sequences"):
        PackedDataLoader(ds, 8)


def test_a_tokenizer_from_another_pack_is_refused(wordpiece_pack, wordpiece_dir, spm_dir):
    from transformers import PreTrainedTokenizerFast

    PackedDataset(wordpiece_pack / "train", tokenizer=wordpiece_dir)  # its own: fine
    with pytest.raises(ValueError, match="does not belong to the pack"):
        PackedDataset(wordpiece_pack / "train", tokenizer=spm_dir)
    own = PreTrainedTokenizerFast(tokenizer_file=str(wordpiece_dir / "tokenizer.json"))
    assert MLMCollator.for_dataset(PackedDataset(wordpiece_pack / "train"), tokenizer=own).mask_id == 4
    other = PreTrainedTokenizerFast(tokenizer_file=str(spm_dir / "tokenizer.json"))
    with pytest.raises(ValueError, match="tokens, the pack"):
        MLMCollator.for_dataset(PackedDataset(wordpiece_pack / "train"), tokenizer=other)
