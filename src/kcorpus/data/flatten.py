"""Padding-free batches: the row lengths of a flattened (1, total_tokens) batch as `position_ids`,
`cu_seqlens` and, for attention implementations without varlen kernels, a block-diagonal mask."""

from __future__ import annotations

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


def block_diagonal_mask(cu: np.ndarray) -> np.ndarray:
    """bool (1, 1, T, T): token i may attend to token j only inside its own sequence (for SDPA / eager
    attention on CPU; FlashAttention takes `cu_seqlens` instead and never builds this T x T matrix)."""
    rows = row_of_token(np.asarray(cu))
    return (rows[:, None] == rows[None, :])[None, None]
