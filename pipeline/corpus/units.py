"""Input units: build-corpus's per-document work committed piece by piece, so a killed build loses minutes.

A unit is one byte range of one input file (or a whole file that cannot be read in ranges). Its ranges follow
the file alone (`unit_ranges`: about four per file, 1-4 MB each), never the input's total size or the worker
count, so a rerun, or a build with one more file, cuts the old files the same way. A unit's key is a digest of
the build's identity (every setting that changes what preparing a document gives, and the kcorpus release;
not the sources' paths) and of the file (path, size, modification time) and range.

A file that cannot be read in ranges (compressed, or a format read whole) is one unit whose batches are units
of their own (`BatchUnit`: read on one worker, then spread over all of them, as one large file needs), keyed
by the file's unit key, the batch size and the batch's number; `<key>.batches` records how many there are.
A comment-thread source's units are read on every run and hold the threads whose first comment they read,
in batches keyed by a digest of their contents, which `<key>.batches` lists (pipeline/corpus/threads.py).

What preparing a unit gives (sorted runs of kept and dropped records per shard, dedup keys, counts, dead
letters, examples) is written to the units folder: `<key>.data` (the runs and the dedup keys, as segments of
pickled chunks) and then `<key>.done` (the counts, dead letters, examples and where each segment lies), each
under a temporary name and renamed into place. `<key>.done` is the completion marker: a unit is finished
when it exists and reads back; anything else in the folder is a leftover that the next build overwrites.
A rerun replays a finished unit's outputs instead of reading and preparing it again.

The units folder is `<out>/.kcorpus-units` for `kcorpus build-corpus` (removed when the build completes, unless
`--keep-units`) and `<run>/.kcorpus-units/corpus` for `kcorpus run` (kept, so that a new file in a source reuses
the others' work); a completed build deletes the units it did not use.

`kcorpus pack` commits its tokenizing in units of the same design through these helpers (pipeline/pack/units.py:
ranges of corpus shards, its own result type and identity).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import posixpath
import struct
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from apache_beam.io.filesystems import FileSystems

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.atomic import naming, write_atomic
from kcorpus.pipeline.corpus.runs import RECORDS, RunRecord
from kcorpus.pipeline.external_sort import BlockWriter, RunSpan, read_blocks
from kcorpus.pipeline.outputs.marker import UNITS_ENTRY
from kcorpus.transforms import matching

UNITS_DIR = UNITS_ENTRY  # the folder's name, a bookkeeping entry of the output folder (outputs/marker.py)
DATA_SUFFIX, DONE_SUFFIX, BATCHES_SUFFIX = ".data", ".done", ".batches"
# Unit size: about `RANGES_PER_FILE` per file, within these bounds (a file under the minimum is one unit).
MIN_UNIT_BYTES, MAX_UNIT_BYTES = 1 << 20, 4 << 20
RANGES_PER_FILE = 4
# The format of a unit's files; a unit written by another format is done again (2: run keys hold the
# record digest; 3: document records carry a sentence count instead of the text unless `text/` is written).
FORMAT = 3


def unit_bytes(size: int, max_bytes: int = MAX_UNIT_BYTES) -> int:
    """The size of the units of a file of `size` bytes: about `RANGES_PER_FILE` of them, at least
    `MIN_UNIT_BYTES` and at most `max_bytes` (pack's units are larger: pipeline/pack/units.py)."""
    return min(max_bytes, max(MIN_UNIT_BYTES, -(-size // RANGES_PER_FILE)))


def unit_ranges(size: int, splittable: bool) -> list[tuple[int, int]]:
    """`(start, end)` ranges of a file of `size` bytes, of equal size (at most `MAX_UNIT_BYTES`, at least
    `MIN_UNIT_BYTES` where the file has it); `(0, -1)` is the whole file (not splittable).

    Equal ranges, not `MIN_UNIT_BYTES` and a tail: half of a Wikipedia dump's 1 MB files are a little over
    1 MiB, and a tail unit of a few KB costs a run per shard for the writers to merge like any other."""
    if not splittable or size <= 0:
        return [(0, -1)]
    count = max(-(-size // MAX_UNIT_BYTES), min(RANGES_PER_FILE, size // MIN_UNIT_BYTES), 1)
    step = -(-size // count)
    return [(start, min(start + step, size)) for start in range(0, size, step)]


def build_identity(config: Any, version: str, eval_files: Sequence[Any] = ()) -> str:
    """What a unit's result depends on besides its file: the build's settings without the sources' paths
    (a file matched by another pattern is the same file), the kcorpus release and the evaluation files."""
    settings = dataclasses.asdict(config)
    for source in settings["sources"]:
        source.pop("paths", None)
    blob = json.dumps([settings, version, list(eval_files)], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclasses.dataclass(frozen=True)
class Unit:
    """One unit of input: source index, file, byte range (`end == -1`: the whole file), size and key."""

    source: int
    path: str
    start: int
    end: int
    nbytes: int
    key: str


def file_identity(path: str, size: int) -> tuple[str, int, int]:
    """`(path, size, modification time)`: a file rewritten in place is another file."""
    if fs.is_remote(path):
        match = FileSystems.match([path])[0].metadata_list
        return path, size, int(match[0].last_updated_in_seconds * 1e9) if match else 0
    return path, size, os.stat(path).st_mtime_ns


def make_unit(
    identity: str, source_index: int, source: str, path: str, size: int, rng: tuple[int, int]
) -> Unit:
    start, end = rng
    parts = [identity, source, *file_identity(path, size), start, end]
    key = hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:32]
    return Unit(source_index, path, start, end, (end - start) if end >= 0 else size, key)


def span_wire(span: RunSpan) -> bytes:
    """A unit's run as it travels to its shard's writer: offset, length and the data file's name, ~65 bytes
    encoded against ~200 for a pickled `RunSpan` with its whole path. The local runner holds one per unit, kind and
    shard in memory until the writers start (1.1M at 4.8 GB with 128 shards), so they are kept small."""
    return struct.pack("<QQ", span.offset, span.length) + posixpath.basename(span.path).encode("utf-8")


def span_of(wire: bytes, folder: str) -> RunSpan:
    """The `RunSpan` of a `span_wire` in the units folder `folder`."""
    offset, length = struct.unpack_from("<QQ", wire)
    return RunSpan(fs.join(folder, wire[16:].decode("utf-8")), offset, length)


def read_span(span: RunSpan) -> Iterator[Any]:
    """The blocks of a span of a unit's data file (a dedup-key batch is one block)."""
    return read_blocks(span.path, span.offset, span.length)


@dataclasses.dataclass(frozen=True)
class BatchUnit:
    """One batch of a file read whole (compressed, or a format without ranges): the batches of such a file
    are units of their own, so that they spread over the workers. `batch` is None when it is finished."""

    key: str
    batch: list[Any] | None


def batch_key(unit_key: str, batch_size: int, k: int) -> str:
    """The key of the k-th batch of a whole-file unit (batches follow `batch_size`)."""
    return f"{unit_key}-{batch_size}-{k:06d}"


def batches_record(folder: str, unit_key: str) -> dict[str, Any] | None:
    """A unit's `.batches` file: a whole file's batch count, or a thread home's batch keys (threads.py); None
    when it is missing or unreadable."""
    try:
        record = json.loads(fs.read_bytes(fs.join(folder, unit_key + BATCHES_SUFFIX)))
    except (FileNotFoundError, OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def write_batches_record(folder: str, unit_key: str, record: dict[str, Any]) -> None:
    write_atomic(fs.join(folder, unit_key + BATCHES_SUFFIX), json.dumps(record).encode("utf-8"))


def write_batch_count(folder: str, unit_key: str, batch_size: int, batches: int) -> None:
    """Records how many batches a whole-file unit has, so that a later run can tell it is finished."""
    write_batches_record(folder, unit_key, {"batch_size": batch_size, "batches": batches})


def finished_batches(folder: str, unit_key: str, batch_size: int, finished: set[str]) -> bool:
    """Whether every batch of a whole-file unit is finished (its count recorded, each batch's marker there)."""
    record = batches_record(folder, unit_key)
    if record is None or record.get("batch_size") != batch_size:
        return False
    keys = record.get("keys") or [batch_key(unit_key, batch_size, k) for k in range(record.get("batches", 0))]
    return all(key in finished for key in keys)


def prepared_batches(folder: str, unit_key: str) -> int:
    """How many of a thread home's batches the last run prepared (not replayed), from its `.batches`."""
    count = (batches_record(folder, unit_key) or {}).get("prepared", 0)
    return count if isinstance(count, int) else 0


def listed_batches(folder: str, unit_key: str) -> set[str] | None:
    """The batch keys a unit's `.batches` file lists (a threaded source's home unit), else None."""
    keys = (batches_record(folder, unit_key) or {}).get("keys")
    return set(keys) if isinstance(keys, list) else None


@dataclasses.dataclass
class UnitResult:
    """A unit's outputs: runs `(kind, shard, RunSpan)`, dedup-key batches (spans), counts
    `((source, counter), n)`, dead letters `(source, DeadLetter)` and examples; `nbytes` of input."""

    runs: list[tuple[str, int, RunSpan]] = dataclasses.field(default_factory=list)
    meta: list[Any] = dataclasses.field(default_factory=list)
    counts: list[tuple[tuple[str, str], int]] = dataclasses.field(default_factory=list)
    dead_letters: list[Any] = dataclasses.field(default_factory=list)
    examples: list[Any] = dataclasses.field(default_factory=list)
    nbytes: int = 0

    def data_files(self) -> set[str]:
        """The data files its spans lie in (a finished unit whose data file is gone is done again)."""
        return {s.path for _, _, s in self.runs} | {s.path for s in self.meta if isinstance(s, RunSpan)}


class UnitWriter:
    """Writes one unit's data file under a temporary name: sorted runs and dedup-key batches as spans of blocks
    (`external_sort`), then `commit` renames it and writes the completion marker with `result` (a
    `UnitResult`, or pack's `PackUnitResult`: any object with `data_files()`)."""

    def __init__(self, folder: str, key: str, result: Any = None) -> None:
        self.folder, self.key = folder, key
        self.path = fs.join(folder, key + DATA_SUFFIX)
        self.tmp = fs.join(folder, f".{key}{DATA_SUFFIX}.tmp-{uuid.uuid4().hex[:12]}")
        self.result = UnitResult() if result is None else result
        self._writer = BlockWriter(self.tmp)

    def append(self, blocks: Iterable[Any]) -> RunSpan:
        """Blocks appended to the data file: the span they take there."""
        start = self._writer.offset
        with naming(self.tmp):
            for block in blocks:
                self._writer.write(block)
        return RunSpan(self.path, start, self._writer.offset - start)

    def add_run(self, kind: str, shard: int, records: list[RunRecord]) -> None:
        """One sorted run of a shard (sorted here)."""
        self.result.runs.append((kind, shard, self.append(RECORDS.blocks(sorted(records)))))

    def add_meta(self, batch: list[Any]) -> None:
        self.result.meta.append(self.append([batch]))

    def commit(self) -> Any:
        """Renames the data file into place, then writes the completion marker `<key>.done`."""
        if self._writer.opened:
            self._writer.close()
            if FileSystems.exists(self.path):
                FileSystems.delete([self.path])
            FileSystems.rename([self.tmp], [self.path])
        blob = pickle.dumps((FORMAT, self.result), protocol=pickle.HIGHEST_PROTOCOL)
        write_atomic(fs.join(self.folder, self.key + DONE_SUFFIX), blob)
        return self.result


def load_unit(folder: str, key: str, kind: type = UnitResult) -> Any:
    """A finished unit's result (a `kind`), or None when it is not finished (or unreadable: it is done again)."""
    path = fs.join(folder, key + DONE_SUFFIX)
    try:
        version, result = pickle.loads(fs.read_bytes(path))
    except FileNotFoundError:
        return None
    except (OSError, EOFError, ValueError, TypeError, AttributeError, pickle.UnpicklingError):
        return None
    if version != FORMAT or not isinstance(result, kind):
        return None
    return result if all(fs.exists(p) for p in result.data_files()) else None


def finished_keys(folder: str, suffix: str = DONE_SUFFIX) -> set[str]:
    """The keys of the units with a completion marker (or another file ending in `suffix`) in `folder`."""
    return (
        {name[: -len(suffix)] for name in fs.list_files(folder) if name.endswith(suffix) and "/" not in name}
        if fs.folder_exists(folder)
        else set()
    )


def prune_units(folder: str, keep: Iterable[str]) -> int:
    """Deletes every file of `folder` but those of the units in `keep` (of a unit that lists its batches,
    those batches only); returns how many files went."""
    keep, names = set(keep), fs.list_files(folder)
    with_batches = {name[: -len(BATCHES_SUFFIX)] for name in names if name.endswith(BATCHES_SUFFIX)}
    listed = {key: batches for key in keep & with_batches if (batches := listed_batches(folder, key)) is not None}
    removed = 0
    for name in names:
        stem = name.lstrip(".").split(".", 1)[0]
        unit = stem.split("-", 1)[0]
        if (
            unit in keep
            and ".tmp-" not in name
            and (unit not in listed or stem == unit or stem in listed[unit])
        ):
            continue
        fs.delete_file(fs.join(folder, name))
        removed += 1
    return removed


class UnitsPlan:
    """A command's planned units (`(x, Unit)` pairs; others are not units), how many an earlier run finished
    (`reused`: the console line, once the command has run), and what is left of the units folder once the
    command completes (`finish`: removed, or with `keep` only these units kept)."""

    def __init__(self, units: list[Any], folder: str, keep: bool, batch_size: int) -> None:
        self.folder, self.keep, self.units = folder, keep, units
        self.planned = [u for _, u in units if isinstance(u, Unit)]
        finished, self.cut = finished_keys(folder), finished_keys(folder, BATCHES_SUFFIX)
        self.done = [
            u
            for u in self.planned
            if u.key in finished or (u.key in self.cut and finished_batches(folder, u.key, batch_size, finished))
        ]
        self.keys = {u.key for u in self.planned}

    @property
    def reused(self) -> str:
        """`reused 9 of 10 input units (95% of input bytes) from an earlier run (<folder>)`, or "" for none.

        A thread home finished before the run is not reused when the run prepared one of its batches again
        (a thread of it gained comments from a new file): its `.batches` says so."""
        done = [u for u in self.done if u.key not in self.cut or not prepared_batches(self.folder, u.key)]
        if not done:
            return ""
        share = sum(u.nbytes for u in done) / max(sum(u.nbytes for u in self.planned), 1)
        return (
            f"reused {len(done)} of {len(self.planned)} input units ({share:.0%} of input bytes) "
            f"from an earlier run ({self.folder})"
        )

    def finish(self) -> None:
        """Removes the units folder, or keeps only these units in it (`keep`)."""
        if not self.keep:
            fs.delete_tree(self.folder)
        elif fs.folder_exists(self.folder):
            prune_units(self.folder, self.keys)


def eval_fingerprint(patterns: Sequence[str]) -> list[tuple[str, int, float]]:
    """`(path, size, modification time)` of every evaluation file (decontamination): part of the identity.

    Local patterns go through the shared matcher (`transforms/matching.py`), as the files are read."""
    prints = []
    for pattern in patterns:
        if fs.is_remote(pattern):
            for m in FileSystems.match([pattern])[0].metadata_list:
                prints.append((m.path, m.size_in_bytes, m.last_updated_in_seconds))
            continue
        for path, size in matching.match(pattern):
            prints.append((path, size, os.stat(path).st_mtime if os.path.exists(path) else 0.0))
    return sorted(prints)
