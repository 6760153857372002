"""Sentence-order prediction (ALBERT): swap the two segments of a `[CLS] A [SEP] B [SEP]` row.

Works on flat token arrays with the rows given by their starts and lengths (a padded batch reshaped, or a
padding-free one). A row has two segments when some token has token_type_id 1; single-segment rows are left
as they are and get the label -100, which the loss ignores (as HF `AlbertForPreTraining`'s cross entropy).
"""

from __future__ import annotations

import dataclasses

import numpy as np

IGNORE = -100


@dataclasses.dataclass(frozen=True)
class SegmentSwap:
    """The swapped rows' tokens: position `dest[i]` takes the token at `src[i]` and token type `types[i]`;
    every other token stays. `labels`: sentence_order_label per row."""

    dest: np.ndarray
    src: np.ndarray
    types: np.ndarray
    labels: np.ndarray

    def apply(self, column: np.ndarray) -> np.ndarray:
        out = column.copy()
        out[self.dest] = column[self.src]
        return out

    def apply_types(self, token_type_ids: np.ndarray) -> np.ndarray:
        out = token_type_ids.copy()
        out[self.dest] = self.types
        return out


def swap_segments(token_type_ids: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                  rng: np.random.Generator) -> SegmentSwap:
    """Swap A and B of each two-segment row (flat tokens; rows by `starts`, `lengths`) with probability 0.5.

    A swapped row becomes `[CLS] B [SEP] A [SEP]` with token_type_ids 0 for `[CLS] B [SEP]` and 1 for
    `A [SEP]`."""
    starts, lengths = np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64)
    zeros = np.concatenate([[0], np.cumsum(token_type_ids == 0)])
    segment_a = zeros[starts + lengths] - zeros[starts]  # [CLS] A [SEP]
    two = segment_a < lengths
    swap = rng.random(len(starts)) < 0.5
    labels = np.where(two, swap.astype(np.int64), IGNORE)
    rows = np.flatnonzero(two & swap)
    length = np.repeat(lengths[rows], lengths[rows])
    first = np.repeat(starts[rows], lengths[rows])
    r = np.arange(length.shape[0]) - np.repeat(np.cumsum(lengths[rows]) - lengths[rows], lengths[rows])
    c0 = np.repeat(segment_a[rows], lengths[rows])
    la, lb = c0 - 2, length - c0 - 1
    source = np.select(
        [r == 0, r <= lb, r == lb + 1, r <= lb + 1 + la],
        [0, c0 + r - 1, c0 - 1, r - lb - 1],
        default=length - 1,
    )
    return SegmentSwap(first + r, first + source, (r >= lb + 2).astype(token_type_ids.dtype), labels)
