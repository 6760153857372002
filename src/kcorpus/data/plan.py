"""`EpochPlan`: which sequences a rank sees in each epoch, in what order, batched how (`BatchRequest`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np


@dataclasses.dataclass(frozen=True)
class BatchRequest:
    """What one batch is: its place in the run (for seeding) and the sequence indices it holds."""

    epoch: int
    step: int
    rank: int
    indices: np.ndarray


@dataclasses.dataclass(frozen=True)
class EpochPlan:
    """Which sequences rank `rank` sees in each epoch, in order, and how they are batched."""

    num_sequences: int
    batch_size: int
    rank: int = 0
    world_size: int = 1
    seed: int = 0
    shuffle: bool = True
    drop_last: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.world_size:
            raise ValueError(f"rank must be in [0, world_size), got rank={self.rank} world_size={self.world_size}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {self.batch_size}")

    def order(self, epoch: int) -> np.ndarray:
        """This rank's sequence indices for `epoch`. Without drop_last every sequence goes to exactly one
        rank (ranks differ by at most one); with it every rank gets the same count and the rest is skipped."""
        n = self.num_sequences
        dtype = np.int32 if n < 2**31 else np.int64
        perm = (
            np.random.default_rng([self.seed, epoch]).permutation(n).astype(dtype, copy=False)
            if self.shuffle
            else np.arange(n, dtype=dtype)
        )
        if self.drop_last:
            perm = perm[: n - n % self.world_size]
        return perm[self.rank :: self.world_size]

    def num_sequences_per_rank(self) -> int:
        n, w = self.num_sequences, self.world_size
        return n // w if self.drop_last else n // w + (1 if self.rank < n % w else 0)

    def num_batches(self) -> int:
        n = self.num_sequences_per_rank()
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def requests(self, epoch: int, start_step: int = 0) -> _Requests:
        return _Requests(self, epoch, start_step)


class _Requests:
    """The batch requests of one epoch from `start_step` on (a torch sampler: iterable with a length)."""

    def __init__(self, plan: EpochPlan, epoch: int, start_step: int):
        self.plan, self.epoch, self.start_step = plan, epoch, start_step

    def __len__(self) -> int:
        return max(0, self.plan.num_batches() - self.start_step)

    def __iter__(self) -> Iterator[BatchRequest]:
        order = self.plan.order(self.epoch)
        size = self.plan.batch_size
        for step in range(self.start_step, self.plan.num_batches()):
            yield BatchRequest(self.epoch, step, self.plan.rank, order[step * size : (step + 1) * size])
