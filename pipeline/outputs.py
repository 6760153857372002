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
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import fnmatch
import glob
import json
import logging
import os
import re
import shutil
import socket
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kcorpus.pipeline.errors import DiskFullError, UserError

log = logging.getLogger(__name__)

MARKER_FILE = ".kcorpus-owned.json"
LOCK_FILE = ".kcorpus.lock"
STREAM = "-"

_VOCAB_FILES = (
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "spm.model",
    "spm.vocab",
    "manifest.json",
)
_ATOMIC_TMP = ".*.tmp-*"  # pipeline/atomic.py's temporary names
# The top-level entries each command writes into its output folder: what `--overwrite` may remove there.
# A folder named here (pack's `train/`) is kcorpus's as a whole; anything not named is the user's and stays.
OWNED_ENTRIES: dict[str, tuple[str, ...]] = {
    "build-corpus": (
        "stats.json", "text", "docs", "rejected", "examples", "stages.json", ".tmp-build-*", _ATOMIC_TMP
    ),
    "pack": (
        "manifest.json", "dataset_dict.json", "train", "validation", "rejected", "stages.json", _ATOMIC_TMP
    ),
    "train-vocab": _VOCAB_FILES,
    "vocab-merge": _VOCAB_FILES,
    "vocab-report": ("report.json", "report.md", "report.html"),
    "audit": ("audit.json", "audit.md", "audit.html"),
    "run": (
        "corpus",
        "vocab",
        "vocab-report",
        "pack",
        "*.partial",
        "*.old",
        "report.json",
        "report.md",
        "report.html",
    ),
}


class OutputError(UserError, ValueError):
    """An output path kcorpus must not write (or a folder another process is writing): one line, exit 2."""


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
    if not _is_remote(out) and os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"--out {out} is a file; {command} writes a folder")
    remove = _previous_output(out, command, overwrite=overwrite, resume=resume)
    return OutputPlan(out, command, remove, overwrite, resume)


def _previous_output(out: str, command: str, *, overwrite: bool, resume: bool) -> tuple[str, ...]:
    """The entries of a previous output `overwrite` removes; OutputError for a folder that may not be used."""
    entries = [e for e in list_entries(out) if not is_bookkeeping(e)]
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
    _makedirs(plan.out)
    lock = acquire_lock(plan.out, plan.command)
    try:
        marker = read_marker(plan.out) or {}
        remove = _previous_output(plan.out, plan.command, overwrite=plan.overwrite, resume=plan.resume)
        if remove and not plan.overwrite:
            log.warning("--out %s: removing what a kcorpus %s run that did not finish left there (%s)",
                        plan.out, plan.command, ", ".join(remove[:3]))
        for entry in remove:
            _remove_entry(plan.out, entry)
        write_marker(plan.out, plan.command, state="running")
        try:
            yield plan
        except BaseException as err:
            _clean_up_failure(plan, err, marker)
            raise
        write_marker(plan.out, plan.command)
    finally:
        release_lock(plan.out, lock)


def _clean_up_failure(plan: OutputPlan, err: BaseException, marker: dict[str, Any]) -> None:
    """After a failed run: its temporary files go (all it wrote when the disk is full), the marker says
    `failed` (or is restored for `kcorpus run`, whose finished stages stay); DiskFullError for ENOSPC."""
    full = None if isinstance(err, DiskFullError) else disk_full(err)  # a stage's own report stands
    if not plan.resume:
        for entry in list_entries(plan.out):
            if is_bookkeeping(entry) or not owned_by(plan.command, entry):
                continue
            if full:
                _remove_entry(plan.out, entry)
            else:
                _remove_temporary(plan.out, entry)
    with contextlib.suppress(OSError):  # the marker is bookkeeping: the run's own error is the one to report
        write_marker(plan.out, plan.command, state=marker.get("state", "complete") if plan.resume else "failed")
    if full is not None:
        kept = "its finished stages are kept" if plan.resume else "the partial output was removed"
        raise DiskFullError(f"--out {plan.out}: no space left on device (ENOSPC) writing {full}; {kept}: free "
                            "space or choose another folder, then run again") from err


# `[Errno 28] No space left on device: 'path'`, also as text inside a Beam worker's RuntimeError
_ENOSPC_TEXT = re.compile(r"\[Errno 28\] No space left on device(?:: '([^']*)')?")


def disk_full(err: BaseException) -> str | None:
    """The path (or "a file") an exception says the disk was full writing, or None when it is not ENOSPC."""
    seen: set[int] = set()
    at: BaseException | None = err
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        if isinstance(at, OSError) and at.errno == errno.ENOSPC:
            return at.filename or "a file"
        found = _ENOSPC_TEXT.search(str(at))
        if found:
            return found.group(1) or "a file"
        at = at.__cause__ or at.__context__
    return None


def _remove_temporary(out: str, entry: str) -> None:
    """Delete the temporary files (pipeline/atomic.py's `*.tmp-*` names) of one entry of the folder."""
    from kcorpus.pipeline import filesystems as fs

    if ".tmp-" in entry:
        _remove_entry(out, entry)
        return
    path = _join(out, entry)
    for rel in fs.list_files(path):
        if ".tmp-" in rel.rsplit("/", 1)[-1]:
            fs.delete_file(fs.join(path, rel))


def is_bookkeeping(name: str) -> bool:
    """The marker, the lock and their temporary names: never part of a command's output."""
    return name.startswith(".kcorpus")


def owned_by(command: str, entry: str) -> bool:
    """Whether a top-level entry of an output folder is one `command` writes."""
    return any(fnmatch.fnmatchcase(entry, pattern) for pattern in OWNED_ENTRIES[command])


# ---- overlap of outputs and inputs ---------------------------------------------------------------------


def check_separate(outputs: Sequence[str], inputs: Iterable[str]) -> None:
    """Refuse an output equal to an input, inside an input folder, or holding an input (and `-` as an input).

    `inputs` may be files, folders or globs; a glob stands for its matches (and, with `**`, its folder).
    """
    roots = [(pattern, root) for pattern in inputs for root in input_roots(pattern)]
    for out in outputs:
        if out == STREAM:
            continue
        target = _normalize(out)
        for pattern, root in roots:
            if target == root:
                raise OutputError(f"output {out} is the input {pattern}; kcorpus never writes over an input")
            if _inside(target, root):
                raise OutputError(
                    f"output {out} is inside the input folder {pattern}; write it outside that folder"
                )
            if _inside(root, target):
                raise OutputError(
                    f"input {pattern} is inside the output folder {out}; choose an output folder that holds no input"
                )


def check_distinct_files(named: Sequence[tuple[str, str]]) -> None:
    """Refuse two outputs of one command that are the same file: `named` is (option, path) pairs."""
    seen: dict[str, str] = {}
    for option, path in named:
        if path in (STREAM, os.devnull):
            continue
        key = _normalize(path)
        if key in seen:
            raise OutputError(f"{option} {path} is also {seen[key]}; give each output its own path")
        seen[key] = option


def input_roots(pattern: str) -> list[str]:
    """The normalized paths an input stands for: itself, or a glob's matches (and its folder with `**`)."""
    if pattern == STREAM:
        return []
    if not glob.has_magic(pattern):
        return [_normalize(pattern)]
    roots = [] if _is_remote(pattern) else [_normalize(m) for m in glob.glob(pattern, recursive=True)]
    if "**" in pattern or _is_remote(pattern):
        static = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)].rsplit("/", 1)[0]
        roots.append(_normalize(static or "."))
    return roots


def _normalize(path: str) -> str:
    if _is_remote(path):
        return path.rstrip("/")
    return os.path.realpath(os.path.expanduser(path))


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


# ---- marker and lock ----------------------------------------------------------------------------------


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# Marker states of a run that did not finish: what it left is its own leftovers, not a finished output.
UNFINISHED = ("running", "failed")


def write_marker(out: str, command: str, state: str = "complete") -> None:
    """Write (or refresh) `.kcorpus-owned.json`: which command owns the folder, since when, which release,
    and whether its last run finished (`state`: `running`, `failed` or `complete`)."""
    from kcorpus import __version__

    previous = read_marker(out) or {}
    marker = {
        "owner": "kcorpus",
        "command": command,
        "kcorpus_version": __version__,
        "created_at": previous.get("created_at", _now()),
        "updated_at": _now(),
        "state": state,
    }
    _write_text(_join(out, MARKER_FILE), json.dumps(marker, indent=2) + "\n")


def read_marker(out: str) -> dict[str, Any] | None:
    """The folder's ownership marker, or None when kcorpus did not create it."""
    text = _read_text(_join(out, MARKER_FILE))
    if text is None:
        return None
    try:
        marker = json.loads(text)
    except json.JSONDecodeError:
        return None
    return marker if isinstance(marker, dict) and marker.get("owner") == "kcorpus" else None


def read_lock(out: str) -> dict[str, Any] | None:
    """Who holds the folder's lock, or None when it is free."""
    text = _read_text(_join(out, LOCK_FILE))
    if text is None:
        return None
    try:
        holder = json.loads(text)
    except json.JSONDecodeError:
        holder = None
    return (
        holder if isinstance(holder, dict) else {"pid": "?", "host": "?", "command": "?", "started_at": "?"}
    )


def describe_lock(out: str, holder: dict[str, Any]) -> str:
    """The one-line refusal naming a lock's holder, and how to clear it when the holder is gone."""
    who = (
        f"kcorpus {holder.get('command')} (pid {holder.get('pid')} on {holder.get('host')}, "
        f"since {holder.get('started_at')})"
    )
    lock = _join(out, LOCK_FILE)
    if holder_is_dead(holder):
        return (
            f"{out} is locked by {who}, which is no longer running; if no other kcorpus writes there, "
            f"delete {lock} and run again"
        )
    return f"{out} is being written by {who}; wait for it to finish (or stop it), or choose another folder"


def holder_is_dead(holder: dict[str, Any]) -> bool:
    """True for a lock of this host whose process is gone (a lock from another host is never judged)."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return False
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def acquire_lock(out: str, command: str) -> str:
    """Create the folder's lock atomically; OutputError naming the holder when it exists. Returns its token."""
    token = uuid.uuid4().hex
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": command,
        "started_at": _now(),
        "token": token,
    }
    text = json.dumps(holder) + "\n"
    lock = _join(out, LOCK_FILE)
    if _is_remote(out):
        if _read_text(lock) is None:
            _write_text(lock, text)
            return token
    else:
        tmp = os.path.join(out, f".kcorpus.lock.{token}")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            os.link(tmp, lock)  # fails when the lock exists: the holder check and the create are one step
            return token
        except FileExistsError:
            pass
        finally:
            os.remove(tmp)
    raise OutputError(describe_lock(out, read_lock(out) or {}))


def release_lock(out: str, token: str) -> None:
    """Remove the folder's lock if it is still ours."""
    holder = read_lock(out)
    if holder is not None and holder.get("token") == token:
        _remove_entry(out, LOCK_FILE)


# ---- local and remote folders -------------------------------------------------------------------------


def _is_remote(path: str) -> bool:
    return "://" in path


def _join(out: str, name: str) -> str:
    return f"{out.rstrip('/')}/{name}" if _is_remote(out) else os.path.join(out, name)


def list_entries(out: str) -> list[str]:
    """The top-level names in a folder (files and folders, hidden ones included); [] when it is absent."""
    if not _is_remote(out):
        return sorted(os.listdir(out)) if os.path.isdir(out) else []
    from kcorpus.pipeline import filesystems as fs

    return sorted({rel.split("/", 1)[0] for rel in fs.list_files(out)})


def _makedirs(out: str) -> None:
    if not _is_remote(out):
        os.makedirs(out, exist_ok=True)


def _read_text(path: str) -> str | None:
    if not _is_remote(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
    from kcorpus.pipeline import filesystems as fs

    try:
        return fs.read_bytes(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None


def _write_text(path: str, text: str) -> None:
    if not _is_remote(path):
        tmp = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        return
    from kcorpus.pipeline import filesystems as fs

    fs.write_bytes(path, text.encode("utf-8"))


def _remove_entry(out: str, entry: str) -> None:
    path = _join(out, entry)
    if not _is_remote(out):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        return
    from kcorpus.pipeline import filesystems as fs

    fs.delete_file(path)  # an object named `entry`
    fs.delete_tree(path)  # the objects under the prefix `entry/`
