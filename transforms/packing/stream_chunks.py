"""`cross_document` packing in parallel groups: the rows of one stream, cut where the stream's positions say.

The shard's stream is its sorted documents, each followed by `[SEP]`, cut every `max_length - 1` tokens (a row
is `[CLS]` and one cut). A row's content depends only on its position in the stream, so once the documents'
order is known the stream can be cut into groups of whole record batches (`plan_stream`: the (document,
offset) where each group starts), each document sent in pieces to the groups it spans (`split_document`), and
every group packed and serialized on its own (`stream_piece_columns`): the same rows as `pack_sorted`.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np

from kcorpus.transforms.packing.blocks import PackConfig, PackedColumns, SpecialIds, WireDoc
from kcorpus.transforms.packing.chunks import rows_per_group, tie_key
from kcorpus.transforms.packing.stats import (
    PackStats,
    SourceCounts,
    documents_by_source,
    merge_source_counts,
    source_counts,
)

# A document's place in its shard's stream: (id, tie key, its number of tokens, its source)
DocKey = tuple[str, bytes, int, str]
# Where a group starts: (document id, tie key, offset in the document's tokens + [SEP])
StreamSplitter = tuple[str, bytes, int]
# A piece of a document in one group: (id, tie key, offset, ids bytes, ends with the document's [SEP], dtype,
# word_start bytes or None, source)
Piece = tuple[str, bytes, int, bytes, bool, str, bytes | None, str]


@functools.cache
def _itemsize(dtype: str) -> int:
    return np.dtype(dtype).itemsize


def doc_keys(docs: Iterable[WireDoc]) -> list[DocKey]:
    """The stream keys of documents (as `WireDoc`s)."""
    return [(d[0], tie_key(d[1]), len(d[1]) // _itemsize(d[3]), d[5]) for d in docs]


def _stream_source_counts(ordered: Sequence[DocKey], room: int) -> SourceCounts:
    """Documents per source; sequences and content tokens per source of each row's first document."""
    kept = [k for k in ordered if k[2] > 0]
    ends = np.cumsum(np.fromiter((k[2] + 1 for k in kept), dtype=np.int64, count=len(kept)))
    length = int(ends[-1]) if ends.shape[0] else 0
    cuts = np.arange(0, length, room, dtype=np.int64)
    stops = np.minimum(cuts + room, length)
    seps = np.searchsorted(ends - 1, stops, side="left") - np.searchsorted(ends - 1, cuts, side="left")
    owners = np.searchsorted(ends, cuts, side="right").tolist()
    documents = documents_by_source(k[3] for k in ordered)
    return merge_source_counts({}, source_counts(documents, [kept[i][3] for i in owners], stops - cuts - seps))


def plan_stream(
    keys: Iterable[DocKey], config: PackConfig, rows_per_batch: int, max_groups: int
) -> tuple[list[StreamSplitter], PackStats]:
    """Where every group after the first starts, groups of whole record batches in stream order, and the
    stats of the shard's rows. Documents sharing a key (the same id and tokens twice) make one group."""
    ordered = sorted(keys)
    room = config.max_length - 1
    spans = [k[2] + 1 for k in ordered if k[2] > 0]  # a document's tokens and its [SEP]; empty ones are left out
    length = sum(spans)
    rows = math.ceil(length / room)
    stats = PackStats(
        documents=len(ordered),
        corpus_tokens=length - len(spans),
        sequences=rows,
        content_tokens=length - len(spans),
        special_tokens=rows + len(spans),
        padding_tokens=rows * config.max_length - length - rows,
        sources=_stream_source_counts(ordered, room),
    )
    if any(a[:2] == b[:2] for a, b in itertools.pairwise(ordered)):
        return [], stats
    span = rows_per_group(rows, rows_per_batch, max_groups) * room
    splitters: list[StreamSplitter] = []
    starts = itertools.accumulate(spans, initial=0)
    docs = iter([(k[0], k[1]) for k in ordered if k[2] > 0])
    position = span
    for (doc_id, tie), start, size in zip(docs, starts, spans):
        while start <= position < start + size:
            splitters.append((doc_id, tie, position - start))
            position += span
    return splitters, stats


def split_documents(docs: Iterable[WireDoc], splitters: Sequence[StreamSplitter]) -> dict[int, list[Piece]]:
    """The pieces of documents by group: a document's tokens and [SEP], cut where a group starts inside it
    (an empty document has none)."""
    groups: dict[int, list[Piece]] = {}
    for doc_id, ids, _lengths, dtype, flags, source in docs:
        size = _itemsize(dtype)
        n = len(ids) // size
        if not n:
            continue
        tie = tie_key(ids)
        first = bisect.bisect_right(splitters, (doc_id, tie, 0))  # the group of the document's first token
        if first == len(splitters) or splitters[first][:2] != (doc_id, tie):  # no group starts inside it
            groups.setdefault(first, []).append((doc_id, tie, 0, ids, True, dtype, flags, source))
            continue
        last = bisect.bisect_right(splitters, (doc_id, tie, n))
        cuts = [0, *(off for _, _, off in splitters[first:last]), n + 1]
        for group, (lo, hi) in enumerate(itertools.pairwise(cuts), start=first):
            part = flags[lo : min(hi, n)] if flags is not None else None
            groups.setdefault(group, []).append((doc_id, tie, lo, ids[lo * size : min(hi, n) * size], hi == n + 1,
                                                 dtype, part, source))
    return groups


def stream_piece_columns(pieces: Sequence[Piece], config: PackConfig, special: SpecialIds) -> PackedColumns:
    """The rows of one group: its pieces in stream order, [SEP] after every document's last piece, cut every
    `max_length - 1` tokens, each row opened by [CLS]."""
    ordered = sorted(pieces, key=lambda p: p[:3])
    dtypes = {p[5] for p in ordered}
    if len(dtypes) > 1:
        raise ValueError(f"documents of one shard have mixed id dtypes {sorted(dtypes)}")
    dtype = np.dtype(dtypes.pop()) if dtypes else np.dtype(np.uint32)
    tokens = np.fromiter((len(p[3]) // dtype.itemsize for p in ordered), dtype=np.int64, count=len(ordered))
    seps = np.fromiter((p[4] for p in ordered), dtype=np.int64, count=len(ordered))
    ends = np.cumsum(tokens + seps)  # position after each piece in the group's stream
    length = int(ends[-1]) if ends.shape[0] else 0
    is_sep = np.zeros(length, dtype=np.uint8)
    is_sep[(ends - 1)[seps == 1]] = 1
    stream = np.empty(length, dtype=dtype)
    stream[is_sep == 1] = special.sep
    stream[is_sep == 0] = np.frombuffer(b"".join(p[3] for p in ordered), dtype=dtype)
    room = config.max_length - 1
    cuts = np.arange(0, length, room, dtype=np.int64)
    ids = np.insert(stream, cuts, special.cls)
    mask = np.insert(is_sep, cuts, 1)
    flags = None
    if ordered and ordered[0][6] is not None:
        flags = np.zeros(length, dtype=np.uint8)
        flags[is_sep == 0] = np.frombuffer(b"".join(p[6] for p in ordered), dtype=np.uint8)
        flags = np.insert(flags, cuts, 0)
    offsets = np.zeros(cuts.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.minimum(room, length - cuts) + 1, out=offsets[1:])
    owners = np.searchsorted(ends, cuts, side="right").tolist()
    return PackedColumns(ids, np.zeros(ids.shape[0], dtype=np.uint8), mask, offsets,
                         [ordered[i][0] for i in owners], [ordered[i][7] for i in owners], flags)
