"""Sentence-order prediction (ALBERT): swap the two segments of a `[CLS] A [SEP] B [SEP]` row.

Works on flat token arrays with the rows given by their starts and lengths (a padded batch reshaped, or a
padding-free one). A row has two segments when some token has token_type_id 1; single-segment rows are left
as they are and get the label -100, which the loss ignores (as HF `AlbertForPreTraining`'s cross entropy).
"""

from __future__ import annotations

import numpy as np

IGNORE = -100


def swap_segments(token_type_ids: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gather index over the flat tokens, new token_type_ids, sentence_order_label per row).

    A swapped row becomes `[CLS] B [SEP] A [SEP]` with token_type_ids 0 for `[CLS] B [SEP]` and 1 for
    `A [SEP]`; `flat_array[index]` applies the swap to any per-token column."""
    total = token_type_ids.shape[0]
    row = np.repeat(np.arange(len(starts)), lengths)
    index = np.arange(total, dtype=np.int64)
    flat_index = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths)] or [np.zeros(0, np.int64)])
    types = token_type_ids[flat_index]
    segment_a = np.bincount(row, weights=(types == 0), minlength=len(starts)).astype(np.int64)  # [CLS] A [SEP]
    two = segment_a < lengths
    swap = rng.random(len(starts)) < 0.5
    labels = np.where(two, swap.astype(np.int64), IGNORE)
    swapped = (two & swap)[row]
    if not swapped.any():
        return index, token_type_ids.copy(), labels
    r = flat_index - np.asarray(starts)[row]  # offset inside the row
    c0, length = segment_a[row], np.asarray(lengths)[row]
    la, lb = c0 - 2, length - c0 - 1
    source = np.select(
        [r == 0, r <= lb, r == lb + 1, r <= lb + 1 + la],
        [0, c0 + r - 1, c0 - 1, r - lb - 1],
        default=length - 1,
    )
    index[flat_index[swapped]] = (flat_index - r + source)[swapped]
    new_types = token_type_ids.copy()
    new_types[flat_index[swapped]] = (r >= lb + 2)[swapped].astype(token_type_ids.dtype)
    return index, new_types, labels
