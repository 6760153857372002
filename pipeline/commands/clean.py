"""`kcorpus clean`: a Unix filter that writes one cleaned line per input line.

    kcorpus clean [--preset P] [--option KEY=VALUE ...] [--column NAME] [--summary] [FILE ...]

Reads the files in order, or stdin when there are none (or for `-`). Lines end at "\\n"; a final line
without one still gives one output line. With `--column NAME` the input is TSV with a header row (NSMC's
`id document label`): only that column is cleaned; the header and the other columns pass through unchanged.

Invalid UTF-8 stops the run with `FILE:LINE: invalid UTF-8 ...` on stderr and exit status 1 (the lines
before it are already written). `--invalid-utf8 replace` instead cleans such a line with U+FFFD in place of
the bad bytes (which the whitelist then turns into a space), reports each one on stderr with its location,
and counts them in the summary: no line is ever dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from kcorpus.pipeline.profile.flags import CHOICES, HELP, METAVAR, POSITIONAL, REPEAT, add_flags, from_flags
from kcorpus.transforms import files
from kcorpus.transforms.text.clean import OPTION_NAMES, PRESETS, make_cleaner

PROG = "kcorpus clean"
_BATCH_LINES = 4096


class InputError(Exception):
    """Bad input at a known place: reported as one line on stderr, never a traceback."""


@dataclass
class Summary:
    """What `--summary` prints: lines cleaned (not a TSV header), bytes read and written."""

    lines: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    empty_after: int = 0
    invalid_utf8: int = 0

    def render(self, preset: str, seconds: float) -> str:
        mb_in, mb_out = self.bytes_in / 1e6, self.bytes_out / 1e6
        rate = mb_in / seconds if seconds > 0 else float("inf")
        text = (
            f"{PROG}: preset {preset}: {self.lines:,} lines, {mb_in:.2f} MB in, {mb_out:.2f} MB out, "
            f"{self.empty_after:,} empty after cleaning, {seconds:.2f} s, {rate:.1f} MB/s"
        )
        if self.invalid_utf8:
            text += f", {self.invalid_utf8:,} line(s) with invalid UTF-8 replaced"
        return text


@dataclass(frozen=True)
class CleanJob:
    """What `kcorpus clean` does: each field is a flag (pipeline/profile/flags.py), its help here."""

    files: tuple[str, ...] = field(default=(), metadata={
        POSITIONAL: True, METAVAR: "FILE", HELP: "input files (default: stdin; '-' is stdin)"})
    preset: str = field(default="kcelectra", metadata={CHOICES: tuple(sorted(PRESETS)), HELP: "default: kcelectra"})
    option: tuple[str, ...] = field(default=(), metadata={
        REPEAT: True, METAVAR: "KEY=VALUE",
        HELP: f"override one preset option (repeatable); keys: {', '.join(OPTION_NAMES)}"})
    column: str | None = field(default=None, metadata={
        METAVAR: "NAME",
        HELP: "input is TSV with a header row: clean only this column (a header name or a 1-based number)"})
    invalid_utf8: str = field(default="fail", metadata={
        CHOICES: ("fail", "replace"),
        HELP: "fail (default): stop with the file and line; replace: clean the line with U+FFFD, report it"})
    summary: bool = field(default=False, metadata={
        HELP: "print lines, MB in/out, empty lines and MB/s on stderr"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `CleanJob`."""
    add_flags(parser, CleanJob)


def main(args: argparse.Namespace) -> int:
    job = from_flags(CleanJob, args)
    try:
        cleaner = make_cleaner(job.preset, **parse_options(job.option))
    except (ValueError, TypeError) as err:
        return _fail(str(err), status=2)
    for path in job.files:
        if path != "-" and not os.path.exists(path):
            return _fail(f"{path}: no such file", status=2)
        if os.path.isdir(path):
            return _fail(f"{path}: is a directory", status=2)

    summary = Summary()
    start = time.perf_counter()
    out = sys.stdout.buffer
    pending: list[str] = []
    name = "<stdin>"
    try:
        for path in job.files or ["-"]:
            name = "<stdin>" if path == "-" else path
            with _open(path) as stream:
                for line in clean_stream(stream, name, cleaner, job, summary):
                    pending.append(line)
                    if len(pending) >= _BATCH_LINES:
                        _write(out, pending, summary)
        _write(out, pending, summary)
    except InputError as err:
        _write(out, pending, summary)  # everything before the bad line is out, as the message says
        return _fail(str(err), status=1)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # a file that cannot be opened, or a corrupt compressed one
        return _fail(f"{err.filename or name}: {err.strerror or err}", status=2)
    except files.STREAM_ERRORS as err:  # a truncated compressed file (EOFError), zlib's and lzma's errors
        _write(out, pending, summary)
        return _fail(f"{name}: {err}", status=1)
    if job.summary:
        print(summary.render(job.preset, time.perf_counter() - start), file=sys.stderr)
    return 0


def parse_options(pairs: Iterable[str]) -> dict[str, bool | int]:
    """`["remove_ooo=true", "num_repeats=3"]` -> `{"remove_ooo": True, "num_repeats": 3}`."""
    options: dict[str, bool | int] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--option expects KEY=VALUE, got {pair!r}")
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "on", "1") and key != "num_repeats":
            options[key] = True
        elif lowered in ("false", "no", "off", "0") and key != "num_repeats":
            options[key] = False
        elif lowered.isdigit():
            options[key] = int(lowered)
        else:
            raise ValueError(f"--option {key}: expected true/false or a number, got {value!r}")
    return options


def clean_stream(
    stream: BinaryIO,
    name: str,
    cleaner: Callable[[str], str],
    job: CleanJob,
    summary: Summary,
) -> Iterator[str]:
    """The output lines (without "\\n") for one input stream; adds to `summary` as it goes."""
    lines = enumerate(stream, start=1)
    column: int | None = None
    if job.column is not None:
        for lineno, raw in lines:
            summary.bytes_in += len(raw)
            header = _decode(_chomp(raw), name, lineno, job.invalid_utf8, summary)
            column = find_column(header.lstrip("\ufeff").split("\t"), job.column, name)
            yield header
            break
    count = empty = bytes_in = 0
    try:
        for lineno, raw in lines:
            bytes_in += len(raw)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = _decode(raw, name, lineno, job.invalid_utf8, summary)
            if column is None:
                # The line break is whitespace, which cleaning removes anyway.
                cleaned = cleaner(line)
                yield cleaned
            else:
                fields = _chomp_text(line).split("\t")
                if column >= len(fields):
                    raise InputError(
                        f"{name}:{lineno}: {len(fields)} tab-separated fields, column {job.column!r} "
                        f"is field {column + 1}"
                    )
                cleaned = fields[column] = cleaner(fields[column])
                yield "\t".join(fields)
            count += 1
            empty += not cleaned
    finally:
        summary.lines += count
        summary.empty_after += empty
        summary.bytes_in += bytes_in


def find_column(header: list[str], wanted: str, name: str) -> int:
    """The 0-based index of `wanted` (a header name, else a 1-based number) in a TSV header."""
    if wanted in header:
        return header.index(wanted)
    if wanted.isdigit() and 1 <= int(wanted) <= len(header):
        return int(wanted) - 1
    raise InputError(f"{name}:1: no column {wanted!r} in the header (columns: {', '.join(header)})")


def _decode(raw: bytes, name: str, lineno: int, policy: str, summary: Summary) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        where = f"{name}:{lineno}: invalid UTF-8 at byte {err.start + 1} of the line ({raw[err.start : err.end]!r})"
        if policy == "fail":
            raise InputError(f"{where}; use --invalid-utf8 replace to clean such lines anyway") from None
        print(f"{PROG}: {where}: replaced with U+FFFD", file=sys.stderr)
        summary.invalid_utf8 += 1
        return raw.decode("utf-8", errors="replace")


def _write(out: BinaryIO, pending: list[str], summary: Summary) -> None:
    if pending:
        data = ("\n".join(pending) + "\n").encode("utf-8")
        out.write(data)
        out.flush()
        summary.bytes_out += len(data)
        pending.clear()


def _chomp(raw: bytes) -> bytes:
    return raw[:-2] if raw.endswith(b"\r\n") else raw.removesuffix(b"\n")


def _chomp_text(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line.removesuffix("\n")


def _open(path: str) -> contextlib.AbstractContextManager[BinaryIO]:
    """A file's bytes, decompressed (.gz, .bz2, .zst, .xz, or by magic bytes); stdin is left open."""
    return files.open_binary(path)  # type: ignore[return-value]


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return status
