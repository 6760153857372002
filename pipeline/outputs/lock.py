"""The writer's lock: `.kcorpus.lock` (pid, host, command, start time), created atomically (written under a
temporary name and hard-linked into place). A lock left by a process that died (same host, pid gone) is
reported with how to clear it; it is never taken over silently. A remote folder's lock is best effort
(an object store has no atomic create-if-absent through Beam's FileSystems).
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from typing import Any

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs import folders
from kcorpus.pipeline.outputs.marker import now

LOCK_FILE = ".kcorpus.lock"


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


def describe_lock(out: str, holder: dict[str, Any]) -> str:
    """The one-line refusal naming a lock's holder, and how to clear it when the holder is gone."""
    who = (
        f"kcorpus {holder.get('command')} (pid {holder.get('pid')} on {holder.get('host')}, "
        f"since {holder.get('started_at')})"
    )
    lock = folders.join(out, LOCK_FILE)
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
        "started_at": now(),
        "token": token,
    }
    text = json.dumps(holder) + "\n"
    lock = folders.join(out, LOCK_FILE)
    if folders.is_remote(out):
        if folders.read_text(lock) is None:
            folders.write_text(lock, text)
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
        folders.remove_entry(out, LOCK_FILE)
