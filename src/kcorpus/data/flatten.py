"""Padding-free batches: the row lengths of a flattened (1, total_tokens) batch as `position_ids`,
`cu_seqlens` and, for attention implementations without varlen kernels, a block-diagonal mask (bool for SDPA,
additive float for SDPA and eager alike)."""

from __future__ import annotations

from typing import Any

import numpy as np


def cu_seqlens(lengths: np.ndarray) -> np.ndarray:
    """int32 (B+1,): where each sequence starts in the flat batch, then the total (FlashAttention varlen)."""
    out = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=out[1:])
    return out


def position_ids(lengths: np.ndarray, restarts: np.ndarray | None = None, start: int = 0) -> np.ndarray:
    """int64 (total,): 0, 1, ... restarting at every sequence and at every flat index in `restarts`, plus
    `start` (RoBERTa-family models count from padding_idx + 1)."""
    total = int(np.sum(lengths))
    first = np.zeros(total, dtype=bool)
    first[cu_seqlens(lengths)[:-1][np.asarray(lengths) > 0]] = True
    if restarts is not None:
        first[restarts] = True
    index = np.arange(total, dtype=np.int64)
    return index - np.maximum.accumulate(np.where(first, index, 0)) + start


def row_of_token(cu: np.ndarray) -> np.ndarray:
    """The row each flat token belongs to."""
    return np.repeat(np.arange(len(cu) - 1), np.diff(cu))


def block_diagonal_mask(cu: Any, dtype: Any = None) -> Any:
    """(1, 1, T, T): token i may attend to token j only inside its own sequence, for attention without varlen
    kernels (SDPA, eager; FlashAttention takes `cu_seqlens` instead and never builds this T x T matrix).

    - `dtype=None`: bool, True where attention is allowed. SDPA selects with a bool mask; eager attention ADDS
      the mask to its scores (True -> +1, False -> +0), so with eager a bool mask lets sequences attend to each
      other and silently gives a wrong loss.
    - a float `dtype` (`np.float32`, `torch.float32`, `torch.bfloat16`, ...): additive, 0 inside a sequence and
      the dtype's most negative value elsewhere; right for both "sdpa" and "eager" (pass the model's dtype).

    A torch dtype gives a torch tensor (on `cu`'s device when `cu` is one), a numpy dtype or None a numpy array
    (`cu` a torch tensor: a torch bool tensor).
    """
    torch_out = _is_torch(cu) or _is_torch(dtype)
    if not torch_out:
        rows = row_of_token(np.asarray(cu))
        allowed = (rows[:, None] == rows[None, :])[None, None]
        if dtype is None:
            return allowed
        dtype = np.dtype(dtype)
        if dtype.kind != "f":
            raise ValueError(f"dtype must be None (bool) or a float dtype, got {dtype}")
        return np.where(allowed, dtype.type(0), np.finfo(dtype).min).astype(dtype)
    import torch

    cu = torch.as_tensor(cu)
    rows = torch.repeat_interleave(torch.arange(cu.shape[0] - 1, device=cu.device), torch.diff(cu))
    allowed = (rows[:, None] == rows[None, :])[None, None]
    if dtype is None:
        return allowed
    if not isinstance(dtype, torch.dtype):
        dtype = getattr(torch, np.dtype(dtype).name)
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be None (bool) or a float dtype, got {dtype}")
    mask = torch.zeros(allowed.shape, dtype=dtype, device=cu.device)
    return mask.masked_fill_(~allowed, torch.finfo(dtype).min)


def _is_torch(value: Any) -> bool:
    return type(value).__module__.startswith("torch")
