"""Mixing by source: token shares follow the weights, per (seed, epoch), across ranks, resumable."""

from __future__ import annotations

import numpy as np
import pytest

from kcorpus.data import PackedDataLoader, PackedDataset
from packing_fixtures import PACK_DATA


def source_tokens(loaders, ds) -> np.ndarray:
    tokens = np.zeros(len(ds.sources), dtype=np.int64)
    for loader in loaders:
        for batch in loader:
            real = (batch["special_tokens_mask"] == 0) & (batch["attention_mask"] == 1)
            np.add.at(tokens, batch["source"], real.sum(axis=1))
    return tokens


def token_shares(loaders, ds) -> dict[str, float]:
    tokens = source_tokens(loaders, ds)
    return dict(zip(ds.sources, (tokens / tokens.sum()).tolist()))


def test_batches_name_each_rows_source_as_the_manifest_counts_them(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    counted = ds.manifest["counts"]["splits"]["train"]["sources"]
    assert ds.sources == sorted(counted)
    assert source_tokens([PackedDataLoader(ds, 64)], ds).tolist() == [counted[s]["tokens"] for s in ds.sources]


@pytest.mark.parametrize("weights", [{"petitions": 0.5, "nsmc": 0.5}, {"petitions": 0.2, "nsmc": 0.3, "wiki": 0.5}])
def test_token_shares_follow_the_weights_on_every_rank_together(wordpiece_pack, weights):
    ds = PackedDataset(wordpiece_pack / "train")
    assert ds.sources == ["nsmc", "petitions", "wiki"]
    natural = token_shares([PackedDataLoader(ds, 64)], ds)
    assert natural["nsmc"] < 0.2  # comments are short: weighting rows would not give them half the tokens
    loaders = [PackedDataLoader(ds, 64, rank=r, world_size=2, seed=4, source_weights=weights) for r in range(2)]
    for loader in loaders:
        loader.set_epoch(1)
    shares = token_shares(loaders, ds)
    for name in ds.sources:
        assert abs(shares[name] - weights.get(name, 0.0)) <= 0.05 * weights.get(name, 0.0)


def test_mixing_is_deterministic_per_seed_and_epoch(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")

    def epoch(seed, number):
        loader = PackedDataLoader(ds, 64, seed=seed, source_weights={"petitions": 1, "nsmc": 1}, pad_to="none")
        loader.set_epoch(number)
        return [b["input_ids"].tolist() for b in loader]

    assert epoch(1, 0) == epoch(1, 0)
    assert epoch(1, 0) != epoch(1, 1) and epoch(1, 0) != epoch(2, 0)


def test_source_names_are_checked(wordpiece_pack):
    ds = PackedDataset(wordpiece_pack / "train")
    with pytest.raises(ValueError, match="comments, not a source of this pack"):
        PackedDataLoader(ds, 8, source_weights={"comments": 1.0})
    with pytest.raises(ValueError, match="no `source` column"):
        PackedDataLoader(PackedDataset(PACK_DATA / "old_pack" / "train"), 8, source_weights={"nsmc": 1.0})


@pytest.mark.parametrize("num_workers", [0, 2])
def test_resume_with_mixing_is_exact(wordpiece_pack, num_workers):
    ds = PackedDataset(wordpiece_pack / "train")

    def loader():
        return PackedDataLoader(ds, max_tokens=2048, pad_to="none", rank=0, world_size=2, seed=5,
                                num_workers=num_workers, source_weights={"petitions": 0.5, "nsmc": 0.5})

    full = loader()
    full.set_epoch(3)
    expected = [b["input_ids"].tolist() for b in full]
    first = loader()
    first.set_epoch(3)
    got = []
    for batch in first:
        got.append(batch["input_ids"].tolist())
        if len(got) == 3:
            break
    state = first.state_dict()
    assert state["source_weights"] == {"nsmc": 0.5, "petitions": 0.5}
    resumed = loader()
    resumed.load_state_dict(state)
    resumed.set_epoch(3)
    got.extend(b["input_ids"].tolist() for b in resumed)
    assert got == expected
    other = PackedDataLoader(ds, max_tokens=2048, pad_to="none", rank=0, world_size=2, seed=5,
                             source_weights={"petitions": 0.7, "nsmc": 0.3})
    with pytest.raises(ValueError, match="source_weights"):
        other.load_state_dict(state)


def test_the_docs_examples_name_sources_the_bundled_sample_has(wordpiece_pack):
    import ast
    import re
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    sample = {s["name"] for s in yaml.safe_load((root / "configs" / "sample.yaml").read_text())["sources"]}
    texts = [root / "docs" / "training.md", *sorted((root / "src" / "kcorpus" / "data").glob("*.py"))]
    examples = [m for path in texts for m in re.findall(r"source_weights=(\{[^}]*\})", path.read_text())]
    assert len(examples) >= 2
    for example in examples:
        assert set(ast.literal_eval(example)) <= sample, example
    # and the docs snippet runs as it is on a pack with those sources
    train = PackedDataset(wordpiece_pack / "train")
    loader = PackedDataLoader(train, batch_size=64, seed=42, source_weights=ast.literal_eval(examples[0]))
    assert {train.sources[i] for b in loader for i in b["source"]} == set(ast.literal_eval(examples[0]))
