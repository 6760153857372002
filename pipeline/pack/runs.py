"""Sorted run files: how a shard's rows or documents reach its writer in bounded memory (an external sort).

A worker buffers what it made for every shard (packed rows in the `pair` and `single` layouts, tokenized
documents in the others) and, once the buffer holds `spill_bytes` or the bundle ends, writes each shard's part
as one run file: sorted by (document id, tie key) (the chunks of rows, each in order already, are merged, so a
spill copies one block at a time), in pickled blocks of about `BLOCK_BYTES`, each block ending at a document's
end. Only `(shard, RunRef)` crosses the GroupByKey, so neither the local runner's launcher nor
a Dataflow shuffle ever holds rows. A shard's writer merges its runs (`merge_runs`: a block per run in memory);
when a shard has more than `fan_in` runs, groups of them are merged into longer runs first (`reduce_runs`,
the passes of an external merge sort), so a writer holds at most `fan_in` blocks whatever the corpus size.
Runs live in the pack's temporary folder (`.tmp-pack-*` in `--out`, local or `gs://`), which the run removes.

Documents that share an id and tie key are the same tokens packed the same way; the merge keeps them in the
order of their runs (sorted by path), and either order gives the same bytes.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import heapq
import pickle
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import naming
from kcorpus.transforms.packing.blocks import WireDoc
from kcorpus.transforms.packing.chunks import PackedChunk, concat_chunks, doc_rows, tie_key
from kcorpus.transforms.packing.stats import PackStats

# Bytes of a block of a run (pickled): what one run costs a merge in memory.
BLOCK_BYTES = 1 << 20
# Runs a writer merges at once; more are first merged in groups of this many.
FAN_IN = 64
# A worker's buffer before it spills (rows or documents of every shard it holds).
SPILL_BYTES = 64 << 20

ROWS, DOCS = "rows", "docs"
DocKey = tuple[str, bytes]


@dataclasses.dataclass(frozen=True)
class RunRef:
    """A run file and, for runs of rows, the stats of its rows and documents (None for runs of documents)."""

    path: str
    stats: PackStats | None = None


def wire_bytes(item: PackedChunk | WireDoc) -> int:
    """About what an item holds in memory: its token columns."""
    if isinstance(item, PackedChunk):
        c = item.columns
        return c.input_ids.nbytes + c.token_type_ids.nbytes * (3 if c.word_start is not None else 2)
    return len(item[1]) + len(item[2]) + (len(item[4]) if item[4] is not None else 0)


class SpillBuffer:
    """A worker's rows (`PackedChunk`s) or documents (`WireDoc`s) per shard, written as sorted runs under
    `folder` once they hold `limit` bytes (`add`) or when asked (`flush`)."""

    def __init__(self, folder: str, kind: str, limit: int = SPILL_BYTES, max_length: int = 0):
        self.folder, self.kind, self.limit, self.max_length = folder, kind, limit, max_length
        self._items: dict[Any, list] = collections.defaultdict(list)
        self._bytes = 0

    def add(self, shard: Any, item: PackedChunk | WireDoc) -> list[tuple[Any, RunRef]]:
        """Buffer one item; the runs written when the buffer is full (else [])."""
        self._items[shard].append(item)
        self._bytes += wire_bytes(item)
        return self.flush() if self._bytes >= self.limit else []

    def flush(self) -> list[tuple[Any, RunRef]]:
        """Every shard's buffered items as one run each: `(shard, RunRef)` in shard order."""
        refs = []
        for shard in sorted(self._items):
            items = self._items[shard]
            path = f"{self.folder}/{uuid.uuid4().hex}.run"
            if self.kind == ROWS:  # each chunk is in order already: merged, not concatenated and sorted
                entries = heapq.merge(*(chunk_entries(c) for c in items), key=_key)
                write_run(path, ROWS, merged_blocks(entries, ROWS))
                stats = functools.reduce(PackStats.merge, (c.stats(self.max_length) for c in items), PackStats())
                refs.append((shard, RunRef(path, stats)))
            else:
                write_run(path, DOCS, doc_blocks(sorted((d[0], tie_key(d[1]), d) for d in items)))
                refs.append((shard, RunRef(path)))
        self._items.clear()
        self._bytes = 0
        return refs


def doc_blocks(docs: Iterable[tuple[str, bytes, WireDoc]]) -> Iterator[list[tuple[str, bytes, WireDoc]]]:
    """Sorted `(id, tie key, document)` in blocks of about `BLOCK_BYTES`."""
    block, size = [], 0
    for entry in docs:
        block.append(entry)
        size += wire_bytes(entry[2])
        if size >= BLOCK_BYTES:
            yield block
            block, size = [], 0
    if block:
        yield block


def write_run(path: str, kind: str, blocks: Iterable[Any]) -> None:
    """A run file: its kind, then its blocks, each pickled on its own."""
    with naming(path), FileSystems.create(path) as f:
        pickle.dump(kind, f, protocol=pickle.HIGHEST_PROTOCOL)
        for block in blocks:
            pickle.dump(block, f, protocol=pickle.HIGHEST_PROTOCOL)


def read_blocks(path: str) -> Iterator[Any]:
    """The blocks of a run file, one in memory at a time (after its kind)."""
    with FileSystems.open(path) as f:
        pickle.load(f)
        while True:
            try:
                block = pickle.load(f)
            except EOFError:
                return
            yield block


# What a merge yields: the key of one document and its rows in a chunk (rows runs), or the document itself.
RowsEntry = tuple[DocKey, PackedChunk, int, int]
DocsEntry = tuple[DocKey, WireDoc]


def run_entries(path: str, kind: str) -> Iterator[RowsEntry | DocsEntry]:
    """A run's documents in order: `((id, tie), chunk, first row, end row)` or `((id, tie), document)`."""
    for block in read_blocks(path):
        if kind == DOCS:
            for doc_id, tie, doc in block:
                yield (doc_id, tie), doc
            continue
        yield from chunk_entries(PackedChunk.from_wire(block))


def chunk_entries(chunk: PackedChunk) -> Iterator[RowsEntry]:
    """The documents of a chunk (in order) as merge entries."""
    for key, lo, hi in doc_rows(chunk):
        yield key, chunk, lo, hi


def _key(entry: RowsEntry | DocsEntry) -> DocKey:
    return entry[0]


def merge_runs(paths: Sequence[str], kind: str) -> Iterator[RowsEntry | DocsEntry]:
    """The documents of sorted runs in (id, tie key) order, streaming (equal keys in the order of `paths`)."""
    return heapq.merge(*(run_entries(p, kind) for p in paths), key=_key)


def merged_blocks(entries: Iterable[RowsEntry | DocsEntry], kind: str) -> Iterator[Any]:
    """Merged documents as the blocks of one longer run."""
    if kind == DOCS:
        yield from doc_blocks((key[0], key[1], doc) for key, doc in entries)
        return
    parts: list[PackedChunk] = []
    size = 0
    for _, chunk, lo, hi in entries:
        part = chunk.rows(lo, hi)
        parts.append(part)
        size += wire_bytes(part)
        if size >= BLOCK_BYTES:
            yield concat_chunks(parts).to_wire()
            parts, size = [], 0
    if parts:
        yield concat_chunks(parts).to_wire()


def reduce_runs(paths: Sequence[str], kind: str, folder: str, fan_in: int = FAN_IN) -> list[str]:
    """At most `fan_in` runs holding the documents of `paths`: groups of `fan_in` runs merged into one, as
    many passes as it takes. The runs merged are left for the temporary folder's removal (a retried writer
    reads them again)."""
    if fan_in < 2:
        raise ValueError(f"fan_in must be at least 2, got {fan_in}")
    paths = sorted(paths)
    while len(paths) > fan_in:
        merged = []
        for i in range(0, len(paths), fan_in):
            group = paths[i : i + fan_in]
            if len(group) == 1:
                merged.append(group[0])
                continue
            path = f"{folder}/{uuid.uuid4().hex}.run"
            write_run(path, kind, merged_blocks(merge_runs(group, kind), kind))
            merged.append(path)
        paths = merged
    return paths
