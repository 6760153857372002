"""`MLMCollator`: masked-LM corruption (and SOP) of a batch, seeded by its place in the run."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kcorpus.data.dataset import Batch, PackedDataset, warn_no_word_start
from kcorpus.data.flatten import cu_seqlens, row_of_token
from kcorpus.data.masking import MASKING, choose_tokens, unit_starts, vocab_word_starts
from kcorpus.data.plan import BatchRequest
from kcorpus.data.sop import split_single_segments, swap_segments
from kcorpus.data.vocab_check import check_tokenizer, load_vocab

_PER_TOKEN = ("input_ids", "token_type_ids", "special_tokens_mask", "word_start")


def _rows(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """(flat start, length) of every row of a padded or a padding-free batch."""
    if "cu_seqlens" in batch:
        cu = np.asarray(batch["cu_seqlens"], dtype=np.int64)
        return cu[:-1], np.diff(cu)
    n, width = batch["input_ids"].shape
    return np.arange(n, dtype=np.int64) * width, batch["attention_mask"].sum(axis=1).astype(np.int64)


@dataclasses.dataclass
class MLMCollator:
    """Masked-LM corruption of a batch (padded or `pad_to="none"`); adds `labels` (-100 where nothing is
    predicted).

    - `masking`: `"token"` (BERT), `"whole_word"` (every token of a chosen eojeol or none) or `"ngram"` (spans
      of 1..`max_ngram` whole words, p ∝ 1/n as ALBERT). Each unit is chosen with `mlm_probability`, so that
      share of real tokens is predicted on average; `max_predictions` caps the predicted tokens of a sequence
      (whole units are dropped, in random order, until they fit); `min_predictions` (Google BERT: 1) adds whole
      units, in random order, to rows predicting fewer tokens, so no batch is left without an MLM target.
    - Of the predicted tokens `mask_fraction` become `[MASK]`, `random_fraction` a random id, the rest are
      kept (BERT 0.8/0.1; ELECTRA 0.85/0.0; DeBERTa-v3 RTD 1.0/0.0).
    - `sentence_order=True` (SOP): two-segment rows are swapped with probability 0.5 before masking and get
      `sentence_order_label` 1 if swapped, 0 if not, with token_type_ids following the new order;
      single-segment rows get -100 (ignored by the loss), unless `split_single_segments=True`: then a
      `[CLS] A [SEP]` row of one document is first cut at the word start that halves A best into
      `[CLS] A1 [SEP] A2 [SEP]` (one token more; rows already `max_length` long and rows of one word stay
      single), so one-sentence documents (comments) train SOP too (`sop.split_single_segments`; it needs
      `sep_id`, `pad_id` and `max_length`, which `for_dataset` reads from the pack).
    - Words come from the pack's `word_start` column; packs without it fall back to `word_starts`, a bool per
      vocabulary id (`for_dataset` builds it from the vocabulary's `##` / `▁` marks and warns once).
    """

    mask_id: int
    vocab_size: int
    mlm_probability: float = 0.15
    mask_fraction: float = 0.8
    random_fraction: float = 0.1
    seed: int = 0
    masking: str = "token"
    max_ngram: int = 3
    max_predictions: int | None = None
    min_predictions: int = 0
    sentence_order: bool = False
    word_starts: np.ndarray | None = None
    split_single_segments: bool = False
    sep_id: int | None = None
    pad_id: int | None = None
    max_length: int | None = None

    def __post_init__(self) -> None:
        if self.masking not in MASKING:
            raise ValueError(f"masking must be one of {', '.join(MASKING)}, got {self.masking!r}")
        if self.max_ngram < 1:
            raise ValueError(f"max_ngram must be at least 1, got {self.max_ngram}")
        if self.max_predictions is not None and self.max_predictions < 1:
            raise ValueError(f"max_predictions must be at least 1, got {self.max_predictions}")
        ceiling = self.max_predictions if self.max_predictions is not None else float("inf")
        if not 0 <= self.min_predictions <= ceiling:
            raise ValueError(f"min_predictions must be in [0, max_predictions], got {self.min_predictions}")
        if not 0.0 <= self.mlm_probability <= 1.0:
            raise ValueError(f"mlm_probability must be in [0, 1], got {self.mlm_probability}")
        if self.mask_fraction < 0 or self.random_fraction < 0 or self.mask_fraction + self.random_fraction > 1:
            raise ValueError("mask_fraction and random_fraction must be >= 0 and sum to at most 1")
        if self.split_single_segments:
            if not self.sentence_order:
                raise ValueError("split_single_segments builds two-segment rows for SOP: it needs sentence_order=True")
            missing = [k for k in ("sep_id", "pad_id", "max_length") if getattr(self, k) is None]
            if missing:
                raise ValueError(f"split_single_segments needs {', '.join(missing)} (MLMCollator.for_dataset reads "
                                 "them from the pack)")

    @property
    def needs_word_start(self) -> bool:
        return self.masking != "token" or self.split_single_segments

    def __call__(self, batch: Batch, request: BatchRequest) -> Batch:
        rng = np.random.default_rng([self.seed, request.epoch, request.rank, request.step])
        if self.split_single_segments:
            batch = self._split(batch)
        shape = batch["input_ids"].shape
        flat = {k: np.asarray(batch[k]).reshape(-1) for k in _PER_TOKEN if k in batch}
        starts, lengths = _rows(batch)
        out = dict(batch)
        if self.sentence_order:
            swap = swap_segments(flat["token_type_ids"], starts, lengths, rng)
            flat = {k: swap.apply_types(v) if k == "token_type_ids" else swap.apply(v) for k, v in flat.items()}
            out["sentence_order_label"] = swap.labels
        input_ids = flat["input_ids"].copy()
        eligible = flat["special_tokens_mask"] == 0
        if "attention_mask" in batch:
            eligible &= np.asarray(batch["attention_mask"]).reshape(-1) == 1
        row_start = np.zeros(input_ids.shape[0], dtype=bool)
        row_start[starts[lengths > 0]] = True
        row = row_of_token(np.append(starts, input_ids.shape[0])) if "cu_seqlens" in batch else (
            np.arange(input_ids.shape[0]) // shape[-1])
        units = unit_starts(eligible, row_start, self._word_start(flat, input_ids), self.masking, self.max_ngram,
                            rng)
        chosen = np.flatnonzero(choose_tokens(eligible, units, row, self.mlm_probability, self.max_predictions,
                                              rng, self.min_predictions))
        labels = np.full_like(input_ids, -100)
        labels[chosen] = input_ids[chosen]
        draw = rng.random(chosen.shape[0])
        input_ids[chosen[draw < self.mask_fraction]] = self.mask_id
        to_random = chosen[(draw >= self.mask_fraction) & (draw < self.mask_fraction + self.random_fraction)]
        input_ids[to_random] = rng.integers(0, self.vocab_size, size=to_random.shape[0])
        out.pop("word_start", None)
        out["input_ids"] = input_ids.reshape(shape)
        out["labels"] = labels.reshape(shape)
        if self.sentence_order:
            out["token_type_ids"] = flat["token_type_ids"].reshape(shape)
            out["special_tokens_mask"] = flat["special_tokens_mask"].reshape(shape)
        return out

    def _split(self, batch: Batch) -> Batch:
        """The batch with its single-segment rows cut in two, padded or padding-free as it came."""
        keys = [k for k in (*_PER_TOKEN, "position_ids") if k in batch]
        padded = "cu_seqlens" not in batch
        if padded:
            real = np.asarray(batch["attention_mask"]).astype(bool)
            lengths = real.sum(axis=1)
            columns = {k: np.asarray(batch[k])[real] for k in keys}
        else:
            lengths = np.diff(np.asarray(batch["cu_seqlens"], dtype=np.int64))
            columns = {k: np.asarray(batch[k]).reshape(-1) for k in keys}
        words = self._word_start(columns, columns["input_ids"], always=True)
        result = split_single_segments(columns, lengths, words, self.sep_id, self.max_length)
        out = dict(batch)
        if padded:
            width = max(batch["input_ids"].shape[1], int(result.lengths.max(initial=0)))
            real = np.arange(width) < result.lengths[:, None]
            fill = {"input_ids": self.pad_id, "token_type_ids": 0, "special_tokens_mask": 1, "word_start": 0}
            for key, column in result.columns.items():
                out[key] = np.full(real.shape, fill[key], dtype=column.dtype)
                out[key][real] = column
            out["attention_mask"] = real.astype(np.asarray(batch["attention_mask"]).dtype)
        else:
            out.update({key: column[None, :] for key, column in result.columns.items()})
            out["cu_seqlens"] = cu_seqlens(result.lengths)
            out["max_seqlen"] = int(result.lengths.max(initial=0))
        return out

    def _word_start(self, flat: dict[str, np.ndarray], input_ids: np.ndarray, always: bool = False
                    ) -> np.ndarray | None:
        if self.masking == "token" and not always:
            return None
        if "word_start" in flat:
            return flat["word_start"].astype(bool)
        if self.word_starts is None:
            wants = "split_single_segments" if always else f"masking={self.masking!r}"
            raise ValueError(f"{wants} needs the batch's word_start (PackedDataset.batch(..., "
                             "word_start=True); PackedDataLoader asks for it) or, for a pack without that column, "
                             "word_starts= (MLMCollator.for_dataset(dataset, tokenizer=...) builds it)")
        return self.word_starts[input_ids]

    @classmethod
    def for_dataset(cls, dataset: PackedDataset, tokenizer: Any = None, **kwargs: Any) -> MLMCollator:
        """A collator with the pack's [MASK] id and vocabulary size. `tokenizer` (a folder, a tokenizer.json or
        a tokenizer object) is checked against the pack; for word masking on a pack without `word_start` it
        gives the `##` / `▁` marks (default: the tokenizer the manifest names, if it is still there)."""
        if dataset.mask_id is None or dataset.vocab_size is None:
            raise ValueError("the pack's manifest has no [MASK] id or vocab size: pass mask_id= and vocab_size=")
        if tokenizer is not None:
            check_tokenizer(dataset.manifest, tokenizer, str(dataset.path.parent))
        if kwargs.get("split_single_segments"):
            sep = dataset.manifest.get("tokenizer", {}).get("special_ids", {}).get("sep")
            kwargs = {"sep_id": sep, "pad_id": dataset.pad_id, "max_length": dataset.max_length, **kwargs}
        collator = cls(mask_id=dataset.mask_id, vocab_size=dataset.vocab_size, **kwargs)
        if collator.needs_word_start and not dataset.has_word_start and collator.word_starts is None:
            if tokenizer is None:
                tokenizer = dataset.manifest.get("tokenizer", {}).get("path")
                if tokenizer is None:
                    raise ValueError(f"{dataset.path} has no word_start column: pass tokenizer= for its ## / ▁ marks")
                check_tokenizer(dataset.manifest, tokenizer, str(dataset.path.parent))
            collator.word_starts, grouping = vocab_word_starts(load_vocab(tokenizer))
            warn_no_word_start(dataset, grouping)
        return collator
