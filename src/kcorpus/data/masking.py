"""Which tokens a masked-LM collator predicts: single tokens, whole words, or n-grams of whole words.

Everything works on flat token arrays (a padded batch reshaped, or a padding-free one), vectorised:
- a *unit* is what is masked all or nothing: a token (`token`), a word (`whole_word`: an eojeol, from the
  pack's `word_start` column or the vocabulary's `##` / `▁` marks), or a span of 1..max_ngram consecutive
  words (`ngram`, lengths drawn with p ∝ 1/n as ALBERT). Units never cross a special token or a row.
- each unit is chosen with probability `mlm_probability`, so the expected masked share of real tokens is
  `mlm_probability` whatever the units' sizes; `min_predictions` adds whole units, in random order, to rows
  that would predict fewer tokens than that (Google BERT predicts at least one token per sequence), and
  `max_predictions` then drops whole units, in random order, from rows that would predict more.
"""

from __future__ import annotations

import numpy as np

MASKING = ("token", "whole_word", "ngram")


def ngram_weights(max_ngram: int) -> np.ndarray:
    """P(span of n words) ∝ 1/n for n = 1..max_ngram (ALBERT)."""
    weights = 1.0 / np.arange(1, max_ngram + 1)
    return weights / weights.sum()


def vocab_word_starts(tokens: list[str]) -> tuple[np.ndarray, str]:
    """Per token id, whether it starts a word, from the vocabulary alone (packs without `word_start`):
    SentencePiece pieces starting with `▁`, or WordPiece pieces not starting with `##`."""
    metaspace = sum(t.startswith("▁") for t in tokens)
    continuation = sum(t.startswith("##") for t in tokens)
    if metaspace > continuation:
        return np.fromiter((t.startswith("▁") for t in tokens), dtype=bool, count=len(tokens)), "'▁'"
    return np.fromiter((not t.startswith("##") for t in tokens), dtype=bool, count=len(tokens)), "'##'"


def _runs(eligible: np.ndarray, row_start: np.ndarray) -> np.ndarray:
    """Where a run of eligible tokens begins (after a special token, padding or a row start)."""
    previous = np.concatenate([[False], eligible[:-1]])
    return eligible & (~previous | row_start)


def _tile_spans(first: np.ndarray, max_ngram: int, rng: np.random.Generator) -> np.ndarray:
    """Cut the words (in order; `first` marks the first word of each segment, a run between special tokens)
    into consecutive spans of 1..max_ngram words, restarting at every segment; a bool per word: does a span
    start at it."""
    n = first.shape[0]
    draw = rng.random(n)
    lengths = np.ones(n, dtype=np.int64)
    for threshold in np.cumsum(ngram_weights(max_ngram))[:-1]:  # inverse CDF: a few compares beat searchsorted
        lengths += draw >= threshold
    seg_first = np.flatnonzero(first)
    seg_of_word = np.cumsum(first) - 1
    # span k of a segment starts at word  seg_first + (lengths of that segment's draws 0..k-1)
    exclusive = np.cumsum(lengths) - lengths
    target = exclusive + (seg_first - exclusive[seg_first])[seg_of_word]
    valid = target < np.append(seg_first[1:], n)[seg_of_word]
    starts = np.zeros(n, dtype=bool)
    starts[target[valid]] = True
    return starts


def unit_starts(eligible: np.ndarray, row_start: np.ndarray, word_start: np.ndarray | None, masking: str,
                max_ngram: int, rng: np.random.Generator) -> np.ndarray:
    """Bool per flat token: a unit (token, word or span) begins here."""
    if masking == "token":
        return eligible.copy()
    runs = _runs(eligible, row_start)
    words = eligible & (word_start | runs)
    if masking == "whole_word":
        return words
    word_pos = np.flatnonzero(words)
    starts = np.zeros_like(eligible)
    starts[word_pos[_tile_spans(runs[word_pos], max_ngram, rng)]] = True
    return starts


def _in_random_order(units: np.ndarray, unit_row: np.ndarray, sizes: np.ndarray, rng: np.random.Generator
                     ) -> tuple[np.ndarray, np.ndarray]:
    """`units` grouped by row, in random order within a row, and the tokens of the units before each one in
    its row."""
    order = units[np.lexsort((rng.random(units.shape[0]), unit_row[units]))]
    total = np.cumsum(sizes[order])
    rows = unit_row[order]
    first = np.concatenate([[True], rows[1:] != rows[:-1]]) if order.size else np.zeros(0, bool)
    before = (total - sizes[order])[first][np.cumsum(first) - 1]
    return order, total - sizes[order] - before


def choose_tokens(eligible: np.ndarray, starts: np.ndarray, row: np.ndarray, probability: float,
                  max_predictions: int | None, rng: np.random.Generator, min_predictions: int = 0) -> np.ndarray:
    """Bool per flat token: predicted. Units are chosen with `probability`; rows under `min_predictions` add
    units in random order until they reach it (or run out), then rows over `max_predictions` drop chosen units
    in random order until they fit."""
    unit = np.cumsum(starts) - 1  # the unit of each eligible token (tokens in a unit follow its start)
    num_units = int(starts.sum())
    chosen_unit = rng.random(num_units) < probability
    if num_units and (min_predictions or max_predictions is not None):
        sizes = np.bincount(unit[eligible], minlength=num_units)
        unit_row = row[starts]
    if min_predictions and num_units:
        have = np.bincount(unit_row, weights=np.where(chosen_unit, sizes, 0), minlength=int(row.max()) + 1)
        order, before = _in_random_order(np.flatnonzero(~chosen_unit), unit_row, sizes, rng)
        chosen_unit[order[have[unit_row[order]] + before < min_predictions]] = True
    if max_predictions is not None and num_units:
        order, before = _in_random_order(np.flatnonzero(chosen_unit), unit_row, sizes, rng)
        chosen_unit[order[before + sizes[order] > max_predictions]] = False
    return eligible & chosen_unit[np.maximum(unit, 0)]
