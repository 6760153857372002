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


def _row_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of `arange(s, s + n)` for every row (s, n)."""
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class SegmentSplit:
    """Single-segment rows cut in two: `columns` (flat per-token arrays of the rows back to back, no padding),
    the rows' new `lengths`, and which rows were `split`."""

    columns: dict[str, np.ndarray]
    lengths: np.ndarray
    split: np.ndarray


def split_single_segments(columns: dict[str, np.ndarray], lengths: np.ndarray, word_start: np.ndarray,
                          sep_id: int, max_length: int) -> SegmentSplit:
    """Cut every `[CLS] A [SEP]` row (one segment of one document: no token type 1, two special tokens) into
    `[CLS] A1 [SEP] A2 [SEP]` at the word start that balances A1 and A2 best (ties: the earlier one).

    `columns`: the rows back to back (`input_ids`, `token_type_ids`, `special_tokens_mask`, optionally
    `word_start` and `position_ids`); `word_start`: bool per token. The inserted `[SEP]` is special, of token
    type 0, no word start, and takes the position of the token it precedes (later positions move up by one);
    A2 and the final `[SEP]` get token type 1. A row is left as it is when it has no word start with a token
    on each side, or is `max_length` long already (one more token would not fit)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    specials = columns["special_tokens_mask"].astype(np.int64)
    types = columns["token_type_ids"].astype(np.int64)
    per_row = np.repeat(np.arange(lengths.shape[0]), lengths)
    single = (np.bincount(per_row, specials, lengths.shape[0]) == 2) & (
        np.bincount(per_row, types, lengths.shape[0]) == 0) & (lengths >= 4) & (lengths < max_length)
    j = np.arange(per_row.shape[0]) - offsets[per_row]  # position in the row
    n = lengths[per_row]
    allowed = single[per_row] & word_start.astype(bool) & (specials == 0) & (j >= 2) & (j <= n - 2)
    candidates = np.flatnonzero(allowed)
    order = candidates[np.lexsort((j[candidates], np.abs(2 * j[candidates] - n[candidates]), per_row[candidates]))]
    first = np.concatenate([[True], per_row[order][1:] != per_row[order][:-1]]) if order.size else order.astype(bool)
    cut = order[first]  # flat index of A2's first token, one per split row
    rows = per_row[cut]
    split = np.zeros(lengths.shape[0], dtype=bool)
    split[rows] = True
    inserted = {"input_ids": sep_id, "token_type_ids": 0, "special_tokens_mask": 1, "word_start": 0}
    out = {}
    for name, column in columns.items():
        value = column[cut] if name == "position_ids" else inserted[name]
        out[name] = np.insert(column, cut, np.asarray(value, dtype=column.dtype))
    new_lengths = lengths + split
    new_offsets = np.concatenate([[0], np.cumsum(new_lengths)])
    new_cut = cut + np.arange(cut.shape[0])  # the inserted [SEP]s in the new arrays
    # A2 and the final [SEP]: token type 1
    second = new_offsets[rows + 1] - new_cut - 1
    out["token_type_ids"][_row_ranges(new_cut + 1, second)] = 1
    if "position_ids" in out:
        row_tokens = _row_ranges(new_offsets[rows], new_lengths[rows])
        first_position = np.repeat(out["position_ids"][new_offsets[rows]], new_lengths[rows])
        out["position_ids"][row_tokens] = first_position + row_tokens - np.repeat(new_offsets[rows], new_lengths[rows])
    return SegmentSplit(out, new_lengths, split)
