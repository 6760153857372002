"""Mixing by source: which rows an epoch holds so that each source's share of the TOKENS follows a weight.

Weighting rows instead would skew token shares by the sources' row lengths (petitions' rows are many times
longer than comments'). An epoch holds as many content tokens as the weighted sources hold together; source s
contributes `weight_s` of them: every row of s as often as fits whole, then a prefix of a permutation seeded
by (seed, epoch, s) up to the nearest row. The result depends only on (seed, epoch), so every rank computes
the same epoch and a resumed loader the same batches.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class SourceMixture:
    """Rows by source and their content tokens, and the weight of each source (index into `sources`)."""

    rows_by_source: tuple[np.ndarray, ...]
    tokens_by_source: tuple[np.ndarray, ...]
    weights: np.ndarray

    @classmethod
    def build(cls, sources: list[str], row_source: np.ndarray, tokens: np.ndarray,
              source_weights: dict[str, float]) -> SourceMixture:
        unknown = sorted(set(source_weights) - set(sources))
        if unknown:
            raise ValueError(f"source_weights names {', '.join(unknown)}, not a source of this pack "
                             f"(sources: {', '.join(sources) or 'none'})")
        weights = np.asarray([float(source_weights.get(s, 0.0)) for s in sources])
        if (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"source_weights must be >= 0 with a positive sum, got {source_weights}")
        rows = tuple(np.flatnonzero(row_source == k) for k in range(len(sources)))
        empty = [sources[k] for k in np.flatnonzero(weights > 0) if tokens[rows[k]].sum() == 0]
        if empty:
            raise ValueError(f"source_weights gives weight to {', '.join(empty)}, which has no tokens in this split")
        return cls(rows, tuple(tokens[r] for r in rows), weights / weights.sum())

    def epoch_rows(self, seed: int, epoch: int) -> np.ndarray:
        """The row indices of `epoch` (repeats allowed), grouped by source; shuffle them afterwards."""
        budget = sum(int(t.sum()) for t, w in zip(self.tokens_by_source, self.weights) if w > 0)
        picked = []
        for k, (rows, tokens, weight) in enumerate(zip(self.rows_by_source, self.tokens_by_source, self.weights)):
            if weight == 0:
                continue
            target = weight * budget
            whole, rest = divmod(target, int(tokens.sum()))
            perm = np.random.default_rng([seed, epoch, k]).permutation(rows.shape[0])
            midpoints = np.cumsum(tokens[perm]) - tokens[perm] / 2
            partial = int(np.searchsorted(midpoints, rest, side="right"))
            picked.append(np.concatenate([np.tile(rows, int(whole)), rows[perm[:partial]]]))
        return np.concatenate(picked)
