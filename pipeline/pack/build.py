"""`kcorpus pack` as a Beam pipeline: corpus documents -> tokenized -> packed sequences -> Arrow shards.

ReadCorpus -> TokenizeDocuments (batched, tokenizer loaded once per worker) -> KeyByShard (split and shard
from a digest of the document id) -> GroupByKey -> WriteShards (sort by id, pack, write one Arrow IPC stream
per key) -> WriteMetadata (dataset_info.json/state.json per split, manifest.json, rejected records).
Every file appears under its final name only when complete (written to a temporary name, then renamed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import operator
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from kcorpus.pipeline import filesystems  # noqa: F401  (registers remote paths with transforms.files)
from kcorpus.pipeline.options import make_pipeline
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.transforms.packing import arrow_shards
from kcorpus.transforms.packing.corpus_files import LAYOUTS, PARSERS
from kcorpus.transforms.packing.packer import (
    DocBlock,
    PackConfig,
    PackedColumns,
    PackStats,
    SpecialIds,
    TokenizedDoc,
    WireDoc,
    ids_dtype,
    pack_block,
)
from kcorpus.transforms.packing.tokenize import (
    full_vocab_size,
    read_tokenizer_bytes,
    sha256_hex,
    source_path,
    special_ids,
    tokenize_wire,
    tokenizer_file,
    tokenizer_from_bytes,
)
from kcorpus.transforms.record import DeadLetter, Document, Dropped

SPLITS = ("train", "validation")
MANIFEST_FORMAT = "kcorpus-pack/1"


@dataclasses.dataclass(frozen=True)
class CorpusInput:
    """The resolved input: layout, sorted file list and total size."""

    layout: str
    files: tuple[str, ...]
    total_bytes: int


def resolve_corpus(corpus: str, input_format: str = "auto") -> CorpusInput:
    """Find `docs/*.jsonl` (preferred) or `text/*.txt` under the corpus directory."""
    layouts = list(LAYOUTS) if input_format == "auto" else [input_format]
    for layout in layouts:
        pattern = FileSystems.join(corpus, LAYOUTS[layout])
        matched = FileSystems.match([pattern])[0].metadata_list
        if matched:
            files = sorted(m.path for m in matched)
            return CorpusInput(layout, tuple(files), sum(m.size_in_bytes for m in matched))
    wanted = " or ".join(FileSystems.join(corpus, LAYOUTS[layout]) for layout in layouts)
    raise FileNotFoundError(f"no corpus files: nothing matches {wanted}")


def shard_counts(job: PackJob, total_bytes: int) -> dict[str, int]:
    """Shards per split: as given, or the input size over the shard size (output is about input-sized)."""
    target = job.shard_size_mb * 1e6

    def estimate(fraction: float) -> int:
        return max(1, math.ceil(total_bytes * fraction / target))

    counts = {"train": job.num_shards or estimate(1.0 - job.validation_fraction)}
    if job.validation_fraction > 0:
        counts["validation"] = job.num_validation_shards or estimate(job.validation_fraction)
    return counts


def spread_batches(job: PackJob, num_files: int, options: PipelineOptions) -> bool:
    """Whether to reshuffle document batches between reading and tokenizing. `auto`: only when the local
    runner has fewer than two files per worker (files are read one per worker, so with enough similar-sized
    files the read fuses with tokenizing and no text crosses a shuffle) or on a distributed runner."""
    if job.reshuffle_batches != "auto":
        return job.reshuffle_batches == "always"
    if options.view_as(StandardOptions).runner is not None:
        return True
    workers = options.view_as(DirectOptions).direct_num_workers or 1
    return num_files < 2 * workers


def assign_shard(doc_id: str, validation_fraction: float, counts: dict[str, int]) -> tuple[str, int]:
    """(split, shard index) from a digest of the id: a document id always lands in one place."""
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=16).digest()
    u = int.from_bytes(digest[:8], "big") / 2.0**64
    split = "validation" if u < validation_fraction else "train"
    return split, int.from_bytes(digest[8:], "big") % counts[split]


def write_atomic(path: str, data: bytes) -> None:
    """Write to a temporary name next to `path`, then rename: readers never see a partial file."""
    directory, name = path.rsplit("/", 1) if "/" in path else (".", path)
    tmp = FileSystems.join(directory, f".{name}.tmp-{uuid.uuid4().hex}")
    with FileSystems.create(tmp) as f:
        f.write(data)
    FileSystems.rename([tmp], [path])


def read_corpus_file(path: str, layout: str) -> Iterator[Document | DeadLetter]:
    with FileSystems.open(path) as raw:
        lines = (line.decode("utf-8", errors="replace") for line in raw)
        yield from PARSERS[layout](path, lines)


# (id, text, source): documents travel between stages as plain tuples so Beam's fast coder handles them
DocTuple = tuple[str, str, str]


def batch_documents(
    records: Iterable[Document | DeadLetter], max_docs: int, max_bytes: int
) -> Iterator[list[DocTuple] | DeadLetter]:
    """Group documents into batches for one tokenizer call (by count and text size); pass dead letters on."""
    batch: list[DocTuple] = []
    size = 0
    for record in records:
        if isinstance(record, DeadLetter):
            yield record
            continue
        batch.append((record.id, record.text, record.source))
        size += len(record.text)
        if len(batch) >= max_docs or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class ReadCorpus(beam.PTransform):
    """Corpus files -> batches of documents, with unusable lines on the `dead_letter` output."""

    def __init__(self, corpus: CorpusInput, max_docs: int, max_bytes: int, spread: bool = True):
        super().__init__()
        self._corpus = corpus
        self._fn = _ParseFile(corpus.layout, max_docs, max_bytes)
        self._spread = spread

    def expand(self, pbegin):
        parsed = (
            pbegin
            | "ListFiles" >> beam.Create(list(self._corpus.files))  # Create reshuffles its values: one file per worker
            | "ParseFiles" >> beam.ParDo(self._fn).with_outputs("dead_letter", main="batches")
        )
        batches = parsed.batches
        if self._spread:
            # spreads the batches of a few large files over all workers, at the cost of a shuffle of all text
            batches = batches | "ReshuffleBatches" >> beam.Reshuffle()
        return {"batches": batches, "dead_letter": parsed.dead_letter}


class _ParseFile(beam.DoFn):
    def __init__(self, layout: str, max_docs: int, max_bytes: int):
        self._layout = layout
        self._max_docs = max_docs
        self._max_bytes = max_bytes
        self._read = Metrics.counter("pack", "pack:documents:read")
        self._dead = Metrics.counter("pack", "pack:documents:dead_letter")

    def process(self, path: str):
        records = read_corpus_file(path, self._layout)
        for item in batch_documents(records, self._max_docs, self._max_bytes):
            if isinstance(item, DeadLetter):
                self._dead.inc()
                yield beam.pvalue.TaggedOutput("dead_letter", item)
            else:
                self._read.inc(len(item))
                yield item


class _TokenizeBatch(beam.DoFn):
    """A batch of documents -> ((split, shard), [TokenizedDoc wire tuples]) per shard the batch touches;
    empty documents to `dropped`."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str):
        self._tokenizer_path = tokenizer
        self._dtype = dtype
        self._validation_fraction = validation_fraction
        self._counts = counts
        self._tokens = Metrics.counter("pack", "pack:tokens:corpus")
        self._empty = Metrics.counter("pack", "pack:documents:dropped:empty_document")
        self._tok = None

    def setup(self):
        self._tok = tokenizer_from_bytes(read_tokenizer_bytes(self._tokenizer_path))

    def process(self, docs: Sequence[DocTuple]):
        encoded = tokenize_wire(self._tok, [(doc_id, text) for doc_id, text, _ in docs], self._dtype)
        by_shard: dict[tuple[str, int], list] = {}
        for (doc_id, text, source), wire in zip(docs, encoded):
            if not wire[1]:
                self._empty.inc()
                yield beam.pvalue.TaggedOutput(
                    "dropped", Dropped(doc_id, source, "pack", "empty_document", text[:200])
                )
                continue
            key = assign_shard(doc_id, self._validation_fraction, self._counts)
            by_shard.setdefault(key, []).append(wire)
        self._tokens.inc(sum(len(w[1]) for group in by_shard.values() for w in group) // np.dtype(self._dtype).itemsize)
        yield from by_shard.items()


class TokenizeDocuments(beam.PTransform):
    """Batches of documents -> per-shard lists of tokenized documents."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str):
        super().__init__()
        self._fn = _TokenizeBatch(tokenizer, validation_fraction, counts, dtype)

    def expand(self, batches):
        return batches | "Encode" >> beam.ParDo(self._fn).with_outputs("dropped", main="keyed")


def sort_wire(docs: Iterable[WireDoc]) -> list[WireDoc]:
    """By id; documents sharing an id (not expected from build-corpus) by a digest of their tokens."""
    ordered = sorted(docs, key=operator.itemgetter(0))
    if any(a[0] == b[0] for a, b in itertools.pairwise(ordered)):
        ordered.sort(key=lambda d: (d[0], hashlib.blake2b(d[1], digest_size=8).digest()))
    return ordered


def sort_documents(docs: Iterable[TokenizedDoc]) -> list[TokenizedDoc]:
    """`sort_wire` for `TokenizedDoc`s."""
    return [TokenizedDoc.from_wire(w) for w in sort_wire(d.to_wire() for d in docs)]


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


def pack_wire_shard(docs: Iterable[WireDoc], config: PackConfig, special: SpecialIds) -> tuple[PackedColumns, PackStats]:
    """Sort a shard's documents and pack them; the stats reconcile corpus and packed tokens."""
    block = block_from_wire(sort_wire(docs))
    columns = pack_block(block, config, special)
    stats = PackStats.of_columns(columns, len(block.doc_ids), int(block.ids.shape[0]), config.max_length)
    return columns, stats


def pack_shard(docs: Iterable[TokenizedDoc], config: PackConfig, special: SpecialIds) -> tuple[list, PackStats]:
    """`pack_wire_shard` for `TokenizedDoc`s, as a list of sequences."""
    columns, stats = pack_wire_shard((d.to_wire() for d in docs), config, special)
    return list(columns.sequences()), stats


class _WriteShard(beam.DoFn):
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


@dataclasses.dataclass(frozen=True)
class TokenizerInfo:
    path: str
    sha256: str
    vocab_size: int
    special: SpecialIds
    mask_id: int | None
    tokens: dict[str, str]


def inspect_tokenizer(job: PackJob) -> TokenizerInfo:
    data = read_tokenizer_bytes(job.tokenizer)
    tok = tokenizer_from_bytes(data)
    special = special_ids(tok, job.cls_token, job.sep_token, job.pad_token)
    tokens = {"cls": job.cls_token, "sep": job.sep_token, "pad": job.pad_token, "mask": job.mask_token}
    return TokenizerInfo(
        path=source_path(tokenizer_file(job.tokenizer)),
        sha256=sha256_hex(data),
        vocab_size=full_vocab_size(tok),
        special=special,
        mask_id=tok.token_to_id(job.mask_token),
        tokens=tokens,
    )


def build_manifest(job: PackJob, corpus: CorpusInput, info: TokenizerInfo, dtype: np.dtype,
                   counts: dict[str, int], shards: list[dict], rejected: dict[str, int]) -> dict[str, Any]:
    shards = sorted(shards, key=lambda s: (SPLITS.index(s["split"]), s["index"]))
    per_split = {split: PackStats() for split in counts}
    for shard in shards:
        per_split[shard["split"]] = per_split[shard["split"]].merge(shard["stats"])
    total = PackStats()
    for stats in per_split.values():
        total = total.merge(stats)
    config = dataclasses.asdict(job.pack)
    config.update(
        validation_fraction=job.validation_fraction,
        num_shards=counts,
        input_format=corpus.layout,
        rows_per_batch=job.rows_per_batch,
    )
    return {
        "format": MANIFEST_FORMAT,
        "corpus": {"path": source_path(job.corpus), "layout": corpus.layout, "files": len(corpus.files),
                   "bytes": corpus.total_bytes},
        "tokenizer": {
            "path": info.path,
            "sha256": info.sha256,
            "vocab_size": info.vocab_size,
            "special_tokens": info.tokens,
            "special_ids": {**dataclasses.asdict(info.special), "mask": info.mask_id},
        },
        "input_ids_dtype": dtype.name,
        "seed": job.pack.seed,
        "config": config,
        "counts": {
            "documents": total.documents,
            "sequences": total.sequences,
            "tokens": total.content_tokens,
            "corpus_tokens": total.corpus_tokens,
            "special_tokens": total.special_tokens,
            "padding_tokens": total.padding_tokens,
            "padding_fraction": round(total.padding_fraction, 6),
            "dropped_tokens": total.dropped_tokens,
            "rejected_documents": rejected,
            "splits": {split: stats.to_dict() for split, stats in per_split.items()},
        },
        "shards": [
            {"file": s["file"], "sha256": s["sha256"], "bytes": s["bytes"], "rows": s["stats"].sequences}
            for s in shards
        ],
    }


def _rejected_lines(records: Iterable[DeadLetter | Dropped]) -> tuple[bytes, bytes, dict[str, int]]:
    dead = sorted(r.to_json() for r in records if isinstance(r, DeadLetter))
    dropped = sorted(r.to_json() for r in records if isinstance(r, Dropped))
    counts = {"dead_lettered": len(dead), "dropped_empty_document": len(dropped)}
    return ("".join(f"{x}\n" for x in dead).encode(), "".join(f"{x}\n" for x in dropped).encode(), counts)


def write_metadata(shards: list[dict], rejected: list, job: PackJob, corpus: CorpusInput, info: TokenizerInfo,
                   dtype_name: str, counts: dict[str, int]) -> dict[str, Any]:
    """Per split `dataset_info.json` + `state.json`, the rejected records, then `manifest.json` last."""
    dtype = np.dtype(dtype_name)
    for split in counts:
        split_shards = sorted((s for s in shards if s["split"] == split), key=lambda s: s["index"])
        files = [s["file"].split("/", 1)[1] for s in split_shards]
        rows = sum(s["stats"].sequences for s in split_shards)
        size = sum(s["bytes"] for s in split_shards)
        base = FileSystems.join(job.out, split)
        write_atomic(FileSystems.join(base, "dataset_info.json"),
                     arrow_shards.dataset_info_json(dtype, rows, size, split).encode())
        write_atomic(FileSystems.join(base, "state.json"),
                     arrow_shards.state_json(files, [s["sha256"] for s in split_shards], split).encode())
    dead, dropped, rejected_counts = _rejected_lines(rejected)
    write_atomic(FileSystems.join(job.out, "rejected", "dead_letter.jsonl"), dead)
    write_atomic(FileSystems.join(job.out, "rejected", "dropped.jsonl"), dropped)
    manifest = build_manifest(job, corpus, info, dtype, counts, shards, rejected_counts)
    write_atomic(FileSystems.join(job.out, "manifest.json"),
                 (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    return manifest


def prepare_out(out: str, overwrite: bool) -> None:
    """Refuse to mix runs: the output must be new or empty unless `overwrite` clears what pack wrote."""
    existing = FileSystems.match([FileSystems.join(out, "**")])[0].metadata_list if FileSystems.exists(out) else []
    if not existing:
        return
    if not overwrite:
        raise FileExistsError(f"output {out} is not empty; pass --overwrite to replace a previous pack")
    FileSystems.delete([m.path for m in existing])


def build(pipeline: beam.Pipeline, job: PackJob) -> tuple[beam.PCollection, dict[str, Any]]:
    """Wire the pack stages onto `pipeline`; returns the manifest PCollection and the resolved plan."""
    corpus = resolve_corpus(job.corpus, job.input_format)
    info = inspect_tokenizer(job)
    dtype = ids_dtype(info.vocab_size)
    counts = shard_counts(job, corpus.total_bytes)
    spread = spread_batches(job, len(corpus.files), pipeline.options)
    read = pipeline | "ReadCorpus" >> ReadCorpus(corpus, job.batch_documents, job.batch_bytes, spread)
    tokenized = read["batches"] | "TokenizeDocuments" >> TokenizeDocuments(
        job.tokenizer, job.validation_fraction, counts, dtype.name
    )
    # an empty list per shard key, so a shard that gets no document is still written (with no rows)
    every_shard = [((split, i), []) for split, n in counts.items() for i in range(n)]
    shards = (
        (tokenized.keyed, pipeline | "EveryShard" >> beam.Create(every_shard, reshuffle=False))
        | "MergeShardKeys" >> beam.Flatten()
        | "GroupByShard" >> beam.GroupByKey()
        | "WriteShards" >> beam.ParDo(_WriteShard(job.out, job.pack, info.special, dtype.name, counts,
                                                   job.rows_per_batch))
    )
    rejected = (read["dead_letter"], tokenized.dropped) | "MergeRejected" >> beam.Flatten()
    # one element, with the shard records and rejected records as list side inputs (no combiner stages)
    manifest = pipeline | "Once" >> beam.Create([None]) | "WriteMetadata" >> beam.Map(
        lambda _, shard_records, rejected_records: write_metadata(
            list(shard_records), list(rejected_records), job, corpus, info, dtype.name, counts
        ),
        beam.pvalue.AsList(shards),
        beam.pvalue.AsList(rejected),
    )
    return manifest, {"corpus": corpus, "tokenizer": info, "dtype": dtype, "counts": counts}


def run(job: PackJob, beam_args: Sequence[str] = (), *, local_mode: str = "multi_processing") -> dict[str, Any]:
    """Run the pack pipeline and return the manifest it wrote."""
    prepare_out(job.out, job.overwrite)
    with make_pipeline(beam_args, local_mode=local_mode) as pipeline:
        build(pipeline, job)
    with FileSystems.open(FileSystems.join(job.out, "manifest.json")) as f:
        return json.loads(f.read())
