"""`WriteShards`: each shard's sorted runs -> its rows in document-id order -> one Arrow IPC stream, written as
it goes.

`Encode` spilled every shard's rows (`pair`, `single`: packed there) or tokenized documents (`cross_document`,
`full_sentences`, `nsp`) to sorted run files (pipeline/pack/runs.py). The `(shard, RunRef)` elements are
grouped by shard, with an empty marker for every shard (so a shard no document lands in is still written,
with no rows), and one writer per shard merges its runs in (document id, tie key) order:
- `pair`, `single`: each document's rows, as they come;
- `cross_document`, `full_sentences`: the documents through a `StreamPacker`, a block at a time;
- `nsp` (B from any document of the shard): the shard's documents gathered and packed in one place, so it
  holds one shard's tokens (`--shard-size-mb`), not the corpus's.
Rows go to the shard's file in record batches of `rows_per_batch` as they are made (`ShardStream`): a writer
holds a batch, its runs' current blocks and its packer's open row. Every layout gives the bytes of packing the
shard's sorted documents in one place (`chunks.pack_sorted`), whatever the workers, bundles and spills.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Iterable, Sequence

import apache_beam as beam
import numpy as np
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.atomic import AtomicFile
from kcorpus.pipeline.external_sort import merge_runs, reduce_runs
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.runs import DOCS, FAN_IN, ROWS, RunRef
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms.pack import arrow_shards, chunks
from kcorpus.transforms.pack.blocks import PackConfig, PackedColumns, SpecialIds, concat_columns
from kcorpus.transforms.pack.chunks import PackedChunk, block_from_wire, sort_wire  # noqa: F401 (re-exported)
from kcorpus.transforms.pack.chunks import pack_sorted as pack_wire_shard  # noqa: F401 (re-exported)
from kcorpus.transforms.pack.stats import PackStats, merge_source_counts, source_counts
from kcorpus.transforms.pack.stream_chunks import STREAM_LAYOUTS, StreamPacker

ShardKey = tuple[str, int]
# Tokens of the documents a writer hands its `StreamPacker` at once.
STREAM_BLOCK_TOKENS = 1 << 20


def shard_counts(job: PackJob, total_bytes: int) -> dict[str, int]:
    """Shards per split: as given, or the input size over the shard size (output is about input-sized)."""
    target = job.shard_size_mb * 1e6

    def estimate(fraction: float) -> int:
        return max(1, math.ceil(total_bytes * fraction / target))

    counts = {"train": job.num_shards or estimate(1.0 - job.validation_fraction)}
    if job.validation_fraction > 0:
        counts["validation"] = job.num_validation_shards or estimate(job.validation_fraction)
    return counts


def shard_schema(dtype: str, config: PackConfig) -> pa.Schema:
    """The Arrow schema of the shards of a pack with `config`."""
    return arrow_shards.packed_schema(np.dtype(dtype), layout=config.layout, word_start=config.word_start)


def packs_per_document(config: PackConfig) -> bool:
    """Whether `Encode` packs (no sequence of the layout crosses a document)."""
    return config.layout in ("pair", "single")


class ShardStream:
    """One shard's Arrow IPC stream, written under a temporary name as rows come (`add`), in record batches
    of `rows_per_batch`, and renamed on `close`: the bytes `arrow_shards.stream_bytes` gives for all the rows."""

    def __init__(self, path: str, schema: pa.Schema, rows_per_batch: int):
        self._file = AtomicFile(path)
        self._schema, self._rows_per_batch = schema, rows_per_batch
        self._digest = hashlib.sha256()
        self.size = 0
        self._pending: list[PackedColumns] = []
        self._pending_rows = 0
        self._written = False
        head, self._eos = arrow_shards.stream_ends(schema)
        self._write(head)

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._digest.update(data)
        self.size += len(data)

    def add(self, columns: PackedColumns) -> None:
        """The next rows of the shard."""
        if not columns.num_rows:
            return
        self._pending.append(columns)
        self._pending_rows += columns.num_rows
        if self._pending_rows >= self._rows_per_batch:
            self._drain(last=False)

    def _drain(self, last: bool) -> None:
        columns = concat_columns(self._pending)
        done = columns.num_rows if last else columns.num_rows // self._rows_per_batch * self._rows_per_batch
        self._write(arrow_shards.batch_messages(columns, self._schema, self._rows_per_batch, done))
        self._written = True
        self._pending = [columns.rows(done, columns.num_rows)] if done < columns.num_rows else []
        self._pending_rows = columns.num_rows - done

    def close(self) -> str:
        """Write the last batch and the end of the stream, rename the file into place; its sha256."""
        if self._pending:
            self._drain(last=True)
        if not self._written:
            self._write(arrow_shards.empty_batch(self._schema))
        self._write(self._eos)
        self._file.close()
        return self._digest.hexdigest()

    def discard(self) -> None:
        self._file.discard()


def write_rows(stream: ShardStream, paths: Sequence[str], refs: Iterable[RunRef]) -> PackStats:
    """`pair`, `single`: the runs' rows, merged, to the stream; the stats the runs carry."""
    for _, chunk, lo, hi in merge_runs(paths, ROWS):
        stream.add(chunk.columns.rows(lo, hi))
    return functools.reduce(PackStats.merge, (r.stats for r in refs), PackStats())


def write_stream(stream: ShardStream, paths: Sequence[str], config: PackConfig, special: SpecialIds) -> PackStats:
    """`cross_document`, `full_sentences`: the runs' documents, merged, through a `StreamPacker`."""
    packer = StreamPacker(config, special)
    stats = PackStats()

    def add(rows: PackedColumns | None) -> None:
        nonlocal stats
        if rows is not None:
            stream.add(rows)
            stats = stats.merge(PackStats.of_columns(rows, {}, 0, config.max_length))

    docs: list = []
    size = 0
    for _, doc in merge_runs(paths, DOCS):
        docs.append(doc)
        size += len(doc[1])
        if size >= STREAM_BLOCK_TOKENS:
            add(packer.add(block_from_wire(docs)))
            docs, size = [], 0
    if docs:
        add(packer.add(block_from_wire(docs)))
    add(packer.finish())
    documents = dict(packer.documents)
    counted = PackStats(documents=sum(documents.values()), corpus_tokens=packer.corpus_tokens,
                        sources=merge_source_counts({}, source_counts(documents, [], np.zeros(0, np.int64))))
    return stats.merge(counted)


def write_nsp(stream: ShardStream, paths: Sequence[str], config: PackConfig, special: SpecialIds) -> PackStats:
    """`nsp`: the shard's documents gathered (B comes from any of them), packed in one place, to the stream."""
    chunk = chunks.pack_chunk([doc for _, doc in merge_runs(paths, DOCS)], config, special)
    stream.add(chunk.columns)
    return chunk.stats(config.max_length)


class WriteShardFn(beam.DoFn):
    """(shard, [RunRef or None]) -> the shard's file, written from its merged runs; its manifest record."""

    def __init__(self, out: str, tmp: str, dtype: str, config: PackConfig, special: SpecialIds,
                 counts: dict[str, int], rows_per_batch: int, fan_in: int = FAN_IN):
        self._out, self._tmp, self._config, self._special = out, tmp, config, special
        self._schema = shard_schema(dtype, config)
        self._counts, self._rows_per_batch, self._fan_in = counts, rows_per_batch, fan_in
        self._sequences = Metrics.counter("pack", "pack:sequences:written")
        self._dropped = Metrics.counter("pack", "pack:tokens:dropped")

    def process(self, element):
        (split, index), values = element
        refs = sorted((v for v in values if v is not None), key=lambda r: r.path)
        kind = ROWS if packs_per_document(self._config) else DOCS
        paths = reduce_runs([r.path for r in refs], kind, f"{self._tmp}/merged", self._fan_in)
        name = arrow_shards.shard_name(index, self._counts[split])
        stream = ShardStream(FileSystems.join(self._out, split, name), self._schema, self._rows_per_batch)
        try:
            if kind == ROWS:
                stats = write_rows(stream, paths, refs)
            elif self._config.layout in STREAM_LAYOUTS:
                stats = write_stream(stream, paths, self._config, self._special)
            else:
                stats = write_nsp(stream, paths, self._config, self._special)
            sha256 = stream.close()
        except BaseException:
            stream.discard()
            raise
        progress.add("write", records=1)
        self._sequences.inc(stats.sequences)
        self._dropped.inc(stats.dropped_tokens)
        yield {"split": split, "index": index, "file": f"{split}/{name}", "sha256": sha256, "bytes": stream.size,
               "stats": stats}

    def finish_bundle(self):
        progress.flush()


class WriteShards(beam.PTransform):
    """`(shard, RunRef)` of `Encode` -> one manifest record per shard (every shard of `counts`, empty or not)."""

    def __init__(self, job: PackJob, special: SpecialIds, dtype: str, counts: dict[str, int], tmp: str,
                 fan_in: int = FAN_IN):
        super().__init__()
        self._fn = WriteShardFn(job.out, tmp, dtype, job.pack, special, counts, job.rows_per_batch, fan_in)
        self._counts = counts

    def expand(self, runs):
        # a None per shard key, so a shard that gets no document is still written (with no rows)
        every_shard = [((split, i), None) for split, n in self._counts.items() for i in range(n)]
        return (
            (runs, runs.pipeline | "EveryShard" >> beam.Create(every_shard, reshuffle=False))
            | "MergeShardKeys" >> beam.Flatten()
            | "GroupRunsByShard" >> beam.GroupByKey()
            | "WriteShards" >> beam.ParDo(Metered("WriteShards", self._fn))
        )
