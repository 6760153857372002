"""Token accounting of a pack: documents, sequences, corpus, content, special, padding and borrowed tokens, in
all and per corpus source (a row and its content tokens count for the source of its first document)."""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from kcorpus.transforms.pack.blocks import PackedColumns

SourceCounts = dict[str, dict[str, int]]  # {source: {"documents", "sequences", "tokens"}}
NSP_ONLY = ("random_next", "left_out_documents", "left_out_tokens")


def documents_by_source(sources: Iterable[str]) -> dict[str, int]:
    """How many documents each source has."""
    return dict(collections.Counter(sources))


def source_counts(documents: Mapping[str, int], row_sources: Sequence[str], row_tokens: np.ndarray) -> SourceCounts:
    """Documents, sequences and content tokens per corpus source: a row's tokens go to the row's source."""
    out: SourceCounts = {}
    for source, count in documents.items():
        out.setdefault(source, {"documents": 0, "sequences": 0, "tokens": 0})["documents"] += count
    for source, tokens in zip(row_sources, row_tokens.tolist()):
        counts = out.setdefault(source, {"documents": 0, "sequences": 0, "tokens": 0})
        counts["sequences"] += 1
        counts["tokens"] += tokens
    return out


def merge_source_counts(a: SourceCounts, b: SourceCounts) -> SourceCounts:
    """Counts of two parts, summed per source, in source order."""
    return {name: {key: a.get(name, {}).get(key, 0) + b.get(name, {}).get(key, 0)
                   for key in ("documents", "sequences", "tokens")}
            for name in sorted(a.keys() | b.keys())}


@dataclasses.dataclass
class PackStats:
    """Token accounting of a packing run; `dropped_tokens` is 0 but in `nsp` (its truncation, the documents it
    left out). `nsp` only: `borrowed_tokens`, copies of another document's tokens as a random B;
    `random_next`, rows whose B is not A's next sentences; `left_out_documents` and `left_out_tokens`, the
    one-sentence documents its `balanced` rule could not pair. `sources`: per corpus source."""

    documents: int = 0
    corpus_tokens: int = 0
    sequences: int = 0
    content_tokens: int = 0
    special_tokens: int = 0
    padding_tokens: int = 0
    borrowed_tokens: int = 0
    random_next: int = 0
    left_out_documents: int = 0
    left_out_tokens: int = 0
    sources: SourceCounts = dataclasses.field(default_factory=dict)

    @property
    def sequence_tokens(self) -> int:
        return self.content_tokens + self.special_tokens

    @property
    def dropped_tokens(self) -> int:
        """Corpus tokens in no sequence: the content tokens but the borrowed copies reconcile with the corpus."""
        return self.corpus_tokens - (self.content_tokens - self.borrowed_tokens)

    @property
    def padding_fraction(self) -> float:
        total = self.sequence_tokens + self.padding_tokens
        return self.padding_tokens / total if total else 0.0

    @classmethod
    def of_columns(cls, columns: PackedColumns, documents: Mapping[str, int], corpus_tokens: int,
                   max_length: int) -> PackStats:
        """The stats of packed rows; `documents`: the documents counted here, per source."""
        lengths = columns.lengths
        specials = int(columns.special_tokens_mask.sum(dtype=np.int64))
        nsp = dict(columns.nsp_counts or {})
        random_next = 0
        if columns.next_sentence_label is not None:
            random_next = int((columns.next_sentence_label == 1).sum())
            if not nsp and columns.num_rows:  # rows without their planner's counts: every random B a copy
                b_tokens = np.add.reduceat(columns.token_type_ids, columns.offsets[:-1], dtype=np.int64) - 1
                nsp["borrowed_tokens"] = int(b_tokens[columns.next_sentence_label == 1].sum())
        return cls(
            documents=sum(documents.values()),
            corpus_tokens=corpus_tokens,
            sequences=columns.num_rows,
            content_tokens=int(lengths.sum()) - specials,
            special_tokens=specials,
            padding_tokens=int((max_length - lengths).sum()),
            borrowed_tokens=nsp.get("borrowed_tokens", 0),
            random_next=random_next,
            left_out_documents=nsp.get("left_out_documents", 0),
            left_out_tokens=nsp.get("left_out_tokens", 0),
            sources=merge_source_counts({}, source_counts(documents, columns.sources, columns.row_tokens())),
        )

    def merge(self, other: PackStats) -> PackStats:
        counts = (getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)
                  if f.name != "sources")
        return PackStats(*counts, sources=merge_source_counts(self.sources, other.sources))

    def to_dict(self) -> dict[str, int | float | SourceCounts]:
        """Every count (the `nsp` ones only when one is not 0) and the derived ones."""
        out: dict[str, int | float | SourceCounts] = dataclasses.asdict(self)
        if not any(out[k] for k in NSP_ONLY):
            for key in NSP_ONLY:
                del out[key]
        out.update(
            sequence_tokens=self.sequence_tokens,
            dropped_tokens=self.dropped_tokens,
            padding_fraction=round(self.padding_fraction, 6),
            sources=out.pop("sources"),
        )
        return out


# Padding above this share of the positions is worth a warning: layouts that fill rows across documents avoid it.
PADDING_WARNING = 0.20
FULL_LAYOUTS = {"full_sentences": "whole sentences across documents", "cross_document": "no padding at all"}


def padding_warning(padding_fraction: float, layout: str | None, max_length: int | None = None) -> str | None:
    """One line when padding passes `PADDING_WARNING`, naming the layouts that fill rows across documents;
    None otherwise."""
    if padding_fraction <= PADDING_WARNING:
        return None
    others = [f"{name} ({what})" for name, what in FULL_LAYOUTS.items() if name != layout]
    positions = f"the {max_length}-token positions" if max_length else "the positions"
    return (f"padding is {100 * padding_fraction:.1f}% of {positions} (layout {layout}): rows filled across "
            f"documents waste less, --layout {' or '.join(others)}")
