"""`PackedDataset`: one split of a pack, memory-mapped; rows are zero-copy views into the page cache."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
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
