"""Output safety: the one owner of "may kcorpus write (or clear) this folder, and is anyone else writing it?".

Every output folder a command creates carries `.kcorpus-owned.json` (the command, kcorpus version, time).
Before any work, `check_output` refuses (`OutputError`, one line):
- `-` as a folder, an output that is a file, an output equal to or inside an input, or an input inside it;
- a non-empty folder without the marker (kcorpus never deletes or mixes into a folder it does not own);
- a folder owned by another command, or holding this command's previous output without `overwrite`;
- a folder another kcorpus process holds the lock of (`.kcorpus.lock`: pid, host, command, start time).

`claim_output` then takes the lock (created atomically: written under a temporary name and hard-linked into
place), removes only the entries this command writes (`OWNED_ENTRIES`, when overwriting: any other file is the
user's and stays), writes the marker, and releases the lock when the work ends. A lock left by a process that
died (same host, pid gone) is reported with how to clear it; it is never taken over silently.
Remote folders (`gs://`) get the same marker and checks; their lock is best effort (an object store has no
atomic create-if-absent through Beam's FileSystems).

The marker's `state` is `running` while a command writes and `complete` once it finished: a run that failed
(or was killed) leaves `running` or `failed`, and the next run removes those leftovers as its own, without
`--overwrite`. A failed run removes its temporary files; one that ran out of disk space (ENOSPC) removes all
it wrote, so the disk is not left full, and ends with one line naming ENOSPC and the folder (`DiskFullError`).

This module checks and claims a folder; the pieces are `output_marker.py` (the marker, `OWNED_ENTRIES`),
`output_lock.py` (the lock), `output_overlap.py` (outputs against inputs), `output_cleanup.py` (after a
failed run, ENOSPC) and `output_folders.py` (a folder's entries and small files, local or remote).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Iterable, Iterator

from kcorpus.pipeline import output_folders as folders
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.output_cleanup import clean_up_failure
from kcorpus.pipeline.output_lock import acquire_lock, describe_lock, read_lock, release_lock
from kcorpus.pipeline.output_marker import (
    MARKER_FILE,
    UNFINISHED,
    is_bookkeeping,
    owned_by,
    read_marker,
    write_marker,
)
from kcorpus.pipeline.output_overlap import STREAM, check_separate

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class OutputPlan:
    """A checked output folder: what `claim_output` will do to it.

    Attributes:
        out: the folder (local or remote).
        command: the command that writes it (a key of `OWNED_ENTRIES`).
        remove: the entries of a previous output `--overwrite` removes (relative names), nothing else.
    """

    out: str
    command: str
    remove: tuple[str, ...] = ()
    overwrite: bool = False
    resume: bool = False


def check_output(
    out: str, command: str, inputs: Iterable[str] = (), *, overwrite: bool = False, resume: bool = False
) -> OutputPlan:
    """Refuse (OutputError) an output folder `command` must not write; read-only, so call it first.

    Args:
        out: the output folder.
        command: the writing command, a key of `OWNED_ENTRIES`.
        inputs: every path, folder or glob the command reads (checked for overlap with `out`).
        overwrite: a previous output of the same command may be replaced (only its own entries go).
        resume: a previous output of the same command is kept and added to (`kcorpus run`).
    """
    if out.strip() == STREAM:
        raise OutputError(f"--out -: {command} writes a folder, not a stream; give a folder path")
    inputs = list(inputs)
    if STREAM in inputs:
        raise OutputError(f"- (stdin): {command} reads files, not a stream; give a path")
    check_separate([out], inputs)
    holder = read_lock(out)
    if holder is not None:
        raise OutputError(describe_lock(out, holder))
    if not folders.is_remote(out) and os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"--out {out} is a file; {command} writes a folder")
    remove = _previous_output(out, command, overwrite=overwrite, resume=resume)
    return OutputPlan(out, command, remove, overwrite, resume)


def _previous_output(out: str, command: str, *, overwrite: bool, resume: bool) -> tuple[str, ...]:
    """The entries of a previous output `overwrite` removes; OutputError for a folder that may not be used."""
    entries = [e for e in folders.list_entries(out) if not is_bookkeeping(e)]
    marker = read_marker(out)
    if entries and marker is None:
        raise OutputError(
            f"--out {out} is not empty and kcorpus did not create it (no {MARKER_FILE}); kcorpus never "
            "deletes or mixes files into a folder it does not own: choose a new or empty folder"
        )
    if marker is not None and marker.get("command") != command:
        raise OutputError(
            f"--out {out} holds the output of kcorpus {marker.get('command')}, not of {command}; "
            "choose another folder"
        )
    owned = [e for e in entries if owned_by(command, e)]
    if owned and not resume and marker is not None and marker.get("state") in UNFINISHED:
        return tuple(owned)  # a failed or killed run's leftovers: its own, never a finished output
    if owned and not (overwrite or resume):
        raise OutputError(
            f"--out {out} holds a previous {command} output ({', '.join(owned[:3])}); pass --overwrite to "
            "replace it (only kcorpus's own files there are removed)"
        )
    return tuple(owned) if overwrite else ()


@contextlib.contextmanager
def claim_output(plan: OutputPlan) -> Iterator[OutputPlan]:
    """Lock the folder, remove the previous output's own entries, write the marker; unlock when done.

    The folder is checked again once locked: a writer that finished between `check_output` and the lock
    is not written over.
    """
    folders.makedirs(plan.out)
    lock = acquire_lock(plan.out, plan.command)
    try:
        marker = read_marker(plan.out) or {}
        remove = _previous_output(plan.out, plan.command, overwrite=plan.overwrite, resume=plan.resume)
        if remove and not plan.overwrite:
            log.warning("--out %s: removing what a kcorpus %s run that did not finish left there (%s)",
                        plan.out, plan.command, ", ".join(remove[:3]))
        for entry in remove:
            folders.remove_entry(plan.out, entry)
        write_marker(plan.out, plan.command, state="running")
        try:
            yield plan
        except BaseException as err:
            clean_up_failure(plan, err, marker)
            raise
        write_marker(plan.out, plan.command)
    finally:
        release_lock(plan.out, lock)
