"""Sorted runs and their external merge: spill files (blocks.py) whose records are in key order.

A `RunCodec` says how records become blocks and back, and what a record's sort key is. `merge_runs` streams
the records of several runs in key order (a block per run in memory; equal keys in the order of `paths`), and
`reduce_runs` merges groups of runs into longer ones until at most `fan_in` remain (the passes of an external
merge sort), so a merge holds a bounded number of blocks whatever the input size.
"""

from __future__ import annotations

import dataclasses
import heapq
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from kcorpus.pipeline.external_sort.blocks import read_blocks, write_blocks

# Runs a merge reads at once; more are first merged in groups of this many.
FAN_IN = 64


@dataclasses.dataclass(frozen=True, order=True)
class RunSpan:
    """A sorted run stored inside a larger spill file: `length` bytes of consecutive blocks from `offset`
    (build-corpus's input units keep every run of a unit in one file, pipeline/corpus/units.py)."""

    path: str
    offset: int
    length: int


Run = str | RunSpan  # a run file, or a run inside a spill file


def _run_order(run: Run) -> tuple[str, int]:
    return (run, 0) if isinstance(run, str) else (run.path, run.offset)


@dataclasses.dataclass(frozen=True)
class RunCodec:
    """How the records of a sorted run are stored.

    Attributes:
        name: what the records are (for messages and tests).
        blocks: records in key order -> the blocks of a run file (picklable objects).
        records: one block -> its records, in order.
        key: a record's sort key; None compares whole records.
    """

    name: str
    blocks: Callable[[Iterable[Any]], Iterable[Any]]
    records: Callable[[Any], Iterable[Any]]
    key: Callable[[Any], Any] | None = None


def write_run(path: str, records: Iterable[Any], codec: RunCodec) -> None:
    """A run file holding `records`, which must already be in key order."""
    write_blocks(path, codec.blocks(records))


def read_run(run: Run, codec: RunCodec) -> Iterator[Any]:
    """The records of one run (a file or a `RunSpan`) in their (sorted) order, a block in memory at a time."""
    blocks = read_blocks(run) if isinstance(run, str) else read_blocks(run.path, run.offset, run.length)
    for block in blocks:
        yield from codec.records(block)


def merge_runs(paths: Sequence[Run], codec: RunCodec) -> Iterator[Any]:
    """The records of sorted runs in key order, streaming (equal keys in the order of `paths`)."""
    return heapq.merge(*(read_run(p, codec) for p in paths), key=codec.key)


def run_path(folder: str) -> str:
    """A new run file's path in `folder`."""
    return f"{folder}/{uuid.uuid4().hex}.run"


def reduce_runs(
    paths: Sequence[Run], codec: RunCodec, folder: str, fan_in: int = FAN_IN, span_block_bytes: int = 0
) -> list[Run]:
    """Runs holding the records of `paths` (sorted by path first) that one merge reads at once: at most `fan_in`
    runs, by passes of `merge_pass`. With `span_block_bytes` (the stored bytes of a full block), a `RunSpan`
    shorter than that counts as its share of a run: a merge holds one block of each run in memory, and a
    short span's block is short, so thousands of units' small runs of a shard merge in one pass.
    The runs merged are left for the temporary folder's removal (a retried merge reads them again)."""
    if fan_in < 2:
        raise ValueError(f"fan_in must be at least 2, got {fan_in}")

    def cost(run: Run) -> float:
        if span_block_bytes and isinstance(run, RunSpan):
            return min(1.0, run.length / span_block_bytes)
        return 1.0

    paths = sorted(paths, key=_run_order)
    while sum(map(cost, paths)) > fan_in:
        paths = merge_pass(paths, codec, folder, fan_in, cost)
    return paths


def merge_pass(
    paths: Sequence[Run], codec: RunCodec, folder: str, fan_in: int, cost: Callable[[Run], float] = lambda _: 1.0
) -> list[Run]:
    """One pass of an external merge: consecutive groups of runs (of at most `fan_in` in `cost`) merged into one
    run each in `folder`, just enough of them that runs of `fan_in` in cost remain, the rest left as they are
    (1,000 runs at a fan-in of 256 rewrite 747, not all 1,000); with too many runs for one pass, every run is
    merged in groups. A merged run costs 1. Consecutive groups keep equal keys in the order of `paths`."""
    costs = [cost(p) for p in paths]
    excess = sum(costs) - fan_in
    merged: list[Run] = []
    start = 0
    while excess > 0 and start < len(paths) - 1:
        end, group_cost = start, 0.0
        while end < len(paths) and (end == start or (group_cost + costs[end] <= fan_in and group_cost - 1 < excess)):
            group_cost += costs[end]
            end += 1
        if group_cost <= 1:  # the last runs, too small to be worth a file of their own
            break
        path = run_path(folder)
        write_run(path, merge_runs(paths[start:end], codec), codec)
        merged.append(path)
        start = end
        excess -= group_cost - 1
    return merged + list(paths[start:])
