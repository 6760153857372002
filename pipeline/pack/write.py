"""`WriteShardFn`: one shard's tokenized documents -> sorted, packed, one Arrow IPC stream, atomically."""

from __future__ import annotations

import hashlib
import itertools
import math
import operator
from collections.abc import Iterable, Sequence

import apache_beam as beam
import numpy as np
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.atomic import write_atomic
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.transforms.packing import arrow_shards
from kcorpus.transforms.packing.packer import (
    DocBlock,
    PackConfig,
    PackedColumns,
    PackStats,
    SpecialIds,
    WireDoc,
    pack_block,
)
from kcorpus.transforms.packing.tokenize import sha256_hex


def shard_counts(job: PackJob, total_bytes: int) -> dict[str, int]:
    """Shards per split: as given, or the input size over the shard size (output is about input-sized)."""
    target = job.shard_size_mb * 1e6

    def estimate(fraction: float) -> int:
        return max(1, math.ceil(total_bytes * fraction / target))

    counts = {"train": job.num_shards or estimate(1.0 - job.validation_fraction)}
    if job.validation_fraction > 0:
        counts["validation"] = job.num_validation_shards or estimate(job.validation_fraction)
    return counts


def sort_wire(docs: Iterable[WireDoc]) -> list[WireDoc]:
    """By id; documents sharing an id (not expected from build-corpus) by a digest of their tokens."""
    ordered = sorted(docs, key=operator.itemgetter(0))
    if any(a[0] == b[0] for a, b in itertools.pairwise(ordered)):
        ordered.sort(key=lambda d: (d[0], hashlib.blake2b(d[1], digest_size=8).digest()))
    return ordered


def block_from_wire(docs: Sequence[WireDoc]) -> DocBlock:
    """Wire tuples -> one `DocBlock` (one join per column instead of an array per document)."""
    dtypes = {d[3] for d in docs}
    if len(dtypes) > 1:
        raise ValueError(f"documents of one shard have mixed id dtypes {sorted(dtypes)}")
    dtype = np.dtype(dtypes.pop()) if dtypes else np.dtype(np.uint32)
    lengths = b"".join(d[2] for d in docs)
    return DocBlock(
        [d[0] for d in docs],
        np.frombuffer(b"".join(d[1] for d in docs), dtype=dtype),
        np.frombuffer(lengths, dtype=np.uint32),
        np.fromiter((len(d[2]) // 4 for d in docs), dtype=np.int64, count=len(docs)),
    )


def pack_wire_shard(
    docs: Iterable[WireDoc], config: PackConfig, special: SpecialIds
) -> tuple[PackedColumns, PackStats]:
    """Sort a shard's documents and pack them; the stats reconcile corpus and packed tokens."""
    block = block_from_wire(sort_wire(docs))
    columns = pack_block(block, config, special)
    stats = PackStats.of_columns(columns, len(block.doc_ids), int(block.ids.shape[0]), config.max_length)
    return columns, stats


class WriteShardFn(beam.DoFn):
    def __init__(self, out: str, config: PackConfig, special: SpecialIds, dtype: str, counts: dict[str, int],
                 rows_per_batch: int):
        self._out = out
        self._config = config
        self._special = special
        self._dtype = np.dtype(dtype)
        self._counts = counts
        self._rows = rows_per_batch
        self._sequences = Metrics.counter("pack", "pack:sequences:written")
        self._dropped = Metrics.counter("pack", "pack:tokens:dropped")

    def process(self, element):
        (split, index), docs = element
        columns, stats = pack_wire_shard((d for group in docs for d in group), self._config, self._special)
        data = arrow_shards.stream_bytes(columns, arrow_shards.packed_schema(self._dtype), self._rows)
        name = arrow_shards.shard_name(index, self._counts[split])
        write_atomic(FileSystems.join(self._out, split, name), data)
        progress.add("write", records=1)
        self._sequences.inc(stats.sequences)
        self._dropped.inc(stats.dropped_tokens)
        yield {
            "split": split,
            "index": index,
            "file": f"{split}/{name}",
            "sha256": sha256_hex(data),
            "bytes": len(data),
            "stats": stats,
        }

    def finish_bundle(self):
        progress.flush()
