"""`MLMCollator`: masked-LM corruption of a batch, seeded by its place in the run."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kcorpus.data.dataset import Batch, PackedDataset
from kcorpus.data.plan import BatchRequest


@dataclasses.dataclass
class MLMCollator:
    """BERT masked-LM corruption of a padded batch; adds `labels` (-100 where nothing is predicted)."""

    mask_id: int
    vocab_size: int
    mlm_probability: float = 0.15
    mask_fraction: float = 0.8
    random_fraction: float = 0.1
    seed: int = 0

    def __call__(self, batch: Batch, request: BatchRequest) -> Batch:
        rng = np.random.default_rng([self.seed, request.epoch, request.rank, request.step])
        input_ids = batch["input_ids"].copy()
        flat = input_ids.reshape(-1)
        eligible = np.flatnonzero((batch["special_tokens_mask"] == 0) & (batch["attention_mask"] == 1))
        chosen = eligible[rng.random(eligible.shape[0]) < self.mlm_probability]
        labels = np.full_like(input_ids, -100)
        labels.reshape(-1)[chosen] = flat[chosen]
        draw = rng.random(chosen.shape[0])
        flat[chosen[draw < self.mask_fraction]] = self.mask_id
        to_random = chosen[(draw >= self.mask_fraction) & (draw < self.mask_fraction + self.random_fraction)]
        flat[to_random] = rng.integers(0, self.vocab_size, size=to_random.shape[0])
        return {**batch, "input_ids": input_ids, "labels": labels}

    @classmethod
    def for_dataset(cls, dataset: PackedDataset, **kwargs: Any) -> MLMCollator:
        if dataset.mask_id is None or dataset.vocab_size is None:
            raise ValueError("the pack's manifest has no [MASK] id or vocab size: pass mask_id= and vocab_size=")
        return cls(mask_id=dataset.mask_id, vocab_size=dataset.vocab_size, **kwargs)
