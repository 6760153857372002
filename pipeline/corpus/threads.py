"""Comment threads (`thread_field`) in input units: a thread's comments may lie in every file of its source.

The files of a threaded source are planned as units like any line file's (byte ranges, `units.py`). Reading
their rows is cheap next to preparing the documents, so every run reads every unit's rows again
(`ReadThreadRows`) and joins each thread (`join_thread`); a thread belongs to the unit that holds its first
comment, its home. `CutThreadBatches` cuts a home's threads, and the other records its range gave (dead
letters, drops), into batches in file order: `BatchUnit`s whose key is the home's key and a digest of the
batch, prepared and committed by `PrepareUnitFn` like a whole file's batches, or replayed when finished.

So a rerun after a kill prepares only the batches that were not finished, and a build with a new file (a new
month of comments) reuses every batch whose threads did not change: the new file's own threads make new
batches, and a thread that gains comments from it changes its batch, which is prepared again.
`<home key>.batches` lists a home's batch keys; the home is finished when all of them are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline import progress
from kcorpus.pipeline.corpus.read_batches import BATCH_TEXT_CHARS, BatchSource
from kcorpus.pipeline.corpus.units import DONE_SUFFIX, BatchUnit, Unit, write_batches_record
from kcorpus.transforms.readers import as_options, iter_records, reader_for, thread_document
from kcorpus.transforms.readers.records import CommentRow
from kcorpus.transforms.record import DeadLetter

# Sort keys of a home's items: its threads (by first comment) before the other records its range gave.
THREADS, OTHERS = 0, 1


class ReadThreadRows(beam.DoFn):
    """`(source index, Unit)` of a threaded source -> `((index, thread), (unit key, CommentRow))` per comment,
    and tagged `home`: `((index, unit key), (sort key, record))` per other record, plus one
    `((index, unit key), None)` so that a unit whose comments all belong to other units' threads is cut too."""

    def __init__(self, sources: Sequence[BatchSource]) -> None:
        self.sources = tuple(sources)

    def setup(self) -> None:
        self.options = [as_options(s.options) for s in self.sources]

    def process(self, element: tuple[int, Unit]) -> Iterator[Any]:
        index, unit = element
        source, options = self.sources[index], self.options[index]
        yield beam.pvalue.TaggedOutput("home", ((index, unit.key), None))
        try:
            reader_for(source.fmt).check(unit.path, options)  # local files were checked before the build
        except ValueError as err:
            if unit.start == 0:
                dead = DeadLetter(unit.path, f"wrong_layout: {err}")
                yield beam.pvalue.TaggedOutput("home", ((index, unit.key), ((OTHERS, unit.path, 0), dead)))
            return
        if unit.end < 0:
            records: Iterable[Any] = iter_records(source.fmt, unit.path, options, source.source)
        else:
            records = reader_for(source.fmt).read_range(
                unit.path, options, source.source, unit.start, unit.end
            )
        count = 0
        for order, record in enumerate(records):
            count += 1
            if isinstance(record, CommentRow):
                yield (index, record.thread), (unit.key, record)
            else:
                yield beam.pvalue.TaggedOutput(
                    "home", ((index, unit.key), ((OTHERS, unit.path, order), record))
                )
        progress.add("read", records=count, nbytes=progress.range_bytes(unit.path, unit.start, unit.end))

    def finish_bundle(self) -> None:
        progress.flush()


def join_thread(key: tuple[int, str], rows: Iterable[tuple[str, CommentRow]], names: Sequence[str]) -> Any:
    """A thread's rows -> `((index, home unit key), (sort key, Document))`: the home holds its first comment."""
    index, thread = key
    rows = list(rows)
    home, first = min(rows, key=lambda item: (item[1].path, item[1].position))
    document = thread_document(thread, [row for _, row in rows], names[index])
    return (index, home), ((THREADS, first.path, first.position), document)


def batch_digest(batch: list[tuple[str, Any]]) -> str:
    """A digest of a batch's records (their dataclass reprs: documents' ids, texts and meta, dead letters')."""
    digest = hashlib.blake2b(digest_size=12)
    for name, record in batch:
        digest.update(f"{name}\x00{record!r}\x01".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def cut_batches(records: list[Any], batch_size: int) -> Iterator[list[Any]]:
    """Records in batches of at most `batch_size`, or fewer once they hold `BATCH_TEXT_CHARS` of text."""
    batch: list[Any] = []
    chars = 0
    for record in records:
        batch.append(record)
        chars += len(getattr(record, "text", "") or "")
        if len(batch) >= batch_size or chars >= BATCH_TEXT_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def write_batch_keys(folder: str, unit_key: str, batch_size: int, keys: list[str], prepared: int) -> None:
    """Records a home's batch keys, so that a later run can tell it is finished (`units.finished_batches`),
    and how many of them this run prepares (`units.prepared_batches`: the console's reused count)."""
    write_batches_record(folder, unit_key, {"batch_size": batch_size, "keys": keys, "prepared": prepared})


class CutThreadBatches(beam.DoFn):
    """`((index, home unit key), items)` -> `(index, BatchUnit)` per batch of the home's records in file order
    (a finished batch without its records); records the home's batch keys."""

    def __init__(self, units_dir: str, sources: Sequence[BatchSource], batch_size: int) -> None:
        self.units_dir, self.names, self.batch_size = units_dir, [s.source for s in sources], batch_size

    def process(self, element: tuple[tuple[int, str], Iterable[Any]]) -> Iterator[tuple[int, BatchUnit]]:
        (index, home), items = element
        ordered = [record for _, record in sorted((i for i in items if i is not None), key=lambda i: i[0])]
        units = []
        for records in cut_batches(ordered, self.batch_size):
            batch = [(self.names[index], record) for record in records]
            key = f"{home}-{batch_digest(batch)}"
            done = fs.exists(fs.join(self.units_dir, key + DONE_SUFFIX))
            units.append(BatchUnit(key, None if done else batch))
        prepared = sum(u.batch is not None for u in units)
        write_batch_keys(self.units_dir, home, self.batch_size, [u.key for u in units], prepared)
        for unit in units:
            yield index, unit


class ReadThreads(beam.PTransform):
    """`(source index, Unit)` of threaded sources -> `(source index, BatchUnit)`: every unit's rows read, the
    threads joined and cut into batches at their home units."""

    def __init__(self, units_dir: str, sources: Sequence[BatchSource], batch_size: int) -> None:
        super().__init__()
        self.units_dir, self.sources, self.batch_size = units_dir, tuple(sources), batch_size

    def expand(self, units: beam.PCollection) -> beam.PCollection:
        names = [s.source for s in self.sources]
        read = units | "ReadThreadRows" >> beam.ParDo(ReadThreadRows(self.sources)).with_outputs(
            "home", main="rows"
        )
        threads = (
            read.rows
            | "GroupThreads" >> beam.GroupByKey()
            | "JoinThreads" >> beam.MapTuple(lambda key, rows: join_thread(key, rows, names))
        )
        return (
            (threads, read.home)
            | "MergeHomes" >> beam.Flatten()
            | "GroupHomes" >> beam.GroupByKey()
            | "CutThreadBatches"
            >> beam.ParDo(CutThreadBatches(self.units_dir, self.sources, self.batch_size))
        )


def is_threaded(source: BatchSource) -> bool:
    """Whether a source's records are comment rows joined into threads (`thread_field`)."""
    return reader_for(source.fmt).threaded(as_options(source.options))
