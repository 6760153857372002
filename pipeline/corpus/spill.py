"""`BucketTables`: rows grouped by an integer bucket, through files on the local runner.

The local runner (FnApiRunner) keeps every element that crosses a GroupByKey in its own memory until the
stage after it runs, so a shuffle of one dedup key per document grew the launcher by ~3.5 MB per input MB.
Dedup records therefore travel as column tables (a dict of equal-length numpy arrays and lists: 16 LSH keys
of a document cost ~25 bytes each, not a Python tuple each). On the local runner each worker appends the
tables it makes to a buffer and, when `spill_rows` rows are buffered or its bundle ends, appends them to
its bundle's spill file (blocks of pipeline/external_sort.py), a segment per bucket. When the bundle ends,
one element per bucket crosses the GroupByKey: `(bucket, (path, ranges))`, the file and the
`(offset, length)` of each of that bucket's segments in it (an element per bucket and flush instead grew the launcher by ~180 MB at 1 GB with near
dedup: flushes and buckets both follow the input size). The grouped step reads its bucket's segments back
(`bucket_table`). Memory is then one bucket's rows per worker whatever the input size. On a distributed
runner each element's table is split by bucket and shuffled as is, which scales by itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.transforms.window import GlobalWindows

from kcorpus.pipeline.external_sort import BlockWriter, read_blocks_at
from kcorpus.pipeline.stage_metrics import Metered

# Input bytes per bucket, and the bounds on the bucket count: a bucket's rows are held by one worker.
BYTES_PER_BUCKET = 4 << 20
MIN_BUCKETS, MAX_BUCKETS = 16, 1024
# Rows a worker buffers before it writes a spill file, unless a step says otherwise (~25-200 bytes each).
SPILL_ROWS = 250_000

Table = dict[str, Any]  # column name -> numpy array or list, all of one length
# A spill file and the (offset, length) int64 pairs of one bucket's segments in it, as bytes.
Segments = tuple[str, bytes]


def bucket_count(input_bytes: int | None) -> int:
    """Buckets for an input size: one per `BYTES_PER_BUCKET`, within `MIN_BUCKETS`..`MAX_BUCKETS`."""
    if not input_bytes:
        return MIN_BUCKETS
    return max(MIN_BUCKETS, min(MAX_BUCKETS, input_bytes // BYTES_PER_BUCKET))


def spill_dir(tmp_dir: str | None, name: str) -> str | None:
    """The folder of one step's spill files under a run's temporary folder; None (no spilling) without one."""
    return f"{tmp_dir}/spill/{name}" if tmp_dir else None


def table_rows(table: Table) -> int:
    return len(next(iter(table.values()))) if table else 0


def take(table: Table, rows: np.ndarray) -> Table:
    """The given rows of every column."""
    return {
        name: column[rows] if isinstance(column, np.ndarray) else [column[i] for i in rows.tolist()]
        for name, column in table.items()
    }


def concat(tables: list[Table]) -> Table:
    """Tables with the same columns, one after the other."""
    tables = [t for t in tables if table_rows(t)]
    if len(tables) == 1:
        return tables[0]
    if not tables:
        return {}
    out: Table = {}
    for name, column in tables[0].items():
        if isinstance(column, np.ndarray):
            out[name] = np.concatenate([t[name] for t in tables])
        else:
            out[name] = [value for t in tables for value in t[name]]
    return out


def split_by_bucket(buckets: np.ndarray, table: Table) -> Iterator[tuple[int, Table]]:
    """`(bucket, the table's rows in that bucket)` for every bucket that has rows, in bucket order.

    The rows are put in bucket order once per column; each bucket's table is then a slice of it (a view)."""
    # Stable: rows keep their order within a bucket; on 16-bit keys numpy sorts by radix, 3-4x faster.
    keys = buckets.astype(np.uint16) if len(buckets) and buckets.max() < 1 << 16 else buckets
    order = np.argsort(keys, kind="stable")
    ordered = take(table, order)
    sorted_buckets = buckets[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_buckets[1:] != sorted_buckets[:-1])))
    ends = np.concatenate((starts[1:], [len(order)]))
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        yield int(sorted_buckets[start]), {name: column[start:end] for name, column in ordered.items()}


class SpillFile:
    """A bundle's spill file: each `append` writes a pickled table per bucket; `close` returns, per bucket, the
    file and where its segments are (`Segments`). The index is three int64 per segment."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.writer = BlockWriter(path)
        self.index: list[np.ndarray] = []

    def append(self, parts: Iterable[tuple[int, Table]]) -> None:
        self.writer.open()
        rows = [(bucket, *self.writer.write(table)) for bucket, table in parts]
        self.index.append(np.array(rows, dtype=np.int64).reshape(-1, 3))

    def close(self) -> list[tuple[int, Segments]]:
        """`(bucket, (path, ranges))` for every bucket with rows, in bucket order."""
        if not self.writer.opened:
            return []
        self.writer.close()
        index = np.concatenate(self.index)
        order = np.argsort(index[:, 0], kind="stable")  # stable: a bucket's segments stay in file order
        index = index[order]
        cuts = np.flatnonzero(np.diff(index[:, 0])) + 1
        return [
            (int(rows[0, 0]), (self.path, np.ascontiguousarray(rows[:, 1:]).tobytes()))
            for rows in np.split(index, cuts)
        ]


def read_segments(segments: Segments) -> list[Table]:
    """The tables of one bucket's segments in one spill file."""
    path, ranges = segments
    return read_blocks_at(path, np.frombuffer(ranges, dtype=np.int64).reshape(-1, 2).tolist())


def bucket_table(values: Iterable[Any]) -> Table:
    """One grouped bucket's rows as a single table: each value is a table or a spill file's segments."""
    tables: list[Table] = []
    for value in values:
        if isinstance(value, tuple):
            tables.extend(read_segments(value))
        else:
            tables.append(value)
    return concat(tables)


class BucketTablesFn(beam.DoFn):
    """`fn(element, *args) -> (buckets, table)` (a bucket per row), emitted when the bundle ends as `(bucket,
    segments)` of the bundle's spill file (`spill_dir`), or as `(bucket, table)` per element and bucket (no
    `spill_dir`). With `columns`, `fn` returns one row instead, `(bucket, values)`, and rows are buffered as
    tuples until a flush makes them a table (a one-row table per element costs twice as much)."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], spill_dir: str | None, spill_rows: int,
                 columns: tuple[str, ...] | None = None) -> None:
        self.fn, self.args, self.spill_dir, self.spill_rows = fn, args, spill_dir, spill_rows
        self.columns = columns

    def start_bundle(self) -> None:
        self.parts: list[tuple[np.ndarray, Table]] = []
        self.rows: list[tuple[int, tuple[Any, ...]]] = []
        self.buffered = 0
        self.spill: SpillFile | None = None

    def process(self, element: Any) -> Iterator[Any]:
        if self.columns is not None:
            row = self.fn(element, *self.args)
            if self.spill_dir is None:
                yield row[0], dict(zip(self.columns, ([value] for value in row[1]), strict=True))
                return
            self.rows.append(row)
            if len(self.rows) >= self.spill_rows:
                self._flush()
            return
        buckets, table = self.fn(element, *self.args)
        if not len(buckets):
            return
        if self.spill_dir is None:
            yield from split_by_bucket(buckets, table)
            return
        self.parts.append((buckets, table))
        self.buffered += len(buckets)
        if self.buffered >= self.spill_rows:
            self._flush()

    def finish_bundle(self) -> Iterator[Any]:
        self._flush()
        if self.spill is not None:
            for kv in self.spill.close():
                yield GlobalWindows.windowed_value(kv)
        self.spill = None

    def _flush(self) -> None:
        if self.rows:
            buckets, values = zip(*self.rows, strict=True)
            table = dict(zip(self.columns, map(list, zip(*values, strict=True)), strict=True))
            self.parts.append((np.array(buckets, dtype=np.int64), table))
            self.rows = []
        if not self.parts:
            return
        buckets = np.concatenate([b for b, _ in self.parts])
        table = concat([t for _, t in self.parts])
        self.parts, self.buffered = [], 0
        if self.spill is None:
            self.spill = SpillFile(f"{self.spill_dir}/{uuid.uuid4().hex}.pkl")
        self.spill.append(split_by_bucket(buckets, table))


class BucketTables(beam.PTransform):
    """One or more collections -> `(bucket, value)`, where `bucket_table` of a bucket's values gives its rows:
    one metered ParDo per input collection (fused with the step that made it), then a Flatten of the small
    `(bucket, value)` elements only.

    Args:
        step: the metered step name (`<step>[i]` for input collection i).
        fn: `fn(element, *args)` returns `(buckets, table)`: a numpy array with a bucket per row, and the rows;
            with `columns`, one row: `(bucket, values)` (a value per column).
        spill_dir: where spill files go (the local runner), or None to pass the tables themselves on.
        spill_rows: rows a worker buffers before it writes a spill file.
    """

    def __init__(self, step: str, fn: Callable[..., Any], *args: Any, spill_dir: str | None,
                 spill_rows: int = SPILL_ROWS, columns: tuple[str, ...] | None = None) -> None:
        super().__init__()
        self.step, self.fn, self.args = step, fn, args
        self.spill_dir, self.spill_rows, self.columns = spill_dir, spill_rows, columns

    def expand(self, inputs: beam.PCollection | tuple[beam.PCollection, ...]) -> beam.PCollection:
        parts = inputs if isinstance(inputs, tuple) else (inputs,)
        dofn = BucketTablesFn(self.fn, self.args, self.spill_dir, self.spill_rows, self.columns)
        keyed = [
            part | f"Bucket[{i}]" >> beam.ParDo(Metered(f"{self.step}[{i}]", dofn))
            for i, part in enumerate(parts)
        ]
        return keyed[0] if len(keyed) == 1 else tuple(keyed) | "AllBuckets" >> beam.Flatten()
