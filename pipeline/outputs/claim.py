"""check_output and claim_output: the one door every command that writes a folder goes through (the package docstring, `pipeline/outputs/__init__.py`, says what they guarantee)."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable, Iterator

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs import folders
from kcorpus.pipeline.outputs.cleanup import clean_up_failure
from kcorpus.pipeline.outputs.lock import acquire_lock, can_take_over, describe_lock, read_lock, release_lock
from kcorpus.pipeline.outputs.marker import (
    MARKER_FILE,
    UNFINISHED,
    is_bookkeeping,
    owned_by,
    read_marker,
    write_marker,
)
from kcorpus.pipeline.outputs.overlap import STREAM, check_separate
from kcorpus.pipeline.outputs.plan import OutputPlan

log = logging.getLogger(__name__)


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
    if holder is not None and not can_take_over(out, holder):  # a dead holder's is taken over by the claim
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
