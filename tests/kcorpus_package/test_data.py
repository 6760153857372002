"""`kcorpus.data`: memory-mapped dataset, rank/worker split, resume, shuffling, MLM collation."""

from __future__ import annotations

import json
from collections import Counter

import datasets
import numpy as np
import pyarrow as pa
import pytest

from kcorpus.data import EpochPlan, MLMCollator, PackedDataLoader, PackedDataset
from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.transforms.pack.blocks import PackConfig
from packing_fixtures import CORPUS, kcbert_tokenizer_dir


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("tok"))


@pytest.fixture(scope="module")
def out(tmp_path_factory, tokenizer_dir):
    out = tmp_path_factory.mktemp("pack") / "out"
    job = PackJob(corpus=str(CORPUS), tokenizer=str(tokenizer_dir), out=str(out), pack=PackConfig(max_length=64),
                  validation_fraction=0.1, num_shards=3, num_validation_shards=1, rows_per_batch=100)
    run(job, local_mode="in_memory")
    return out


@pytest.fixture(scope="module")
def ds(out):
    return PackedDataset(out / "train")


def rows(batch) -> list[tuple[int, ...]]:
    ids, mask = np.asarray(batch["input_ids"]), np.asarray(batch["attention_mask"])
    return [tuple(r[m == 1].tolist()) for r, m in zip(ids, mask)]


def all_rows(ds) -> Counter:
    return Counter(tuple(ds[i]["input_ids"].tolist()) for i in range(len(ds)))


def record_worker(batch, request):
    import torch.utils.data

    info = torch.utils.data.get_worker_info()
    return {**batch, "worker": np.array(-1 if info is None else info.id)}


def test_dataset_matches_load_from_disk_and_maps_without_copying(out, ds):
    before = pa.total_allocated_bytes()
    fresh = PackedDataset(out / "train")
    assert pa.total_allocated_bytes() == before  # buffers are views into the memory map
    hf = datasets.load_from_disk(str(out / "train"))
    assert len(fresh) == hf.num_rows == 1514
    for i in (0, 99, 100, 1000, len(fresh) - 1):  # across record batches and shards
        assert fresh[i]["input_ids"].tolist() == hf[i]["input_ids"]
        assert fresh[i]["token_type_ids"].tolist() == hf[i]["token_type_ids"]
    assert fresh.lengths.tolist() == hf["length"]
    assert (fresh.pad_id, fresh.mask_id, fresh.vocab_size, fresh.max_length) == (0, 4, 30000, 64)
    with pytest.raises(IndexError):
        fresh[len(fresh)]


def test_padded_batch_layout(ds):
    batch = ds.batch([0, 1, 2])
    lengths = ds.lengths[:3]
    assert batch["input_ids"].shape == (3, 64) and batch["input_ids"].dtype == np.int64
    assert batch["attention_mask"].sum(axis=1).tolist() == lengths.tolist()
    assert np.all(batch["input_ids"][batch["attention_mask"] == 0] == 0)
    assert np.all(batch["special_tokens_mask"][batch["attention_mask"] == 0] == 1)
    assert ds.batch([0, 1, 2], pad_to="longest")["input_ids"].shape == (3, int(lengths.max()))


def test_two_ranks_two_workers_see_every_sequence_exactly_once(ds):
    seen: Counter = Counter()
    for rank in range(2):
        loader = PackedDataLoader(ds, 32, rank=rank, world_size=2, seed=5, num_workers=2, return_tensors="pt",
                                  collator=record_worker)
        loader.set_epoch(3)
        batches = list(loader)
        assert {int(b["worker"]) for b in batches} == {0, 1}
        assert len(batches) == len(loader) == 24  # 757 sequences per rank
        for b in batches:
            seen.update(rows(b))
        # the workers only build batches: the stream equals the in-process one
        plain = PackedDataLoader(ds, 32, rank=rank, world_size=2, seed=5)
        plain.set_epoch(3)
        assert [rows(b) for b in batches] == [rows(b) for b in plain]
    assert seen == all_rows(ds)


def test_epochs_shuffle_differently_and_reproducibly(ds):
    plan = EpochPlan(len(ds), 32, seed=1)
    assert sorted(plan.order(0).tolist()) == sorted(plan.order(1).tolist()) == list(range(len(ds)))
    assert plan.order(0).tolist() != plan.order(1).tolist()
    assert plan.order(1).tolist() == EpochPlan(len(ds), 32, seed=1).order(1).tolist()
    assert plan.order(1).tolist() != EpochPlan(len(ds), 32, seed=2).order(1).tolist()
    assert EpochPlan(len(ds), 32, shuffle=False).order(4).tolist() == list(range(len(ds)))


def test_drop_last_gives_every_rank_the_same_number_of_full_batches(ds):
    plans = [EpochPlan(len(ds), 32, rank=r, world_size=3, drop_last=True) for r in range(3)]
    assert {p.num_batches() for p in plans} == {len(ds) // 3 // 32}
    assert all(len(req.indices) == 32 for p in plans for req in p.requests(0))
    with pytest.raises(ValueError):
        EpochPlan(10, 2, rank=2, world_size=2)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_resume_mid_epoch_continues_where_it_stopped(ds, num_workers):
    full = PackedDataLoader(ds, 32, rank=1, world_size=2, seed=9)
    full.set_epoch(2)
    expected = [rows(b) for b in full]

    first = PackedDataLoader(ds, 32, rank=1, world_size=2, seed=9, num_workers=num_workers)
    first.set_epoch(2)
    got = []
    for batch in first:
        got.append(rows(batch))
        if len(got) == 7:
            break
    state = first.state_dict()
    assert (state["epoch"], state["step"]) == (2, 7)

    resumed = PackedDataLoader(ds, 32, rank=1, world_size=2, seed=9, num_workers=num_workers)
    resumed.load_state_dict(state)
    resumed.set_epoch(2)  # a training loop calls this again on restart: the resume point stays
    got.extend(rows(b) for b in resumed)
    assert got == expected
    resumed.set_epoch(3)
    assert resumed.state_dict()["step"] == 0 and len(list(resumed)) == len(resumed)


def test_state_from_another_setup_is_refused(ds):
    state = PackedDataLoader(ds, 32, world_size=2).state_dict()
    with pytest.raises(ValueError, match="batch_size"):
        PackedDataLoader(ds, 16, world_size=2).load_state_dict(state)


def test_mlm_collation_masks_only_real_tokens_80_10_10(ds, out):
    collator = MLMCollator.for_dataset(ds, seed=4)
    loader = PackedDataLoader(ds, 256, seed=4, collator=collator, shuffle=False)
    batches = list(loader)
    plain = list(PackedDataLoader(ds, 256, seed=4, shuffle=False))
    chosen = masked = randomised = kept = eligible = 0
    for b, p in zip(batches, plain):
        labels = b["labels"]
        target = labels != -100
        assert np.all(p["special_tokens_mask"][target] == 0) and np.all(p["attention_mask"][target] == 1)
        assert np.all(labels[target] == p["input_ids"][target])
        assert np.all(b["input_ids"][~target] == p["input_ids"][~target])
        eligible += int(((p["special_tokens_mask"] == 0) & (p["attention_mask"] == 1)).sum())
        chosen += int(target.sum())
        masked += int((b["input_ids"][target] == 4).sum())
        kept += int((b["input_ids"][target] == p["input_ids"][target]).sum())
        randomised = chosen - masked - kept
    manifest = json.loads((out / "manifest.json").read_text())
    assert eligible == manifest["counts"]["splits"]["train"]["content_tokens"]
    assert abs(chosen / eligible - 0.15) < 0.01
    assert abs(masked / chosen - 0.8) < 0.02 and abs(kept / chosen - 0.1) < 0.02
    assert abs(randomised / chosen - 0.1) < 0.02
    # same (seed, epoch, rank, step) -> same mask, whoever builds the batch
    again = list(PackedDataLoader(ds, 256, seed=4, collator=collator, shuffle=False))
    assert all(np.array_equal(a["input_ids"], b["input_ids"]) for a, b in zip(again, batches))


def test_transformers_data_collator_consumes_examples(ds, tokenizer_dir):
    import torch
    from transformers import DataCollatorForLanguageModeling, PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_dir / "tokenizer.json"), pad_token="[PAD]",
                                  mask_token="[MASK]", cls_token="[CLS]", sep_token="[SEP]", unk_token="[UNK]")
    collator = DataCollatorForLanguageModeling(tok, mlm_probability=0.15, return_tensors="pt")
    torch.manual_seed(0)
    batch = collator([ds[i] for i in range(8)])
    assert batch["input_ids"].shape == batch["labels"].shape == (8, int(ds.lengths[:8].max()))
    assert batch["input_ids"].dtype == torch.int64
    original = ds.batch(range(8), pad_to="longest")
    target = (batch["labels"] != -100).numpy()
    assert target.sum() > 0 and np.all(original["special_tokens_mask"][target] == 0)
    assert np.array_equal(batch["labels"].numpy()[target], original["input_ids"][target])
