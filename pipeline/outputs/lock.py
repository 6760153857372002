"""The writer's lock: `.kcorpus.lock` (pid, host, command, start time, and what proves the holder gone:
its process start time, boot id and pid namespace, `holder.py`), created atomically (written under a
temporary name and hard-linked into place). A lock whose holder is provably gone from this host is taken over
with one warning line; one left by a process that may have died (another boot, an older lock) is reported
with how to clear it. A remote folder's lock is best effort (an object store has no atomic create-if-absent
through Beam's FileSystems) and never taken over.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import uuid
from typing import Any

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs import folders
from kcorpus.pipeline.outputs.holder import holder_is_gone, process_identity
from kcorpus.pipeline.outputs.marker import now

LOCK_FILE = ".kcorpus.lock"
TAKEOVER_FILE = ".kcorpus.lock.takeover"  # held while a dead holder's lock is replaced: one taker at a time

log = logging.getLogger(__name__)
# The locks this process holds (folder -> token): a second Ctrl-C releases them on its way out
# (pipeline/process/interrupt.py).
_held: dict[str, str] = {}


def held_locks() -> dict[str, str]:
    """The folders this process holds the lock of, and their tokens."""
    return dict(_held)


def read_lock(out: str) -> dict[str, Any] | None:
    """Who holds the folder's lock, or None when it is free."""
    text = folders.read_text(folders.join(out, LOCK_FILE))
    if text is None:
        return None
    try:
        holder = json.loads(text)
    except json.JSONDecodeError:
        holder = None
    return (
        holder if isinstance(holder, dict) else {"pid": "?", "host": "?", "command": "?", "started_at": "?"}
    )


def describe_holder(holder: dict[str, Any]) -> str:
    """`kcorpus pack (pid 41233 on trainbox, since 2026-11-22T17:20:03+00:00)`."""
    return (
        f"kcorpus {holder.get('command')} (pid {holder.get('pid')} on {holder.get('host')}, "
        f"since {holder.get('started_at')})"
    )


def can_take_over(out: str, holder: dict[str, Any]) -> bool:
    """True when `holder`'s lock on `out` will be taken over: a local folder, its holder provably gone."""
    return not folders.is_remote(out) and holder_is_gone(holder)


def describe_lock(out: str, holder: dict[str, Any]) -> str:
    """The one-line refusal naming a lock's holder, and how to clear it when the holder is gone."""
    who = describe_holder(holder)
    lock = folders.join(out, LOCK_FILE)
    if holder_is_dead(holder):
        return (
            f"{out} is locked by {who}, which is no longer running; if no other kcorpus writes there, "
            f"delete {lock} and run again"
        )
    return f"{out} is being written by {who}; wait for it to finish (or stop it), or choose another folder"


def holder_is_dead(holder: dict[str, Any]) -> bool:
    """True for a lock of this host whose pid is gone, proof or not (the refusal's wording; a lock from
    another host is never judged)."""
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
    holder = {**process_identity(), "command": command, "started_at": now(), "token": token}
    text = json.dumps(holder) + "\n"
    lock = folders.join(out, LOCK_FILE)
    if folders.is_remote(out):
        if folders.read_text(lock) is None:
            folders.write_text(lock, text)
            _held[out] = token
            return token
    else:
        tmp = os.path.join(out, f".kcorpus.lock.{token}")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            os.link(tmp, lock)  # fails when the lock exists: the holder check and the create are one step
            _held[out] = token
            return token
        except FileExistsError:
            if _take_over(out, tmp):
                _held[out] = token
                return token
        finally:
            os.remove(tmp)
    raise OutputError(describe_lock(out, read_lock(out) or {}))


def _take_over(out: str, ours: str) -> bool:
    """Replace a provably dead holder's lock by ours (the file `ours`, linked into place); False otherwise.

    Takers exclude each other with a second atomic file; the lock is replaced only if it is still the one
    judged dead, so a taker that lost the race finds the winner's (live) lock and is refused.
    """
    lock = os.path.join(out, LOCK_FILE)
    guard = os.path.join(out, TAKEOVER_FILE)
    dead = read_lock(out)
    if dead is None or not can_take_over(out, dead):
        return False
    try:
        os.link(ours, guard)
    except FileExistsError:
        raise OutputError(
            f"{out}: another kcorpus is taking over the lock left by {describe_holder(dead)}; if none is, "
            f"delete {guard} and {lock} and run again"
        ) from None
    try:
        if read_lock(out) != dead:
            return False  # another taker replaced it first: that one holds the folder now
        os.remove(lock)
        os.link(ours, lock)
    except FileExistsError:
        return False  # a new writer linked its lock between the removal and ours: it holds the folder
    finally:
        os.remove(guard)
    log.warning("%s: taking over the lock of %s, which is no longer running", out, describe_holder(dead))
    return True


def release_lock(out: str, token: str) -> None:
    """Remove the folder's lock if it is still ours."""
    holder = read_lock(out)
    if holder is not None and holder.get("token") == token:
        folders.remove_entry(out, LOCK_FILE)
    if _held.get(out) == token:
        del _held[out]
