"""Pack metadata: per split `dataset_info.json` + `state.json`, the root's `dataset_dict.json`, rejected
records, `manifest.json` last."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

import numpy as np
from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline.atomic import write_atomic
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.read import CorpusInput
from kcorpus.pipeline.pack.tokenize import TokenizerInfo
from kcorpus.transforms.pack import arrow_shards
from kcorpus.transforms.pack.stats import PackStats
from kcorpus.transforms.pack.tokenize import source_path
from kcorpus.transforms.record import DeadLetter, Dropped

SPLITS = ("train", "validation")
MANIFEST_FORMAT = "kcorpus-pack/1"


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
            "borrowed_tokens": total.borrowed_tokens,
            "rejected_documents": rejected,
            **({"nsp": nsp_counts(job.pack.nsp_rule, total)} if job.pack.layout == "nsp" else {}),
            "sources": total.sources,
            "splits": {split: stats.to_dict() for split, stats in per_split.items()},
        },
        "shards": [
            {"file": s["file"], "sha256": s["sha256"], "bytes": s["bytes"], "rows": s["stats"].sequences}
            for s in shards
        ],
    }


def nsp_counts(rule: str, stats: PackStats) -> dict[str, Any]:
    """The `nsp` layout's labels: is-next and random-next rows, the random-next share, what `balanced` left out."""
    return {
        "rule": rule,
        "is_next": stats.sequences - stats.random_next,
        "random_next": stats.random_next,
        "random_next_share": round(stats.random_next / stats.sequences, 6) if stats.sequences else 0.0,
        "left_out_documents": stats.left_out_documents,
        "left_out_tokens": stats.left_out_tokens,
    }


def _rejected_lines(records: Iterable[DeadLetter | Dropped]) -> tuple[bytes, bytes, dict[str, int]]:
    dead = sorted(r.to_json() for r in records if isinstance(r, DeadLetter))
    dropped = sorted(r.to_json() for r in records if isinstance(r, Dropped))
    counts = {"dead_lettered": len(dead), "dropped_empty_document": len(dropped)}
    return ("".join(f"{x}\n" for x in dead).encode(), "".join(f"{x}\n" for x in dropped).encode(), counts)


def write_metadata(shards: list[dict], rejected: list, job: PackJob, corpus: CorpusInput, info: TokenizerInfo,
                   dtype_name: str, counts: dict[str, int]) -> dict[str, Any]:
    """Per split `dataset_info.json` + `state.json`, `dataset_dict.json`, the rejected records, `manifest.json` last."""
    dtype = np.dtype(dtype_name)
    for split in counts:
        split_shards = sorted((s for s in shards if s["split"] == split), key=lambda s: s["index"])
        files = [s["file"].split("/", 1)[1] for s in split_shards]
        rows = sum(s["stats"].sequences for s in split_shards)
        size = sum(s["bytes"] for s in split_shards)
        base = FileSystems.join(job.out, split)
        info_json = arrow_shards.dataset_info_json(dtype, rows, size, split, layout=job.pack.layout,
                                                   word_start=job.pack.word_start)
        write_atomic(FileSystems.join(base, "dataset_info.json"), info_json.encode())
        write_atomic(FileSystems.join(base, "state.json"),
                     arrow_shards.state_json(files, [s["sha256"] for s in split_shards], split).encode())
    write_atomic(FileSystems.join(job.out, "dataset_dict.json"), arrow_shards.dataset_dict_json(list(counts)).encode())
    dead, dropped, rejected_counts = _rejected_lines(rejected)
    write_atomic(FileSystems.join(job.out, "rejected", "dead_letter.jsonl"), dead)
    write_atomic(FileSystems.join(job.out, "rejected", "dropped.jsonl"), dropped)
    manifest = build_manifest(job, corpus, info, dtype, counts, shards, rejected_counts)
    write_atomic(FileSystems.join(job.out, "manifest.json"),
                 (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    return manifest
