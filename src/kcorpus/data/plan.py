"""`EpochPlan`: which sequences a rank sees in each epoch, in what order, batched how (`BatchRequest`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from kcorpus.data.mixing import SourceMixture


@dataclasses.dataclass(frozen=True)
class BatchRequest:
    """What one batch is: its place in the run (for seeding) and the sequence indices it holds."""

    epoch: int
    step: int
    rank: int
    indices: np.ndarray


@dataclasses.dataclass(frozen=True)
class EpochPlan:
    """Which sequences rank `rank` sees in each epoch, in order, and how they are batched.

    Batches hold `batch_size` sequences, or with `max_tokens` (and the rows' `lengths`) as many sequences in
    order as fit that many tokens. With a `mixture` an epoch's sequences are drawn by source weight
    (`kcorpus.data.mixing`) instead of being every sequence once.
    """

    num_sequences: int
    batch_size: int | None
    rank: int = 0
    world_size: int = 1
    seed: int = 0
    shuffle: bool = True
    drop_last: bool = False
    max_tokens: int | None = None
    source_weights: dict[str, float] | None = None
    lengths: np.ndarray | None = dataclasses.field(default=None, compare=False, repr=False)
    mixture: SourceMixture | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.world_size:
            raise ValueError(f"rank must be in [0, world_size), got rank={self.rank} world_size={self.world_size}")
        if (self.batch_size is None) == (self.max_tokens is None):
            raise ValueError("give either batch_size (rows per batch) or max_tokens (tokens per batch)")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {self.batch_size}")
        if self.max_tokens is not None:
            if self.lengths is None:
                raise ValueError("max_tokens needs the sequences' lengths")
            longest = int(self.lengths.max(initial=0))
            if self.max_tokens < longest:
                raise ValueError(f"max_tokens={self.max_tokens} is below the longest sequence ({longest} tokens)")

    def settings(self) -> dict[str, Any]:
        """What a saved state must match to resume."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.compare}

    def _epoch_sequences(self, epoch: int) -> np.ndarray:
        if self.mixture is not None:
            rows = self.mixture.epoch_rows(self.seed, epoch)
            return np.random.default_rng([self.seed, epoch]).permutation(rows) if self.shuffle else np.sort(rows)
        n = self.num_sequences
        return np.random.default_rng([self.seed, epoch]).permutation(n) if self.shuffle else np.arange(n)

    def order(self, epoch: int, rank: int | None = None) -> np.ndarray:
        """This rank's sequence indices for `epoch`. Without drop_last every sequence goes to exactly one
        rank (ranks differ by at most one); with it every rank gets the same count and the rest is skipped."""
        perm = self._epoch_sequences(epoch)
        perm = perm.astype(np.int32 if perm.shape[0] == 0 or perm.max() < 2**31 else np.int64, copy=False)
        if self.drop_last:
            perm = perm[: len(perm) - len(perm) % self.world_size]
        return perm[(self.rank if rank is None else rank) :: self.world_size]

    def _token_cuts(self, order: np.ndarray) -> np.ndarray:
        """Batch boundaries in `order`: greedy, each batch as many sequences as fit `max_tokens`."""
        ends = np.cumsum(self.lengths[order])
        cuts, done = [0], 0
        while cuts[-1] < order.shape[0]:
            cut = int(np.searchsorted(ends, done + self.max_tokens, side="right"))
            cuts.append(cut)
            done = int(ends[cut - 1])
        if self.drop_last and len(cuts) > 1:
            cuts.pop()  # the last batch is what was left over, not a full one
        return np.asarray(cuts, dtype=np.int64)

    def num_sequences_per_rank(self) -> int:
        n, w = self.num_sequences, self.world_size
        return n // w if self.drop_last else n // w + (1 if self.rank < n % w else 0)

    def batches(self, epoch: int) -> tuple[np.ndarray, np.ndarray]:
        """(this rank's order, batch boundaries in it) for `epoch`."""
        order = self.order(epoch)
        if self.max_tokens is None:
            size = self.batch_size
            count = len(order) // size if self.drop_last else -(-len(order) // size)
            return order, np.minimum(np.arange(count + 1) * size, len(order))
        cuts = self._token_cuts(order)
        if self.drop_last:  # DDP: every rank the same number of batches, the fewest any rank has
            fewest = min(len(self._token_cuts(self.order(epoch, r))) for r in range(self.world_size))
            cuts = cuts[:fewest]
        return order, cuts

    def num_batches(self, epoch: int = 0) -> int:
        if self.max_tokens is None and self.mixture is None:
            n = self.num_sequences_per_rank()
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batches(epoch)[1]) - 1

    def requests(self, epoch: int, start_step: int = 0) -> _Requests:
        return _Requests(self, epoch, start_step)


class _Requests:
    """The batch requests of one epoch from `start_step` on (a torch sampler: iterable with a length)."""

    def __init__(self, plan: EpochPlan, epoch: int, start_step: int):
        self.plan, self.epoch, self.start_step = plan, epoch, start_step

    def __len__(self) -> int:
        return max(0, self.plan.num_batches(self.epoch) - self.start_step)

    def __iter__(self) -> Iterator[BatchRequest]:
        order, cuts = self.plan.batches(self.epoch)
        for step in range(self.start_step, len(cuts) - 1):
            yield BatchRequest(self.epoch, step, self.plan.rank, order[cuts[step] : cuts[step + 1]])
