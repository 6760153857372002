"""Sorted run files: spilled by workers, merged per shard with a streaming k-way merge.

Workers spill records to small sorted "run" files (`<sort key JSON>\\t<payload>` lines) under a temporary
directory; one writer per shard merges that shard's runs with a streaming k-way merge, so a shard's bytes
depend only on its records, never on bundling, and memory stays flat whatever the input size. All I/O goes
through Beam's `FileSystems`, so `gs://` works.
"""

from __future__ import annotations

import heapq
import io
import json
from collections.abc import Iterable, Iterator, Sequence

from apache_beam.io.filesystems import FileSystems

SortKey = tuple[str, ...]


def run_line(key: SortKey, payload: str) -> str:
    """One line of a run file; `payload` must not contain a newline (JSON never does)."""
    return json.dumps(list(key), ensure_ascii=False) + "\t" + payload + "\n"


def parse_run_line(line: str) -> tuple[SortKey, str]:
    head, _, payload = line.rstrip("\n").partition("\t")
    return tuple(json.loads(head)), payload


def write_run(path: str, lines: Iterable[tuple[SortKey, str]]) -> None:
    """Write `(key, payload)` pairs sorted by key as one run file."""
    with FileSystems.create(path) as f:
        writer = io.TextIOWrapper(f, encoding="utf-8", newline="\n")
        for key, payload in sorted(lines):
            writer.write(run_line(key, payload))
        writer.flush()
        writer.detach()


def read_run(path: str) -> Iterator[tuple[SortKey, str]]:
    with FileSystems.open(path) as f:
        for line in io.TextIOWrapper(f, encoding="utf-8", newline="\n"):
            yield parse_run_line(line)


def merge_runs(paths: Sequence[str]) -> Iterator[tuple[SortKey, str]]:
    """All records of several sorted runs in key order (ties in payload order), streaming."""
    return heapq.merge(*(read_run(p) for p in sorted(paths)))
