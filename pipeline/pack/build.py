"""`kcorpus pack` as a Beam pipeline: corpus documents -> tokenized -> packed sequences -> Arrow shards.

ReadCorpus (the input units, byte ranges of the corpus shards, spread over the workers) -> TokenizeDocuments
(a unit read in batches, tokenizer loaded once per worker; split and shard from a digest of the document id;
the `pair` and `single` layouts packed there; spilled to sorted runs per shard in the unit's data file,
committed unit by unit so that a killed pack's rerun replays the finished ones: pipeline/pack/units.py,
pipeline/pack/runs.py) -> WriteShards (a writer per shard merges its runs, rows in id order,
one Arrow IPC stream per shard written as it goes: pipeline/pack/write.py) -> WriteMetadata (dataset_info.json
and state.json per split, manifest.json, rejected records). No step holds more than a shard's runs' blocks and
a worker's spill buffer, so memory does not grow with the corpus.
Every file appears under its final name only when complete (written to a temporary name, then renamed); the
temporary folder (`.tmp-pack-*` in `--out`) is removed when the run ends, the units folder when it completes.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions

from kcorpus.pipeline import filesystems  # noqa: F401  (registers remote paths with transforms.files)
from kcorpus.pipeline.corpus.units import UnitsPlan
from kcorpus.pipeline.errors import UserError
from kcorpus.pipeline.filesystems import delete_tree
from kcorpus.pipeline.options import PACK_BYTES_PER_WORKER, make_pipeline
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.pack.checks import setting_problems
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.manifest import write_metadata
from kcorpus.pipeline.pack.read import CorpusInput, ReadCorpus, corpus_stats, resolve_corpus, spread_batches
from kcorpus.pipeline.pack.tokenize import TokenizeDocuments, TokenizerInfo, inspect_tokenizer
from kcorpus.pipeline.pack.units import pack_units
from kcorpus.pipeline.pack.write import WriteShards, packs_per_document, shard_counts
from kcorpus.pipeline.progress import progress_display
from kcorpus.pipeline.stage_metrics import metered_map, report_stages
from kcorpus.transforms.pack.blocks import ids_dtype

__all__ = ["PackJob", "build", "run"]

TMP_PREFIX = ".tmp-pack-"


def temporary_folder(out: str) -> str:
    """A run's own folder for its sorted runs, inside `--out` (removed when the run ends)."""
    return FileSystems.join(out, f"{TMP_PREFIX}{uuid.uuid4().hex[:12]}")


def build(
    pipeline: beam.Pipeline, job: PackJob, tmp: str, corpus: CorpusInput | None = None,
    info: TokenizerInfo | None = None, units: UnitsPlan | None = None,
) -> tuple[beam.PCollection, dict[str, Any]]:
    """Wire the pack stages onto `pipeline`, their merge passes under `tmp`; returns the manifest PCollection and
    the resolved plan. `corpus`, `info` and `units`, when given, are the job's corpus, tokenizer and input units
    as `run` resolved them (found once, not twice)."""
    corpus = corpus or resolve_corpus(job.corpus, job.input_format)
    info = info or inspect_tokenizer(job)
    dtype = ids_dtype(info.vocab_size)
    counts = shard_counts(job, corpus.total_bytes)
    units = units or pack_units(job, corpus, info.sha256, counts, dtype.name)
    spread = spread_batches(job, len(units.units), pipeline.options)
    read = pipeline | "ReadCorpus" >> ReadCorpus(
        units.units, corpus.layout, units.folder, job.batch_documents, job.batch_bytes, spread
    )
    per_document = (job.pack, info.special) if packs_per_document(job.pack) else None
    tokenized = read["units"] | "TokenizeDocuments" >> TokenizeDocuments(
        job.tokenizer, job.validation_fraction, counts, dtype.name, units.folder, corpus.layout,
        (job.batch_documents, job.batch_bytes), per_document, job.pack.word_start, job.spill_bytes,
        job.pack.max_length,
    )
    shards = tokenized.keyed | "WriteShards" >> WriteShards(job, info.special, dtype.name, counts, tmp)
    rejected = (read["dead_letter"], tokenized.dead_letter, tokenized.dropped) | "MergeRejected" >> beam.Flatten()
    # one element, with the shard records and rejected records as list side inputs (no combiner stages)
    manifest = pipeline | "Once" >> beam.Create([None]) | "WriteMetadata" >> metered_map(
        "WriteMetadata",
        lambda _, shard_records, rejected_records: write_metadata(
            list(shard_records), list(rejected_records), job, corpus, info, dtype.name, counts
        ),
        beam.pvalue.AsList(shards),
        beam.pvalue.AsList(rejected),
    )
    return manifest, {"corpus": corpus, "tokenizer": info, "dtype": dtype, "counts": counts}


def run(
    job: PackJob, beam_args: Sequence[str] = (), *, local_mode: str = "multi_processing"
) -> dict[str, Any]:
    """Run the pack pipeline and return the manifest it wrote.

    The output folder and the inputs are checked first, then the folder is claimed (`pipeline/outputs/`):
    a previous pack there is removed only after the corpus and tokenizer are found usable. Input units an
    earlier run of the same pack finished (killed) are replayed from the units folder (pipeline/pack/units.py),
    which is removed when the pack completes.
    """
    plan = check_output(job.out, "pack", [job.corpus, job.tokenizer], overwrite=job.overwrite)
    corpus = resolve_corpus(job.corpus, job.input_format)
    info = inspect_tokenizer(job)
    problems = setting_problems(job, corpus_stats(job.corpus))
    if problems:
        raise UserError(problems)
    size = corpus.total_bytes
    options = {"input_bytes": size, "bytes_per_worker": PACK_BYTES_PER_WORKER}
    pipeline = make_pipeline(beam_args, local_mode=local_mode, **options)
    counts = shard_counts(job, size)
    tmp = temporary_folder(job.out)
    with claim_output(plan):
        units = pack_units(job, corpus, info.sha256, counts, ids_dtype(info.vocab_size).name)
        with progress_display("pack", size, pipeline.options, write_total=sum(counts.values())):
            try:
                with pipeline:
                    build(pipeline, job, tmp, corpus, info, units)
            finally:
                delete_tree(tmp)
        if reused := units.reused:
            print(f"pack: {reused}", file=sys.stderr, flush=True)
        units.finish()
    workers = pipeline.options.view_as(DirectOptions).direct_num_workers
    report_stages(pipeline.result, job.out, workers, job.profile_stages)
    with FileSystems.open(FileSystems.join(job.out, "manifest.json")) as f:
        return json.loads(f.read())
