"""`BucketRecords`: small records grouped by an integer bucket, through files on the local runner.

The local runner (FnApiRunner) keeps every element that crosses a GroupByKey in its own memory until the
stage after it runs, so a shuffle of one dedup key per document grows the launcher by ~3.5 MB per input MB.
On the local runner each worker therefore writes the records it buffered to one file, a segment per
bucket, and only `(bucket, (path, offset, length))` crosses the GroupByKey; the grouped step reads its
bucket's segments back (`bucket_records`), so memory is one bucket's records whatever the input size. On a distributed runner the
records go through the runner's shuffle as `(bucket, [record, ...])` per batch, which scales by itself.
"""

from __future__ import annotations

import collections
import pickle
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

from kcorpus.pipeline.stage_metrics import Metered

# Records a worker buffers before it writes a spill file: bounds its memory (~150-300 bytes each).
SPILL_RECORDS = 250_000
# Input bytes per bucket, and the bounds on the bucket count: a bucket's records are held by one worker.
BYTES_PER_BUCKET = 4 << 20
MIN_BUCKETS, MAX_BUCKETS = 16, 1024

Bucketed = tuple[int, Any]


def bucket_count(input_bytes: int | None) -> int:
    """Buckets for an input size: one per `BYTES_PER_BUCKET`, within `MIN_BUCKETS`..`MAX_BUCKETS`."""
    if not input_bytes:
        return MIN_BUCKETS
    return max(MIN_BUCKETS, min(MAX_BUCKETS, input_bytes // BYTES_PER_BUCKET))


Segment = tuple[str, int, int]


def write_segments(path: str, buckets: dict[int, list[Any]]) -> list[tuple[int, Segment]]:
    """One spill file: each bucket's records as a pickled list; returns `(bucket, (path, offset, length))`."""
    segments = []
    offset = 0
    with FileSystems.create(path) as f:
        for bucket, records in sorted(buckets.items()):
            blob = pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)
            f.write(blob)
            segments.append((bucket, (path, offset, len(blob))))
            offset += len(blob)
    return segments


def read_segment(segment: Segment) -> list[Any]:
    path, offset, length = segment
    with FileSystems.open(path) as f:
        f.seek(offset)
        return pickle.loads(f.read(length))


def bucket_records(values: Iterable[Any]) -> Iterator[Any]:
    """The records of one grouped bucket: each value is a spilled segment or a list of records."""
    for value in values:
        yield from read_segment(value) if isinstance(value, tuple) else value


class BucketRecordsFn(beam.DoFn):
    """`element -> (bucket, record)` pairs by `fn`, emitted as `(bucket, segment)` of spilled files
    (`spill_dir`) or as `(bucket, [record, ...])` per element (no `spill_dir`)."""

    def __init__(self, fn: Callable[..., Iterable[Bucketed]], args: tuple[Any, ...], spill_dir: str | None) -> None:
        self.fn, self.args, self.spill_dir = fn, args, spill_dir

    def start_bundle(self) -> None:
        self.buffers: dict[int, list[Any]] = collections.defaultdict(list)
        self.buffered = 0

    def process(self, element: Any) -> Iterator[Any]:
        if self.spill_dir is None:
            grouped: dict[int, list[Any]] = collections.defaultdict(list)
            for bucket, record in self.fn(element, *self.args):
                grouped[bucket].append(record)
            yield from sorted(grouped.items())
            return
        for bucket, record in self.fn(element, *self.args):
            self.buffers[bucket].append(record)
            self.buffered += 1
        if self.buffered >= SPILL_RECORDS:
            yield from self._flush()

    def finish_bundle(self) -> Iterator[Any]:
        if self.spill_dir is not None:
            for kv in self._flush():
                yield GlobalWindows.windowed_value(kv)

    def _flush(self) -> list[tuple[int, Segment]]:
        if not self.buffers:
            return []
        segments = write_segments(f"{self.spill_dir}/{uuid.uuid4().hex}.pkl", self.buffers)
        self.buffers = collections.defaultdict(list)
        self.buffered = 0
        return segments


class BucketRecords(beam.PTransform):
    """One or more collections -> `(bucket, value)`, where `bucket_records` of a bucket's values gives its
    records: one metered ParDo per input collection (fused with the step that made it), then a Flatten of
    the small `(bucket, value)` elements only.

    Args:
        step: the metered step name (`<step>[i]` for input collection i).
        fn: `fn(element, *args)` yields `(bucket, record)` pairs; records must pickle.
        spill_dir: where spill files go (the local runner), or None to pass the records themselves on.
    """

    def __init__(self, step: str, fn: Callable[..., Iterable[Bucketed]], *args: Any, spill_dir: str | None) -> None:
        super().__init__()
        self.step, self.fn, self.args, self.spill_dir = step, fn, args, spill_dir

    def expand(self, inputs: beam.PCollection | tuple[beam.PCollection, ...]) -> beam.PCollection:
        parts = inputs if isinstance(inputs, tuple) else (inputs,)
        keyed = [
            part
            | f"Bucket[{i}]"
            >> beam.ParDo(Metered(f"{self.step}[{i}]", BucketRecordsFn(self.fn, self.args, self.spill_dir)))
            for i, part in enumerate(parts)
        ]
        return keyed[0] if len(keyed) == 1 else tuple(keyed) | "AllBuckets" >> beam.Flatten()
