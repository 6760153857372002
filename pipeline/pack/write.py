"""`WriteShards`: tokenized documents -> packed rows in document-id order -> one Arrow IPC stream per shard.

`pair` and `single` (no sequence crosses a document) were packed in `Encode`, as `PackedChunk`s; here every
shard is cut into groups of whole record batches and serialized in parallel:

    chunks -> RowKeys -> GroupByShard -> PlanGroups (sort the row keys: the first key of every group)
    chunks -> RouteRows (each chunk's rows to their groups) -> GroupByGroup -> SerializeGroups
        -> GroupBySerializedShard -> WriteShards (schema + the groups' record batches in order + end-of-stream)

`cross_document` (one stream through the shard's sorted documents, cut every `max_length - 1` tokens) takes
the same path with documents instead of rows: StreamKeys (id, tie key, tokens) -> PlanGroups (the stream
position where each group starts, as a document and offset) -> RouteDocuments (documents, cut into pieces
where a group starts inside one) -> SerializeGroups (each group packs its part of the stream). `nsp` (B from
any document of the shard) first gathers each shard's documents (GroupShardDocuments) and packs them in one
place (PackShards, one chunk per shard), then takes the path of `pair`. All give the
bytes of packing the shard's sorted documents in one place (`chunks.pack_sorted`). Every shard is written,
with no rows when no document lands in it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import apache_beam as beam
import numpy as np
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.atomic import write_atomic
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.stage_metrics import Metered, metered_flat_map, metered_map
from kcorpus.transforms.packing import arrow_shards, chunks, stream_chunks
from kcorpus.transforms.packing.blocks import PackConfig, SpecialIds
from kcorpus.transforms.packing.chunks import PackedChunk, block_from_wire, sort_wire  # noqa: F401 (re-exported)
from kcorpus.transforms.packing.chunks import pack_sorted as pack_wire_shard  # noqa: F401 (re-exported)
from kcorpus.transforms.packing.stats import PackStats
from kcorpus.transforms.packing.tokenize import sha256_hex

# A shard is serialized in at most this many groups of whole record batches (enough to spread one shard over
# every local worker; each group costs a few Beam elements).
MAX_GROUPS_PER_SHARD = 64

ShardKey = tuple[str, int]


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
    return arrow_shards.packed_schema(np.dtype(dtype), config.word_start, config.layout == "nsp")


def packs_per_document(config: PackConfig) -> bool:
    """Whether `Encode` packs (no sequence of the layout crosses a document)."""
    return config.layout in ("pair", "single")


def pack_shard(element: tuple[ShardKey, Iterable[list]], config: PackConfig, special: SpecialIds):
    """`nsp`: (shard, [documents of each batch]) -> (shard, all its documents packed as one chunk)."""
    shard, parts = element
    return shard, chunks.pack_chunk([d for part in parts for d in part], config, special).to_wire()


def plan_shard(element: tuple[ShardKey, Iterable], rows_per_batch: int):
    """(shard, [(row keys, stats) of each chunk]) -> (shard, (the first row key of every group but the first,
    the shard's stats))."""
    shard, parts = element
    parts = list(parts)
    keys = [k for p in parts for k in p[0]]
    group_rows = chunks.rows_per_group(len(keys), rows_per_batch, MAX_GROUPS_PER_SHARD)
    stats = PackStats()
    for part in parts:
        stats = stats.merge(part[1])
    return shard, (chunks.plan_splitters(keys, group_rows), stats)


def chunk_keys(element: tuple[ShardKey, chunks.ChunkWire], max_length: int):
    """(shard, chunk) -> (shard, (its row keys, its stats)): what planning the shard's groups needs."""
    shard, wire = element
    chunk = PackedChunk.from_wire(wire)
    return shard, (chunks.row_keys(chunk), chunk.stats(max_length))


def route_rows(element: tuple[ShardKey, chunks.ChunkWire], plans: dict):
    """(shard, chunk) -> ((shard, group), the chunk's rows in the group) for every group it has rows in."""
    shard, wire = element
    splitters, _stats = plans[shard]
    for group, part in chunks.split_by_group(PackedChunk.from_wire(wire), splitters):
        yield (shard, group), part.to_wire()


def serialize_group(element, dtype: str, config: PackConfig, rows_per_batch: int):
    """((shard, group), [row slices]) -> (shard, (group, its record-batch messages))."""
    (shard, group), parts = element
    columns = chunks.merge_rows([PackedChunk.from_wire(w) for w in parts])
    schema = shard_schema(dtype, config)
    return shard, (group, arrow_shards.batch_messages(columns, schema, rows_per_batch))


class AssembleShardFn(beam.DoFn):
    """(shard, [(group, messages)]) -> the shard's stream, its groups in order, written atomically; its
    manifest record."""

    def __init__(self, out: str, dtype: str, config: PackConfig, counts: dict[str, int]):
        self._out = out
        self._schema = shard_schema(dtype, config)
        self._counts = counts
        self._sequences = Metrics.counter("pack", "pack:sequences:written")
        self._dropped = Metrics.counter("pack", "pack:tokens:dropped")

    def process(self, element, plans):
        (split, index), groups = element
        messages = [m for _, m in sorted((g for g in groups if g), key=lambda g: g[0])]  # [] marks the shard
        data = arrow_shards.join_stream(self._schema, messages)
        stats = plans.get((split, index), ([], PackStats()))[1]
        name = arrow_shards.shard_name(index, self._counts[split])
        write_atomic(FileSystems.join(self._out, split, name), data)
        progress.add("write", records=1)
        self._sequences.inc(stats.sequences)
        self._dropped.inc(stats.dropped_tokens)
        yield {"split": split, "index": index, "file": f"{split}/{name}", "sha256": sha256_hex(data),
               "bytes": len(data), "stats": stats}

    def finish_bundle(self):
        progress.flush()


def stream_keys(element: tuple[ShardKey, list]):
    """`cross_document`: (shard, documents) -> (shard, their stream keys)."""
    shard, docs = element
    return shard, stream_chunks.doc_keys(docs)


def plan_stream_shard(element: tuple[ShardKey, Iterable], config: PackConfig, rows_per_batch: int):
    """`cross_document`: (shard, [stream keys of each batch]) -> (shard, (where each group starts, stats))."""
    shard, parts = element
    keys = [k for part in parts for k in part]
    return shard, stream_chunks.plan_stream(keys, config, rows_per_batch, MAX_GROUPS_PER_SHARD)


def route_documents(element: tuple[ShardKey, list], plans: dict):
    """`cross_document`: (shard, documents) -> ((shard, group), their pieces in the group) per group."""
    shard, docs = element
    splitters, _stats = plans[shard]
    for group, pieces in stream_chunks.split_documents(docs, splitters).items():
        yield (shard, group), pieces


def serialize_stream_group(element, config: PackConfig, special: SpecialIds, dtype: str, rows_per_batch: int):
    """`cross_document`: ((shard, group), [pieces of each batch]) -> (shard, (group, its record batches))."""
    (shard, group), parts = element
    columns = stream_chunks.stream_piece_columns([p for part in parts for p in part], config, special)
    schema = shard_schema(dtype, config)
    return shard, (group, arrow_shards.batch_messages(columns, schema, rows_per_batch))


class WriteShards(beam.PTransform):
    """(shard, value) of `Encode` -> one manifest record per shard (every shard of `counts`, empty or not)."""

    def __init__(self, job: PackJob, special: SpecialIds, dtype: str, counts: dict[str, int]):
        super().__init__()
        self._job, self._special, self._dtype, self._counts = job, special, dtype, counts

    def expand(self, keyed):
        job, counts, config, rows = self._job, self._counts, self._job.pack, self._job.rows_per_batch
        if config.layout == "nsp":  # B comes from any document of the shard: pack each shard in one place
            keyed = (keyed | "GroupShardDocuments" >> beam.GroupByKey()
                     | "PackShards" >> metered_map("PackShards", pack_shard, config, self._special))
        if config.layout != "cross_document":
            keys = metered_map("RowKeys", chunk_keys, config.max_length)
            plan = metered_map("PlanGroups", plan_shard, rows)
            route_step, route_fn = "RouteRows", route_rows
            serialize = metered_map("SerializeGroups", serialize_group, self._dtype, config, rows)
        else:
            keys = metered_map("StreamKeys", stream_keys)
            plan = metered_map("PlanGroups", plan_stream_shard, config, rows)
            route_step, route_fn = "RouteDocuments", route_documents
            serialize = metered_map("SerializeGroups", serialize_stream_group, config, self._special, self._dtype,
                                    rows)
        plans = keyed | "Keys" >> keys | "GroupByShard" >> beam.GroupByKey() | "PlanGroups" >> plan
        serialized = (
            keyed
            | "Route" >> metered_flat_map(route_step, route_fn, beam.pvalue.AsDict(plans))
            | "GroupByGroup" >> beam.GroupByKey()
            | "SerializeGroups" >> serialize
        )
        # an empty list per shard key, so a shard that gets no document is still written (with no rows)
        every_shard = [((split, i), []) for split, n in counts.items() for i in range(n)]
        return (
            (serialized, keyed.pipeline | "EveryShard" >> beam.Create(every_shard, reshuffle=False))
            | "MergeShardKeys" >> beam.Flatten()
            | "GroupBySerializedShard" >> beam.GroupByKey()
            | "WriteShards" >> beam.ParDo(Metered("WriteShards", AssembleShardFn(job.out, self._dtype, config, counts)),
                                          beam.pvalue.AsDict(plans))
        )
