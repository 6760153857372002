"""`PackedDataLoader`: the batches of one rank, built in torch workers or not, resumable mid-epoch."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from kcorpus.data.dataset import Batch, PackedDataset
from kcorpus.data.plan import BatchRequest, EpochPlan


class _BatchFetcher:
    """Map-style object torch workers index with `BatchRequest`s."""

    def __init__(self, dataset: PackedDataset, pad_to: str, collator: Callable | None, return_tensors: str):
        self.dataset = dataset
        self.pad_to = pad_to
        self.collator = collator
        self.return_tensors = return_tensors

    def __getitem__(self, request: BatchRequest) -> Batch:
        batch = self.dataset.batch(request.indices, self.pad_to)
        if self.collator is not None:
            batch = self.collator(batch, request)
        if self.return_tensors == "pt":
            import torch

            batch = {k: torch.from_numpy(v) for k, v in batch.items()}
        return batch

    def __len__(self) -> int:
        return len(self.dataset)


def _no_collate(batch: Batch) -> Batch:
    return batch


class PackedDataLoader:
    """Batches of one rank, optionally built by torch DataLoader workers, resumable mid-epoch."""

    def __init__(
        self,
        dataset: PackedDataset,
        batch_size: int,
        *,
        rank: int = 0,
        world_size: int = 1,
        seed: int = 0,
        shuffle: bool = True,
        drop_last: bool = False,
        num_workers: int = 0,
        collator: Callable[[Batch, BatchRequest], Batch] | None = None,
        return_tensors: str = "np",
        pad_to: str = "max_length",
        prefetch_factor: int | None = None,
        pin_memory: bool = False,
        device: Any = None,
        prefetch: int = 2,
        runtime: Any = None,
    ):
        if return_tensors not in ("np", "pt"):
            raise ValueError(f"return_tensors must be 'np' or 'pt', got {return_tensors!r}")
        if pad_to not in ("max_length", "longest"):
            raise ValueError(f"pad_to must be 'max_length' or 'longest', got {pad_to!r}")
        self.dataset = dataset
        self.plan = EpochPlan(len(dataset), batch_size, rank, world_size, seed, shuffle, drop_last)
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        if prefetch < 1:
            raise ValueError(f"prefetch must be at least 1, got {prefetch}")
        # device: hand batches over on it (CUDA: prefetched, kcorpus.prefetch); runtime= replaces torch.cuda
        # (the tests' CPU shim).
        self.device, self.prefetch, self.runtime = device, prefetch, runtime
        self._fetcher = _BatchFetcher(dataset, pad_to, collator, return_tensors)
        self.epoch = 0
        self.step = 0

    def set_epoch(self, epoch: int) -> None:
        """Start `epoch`; calling it with the epoch a loaded state is in keeps the resume point."""
        if epoch != self.epoch:
            self.epoch, self.step = epoch, 0

    def __len__(self) -> int:
        return self.plan.num_batches()

    def __iter__(self) -> Iterator[Batch]:
        requests = self.plan.requests(self.epoch, self.step)
        if self.num_workers == 0:
            batches: Iterator[Batch] = (self._fetcher[r] for r in requests)
        else:
            from torch.utils.data import DataLoader

            batches = iter(
                DataLoader(
                    self._fetcher,
                    batch_size=None,
                    sampler=requests,
                    num_workers=self.num_workers,
                    collate_fn=_no_collate,
                    prefetch_factor=self.prefetch_factor,
                    # with a device the prefetcher pins into its own buffers: a second pinned copy is waste
                    pin_memory=self.pin_memory and self.device is None and self.runtime is None,
                )
            )
        batches = self._to_device(batches)
        for batch in batches:
            # counted when handed over, so a state saved now resumes at the next batch
            self.step += 1
            yield batch

    def _to_device(self, batches: Iterator[Batch]) -> Iterator[Batch]:
        """The batches as they are handed over: unchanged, on a CUDA device (prefetched), or on another device."""
        if self.device is None and self.runtime is None:
            return batches
        from kcorpus.prefetch import CudaRuntime, move_to_device, prefetch_to_device

        if self.runtime is not None:
            return prefetch_to_device(batches, self.runtime, self.prefetch)
        if str(self.device).startswith("cuda"):
            return prefetch_to_device(batches, CudaRuntime(self.device), self.prefetch)
        return move_to_device(batches, self.device)

    def state_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "step": self.step, **dataclasses.asdict(self.plan)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        plan = dataclasses.asdict(self.plan)
        mismatched = {k: (state.get(k), v) for k, v in plan.items() if state.get(k) != v}
        if mismatched:
            raise ValueError(f"state was saved for a different loader (saved, now): {mismatched}")
        self.epoch, self.step = int(state["epoch"]), int(state["step"])
