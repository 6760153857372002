"""Feeding `kcorpus pack` output to a PyTorch (or plain numpy) pretraining loop without copying the data.

- `PackedDataset(split_dir)`: a map-style dataset over one split's Arrow shards, memory-mapped (rows are
  views into the page cache). `ds[i]` is one unpadded example as int64 numpy arrays, which is what
  `transformers.DataCollatorForLanguageModeling` and the HF `Trainer` consume.
- `PackedDataLoader(ds, batch_size, rank=, world_size=, seed=, num_workers=)`: padded batches for one rank.
  Each epoch is a permutation of all sequences seeded by (seed, epoch); rank r takes every world_size-th
  sequence of it; batch k of a rank is built by DataLoader worker k mod num_workers (torch's round robin), so
  the batch stream is the same for any number of workers. `state_dict()`/`load_state_dict()` resume mid-epoch
  at the next batch not yet handed to the training loop.
- `MLMCollator`: BERT masking (15% of non-special, non-padding tokens; 80% `[MASK]`, 10% random, 10% kept)
  with an RNG seeded by (seed, epoch, rank, step), so masks are reproducible and independent of workers.

- `device="cuda"` (with `prefetch=2`): batches arrive as torch tensors already on the GPU, copied ahead on a
  side CUDA stream from reused pinned buffers while the current step runs (`kcorpus.prefetch`).

torch is imported only when `num_workers > 0`, `return_tensors="pt"` or `device` is set.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

Batch = dict[str, Any]


@dataclasses.dataclass
class _Shard:
    starts: np.ndarray  # first row of each record batch, plus the total
    offsets: list[np.ndarray]
    ids: list[np.ndarray]
    types: list[np.ndarray]
    specials: list[np.ndarray]
    table: pa.Table  # keeps the memory map alive


def _open_shard(path: Path) -> _Shard:
    table = pa.ipc.open_stream(pa.memory_map(str(path), "r")).read_all()
    offsets, ids, types, specials, starts = [], [], [], [], [0]
    for batch in table.to_batches():
        for column, out in (("input_ids", ids), ("token_type_ids", types), ("special_tokens_mask", specials)):
            array = batch.column(column)
            out.append(array.values.to_numpy(zero_copy_only=True))
            if column == "input_ids":
                offsets.append(array.offsets.to_numpy(zero_copy_only=True))
        starts.append(starts[-1] + batch.num_rows)
    return _Shard(np.asarray(starts, dtype=np.int64), offsets, ids, types, specials, table)


def read_manifest(split_dir: Path) -> dict[str, Any] | None:
    path = split_dir.parent / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


class PackedDataset:
    """One split (`OUT/train` or `OUT/validation`) of a pack, memory-mapped."""

    def __init__(self, split_dir: str | Path, *, pad_id: int | None = None, max_length: int | None = None):
        self.path = Path(split_dir)
        state = json.loads((self.path / "state.json").read_text(encoding="utf-8"))
        self.files = [self.path / f["filename"] for f in state["_data_files"]]
        manifest = read_manifest(self.path) or {}
        ids = manifest.get("tokenizer", {}).get("special_ids", {})
        self.pad_id = pad_id if pad_id is not None else ids.get("pad")
        self.mask_id = ids.get("mask")
        self.vocab_size = manifest.get("tokenizer", {}).get("vocab_size")
        self.max_length = max_length or manifest.get("config", {}).get("max_length")
        if self.pad_id is None or self.max_length is None:
            raise ValueError(f"no manifest.json next to {self.path}: pass pad_id= and max_length=")
        self._shards: list[_Shard] | None = None
        self._chunks: list[tuple[np.ndarray, ...]] = []
        self._chunk_starts = np.zeros(1, dtype=np.int64)
        self._row_starts = self._count_rows()

    def _count_rows(self) -> np.ndarray:
        rows = [0]
        for shard in self._open():
            rows.append(rows[-1] + int(shard.starts[-1]))
        return np.asarray(rows, dtype=np.int64)

    def _open(self) -> list[_Shard]:
        if self._shards is None:
            self._shards = [_open_shard(f) for f in self.files]
            # one flat list of record batches over all shards, for vectorised row lookup
            self._chunk_starts = np.asarray(
                [0] + [int(n) for n in np.cumsum([int(st) for sh in self._shards for st in np.diff(sh.starts)])],
                dtype=np.int64,
            )
            self._chunks = [
                (sh.offsets[b], sh.ids[b], sh.types[b], sh.specials[b])
                for sh in self._shards
                for b in range(len(sh.offsets))
            ]
        return self._shards

    def __getstate__(self) -> dict[str, Any]:
        # a spawned DataLoader worker re-opens the memory maps instead of receiving a pickled copy
        return {**self.__dict__, "_shards": None, "_chunks": None, "_chunk_starts": None}

    def __len__(self) -> int:
        return int(self._row_starts[-1])

    @property
    def lengths(self) -> np.ndarray:
        self._open()
        return np.concatenate([np.diff(c[0]) for c in self._chunks] or [np.zeros(0, np.int64)])

    def _locate(self, indices: np.ndarray) -> tuple[list[int], list[int]]:
        """(record batch, row in it) of each global index."""
        self._open()
        if indices.size and (indices.min() < 0 or indices.max() >= len(self)):
            raise IndexError(f"index out of range for {len(self)} sequences")
        chunk = np.searchsorted(self._chunk_starts, indices, side="right") - 1
        return chunk.tolist(), (indices - self._chunk_starts[chunk]).tolist()

    def views(self, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Zero-copy (input_ids, token_type_ids, special_tokens_mask) of one sequence."""
        (c,), (r,) = self._locate(np.asarray([index], dtype=np.int64))
        offsets, ids, types, specials = self._chunks[c]
        lo, hi = offsets[r], offsets[r + 1]
        return ids[lo:hi], types[lo:hi], specials[lo:hi]

    def __getitem__(self, index: int) -> dict[str, np.ndarray]:
        ids, types, specials = self.views(int(index))
        return {
            "input_ids": ids.astype(np.int64),
            "token_type_ids": types.astype(np.int64),
            "special_tokens_mask": specials.astype(np.int64),
        }

    def batch(self, indices: Sequence[int], pad_to: str = "max_length") -> Batch:
        """Padded numpy batch: int64 input_ids/token_type_ids/attention_mask/special_tokens_mask
        (padding is marked special, as HF tokenizers do)."""
        chunks, rows = self._locate(np.asarray(indices, dtype=np.int64))
        spans = []
        for c, r in zip(chunks, rows):
            offsets = self._chunks[c][0]
            spans.append((c, int(offsets[r]), int(offsets[r + 1])))
        lengths = np.fromiter((hi - lo for _, lo, hi in spans), dtype=np.int64, count=len(spans))
        n = len(spans)
        width = self.max_length if pad_to == "max_length" else int(lengths.max(initial=0))
        input_ids = np.full((n, width), self.pad_id, dtype=np.int64)
        token_type_ids = np.zeros((n, width), dtype=np.int64)
        special = np.ones((n, width), dtype=np.int64)
        for k, (c, lo, hi) in enumerate(spans):
            _, ids, types, specials = self._chunks[c]
            length = hi - lo
            input_ids[k, :length] = ids[lo:hi]
            token_type_ids[k, :length] = types[lo:hi]
            special[k, :length] = specials[lo:hi]
        attention_mask = (np.arange(width) < lengths[:, None]).astype(np.int64)
        return {
            "input_ids": input_ids,
            "token_type_ids": token_type_ids,
            "attention_mask": attention_mask,
            "special_tokens_mask": special,
        }

    @classmethod
    def from_pack(cls, out_dir: str | Path, split: str = "train") -> PackedDataset:
        return cls(Path(out_dir) / split)


@dataclasses.dataclass(frozen=True)
class BatchRequest:
    """What one batch is: its place in the run (for seeding) and the sequence indices it holds."""

    epoch: int
    step: int
    rank: int
    indices: np.ndarray


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
