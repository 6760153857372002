"""`kcorpus read`: read files of one format into a normalized JSONL corpus, with rejects beside it.

Runs in pure Python (no Beam): one process streams the files in order, so the output order is the input order.
Comment threads (`--option thread_field=...`) are joined across all the files given.

`-` as a PATH reads standard input (line formats only); `--out -` writes the documents to standard output and
then needs `--dead-letter` and `--dropped` paths (`/dev/null` discards them; they are still counted), and the
summary goes to stderr. No output may be an input. A reader that goes away (`| head`) ends the run quietly,
exit 0.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterable
from typing import IO

from kcorpus.pipeline import filesystems  # noqa: F401  (registers remote paths with transforms.files)
from kcorpus.pipeline.corpus.config import OutputConfig
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.overlap import check_distinct_files, check_separate
from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.profile.flags import (
    CHOICES,
    HELP,
    METAVAR,
    NAME,
    POSITIONAL,
    REPEAT,
    add_flags,
    from_flags,
)
from kcorpus.transforms.files import STDIN
from kcorpus.transforms.readers import FORMATS, ReadOptions, expand_paths, read_files, reader_for, reason_code
from kcorpus.transforms.record import DeadLetter, Document, Dropped


@dataclasses.dataclass(frozen=True)
class ReadJob:
    """What `kcorpus read` does: each field is a flag (pipeline/profile/flags.py), its help here."""

    paths: tuple[str, ...] = dataclasses.field(metadata={
        POSITIONAL: True, METAVAR: "PATH",
        HELP: "files (or folders: every file under them; a Modu or `datasets` folder is one input); "
              "- reads stdin (line formats)"})
    fmt: str = dataclasses.field(metadata={NAME: "format", CHOICES: FORMATS, HELP: "the inputs' format"})
    out: str = dataclasses.field(metadata={
        HELP: "documents as JSON Lines; - writes stdout (then --dead-letter and --dropped are needed)"})
    dead_letter: str | None = dataclasses.field(default=None, metadata={
        HELP: "unreadable records (default: <out>.rejected.jsonl)"})
    dropped: str | None = dataclasses.field(default=None, metadata={
        HELP: "records skipped with a reason (default: <out>.dropped.jsonl)"})
    source: str | None = dataclasses.field(default=None, metadata={
        HELP: "source name used in ids and records (default: the format)"})
    encoding: str | None = dataclasses.field(default=None, metadata={
        HELP: "text encoding, e.g. cp949 (default utf-8, BOM handled)"})
    option: tuple[str, ...] = dataclasses.field(default=(), metadata={
        REPEAT: True, METAVAR: "KEY=VALUE",
        HELP: "reader option, repeatable: " + ", ".join(f.name for f in dataclasses.fields(ReadOptions))})
    max_dead_letter_fraction: float = dataclasses.field(
        default=default_of(OutputConfig, "max_dead_letter_fraction"),
        metadata={METAVAR: "F", HELP: "exit 1 when more than this share of the records is dead-lettered "
                  f"({default_of(OutputConfig, 'max_dead_letter_fraction')}; 0: any dead letter fails)"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `ReadJob`."""
    add_flags(parser, ReadJob)


def summarize(fmt: str, source: str, counts: collections.Counter, reasons: collections.Counter) -> str:
    """The one summary line: records seen and what became of them (they always add up)."""
    detail = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items()))
    return (f"read {fmt} as {source}: {counts['records']} records -> {counts['documents']} documents, "
            f"{counts['dead_letter']} dead-lettered, {counts['dropped']} dropped"
            + (f" ({detail})" if detail else ""))


def write_records(records: Iterable[Document | DeadLetter | Dropped], out: IO[str], dead: IO[str],
                  dropped: IO[str]) -> tuple[collections.Counter, collections.Counter]:
    """Write each record to its file; counts of outcomes and of dead-letter/drop reasons."""
    counts: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    for record in records:
        if isinstance(record, Document):
            out.write(record.to_json() + "\n")
            counts["documents"] += 1
            # A comment-thread document stands for all of its rows.
            counts["records"] += int(record.metadata.get("comments", 1)) if "thread" in record.metadata else 1
        elif isinstance(record, DeadLetter):
            dead.write(record.to_json() + "\n")
            counts["dead_letter"] += 1
            counts["records"] += 1
            reasons[reason_code(record.reason)] += 1
        else:
            dropped.write(record.to_json() + "\n")
            counts["dropped"] += 1
            counts["records"] += 1
            reasons[record.reason] += 1
    return counts, reasons


def output_paths(job: ReadJob) -> tuple[str, str, str]:
    """The documents, dead-letter and dropped paths; OutputError for a stream or an output that makes no sense.

    Checked before any file is opened, so a refused run never truncates anything.
    """
    if job.paths.count(STDIN) > 1:
        raise OutputError("- (stdin) is given twice; it can be read once")
    if STDIN in job.paths and not reader_for(job.fmt).line_based:
        line_formats = ", ".join(name for name in FORMATS if reader_for(name).line_based)
        raise OutputError(f"- (stdin) works for the line formats ({line_formats}); --format {job.fmt} needs a path")
    if job.out == STDIN and not (job.dead_letter and job.dropped):
        raise OutputError("--out - writes the documents to stdout: give --dead-letter PATH and --dropped PATH "
                          "for the other records (/dev/null discards them; they are still counted)")
    if STDIN in (job.dead_letter, job.dropped):
        raise OutputError("only --out may be - (stdout); --dead-letter and --dropped need paths")
    dead_path = job.dead_letter or f"{job.out}.rejected.jsonl"
    dropped_path = job.dropped or f"{job.out}.dropped.jsonl"
    named = [("--out", job.out), ("--dead-letter", dead_path), ("--dropped", dropped_path)]
    check_distinct_files(named)
    check_separate([path for _, path in named], job.paths)
    for option, path in named:
        if path != STDIN and os.path.isdir(path):
            raise OutputError(f"{option} {path} is a folder; kcorpus read writes a file there")
        if path != STDIN and not os.path.isdir(os.path.dirname(path) or "."):
            raise OutputError(f"{option} {path}: the folder {os.path.dirname(path)} does not exist")
    return job.out, dead_path, dropped_path


def _open_output(path: str, stack: contextlib.ExitStack) -> IO[str]:
    if path == STDIN:
        return stack.enter_context(open(sys.stdout.fileno(), "w", encoding="utf-8", newline="\n", closefd=False))
    return stack.enter_context(open(path, "w", encoding="utf-8", newline="\n"))


def loss_problem(counts: collections.Counter, max_fraction: float) -> str | None:
    """Why a read lost data (nothing read, everything or too much dead-lettered), or None."""
    records, dead = counts["records"], counts["dead_letter"]
    if records == 0:
        return "the inputs held no records at all"
    if counts["documents"] == 0 and dead:
        return f"every record was dead-lettered ({dead} of {records}); see the rejected file"
    if dead > max_fraction * records:
        return (f"{dead} of {records} records dead-lettered ({dead / records:.1%}), more than "
                f"--max-dead-letter-fraction {max_fraction}; see the rejected file")
    return None


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.errors import DataLossError, UserError
    from kcorpus.pipeline.preflight import check, input_problem, output_file_problem
    from kcorpus.pipeline.process import interrupt

    job = from_flags(ReadJob, args)
    try:
        extra = {"encoding": job.encoding} if job.encoding else {}
        options = ReadOptions.from_strings(job.option, **extra)
        options_problem = None
    except (ValueError, TypeError) as err:
        options_problem = f"--option: {err}"
    outputs = (("--out", job.out), ("--dead-letter", job.dead_letter), ("--dropped", job.dropped))
    check([
        options_problem,
        *(input_problem(path, job.fmt) for path in job.paths if path != STDIN),
        *(output_file_problem(path, what) for what, path in outputs if path and path != STDIN),
        None if 0 <= job.max_dead_letter_fraction <= 1 else "--max-dead-letter-fraction: expected 0 to 1",
    ])
    out_path, dead_path, dropped_path = output_paths(job)
    source = job.source or job.fmt
    records = read_files(job.fmt, expand_paths(job.fmt, job.paths), options, source)
    sys.stdout.flush()
    try:
        with contextlib.ExitStack() as stack:
            if out_path != STDIN:
                stack.enter_context(interrupt.writing(out_path))  # Ctrl-C's line names it
            out, dead, dropped = (_open_output(path, stack) for path in (out_path, dead_path, dropped_path))
            counts, reasons = write_records(records, out, dead, dropped)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining about stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ValueError as err:  # a configuration the files contradict, e.g. thread_field on plain lines
        raise UserError(str(err)) from err
    print(summarize(job.fmt, source, counts, reasons), file=sys.stderr if out_path == STDIN else sys.stdout)
    lost = loss_problem(counts, job.max_dead_letter_fraction)
    if lost:
        raise DataLossError(lost)
    return 0
