"""Sorted run files: spilled by workers, merged per shard with a streaming k-way merge.

Workers spill records to small sorted "run" files under a temporary directory; one writer per shard merges
that shard's runs with a streaming k-way merge, so a shard's bytes depend only on its records, never on
bundling, and memory stays flat whatever the input size. A record is a tuple whose first item is its sort
key (a tuple of strings): `(key, payload)` for dropped records, `(key, payload, text)` for documents, so
the writer never parses a payload back. All I/O goes through Beam's `FileSystems`, so `gs://` works.

The run format is internal to one build: pickled lists of records (up to `RECORDS_PER_CHUNK` records or
`CHUNK_CHARS` characters each), written and read only by the workers of the same run, inside its private
temporary folder. Pickle costs a fifth of the JSON lines it replaced, on both sides. A merge holds one chunk
per run, and a shard's runs follow the input size, so chunks are bounded in characters too (512 Wikipedia
articles are megabytes).
"""

from __future__ import annotations

import heapq
import pickle
from collections.abc import Iterable, Iterator, Sequence

from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import naming

SortKey = tuple[str, ...]
RunRecord = tuple  # (SortKey, payload, ...): sorted and merged as whole tuples
# Records per pickled chunk: large enough that pickling costs per record, small enough to stream a merge.
RECORDS_PER_CHUNK = 512
# Characters of payload and text per chunk (~64-128 KB in memory): what one run costs a merge.
CHUNK_CHARS = 32_768


def write_run(path: str, records: Iterable[RunRecord]) -> None:
    """Write records sorted (by key, then the rest of the tuple) as one run file."""
    ordered = sorted(records)
    with naming(path), FileSystems.create(path) as f:
        for chunk in _chunks(ordered):
            pickle.dump(chunk, f, protocol=pickle.HIGHEST_PROTOCOL)


def _chunks(ordered: list[RunRecord]) -> Iterator[list[RunRecord]]:
    """Consecutive records, at most `RECORDS_PER_CHUNK` of them and about `CHUNK_CHARS` characters."""
    start, chars = 0, 0
    for i, record in enumerate(ordered):
        chars += sum(map(len, record[1:]))
        if i + 1 - start == RECORDS_PER_CHUNK or chars >= CHUNK_CHARS:
            yield ordered[start : i + 1]
            start, chars = i + 1, 0
    if start < len(ordered):
        yield ordered[start:]


def read_run(path: str) -> Iterator[RunRecord]:
    """The records of one run file, in their (sorted) order, a chunk in memory at a time."""
    with FileSystems.open(path) as f:
        while True:
            try:
                # A fresh unpickler per chunk: each chunk was pickled with its own memo.
                chunk = pickle.load(f)
            except EOFError:
                return
            yield from chunk


def merge_runs(paths: Sequence[str]) -> Iterator[RunRecord]:
    """All records of several sorted runs in key order (ties in payload order), streaming."""
    return heapq.merge(*(read_run(p) for p in sorted(paths)))
