"""`read_training_text`: train-vocab's passes over its input, on every core (`transforms/vocab/text_ranges.py`).

The files are cut into byte ranges; a process pool counts each range's sentences, then, once the seeded sample
is drawn over the total, reads each range's sample sentences: pre-normalized, summarized, and written one a
line to a compressed scratch file the trainer reads (`sample_files`; WordPiece's `tokenizers` reads them
itself, on its own threads, through a pipe). The ranges' results are merged in file order, so the sample, the
counts, the summary and so the vocab are those of one read in order, whatever the number of workers. The
pool's workers are forked (cheap: nothing to import again) and ignore the terminal's Ctrl-C: the parent stops
them (`interrupt`).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from kcorpus.transforms.vocab.sample import InputStats, progress_bar, reservoir_positions
from kcorpus.transforms.vocab.sample_files import SUFFIX as SAMPLE_SUFFIX
from kcorpus.transforms.vocab.text_ranges import (
    RangeRead,
    RangeTask,
    TextRange,
    count_range,
    merge_stats,
    read_range,
    split_ranges,
)
from kcorpus.transforms.vocab.text_summary import TextSummary, merge_parts, spread_stride

T = TypeVar("T")
R = TypeVar("R")

# Ranges per worker, so that a worker finishing early takes another; no range is cut smaller than the floor
# (a start-up's worth of work) or larger than the ceiling (what a worker's progress shows at once).
RANGES_PER_WORKER = 4
MIN_RANGE_BYTES = 4 << 20
MAX_RANGE_BYTES = 64 << 20
# The scratch folder's name in the output folder (pipeline/outputs/marker.py: `--overwrite` removes a leftover).
SCRATCH_PREFIX = ".tmp-train-vocab-"


@dataclasses.dataclass
class TrainingText:
    """What the passes found: the counts, the sample's summary, and the files holding the sample.

    Attributes:
        stats: every sentence read, `sampled` and `not_sampled` included.
        summary: the sample's `TextSummary`.
        files: the sample, pre-normalized, one sentence a line, in input order (WordPiece: jamo spaced apart).
    """

    stats: InputStats
    summary: TextSummary
    files: list[str]


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity: `taskset` narrows it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def read_training_text(
    paths: Sequence[str],
    scratch: str,
    *,
    max_sentences: int,
    seed: int,
    round_trip: int,
    max_sentence_bytes: int | None = None,
    space_jamo: bool = False,
    progress: bool = False,
    workers: int | None = None,
    range_bytes: int | None = None,
) -> TrainingText:
    """Count, sample, summarize and write the training sentences of `paths` into the folder `scratch`.

    `workers`: processes (default: every usable core, one for less than `MIN_RANGE_BYTES`; 1 reads in this
    process); `range_bytes`: the ranges' size (default: the input over `RANGES_PER_WORKER` per worker, within
    the floor and ceiling)."""
    total = sum(os.path.getsize(p) for p in paths)
    workers = workers or (usable_cores() if total > MIN_RANGE_BYTES else 1)
    if range_bytes is None:
        range_bytes = min(max(total // (workers * RANGES_PER_WORKER), MIN_RANGE_BYTES), MAX_RANGE_BYTES)
    ranges = split_ranges(paths, range_bytes)
    with _mapper(workers if len(ranges) > 1 else 1) as mapped:
        counts = list(mapped(count_range, ranges, _bar(ranges, progress, "count")))
        positions = reservoir_positions(sum(counts), max_sentences, seed)
        tasks = _tasks(ranges, counts, positions, scratch, round_trip, max_sentence_bytes, space_jamo)
        reads = list(mapped(read_range, tasks, _bar(ranges, progress, "read")))
    _check_counts(ranges, counts, reads)
    stats = merge_stats(reads)
    stats.sampled = len(positions) if positions is not None else stats.sentences
    stats.not_sampled = stats.sentences - stats.sampled
    summary = merge_parts((r.part for r in reads), round_trip=round_trip, max_sentence_bytes=max_sentence_bytes)
    return TrainingText(stats, summary, [task.out for task in tasks if task.out is not None])


def _tasks(
    ranges: list[TextRange], counts: list[int], positions: Any, scratch: str, round_trip: int,
    max_sentence_bytes: int | None, space_jamo: bool,
) -> list[RangeTask]:
    """Each range's share of the sample (positions made local) and where its sample starts in the whole."""
    import numpy as np

    sampled = len(positions) if positions is not None else sum(counts)
    stride = spread_stride(sampled)
    chosen = np.frombuffer(positions, dtype=np.int64) if positions is not None else None
    tasks, start, first = [], 0, 0
    for index, (text_range, count) in enumerate(zip(ranges, counts)):
        local = None
        if chosen is not None:
            low, high = np.searchsorted(chosen, [start, start + count])
            local = array("q", (chosen[low:high] - start).tobytes())
        out = os.path.join(scratch, f"sample-{index:05d}{SAMPLE_SUFFIX}")
        tasks.append(RangeTask(text_range, local, first, stride, round_trip, max_sentence_bytes, out, space_jamo))
        first += count if local is None else len(local)
        start += count
    return tasks


def _check_counts(ranges: list[TextRange], counts: list[int], reads: list[RangeRead]) -> None:
    for text_range, count, read in zip(ranges, counts, reads):
        if read.stats.sentences != count:
            raise ValueError(
                f"the input changed while train-vocab read it: {text_range.path} held {count:,} sentences from "
                f"byte {text_range.start:,} when counted and {read.stats.sentences:,} when read"
            )


class _mapper:
    """`with _mapper(n) as mapped:` `mapped(function, items, bar)` yields the results in order, from `n` forked
    processes (in this one for 1), advancing `bar` by each item's bytes."""

    def __init__(self, workers: int) -> None:
        self.workers, self.pool = workers, None

    def __enter__(self) -> Callable[..., Iterator[Any]]:
        if self.workers > 1:
            context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
            self.pool = context.Pool(self.workers, initializer=_worker_signals)
        return self.map

    def map(self, function: Callable[[T], R], items: Iterable[T], bar: Any) -> Iterator[R]:
        items = list(items)
        results = self.pool.imap(function, items) if self.pool is not None else map(function, items)
        try:
            for item, result in zip(items, results):
                if bar is not None:
                    bar.update((item.range if isinstance(item, RangeTask) else item).size)
                yield result
        finally:
            if bar is not None:
                bar.close()

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            if exc[0] is None:
                self.pool.close()
            else:
                self.pool.terminate()
            self.pool.join()


def _worker_signals() -> None:
    """A worker leaves signals to the parent: the terminal's Ctrl-C reaches the whole group, the parent stops
    the pool; the parent's handlers and wakeup pipe (`interrupt`) are not the worker's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:  # not the main thread
        pass


def _bar(ranges: list[TextRange], enabled: bool, desc: str) -> Any:
    return progress_bar(sum(r.size for r in ranges), enabled, desc)
