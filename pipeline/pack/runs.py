"""Pack's sorted runs: how a shard's rows or documents reach its writer in bounded memory (an external sort).

A worker buffers what it made for every shard (packed rows in the `pair` and `single` layouts, tokenized
documents in the others) and, once the buffer holds `spill_bytes` or its input unit ends, writes each shard's
part as one run: sorted by (document id, tie key) (the chunks of rows, each in order already, are merged, so a
spill copies one block at a time), in pickled blocks of about `BLOCK_BYTES`, each block ending at a document's
end. Only `(shard, RunRef)` crosses the GroupByKey, so neither the local runner's launcher nor
a Dataflow shuffle ever holds rows. A shard's writer merges its runs (`merge_runs`: a block per run in memory);
when a shard has more than `fan_in` runs, groups of them are merged into longer runs first (`reduce_runs`,
the passes of an external merge sort), so a writer holds at most `fan_in` blocks whatever the corpus size.
A worker's runs are spans of its input unit's data file (`<out>/.kcorpus-units`, pipeline/pack/units.py), kept
until the pack completes so that a rerun replays them; the runs of the merge passes live in the pack's temporary
folder (`.tmp-pack-*` in `--out`, local or `gs://`), which the run removes.
The files, the merge and its passes are pipeline/external_sort.py's; this module says what a run holds
(`ROWS`, `DOCS`) and how a worker buffers it.

Documents that share an id and tie key are the same tokens packed the same way; the merge keeps them in the
order of their runs (sorted by path), and either order gives the same bytes.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import heapq
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kcorpus.pipeline.external_sort import Run, RunCodec, run_path, write_run
from kcorpus.transforms.pack.blocks import WireDoc
from kcorpus.transforms.pack.chunks import PackedChunk, concat_chunks, doc_rows, tie_key
from kcorpus.transforms.pack.stats import PackStats

# Bytes of a block of a run (pickled): what one run costs a merge in memory. A writer merges `FAN_IN` runs at
# once, a block of each: 256 runs of 256 KB blocks hold what 64 runs of 1 MB blocks did, and a corpus of 128
# shards (configs/mdeberta-kor.yaml's; one unit at least each) needs no merge pass, which rewrites what it merges.
BLOCK_BYTES = 256 << 10
# Runs a shard's writer merges in one pass (more are first merged in groups: pipeline/external_sort/runs.py).
FAN_IN = 256
# A worker's buffer before it spills (rows or documents of every shard it holds).
SPILL_BYTES = 64 << 20

DocKey = tuple[str, bytes]


@dataclasses.dataclass(frozen=True)
class RunRef:
    """A run (a file, or a span of a pack unit's data file) and, for runs of rows, the stats of its rows and
    documents (None for runs of documents)."""

    path: Run
    stats: PackStats | None = None


def wire_bytes(item: PackedChunk | WireDoc) -> int:
    """About what an item holds in memory: its token columns."""
    if isinstance(item, PackedChunk):
        c = item.columns
        return c.input_ids.nbytes + c.token_type_ids.nbytes * (3 if c.word_start is not None else 2)
    return len(item[1]) + len(item[2]) + (len(item[4]) if item[4] is not None else 0)


# Where a buffer's runs go: (sorted records, codec) -> the run written.
RunSink = Callable[[Iterable[Any], RunCodec], Run]


class SpillBuffer:
    """A worker's rows (`PackedChunk`s) or documents (`WireDoc`s) per shard, written as sorted runs once they
    hold `limit` bytes (`add`) or when asked (`flush`): run files under `folder`, or to `sink` (a pack unit's
    data file, pipeline/pack/units.py)."""

    def __init__(self, folder: str, kind: RunCodec, limit: int = SPILL_BYTES, max_length: int = 0,
                 sink: RunSink | None = None):
        self.folder, self.kind, self.limit, self.max_length = folder, kind, limit, max_length
        self.sink = sink or self._run_file
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
            if self.kind == ROWS:  # each chunk is in order already: merged, not concatenated and sorted
                run = self.sink(heapq.merge(*(chunk_entries(c) for c in items), key=_key), ROWS)
                stats = functools.reduce(PackStats.merge, (c.stats(self.max_length) for c in items), PackStats())
                refs.append((shard, RunRef(run, stats)))
            else:
                refs.append((shard, RunRef(self.sink(sorted(((d[0], tie_key(d[1])), d) for d in items), DOCS))))
        self._items.clear()
        self._bytes = 0
        return refs

    def _run_file(self, records: Iterable[Any], codec: RunCodec) -> str:
        path = run_path(self.folder)
        write_run(path, records, codec)
        return path


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


# What a merge yields: the key of one document and its rows in a chunk (rows runs), or the document itself.
RowsEntry = tuple[DocKey, PackedChunk, int, int]
DocsEntry = tuple[DocKey, WireDoc]


def chunk_entries(chunk: PackedChunk) -> Iterator[RowsEntry]:
    """The documents of a chunk (in order) as merge entries."""
    for key, lo, hi in doc_rows(chunk):
        yield key, chunk, lo, hi


def _key(entry: RowsEntry | DocsEntry) -> DocKey:
    return entry[0]


def rows_blocks(entries: Iterable[RowsEntry]) -> Iterator[Any]:
    """Sorted documents' rows as the blocks of a run: wire chunks of about `BLOCK_BYTES`."""
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


def block_rows(block: Any) -> Iterator[RowsEntry]:
    """A block of a rows run -> its documents' entries."""
    return chunk_entries(PackedChunk.from_wire(block))


def docs_blocks(entries: Iterable[DocsEntry]) -> Iterator[list[tuple[str, bytes, WireDoc]]]:
    """Sorted documents as the blocks of a run."""
    return doc_blocks((key[0], key[1], doc) for key, doc in entries)


def block_docs(block: list[tuple[str, bytes, WireDoc]]) -> Iterator[DocsEntry]:
    """A block of a documents run -> its entries."""
    for doc_id, tie, doc in block:
        yield (doc_id, tie), doc


# Runs of packed rows (`pair`, `single`) and of tokenized documents (the other layouts), sorted by (id, tie).
ROWS = RunCodec("rows", blocks=rows_blocks, records=block_rows, key=_key)
DOCS = RunCodec("docs", blocks=docs_blocks, records=block_docs, key=_key)
