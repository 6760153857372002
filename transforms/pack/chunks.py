"""Packed chunks: documents packed where they are tokenized, merged into id order where a shard is written.

In the `pair` and `single` layouts no sequence crosses a document, and a document's sequences depend only on
its tokens, its id and the seed, so a batch of documents can be packed as soon as it is encoded, in parallel.
A shard's writer then only merges the chunks' rows into document-id order: the same rows, in the same order,
as packing the shard's sorted documents in one place (`pack_sorted`). A chunk crosses Beam stages as plain
tuples and bytes (`ChunkWire`) for Beam's fast coder.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from kcorpus.transforms.pack.blocks import (
    DocBlock,
    PackConfig,
    PackedColumns,
    SpecialIds,
    WireDoc,
    concat_columns,
)
from kcorpus.transforms.pack.packer import pack_block, pack_block_by_document
from kcorpus.transforms.pack.stats import PackStats, documents_by_source

TIE_BYTES = 8
# (row doc ids, row sources, row tie keys, row lengths as uint32, input_ids, token_type_ids, special_tokens_mask,
#  word_start or None, next_sentence_label or None, ids dtype, documents per source, corpus tokens, nsp_counts or
#  None)
ChunkWire = tuple[list[str], list[str], bytes, bytes, bytes, bytes, bytes, bytes | None, bytes | None, str,
                  dict[str, int], int, dict[str, int] | None]


def tie_key(ids: bytes) -> bytes:
    """Orders documents sharing an id (not expected from build-corpus): a digest of their token bytes."""
    return hashlib.blake2b(ids, digest_size=TIE_BYTES).digest()


def sort_wire(docs: Iterable[WireDoc]) -> list[WireDoc]:
    """By id; documents sharing an id by `tie_key` of their tokens."""
    ordered = sorted(docs, key=operator.itemgetter(0))
    if any(a[0] == b[0] for a, b in itertools.pairwise(ordered)):
        ordered.sort(key=lambda d: (d[0], tie_key(d[1])))
    return ordered


def block_from_wire(docs: Sequence[WireDoc]) -> DocBlock:
    """Wire tuples -> one `DocBlock` (one join per column instead of an array per document)."""
    dtypes = {d[3] for d in docs}
    if len(dtypes) > 1:
        raise ValueError(f"documents of one shard have mixed id dtypes {sorted(dtypes)}")
    dtype = np.dtype(dtypes.pop()) if dtypes else np.dtype(np.uint32)
    lengths = b"".join(d[2] for d in docs)
    flags = {d[4] is None for d in docs}
    if len(flags) > 1:
        raise ValueError("documents of one shard mix word_start flags and none")
    return DocBlock(
        [d[0] for d in docs],
        np.frombuffer(b"".join(d[1] for d in docs), dtype=dtype),
        np.frombuffer(lengths, dtype=np.uint32),
        np.fromiter((len(d[2]) // 4 for d in docs), dtype=np.int64, count=len(docs)),
        [d[5] for d in docs],
        None if flags == {True} else np.frombuffer(b"".join(d[4] for d in docs), dtype=np.uint8),
    )


def pack_sorted(
    docs: Iterable[WireDoc], config: PackConfig, special: SpecialIds
) -> tuple[PackedColumns, PackStats]:
    """Sort a shard's documents and pack them in one place (any layout); the stats reconcile corpus and packed
    tokens."""
    block = block_from_wire(sort_wire(docs))
    columns = pack_block(block, config, special)
    stats = PackStats.of_columns(columns, documents_by_source(block.sources), int(block.ids.shape[0]),
                                 config.max_length)
    return columns, stats


@dataclasses.dataclass(frozen=True)
class PackedChunk:
    """The packed rows of some documents of one shard, in (id, tie key) order; `row_ties` holds the tie key of
    every row's document."""

    columns: PackedColumns
    row_ties: bytes
    documents: dict[str, int]
    corpus_tokens: int

    def to_wire(self) -> ChunkWire:
        c = self.columns
        nsp = c.next_sentence_label
        return (c.doc_ids, c.sources, self.row_ties, np.diff(c.offsets).astype(np.uint32).tobytes(),
                c.input_ids.tobytes(), c.token_type_ids.tobytes(), c.special_tokens_mask.tobytes(),
                c.word_start.tobytes() if c.word_start is not None else None,
                nsp.tobytes() if nsp is not None else None, c.input_ids.dtype.str, self.documents,
                self.corpus_tokens, c.nsp_counts)

    def stats(self, max_length: int) -> PackStats:
        return PackStats.of_columns(self.columns, self.documents, self.corpus_tokens, max_length)

    def rows(self, lo: int, hi: int) -> PackedChunk:
        """Rows `lo:hi` (documents and corpus tokens are counted once, in the whole chunk: none here)."""
        return PackedChunk(self.columns.rows(lo, hi), self.row_ties[lo * TIE_BYTES : hi * TIE_BYTES], {}, 0)

    @classmethod
    def from_wire(cls, wire: ChunkWire) -> PackedChunk:
        doc_ids, sources, ties, lengths, ids, types, mask, flags, nsp, dtype, documents, corpus_tokens, nsp_counts = wire
        offsets = np.zeros(len(doc_ids) + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(lengths, dtype=np.uint32), out=offsets[1:])
        columns = PackedColumns(np.frombuffer(ids, dtype=np.dtype(dtype)), np.frombuffer(types, dtype=np.uint8),
                                np.frombuffer(mask, dtype=np.uint8), offsets, list(doc_ids), list(sources),
                                np.frombuffer(flags, dtype=np.uint8) if flags is not None else None,
                                np.frombuffer(nsp, dtype=np.int8) if nsp is not None else None,
                                dict(nsp_counts) if nsp_counts is not None else None)
        return cls(columns, ties, dict(documents), corpus_tokens)


def pack_chunk(docs: Iterable[WireDoc], config: PackConfig, special: SpecialIds) -> PackedChunk:
    """Pack documents of one shard in (id, tie key) order: any of them (`pair` or `single` layout), or all of
    them (`nsp`, which draws B from the shard's other documents)."""
    keyed = sorted(((d[0], tie_key(d[1])), d) for d in docs)
    block = block_from_wire([d for _, d in keyed])
    if config.layout == "nsp":
        from kcorpus.transforms.pack.nsp import pack_nsp

        columns, doc_index = pack_nsp(block, config, special)
    else:
        columns, doc_index = pack_block_by_document(block, config, special)
    ties = b"".join(keyed[i][0][1] for i in doc_index.tolist())
    return PackedChunk(columns, ties, documents_by_source(block.sources), int(block.ids.shape[0]))


def _row_order(doc_ids: list[str], ties: bytes) -> list[int]:
    """Rows in (document id, tie key) order; a document's rows keep their order (the sort is stable)."""
    rows = range(len(doc_ids))
    row_ties = [ties[r * TIE_BYTES : (r + 1) * TIE_BYTES] for r in rows]
    if len(set(doc_ids)) == len(set(zip(doc_ids, row_ties))):  # one tie key per id: the id alone orders rows
        return sorted(rows, key=doc_ids.__getitem__)
    return sorted(rows, key=lambda r: (doc_ids[r], row_ties[r]))


def _gather_rows(values: np.ndarray, offsets: np.ndarray, order: np.ndarray) -> np.ndarray:
    """`values` of rows `order`, each row `offsets[r]:offsets[r+1]`, concatenated."""
    starts, lengths = offsets[:-1][order], np.diff(offsets)[order]
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    return values[np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)]


def merge_rows(chunks: Sequence[PackedChunk]) -> PackedColumns:
    """The rows of chunks (or of slices of chunks) in (document id, tie key) order."""
    dtypes = {c.columns.input_ids.dtype for c in chunks}
    if len(dtypes) > 1:
        raise ValueError(f"chunks of one shard have mixed id dtypes {sorted(d.name for d in dtypes)}")
    if not chunks:
        return PackedColumns(np.zeros(0, np.uint32), np.zeros(0, np.uint8), np.zeros(0, np.uint8),
                             np.zeros(1, np.int64), [], [])
    if len({c.columns.word_start is None for c in chunks}) > 1:
        raise ValueError("chunks of one shard mix word_start flags and none")
    doc_ids = [i for c in chunks for i in c.columns.doc_ids]
    sources = [s for c in chunks for s in c.columns.sources]
    names = ["input_ids", "token_type_ids", "special_tokens_mask"]
    if chunks[0].columns.word_start is not None:
        names.append("word_start")
    per_token = [np.concatenate([getattr(c.columns, name) for c in chunks]) for name in names]
    nsp = None
    if chunks[0].columns.next_sentence_label is not None:
        nsp = np.concatenate([c.columns.next_sentence_label for c in chunks])
    lengths = np.concatenate([np.diff(c.columns.offsets) for c in chunks])
    offsets = np.zeros(len(doc_ids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    order = _row_order(doc_ids, b"".join(c.row_ties for c in chunks))
    if order != list(range(len(order))):
        rows = np.asarray(order, dtype=np.int64)
        per_token = [_gather_rows(v, offsets, rows) for v in per_token]
        offsets[1:] = np.cumsum(lengths[rows])
        doc_ids = [doc_ids[r] for r in order]
        sources = [sources[r] for r in order]
        nsp = nsp[rows] if nsp is not None else None
    flags = per_token[3] if len(per_token) > 3 else None
    return PackedColumns(*per_token[:3], offsets, doc_ids, sources, flags, nsp)


def doc_rows(chunk: PackedChunk) -> Iterator[tuple[tuple[str, bytes], int, int]]:
    """`((id, tie key), first row, end row)` of every document of a chunk, in its row order."""
    ids, ties = chunk.columns.doc_ids, chunk.row_ties
    lo = 0
    for hi in range(1, len(ids) + 1):
        if hi == len(ids) or ids[hi] != ids[lo] or ties[hi * TIE_BYTES : (hi + 1) * TIE_BYTES] != \
                ties[lo * TIE_BYTES : (lo + 1) * TIE_BYTES]:
            yield (ids[lo], ties[lo * TIE_BYTES : (lo + 1) * TIE_BYTES]), lo, hi
            lo = hi


def concat_chunks(parts: Sequence[PackedChunk]) -> PackedChunk:
    """Slices of chunks already in (document id, tie key) order, as one chunk (their row tie keys kept)."""
    return PackedChunk(concat_columns([p.columns for p in parts]), b"".join(p.row_ties for p in parts), {}, 0)


def merge_chunks(chunks: Iterable[PackedChunk], max_length: int) -> tuple[PackedColumns, PackStats]:
    """A shard's chunks -> its rows in document-id order, as `pack_sorted` gives them, and the stats."""
    chunks = list(chunks)
    columns = merge_rows(chunks)
    return columns, functools.reduce(PackStats.merge, (c.stats(max_length) for c in chunks), PackStats())
