"""The records of build-corpus's sorted runs: spilled by workers, merged per shard (pipeline/external_sort.py).

Workers spill records to small sorted "run" files under a temporary directory; one writer per shard merges
that shard's runs with a streaming k-way merge, so a shard's bytes depend only on its records, never on
bundling, and memory stays flat whatever the input size. A record is a tuple whose first item is its sort
key (a tuple of strings): `(key, payload)` for dropped records, `(key, payload, carried)` for documents.
`carried` is the document's text when the build writes `text/`, else its number of sentences: the writer
needs no more to count sentences and write `text/` without parsing payloads back, and a unit or run holds a
document's text once (its payload) unless `text/` needs it (`carried_text`, `sentences_of`, `text_of`).
Records are sorted and merged as whole tuples (ties in payload order).

A run's blocks are lists of records (up to `RECORDS_PER_CHUNK` records or `CHUNK_CHARS` characters each).
Pickle costs a fifth of the JSON lines it replaced, on both sides. A merge holds one chunk per run, and a
shard's runs follow the input size, so chunks are bounded in characters too (512 Wikipedia articles are
megabytes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from kcorpus.pipeline.external_sort import RunCodec

SortKey = tuple[str, ...]
RunRecord = tuple  # (SortKey, payload, ...): sorted and merged as whole tuples
# Records per pickled chunk: large enough that pickling costs per record, small enough to stream a merge.
RECORDS_PER_CHUNK = 512
# Characters of payload and text per chunk (~64-128 KB in memory): what one run costs a merge.
CHUNK_CHARS = 32_768


def carried_text(text: str, writes_text: bool) -> str | int:
    """What a document record carries besides its payload: its text for `text/`, else its sentence count."""
    return text if writes_text else sentences_of(text)


def sentences_of(carried: str | int) -> int:
    """A document's sentences (one a line), from what its record carries."""
    return carried if isinstance(carried, int) else carried.count("\n") + 1


def text_of(payload: str, carried: str | int) -> str:
    """A document's text: carried, or read back from its payload (a dedup loser's, for `rejected/`)."""
    return carried if isinstance(carried, str) else json.loads(payload)["text"]


def record_chunks(records: Iterable[RunRecord]) -> Iterator[list[RunRecord]]:
    """Consecutive records, at most `RECORDS_PER_CHUNK` of them and about `CHUNK_CHARS` characters."""
    chunk: list[RunRecord] = []
    chars = 0
    for record in records:
        chunk.append(record)
        chars += sum(len(part) for part in record[1:] if isinstance(part, str))
        if len(chunk) == RECORDS_PER_CHUNK or chars >= CHUNK_CHARS:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


# Write with `external_sort.write_run(path, sorted(records), RECORDS)`; merge with `merge_runs(paths, RECORDS)`.
RECORDS = RunCodec("corpus records", blocks=record_chunks, records=iter)
