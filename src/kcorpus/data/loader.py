"""`PackedDataLoader`: the batches of one rank, built in torch workers or not, resumable mid-epoch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from kcorpus.data.dataset import PAD_TO, Batch, PackedDataset
from kcorpus.data.mixing import SourceMixture
from kcorpus.data.plan import BatchRequest, EpochPlan


class _BatchFetcher:
    """Map-style object torch workers index with `BatchRequest`s."""

    def __init__(self, dataset: PackedDataset, collator: Callable | None, return_tensors: str, **batch_options: Any):
        self.dataset = dataset
        self.collator = collator
        self.return_tensors = return_tensors
        self.batch_options = {**batch_options, "word_start": bool(getattr(collator, "needs_word_start", False))}

    def __getitem__(self, request: BatchRequest) -> Batch:
        batch = self.dataset.batch(request.indices, **self.batch_options)
        if self.collator is not None:
            batch = self.collator(batch, request)
        if self.return_tensors == "pt":
            import torch

            batch = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in batch.items()}
        return batch

    def __len__(self) -> int:
        return len(self.dataset)


def _no_collate(batch: Batch) -> Batch:
    return batch


class PackedDataLoader:
    """Batches of one rank, optionally built by torch DataLoader workers, resumable mid-epoch.

    - `batch_size` rows per batch, or `max_tokens`: as many rows as fit that many tokens (row lengths with
      their special tokens, no padding: meant for `pad_to="none"`).
    - `pad_to`: `"max_length"`, `"longest"`, or `"none"` (padding-free: one (1, total_tokens) row with
      `position_ids`, `cu_seqlens`, `max_seqlen`; see `PackedDataset.batch`); `restart_positions` and
      `position_start` shape its `position_ids`.
    - `source_weights={"petitions": 0.5, "nsmc": 0.5}`: each epoch's TOKENS come from the sources in these
      shares (`kcorpus.data.mixing`); batches then carry `source`, an index into `dataset.sources`.
    - `model_inputs=ModelInputs.for_model(model)`: batches hold exactly the model's keyword arguments, with the
      attention mask (or FlashAttention's varlen arguments) its attention needs in a padding-free batch, so
      `model(**batch)` is right (`kcorpus.data.model_inputs`); needs torch tensors (`return_tensors="pt"` or a
      `device`).
    """

    def __init__(
        self,
        dataset: PackedDataset,
        batch_size: int | None = None,
        *,
        max_tokens: int | None = None,
        source_weights: dict[str, float] | None = None,
        restart_positions: str = "sequence",
        position_start: int = 0,
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
        model_inputs: Callable[[Batch], Batch] | None = None,
    ):
        if return_tensors not in ("np", "pt"):
            raise ValueError(f"return_tensors must be 'np' or 'pt', got {return_tensors!r}")
        if pad_to not in PAD_TO:
            raise ValueError(f"pad_to must be one of {', '.join(PAD_TO)}, got {pad_to!r}")
        if restart_positions not in ("sequence", "document"):
            raise ValueError(f"restart_positions must be 'sequence' or 'document', got {restart_positions!r}")
        if len(dataset) == 0:
            raise ValueError(f"{dataset.path} holds 0 sequences: nothing to train on (was everything dropped?)")
        if model_inputs is not None:
            if return_tensors != "pt" and device is None and runtime is None:
                raise ValueError("model_inputs= hands batches to a torch model: pass return_tensors='pt' or device=")
            check = getattr(model_inputs, "check_loader", None)
            if check is not None:
                check(pad_to, position_start)
        self.model_inputs = model_inputs
        self.dataset = dataset
        mixture = None
        if source_weights is not None:
            mixture = SourceMixture.build(dataset.sources, dataset.row_sources, dataset.content_lengths,
                                          source_weights)
            source_weights = dict(sorted(source_weights.items()))
        self.plan = EpochPlan(len(dataset), batch_size, rank, world_size, seed, shuffle, drop_last, max_tokens,
                              source_weights, dataset.lengths if max_tokens is not None else None, mixture)
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        if prefetch < 1:
            raise ValueError(f"prefetch must be at least 1, got {prefetch}")
        # device: hand batches over on it (CUDA: prefetched, kcorpus.data.prefetch); runtime= replaces torch.cuda
        # (the tests' CPU shim).
        self.device, self.prefetch, self.runtime = device, prefetch, runtime
        self._fetcher = _BatchFetcher(dataset, collator, return_tensors, pad_to=pad_to,
                                      restart_positions=restart_positions, position_start=position_start)
        self.epoch = 0
        self.step = 0

    def set_epoch(self, epoch: int) -> None:
        """Start `epoch`; calling it with the epoch a loaded state is in keeps the resume point."""
        if epoch != self.epoch:
            self.epoch, self.step = epoch, 0

    def __len__(self) -> int:
        return self.plan.num_batches(self.epoch)

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
        if self.model_inputs is not None:
            batches = map(self.model_inputs, batches)
        for batch in batches:
            # counted when handed over, so a state saved now resumes at the next batch
            self.step += 1
            yield batch

    def _to_device(self, batches: Iterator[Batch]) -> Iterator[Batch]:
        """The batches as they are handed over: unchanged, on a CUDA device (prefetched), or on another device."""
        if self.device is None and self.runtime is None:
            return batches
        from kcorpus.data.prefetch import CudaRuntime, move_to_device, prefetch_to_device

        if self.runtime is not None:
            return prefetch_to_device(batches, self.runtime, self.prefetch)
        if str(self.device).startswith("cuda"):
            return prefetch_to_device(batches, CudaRuntime(self.device), self.prefetch)
        return move_to_device(batches, self.device)

    def state_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "step": self.step, **self.plan.settings()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        plan = self.plan.settings()
        mismatched = {k: (state.get(k), v) for k, v in plan.items() if state.get(k) != v}
        if mismatched:
            raise ValueError(f"state was saved for a different loader (saved, now): {mismatched}")
        self.epoch, self.step = int(state["epoch"]), int(state["step"])
