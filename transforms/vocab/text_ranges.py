"""Training text read in byte ranges, a worker each, giving what one read of the files in order gives.

`split_ranges` cuts each uncompressed file at line starts into ranges of about `target_bytes`: a text file
after a blank line (so a range starts outside a document, as a file does), a JSONL file after any line; a
compressed file is one range. The reads then take two passes, each range on its own:

- `count_range`: the range's sentences (text: without normalizing them; JSONL: parsing it), so the caller
  knows where each range starts in the whole text and can draw the seeded sample (`reservoir_positions`);
- `read_range`: the range's sample sentences, pre-normalized, summarized (`text_summary.summarize_part`) and
  written one a line to a compressed file the trainer reads (`sample_files`), with the range's `InputStats`.

`merge_stats` and `text_summary.merge_parts` join the ranges' results in file order, so the sample, the
counts and the summary are those of `SentenceSample` and `summarize` over the same files (tested), whatever
the ranges and however many workers read them.
"""

from __future__ import annotations

import dataclasses
import os
from array import array
from collections.abc import Iterable, Iterator
from typing import IO

from kcorpus.transforms import files
from kcorpus.transforms.vocab.sample import (
    MAX_PROBLEMS_KEPT,
    InputStats,
    count_line_sentences,
    is_jsonl,
    picked,
    raw_sentences,
)
from kcorpus.transforms.vocab.sample_files import written
from kcorpus.transforms.vocab.text_summary import SummaryPart, summarize_part
from kcorpus.transforms.vocab.train import space_jamo

_BLOCK = 1 << 20


@dataclasses.dataclass(frozen=True)
class TextRange:
    """Lines `start` to `end` (bytes; None: the end of the file) of `path`; `first_line` numbers its first."""

    path: str
    start: int = 0
    end: int | None = None
    first_line: int = 1

    @property
    def size(self) -> int:
        """Its bytes as stored (a compressed file's size)."""
        end = os.path.getsize(self.path) if self.end is None else self.end
        return end - self.start


@dataclasses.dataclass(frozen=True)
class RangeTask:
    """What `read_range` reads of a range and where it writes the sentences.

    Attributes:
        positions: the range's sample, as positions among its sentences (ascending); None: all of them.
        first: the whole sample's index of the range's first sample sentence.
        stride, round_trip, max_sentence_bytes: as `summarize_part` takes them.
        out: the file the sample sentences go to, one a line (None: not written).
        space_jamo: write each sentence with a space on each side of its conjoining jamo (WordPiece).
    """

    range: TextRange
    positions: array | None
    first: int
    stride: int
    round_trip: int
    max_sentence_bytes: int | None = None
    out: str | None = None
    space_jamo: bool = False


@dataclasses.dataclass
class RangeRead:
    """A range read: its counts (`files` 1 for a file's first range) and its sample's summary."""

    stats: InputStats
    part: SummaryPart


def split_ranges(paths: Iterable[str], target_bytes: int) -> list[TextRange]:
    """Every file's ranges of about `target_bytes`, in file order."""
    ranges: list[TextRange] = []
    for path in paths:
        if files.is_compressed(path) or files.is_remote(path):
            ranges.append(TextRange(path))
        else:
            ranges.extend(_file_ranges(path, target_bytes, b"\n" if is_jsonl(path) else b"\n\n"))
    return ranges


def _file_ranges(path: str, target_bytes: int, separator: bytes) -> list[TextRange]:
    """A file cut after the first `separator` past every `target_bytes`, its lines counted on the way."""
    starts = [(0, 1)]  # (byte offset, line number) of each range's first line
    offset = newlines = 0  # bytes read, newlines among them
    tail = b""  # the end of the previous block, where a separator may begin
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            data, base = tail + block, offset - len(tail)
            base_newlines = newlines - tail.count(b"\n")
            search = starts[-1][0] + target_bytes - base
            while search < len(data) and (hit := data.find(separator, max(search, 0))) >= 0:
                cut = hit + len(separator)
                starts.append((base + cut, base_newlines + data.count(b"\n", 0, cut) + 1))
                search = cut + target_bytes
            offset += len(block)
            newlines += block.count(b"\n")
            tail = data[len(data) - len(separator) + 1 :] if len(separator) > 1 else b""
    if len(starts) > 1 and starts[-1][0] >= offset:
        starts.pop()  # the file ends with the separator
    ends = [start for start, _ in starts[1:]] + [None]
    return [TextRange(path, start, end, line) for (start, line), end in zip(starts, ends)]


def range_lines(text_range: TextRange) -> Iterator[bytes]:
    """The raw lines of a range."""
    with _open(text_range) as handle:
        if text_range.end is None:
            yield from handle
            return
        left = text_range.end - text_range.start
        for raw in handle:
            yield raw
            left -= len(raw)
            if left <= 0:
                return


def _open(text_range: TextRange) -> IO[bytes]:
    if text_range.start == 0:
        return files.open_binary(text_range.path)
    handle = open(text_range.path, "rb")  # noqa: SIM115 -- returned open
    handle.seek(text_range.start)
    return handle


def count_range(text_range: TextRange) -> int:
    """The range's sentences, as `read_range` counts them."""
    if not is_jsonl(text_range.path):
        return count_line_sentences(range_lines(text_range))
    return sum(1 for _ in raw_sentences(range_lines(text_range), text_range.path, InputStats()))


def read_range(task: RangeTask) -> RangeRead:
    """The range's counts and its sample's summary; the sample sentences written to `task.out`."""
    stats = InputStats(files=int(task.range.start == 0))
    sentences = _sample(task.range, stats, task.positions)
    if task.out is not None:
        sentences = written(sentences, task.out, space_jamo if task.space_jamo else str)
    part = summarize_part(
        sentences, first=task.first, stride=task.stride, round_trip=task.round_trip,
        max_sentence_bytes=task.max_sentence_bytes,
    )
    return RangeRead(stats, part)


def _sample(text_range: TextRange, stats: InputStats, positions: array | None) -> Iterator[str]:
    """The range's sentences at `positions` (None: all), pre-normalized; `stats` counts every sentence."""
    pieces = raw_sentences(range_lines(text_range), text_range.path, stats, text_range.first_line)
    return picked(pieces, stats, iter(positions) if positions is not None else None)


def merge_stats(reads: Iterable[RangeRead]) -> InputStats:
    """The ranges' counts added up in order: those of one read of the files (`sampled` left to the caller)."""
    total = InputStats()
    for read in reads:
        for field in dataclasses.fields(InputStats):
            if field.name != "problems":
                setattr(total, field.name, getattr(total, field.name) + getattr(read.stats, field.name))
        total.problems.extend(read.stats.problems[: MAX_PROBLEMS_KEPT - len(total.problems)])
    return total
