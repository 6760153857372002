"""Pack's input units: a corpus shard's tokenizing committed piece by piece, so a killed pack loses minutes.

The design and its helpers are build-corpus's (pipeline/corpus/units.py). A unit is a byte range of whole
lines of one corpus shard (`line_ranges`, cut where a parser may start again; of the decompressed bytes of a
compressed shard, build-corpus's default output); about four per shard (`unit_bytes` of its bytes as read),
larger when the corpus has many shards: every unit leaves a run per output shard, and more than `FAN_IN` runs
cost a merge pass that writes them again (`unit_steps`). Its key is a digest of the pack's identity
(`pack_identity`: every setting that changes the output, the tokenizer's sha256, the layout, the shard counts
and the kcorpus release; not the folders) and of the shard (path, size, modification time) and range.
What tokenizing a unit gives (its sorted runs per output shard and their stats) goes to `<key>.data`; its counts,
dead letters and empty documents, with where its runs lie, to `<key>.done`, the completion marker. A rerun of the
same command replays the finished units and tokenizes only the others.

Pack's units are larger than build-corpus's (at most `MAX_UNIT_BYTES`): every unit leaves one run per output
shard, and a shard's writer merges at most `FAN_IN` (256, pipeline/pack/runs.py) runs in one pass, so a corpus
of up to 256 units (a 128-shard corpus of a few GB) needs no extra merge pass; a kill loses at most one unit,
16 MB of tokenizing (about 6 CPU s), per worker.
When document batches are spread over the workers (`spread_batches`: fewer units than twice the workers),
each unit is read on one worker and its batches are units of their own (`BatchUnit`), as build-corpus does
with a file it reads whole.

The units folder is `<out>/.kcorpus-units` for `kcorpus pack` and `<run>/.kcorpus-units/pack` for `kcorpus run`;
it is removed when the pack completes (a rebuilt corpus's shards are new files: nothing there to reuse later).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from kcorpus.pipeline.corpus.units import Unit, UnitsPlan, make_unit, unit_bytes
from kcorpus.pipeline.external_sort import RunSpan
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.runs import FAN_IN, RunRef
from kcorpus.transforms import files
from kcorpus.transforms.pack.corpus_files import line_ranges

MAX_UNIT_BYTES = 16 << 20
# PackJob fields that never change what a unit holds: the folders (the files' own identity is in the key) and
# how the work is run.
NOT_IN_IDENTITY = (
    "corpus", "tokenizer", "out", "overwrite", "profile_stages", "reshuffle_batches", "spill_bytes", "units_dir",
    "allow_longer_than_model",
)  # fmt: skip
SOURCE = "pack"  # a unit's source name (build-corpus's units name their source)

READ, DEAD_LETTER = "pack:documents:read", "pack:documents:dead_letter"
TOKENS, EMPTY = "pack:tokens:corpus", "pack:documents:dropped:empty_document"


def pack_identity(job: PackJob, tokenizer_sha256: str, layout: str, counts: dict[str, int], dtype: str) -> str:
    """What a unit's result depends on besides its shard and range."""
    from kcorpus import __version__

    settings = dataclasses.asdict(job)
    for name in NOT_IN_IDENTITY:
        settings.pop(name, None)
    blob = json.dumps(
        [settings, tokenizer_sha256, layout, counts, dtype, __version__], sort_keys=True, default=str
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def file_ranges(path: str, layout: str, step: int) -> list[tuple[int, int, int]]:
    """`(start, end, first line)` of a shard's units, ranges of about `step` bytes of whole lines, of its
    decompressed bytes for a compressed shard (a unit of one then decompresses and skips what comes before it:
    cheap beside tokenizing); `(0, -1, 1)`: a compressed shard that cannot be decompressed, read whole (a dead
    letter)."""
    if not files.is_compressed(path):
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
            return list(line_ranges(raw, layout, step))
    try:
        with files.open_binary(path) as stream:
            return list(line_ranges(stream, layout, step))
    except files.STREAM_ERRORS:
        return [(0, -1, 1)]


def read_length(path: str, size: int) -> int:
    """The bytes a shard gives when read: its size, or what it decompresses to (its size on disk when it cannot
    be decompressed: `file_ranges` reads it whole, a dead letter)."""
    if not files.is_compressed(path):
        return size
    length = 0
    try:
        with files.open_binary(path) as stream:
            while block := stream.read(1 << 20):
                length += len(block)
    except files.STREAM_ERRORS:
        return size
    return length


def unit_steps(lengths: list[int]) -> list[int]:
    """The unit size of each shard (`lengths`: bytes as read): about four units a shard (`unit_bytes`), but
    large enough that a corpus of many shards (128 for configs/mdeberta-kor.yaml) gives its writers no more runs
    than they merge in one pass (`FAN_IN`; a shard's last unit may be short, hence `FAN_IN` less a unit per
    shard); at most `MAX_UNIT_BYTES`, what a kill can lose."""
    spare = FAN_IN - len(lengths)
    floor = -(-sum(lengths) // spare) if spare > 0 else MAX_UNIT_BYTES
    return [min(MAX_UNIT_BYTES, max(unit_bytes(length, MAX_UNIT_BYTES), floor)) for length in lengths]


def plan_units(corpus: Any, identity: str) -> list[tuple[int, Unit]]:
    """Every corpus shard's units as `(first line, Unit)`, in shard order (`corpus`: a `read.CorpusInput`). A
    unit's `nbytes` is its share of the shard's size on disk (what the progress bar and the reuse line count)."""
    sizes = {m.path: m.size_in_bytes for r in FileSystems.match(list(corpus.files)) for m in r.metadata_list}
    steps = unit_steps([read_length(path, sizes[path]) for path in corpus.files])
    planned = []
    for path, step in zip(corpus.files, steps, strict=True):
        ranges = file_ranges(path, corpus.layout, step)
        length = max(ranges[-1][1], 1) if ranges else 1
        for start, end, first in ranges:
            unit = make_unit(identity, 0, SOURCE, path, sizes[path], (start, end))
            share = sizes[path] if end < 0 else round((end - start) * sizes[path] / length)
            planned.append((first, dataclasses.replace(unit, nbytes=share)))
    return planned


def pack_units(job: PackJob, corpus: Any, tokenizer_sha256: str, counts: dict[str, int], dtype: str) -> UnitsPlan:
    """The pack's units, how many an earlier run of the same pack finished, and their folder."""
    from kcorpus.pipeline.corpus.units import UNITS_DIR

    identity = pack_identity(job, tokenizer_sha256, corpus.layout, counts, dtype)
    folder = job.units_dir or FileSystems.join(job.out, UNITS_DIR)
    return UnitsPlan(plan_units(corpus, identity), folder, False, job.batch_documents)


@dataclasses.dataclass
class PackUnitResult:
    """A unit's outputs: `(shard, RunRef)` of its runs (spans of its data file), dead letters, empty documents
    (`Dropped`), counts by counter name, and `nbytes` of input."""

    runs: list[tuple[tuple[str, int], RunRef]] = dataclasses.field(default_factory=list)
    dead_letters: list[Any] = dataclasses.field(default_factory=list)
    dropped: list[Any] = dataclasses.field(default_factory=list)
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    nbytes: int = 0

    def data_files(self) -> set[str]:
        return {ref.path.path for _, ref in self.runs if isinstance(ref.path, RunSpan)}

    def count(self, name: str, n: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + n


def emit(result: PackUnitResult) -> Iterator[Any]:
    """A unit's outputs, the same whether it was tokenized just now or replayed: `(shard, RunRef)`, then dead
    letters and empty documents (tagged); its counters incremented here, once per run of the pipeline."""
    yield from result.runs
    for dead in result.dead_letters:
        yield beam.pvalue.TaggedOutput("dead_letter", dead)
    for dropped in result.dropped:
        yield beam.pvalue.TaggedOutput("dropped", dropped)
    for name, n in sorted(result.counts.items()):
        Metrics.counter("pack", name).inc(n)
