"""Training text for vocabularies: read build-corpus output or plain text, normalize, sample deterministically.

Inputs are `text/*.txt` shards (one sentence per line, blank line between documents), `docs/*.jsonl` (`text`
holds the document's sentences joined with "\\n"; a build-corpus folder stands for one of the two) or any
UTF-8 text file (compressed too: `transforms/files.py`). When the input holds more sentences than
`max_sentences`, a seeded reservoir sample (Algorithm R) keeps exactly `max_sentences` of them in input order,
so the same input and seed give the same sample. `read_sample` holds the sample in memory; `SentenceSample`
holds only the positions it picked and reads the sentences back from the files each time they are needed, so
training memory does not grow with the corpus. Nothing is dropped silently: undecodable bytes and bad JSON
lines are counted with their location.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import json
import os
import random
import sys
import unicodedata
from array import array
from collections.abc import Generator, Iterable, Iterator
from typing import IO

from kcorpus.transforms import corpus_layout, files, matching

MAX_PROBLEMS_KEPT = 20


def prenormalize(text: str) -> str:
    """NFC, every whitespace run to one space, stripped: what both vocab kinds are trained and checked on.

    `str.split()` splits on exactly the characters `re`'s `\\s` matches (`str.isspace`; tested on every code
    point) and is several times faster than a regex substitution.
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def expand_inputs(patterns: Iterable[str]) -> list[str]:
    """Files named by paths, globs or directories (walked recursively), sorted, without duplicates
    (`transforms/matching.py`: symlinked folders followed as the shell does).

    A build-corpus output dir (with `stats.json`) stands for the shards of one copy of its sentences,
    `corpus_layout.sentence_shards`: `text/` when the build wrote it, else `docs/`; `rejected/` stays out.
    """
    found: set[str] = set()
    for pattern in patterns:
        if os.path.isdir(pattern) and _is_corpus_dir(pattern):
            rels = [
                os.path.relpath(path, pattern).replace(os.sep, "/")
                for g in (*corpus_layout.TEXT_GLOBS, *corpus_layout.DOCS_GLOBS)
                for path, _ in matching.match(os.path.join(pattern, g))
            ]
            found.update(os.path.join(pattern, rel) for rel in corpus_layout.sentence_shards(rels))
            continue
        matches = [path for path, _ in matching.match(pattern)]
        if not matches or not all(os.path.isfile(m) for m in matches):
            missing = [m for m in matches if not os.path.isfile(m)] or [pattern]
            raise FileNotFoundError(f"no input file at {missing[0]!r}")
        found.update(matches)
    if not found:
        raise FileNotFoundError(f"no input files in {list(patterns)!r}")
    return sorted(found)


# Bytes of each input file read before training to tell text from a binary or differently encoded file.
SNIFF_BYTES = 1 << 16


def text_problem(path: str) -> str | None:
    """Why `path` is not UTF-8 text (`a binary file (a NUL byte at offset 12)`, `not UTF-8 (...)`), from its first
    `SNIFF_BYTES` (decompressed), or None. A later bad line is counted while reading, not refused."""
    try:
        with files.open_binary(path) as handle:
            head = handle.read(SNIFF_BYTES)
    except files.STREAM_ERRORS as err:
        return f"not readable ({err})"
    nul = head.find(b"\x00")
    if nul >= 0:
        return f"a binary file (a NUL byte at offset {nul})"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < SNIFF_BYTES)
    except UnicodeDecodeError as err:
        return f"not UTF-8 (byte {err.object[err.start]:#04x} at offset {err.start})"
    return None


def _is_corpus_dir(path: str) -> bool:
    return os.path.isfile(os.path.join(path, corpus_layout.STATS_FILE)) and any(
        os.path.isdir(os.path.join(path, folder)) for folder in (corpus_layout.TEXT_DIR, corpus_layout.DOCS_DIR)
    )


@dataclasses.dataclass
class InputStats:
    """What was read: counts that reconcile (`sentences` = `sampled` + `not_sampled`)."""

    files: int = 0
    bytes: int = 0
    lines: int = 0
    documents: int = 0
    sentences: int = 0
    sampled: int = 0
    not_sampled: int = 0
    bad_records: int = 0
    decode_errors: int = 0
    problems: list[str] = dataclasses.field(default_factory=list)

    def problem(self, where: str, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS_KEPT:
            self.problems.append(f"{where}: {reason}")


def _open_bytes(path: str) -> IO[bytes]:
    return files.open_binary(path)


def _lines(path: str, bar) -> Iterator[bytes]:
    """A file's raw lines, advancing `bar` by bytes as stored (the bar's total): a compressed file's size once it
    is read, as its lines are longer than what they take on disk."""
    compressed = bar is not None and files.is_compressed(path)
    with _open_bytes(path) as handle:
        for raw in handle:
            if bar is not None and not compressed:
                bar.update(len(raw))
            yield raw
    if compressed:
        bar.update(os.path.getsize(path))


def iter_sentences(
    paths: Iterable[str],
    stats: InputStats,
    progress: bool = False,
    desc: str = "read",
    positions: Iterable[int] | None = None,
) -> Iterator[str]:
    """Pre-normalized, non-empty sentences of every file, in file order; documents are counted in `stats`.

    Lines end at "\\n" only; a line that is not UTF-8 is decoded with U+FFFD for its bad bytes and counted.
    With `positions` (ascending, 0-based), only the sentences at those positions are normalized and yielded;
    `stats` counts every sentence all the same (a sentence is a line, or a line of a JSONL document's text,
    that holds a character other than whitespace).
    """
    paths = list(paths)
    bar = progress_bar(sum(os.path.getsize(p) for p in paths), progress, desc)
    try:
        yield from _sentences(paths, stats, bar, None if positions is None else iter(positions))
    finally:
        if bar is not None:
            bar.close()


def _sentences(paths: list[str], stats: InputStats, bar, positions: Iterator[int] | None) -> Iterator[str]:
    def pieces() -> Iterator[str]:
        for path in paths:
            stats.files += 1
            with contextlib.closing(_lines(path, bar)) as handle:
                yield from raw_sentences(handle, path, stats)

    return picked(pieces(), stats, positions)


def picked(pieces: Iterable[str], stats: InputStats, positions: Iterator[int] | None) -> Iterator[str]:
    """The `pieces` at `positions` (ascending sentence numbers; None: all), pre-normalized; `stats` counts every
    piece as a sentence, so a position is a number in `stats.sentences`' count."""
    wanted = -1 if positions is None else next(positions, -2)  # -1: every sentence; -2: no more
    for piece in pieces:
        position = stats.sentences
        stats.sentences += 1
        if wanted == -1:
            yield prenormalize(piece)
        elif position == wanted:
            yield prenormalize(piece)
            wanted = next(positions, -2)  # type: ignore[arg-type]


def raw_sentences(lines: Iterable[bytes], path: str, stats: InputStats, first_line: int = 1) -> Iterator[str]:
    """The sentences of a file's raw `lines` (numbered from `first_line`), not normalized and not counted as
    sentences: the caller counts what it takes. `stats` counts bytes, lines, documents and what is bad.

    A text file's documents end at a blank line (the first line starts one: a caller starting mid-file starts
    after a blank line); a JSONL line is a document whose `text` holds its lines."""
    jsonl = is_jsonl(path)
    in_document = False
    for number, raw in enumerate(lines, first_line):
        stats.bytes += len(raw)
        stats.lines += 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            stats.decode_errors += 1
            stats.problem(f"{path}:{number}", "not valid UTF-8")
            line = raw.decode("utf-8", errors="replace")
        if jsonl:
            text = _jsonl_text(line, f"{path}:{number}", stats)
            if text is None:
                continue
            stats.documents += 1
            pieces = text.split("\n")
        else:
            # NFC keeps every character's whitespace-ness (tested), so a line normalizes to nothing
            # exactly when it is all whitespace: no need to normalize a line that is not wanted
            if line.isspace() or not line:
                in_document = False
                continue
            if not in_document:
                stats.documents += 1
                in_document = True
            pieces = (line,)
        for piece in pieces:
            if piece and not piece.isspace():
                yield piece


def _jsonl_text(line: str, where: str, stats: InputStats) -> str | None:
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as error:
        stats.bad_records += 1
        stats.problem(where, f"bad JSON: {error.msg}")
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        stats.bad_records += 1
        stats.problem(where, "JSON line without a string 'text' field")
        return None
    return obj["text"]


def reservoir_sample(items: Iterable[str], k: int, seed: int) -> tuple[list[str], int]:
    """Exactly min(k, n) items chosen uniformly with Algorithm R, returned in input order, and n."""
    if k <= 0:
        raise ValueError(f"sample size must be positive, got {k}")
    rng = random.Random(seed)
    reservoir: list[tuple[int, str]] = []
    n = 0
    for n, item in enumerate(items, 1):
        if n <= k:
            reservoir.append((n, item))
        else:
            slot = rng.randrange(n)
            if slot < k:
                reservoir[slot] = (n, item)
    reservoir.sort()
    return [item for _, item in reservoir], n


def reservoir_positions(total: int, k: int, seed: int) -> array | None:
    """The positions (0-based, ascending) `reservoir_sample(items, k, seed)` keeps of `total` items, or None
    when it keeps them all. Algorithm R's choices depend on the count and the seed only, so they are drawn here
    without the items: the same sample, without holding it."""
    if k <= 0:
        raise ValueError(f"sample size must be positive, got {k}")
    if total <= k:
        return None
    randrange = random.Random(seed).randrange
    reservoir = array("q", range(k))
    for n in range(k + 1, total + 1):
        slot = randrange(n)
        if slot < k:
            reservoir[slot] = n - 1
    import numpy as np

    return array("q", np.sort(np.frombuffer(reservoir, dtype=np.int64)).tobytes())


class SentenceSample:
    """The training sentences of `files`: all of them, or a seeded sample of `max_sentences`, read back from the
    files on every pass; in memory only the sample's positions (8 bytes a sentence).

    `scan()` is the first pass: it reads every sentence, fills `stats` and draws the sample. It yields the
    sample's sentences when the sample could be drawn before reading (text files: their sentences are counted
    without normalizing them, `count_text_sentences`), else every sentence; `scan_was_sample` says which.
    Iterating the object then yields the sample's sentences in input order, as often as needed; a pass that
    does not find them all (the files changed since the scan) raises ValueError.
    """

    def __init__(self, files: list[str], *, max_sentences: int, seed: int) -> None:
        if max_sentences <= 0:
            raise ValueError(f"sample size must be positive, got {max_sentences}")
        self.files, self.max_sentences, self.seed = files, max_sentences, seed
        self.stats = InputStats()
        self.positions: array | None = None
        self.scan_was_sample = False
        self._scanned = False

    @property
    def is_subset(self) -> bool:
        """Whether the sample leaves sentences out."""
        return self.positions is not None

    def __len__(self) -> int:
        return self.stats.sampled

    def scan(self, progress: bool = False, desc: str = "read") -> Iterator[str]:
        """Every sentence of the files once, counted into `stats`; yields the sample's where it is known first."""
        counted = self._count(progress)
        if counted is not None:
            self.positions = reservoir_positions(counted, self.max_sentences, self.seed)
        yield from self._read(self.positions, self.stats, progress, desc, stop_early=False)
        total = self.stats.sentences
        self.scan_was_sample = counted == total
        if not self.scan_was_sample:  # not counted first (JSONL), or a file changed since it was counted
            self.positions = reservoir_positions(total, self.max_sentences, self.seed)
            self.scan_was_sample = self.positions is None
        self.stats.sampled = len(self.positions) if self.positions is not None else total
        self.stats.not_sampled = total - self.stats.sampled
        self._scanned = True

    def _count(self, progress: bool) -> int | None:
        """The sentence count when it can be known before reading and a sample will be drawn, else None."""
        if line_bound(self.files) <= self.max_sentences:
            return None  # the sample is everything: no need to know how much before
        return count_text_sentences(self.files, progress)

    def __iter__(self) -> Iterator[str]:
        return self.sentences()

    def sentences(self, progress: bool = False, desc: str = "read") -> Iterator[str]:
        """The sample's sentences in input order, read from the files again."""
        if not self._scanned:
            raise RuntimeError("SentenceSample.scan() must run to its end first")
        stats = InputStats()
        found = yield from self._read(self.positions, stats, progress, desc, stop_early=True)
        if found != self.stats.sampled:
            raise ValueError(
                f"the input changed while training: {stats.sentences:,} sentences where the first pass read "
                f"{self.stats.sentences:,} ({', '.join(self.files[:3])}{', ...' if len(self.files) > 3 else ''})"
            )

    def _read(
        self, positions: array | None, stats: InputStats, progress: bool, desc: str, *, stop_early: bool
    ) -> Generator[str, None, int]:
        """The sentences at `positions` (None: all of them); returns how many it yielded."""
        found = 0
        read = iter_sentences(self.files, stats, progress, desc, positions)
        try:
            for sentence in read:
                found += 1
                yield sentence
                if stop_early and positions is not None and found == len(positions):
                    break  # the rest of the files holds no sampled sentence
        finally:
            read.close()
        return found


# The characters str.isspace() takes for whitespace among ASCII (bytes.isspace() lacks \x1c-\x1f).
_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def is_jsonl(path: str) -> bool:
    return files.base_name(path).endswith(".jsonl")


def line_bound(paths: Iterable[str]) -> float:
    """At most this many sentences in `paths`: their lines (newlines counted in blocks); infinite with JSONL."""
    lines = 0
    for path in paths:
        if is_jsonl(path):
            return float("inf")
        last = b"\n"
        with _open_bytes(path) as handle:
            while block := handle.read(1 << 20):
                lines += block.count(b"\n")
                last = block[-1:]
        lines += last != b"\n"
    return lines


def count_text_sentences(paths: Iterable[str], progress: bool = False) -> int | None:
    """How many sentences `iter_sentences` yields from text files, without normalizing them (a line holds one
    when a character of it is not whitespace); None when a file is JSONL (its documents must be parsed)."""
    paths = list(paths)
    if any(is_jsonl(p) for p in paths):
        return None
    bar = progress_bar(sum(os.path.getsize(p) for p in paths), progress, "count")
    count = 0
    try:
        for path in paths:
            with contextlib.closing(_lines(path, bar)) as handle:
                count += count_line_sentences(handle)
    finally:
        if bar is not None:
            bar.close()
    return count


def count_line_sentences(lines: Iterable[bytes]) -> int:
    """How many of a text file's raw `lines` hold a sentence (a character other than whitespace)."""
    count = 0
    for raw in lines:
        if not raw.strip(_ASCII_SPACE):
            continue
        if raw.isascii() or not raw.decode("utf-8", errors="replace").isspace():
            count += 1
    return count


def read_sample(
    patterns: Iterable[str], *, max_sentences: int, seed: int, progress: bool = False
) -> tuple[list[str], InputStats, list[str]]:
    """The training sentences (all of them, or a seeded sample of `max_sentences`), stats, and input files."""
    files = expand_inputs(patterns)
    stats = InputStats()
    sample, total = reservoir_sample(iter_sentences(files, stats, progress), max_sentences, seed)
    stats.sampled = len(sample)
    stats.not_sampled = total - len(sample)
    return sample, stats, files


def progress_bar(total_bytes: int, enabled: bool, desc: str = "read"):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total_bytes, unit="B", unit_scale=True, desc=desc, file=sys.stderr, mininterval=1.0)
