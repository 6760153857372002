"""A lock holder's identity, and whether a recorded holder is provably gone.

A process is named by its host, pid, start time (clock ticks after boot, `/proc/PID/stat` field 22), the
kernel's boot id and its pid namespace. A holder is gone only when all of that is known and it shows the
process no longer exists on this host: same host, boot and pid namespace (so the pid means the same thing
here), and either no process has that pid or the one that has it started at another time (the pid was
reused after the holder died). Anything else (another host, another boot or container, a lock written
without these fields, no `/proc`) is doubt, and a doubtful holder is treated as alive.
"""

from __future__ import annotations

import os
import socket
from typing import Any

_BOOT_ID = "/proc/sys/kernel/random/boot_id"


def process_identity(pid: int | None = None) -> dict[str, Any]:
    """This process's identity as a lock records it (pid_start, boot_id, pid_ns are None where unknown)."""
    pid = os.getpid() if pid is None else pid
    return {
        "pid": pid,
        "host": socket.gethostname(),
        "pid_start": start_ticks(pid),
        "boot_id": _read(_BOOT_ID),
        "pid_ns": _pid_namespace(),
    }


def holder_is_gone(holder: dict[str, Any]) -> bool:
    """True only when the holder is provably no longer running on this host (see the module docstring)."""
    here = process_identity()
    recorded = (holder.get(key) for key in ("pid", "pid_start", "boot_id", "pid_ns"))
    if holder.get("host") != here["host"] or None in recorded or None in here.values():
        return False
    if (holder["boot_id"], holder["pid_ns"]) != (here["boot_id"], here["pid_ns"]):
        return False  # a reboot and a machine or container of the same name look alike: doubt
    if not isinstance(holder["pid"], int) or not isinstance(holder["pid_start"], int):
        return False
    started = start_ticks(holder["pid"])
    if started is None:
        return not os.path.exists(f"/proc/{holder['pid']}")  # no such pid (not an unreadable one)
    return started != holder["pid_start"]  # the pid was reused after the holder died


def start_ticks(pid: int) -> int | None:
    """When process `pid` started, in clock ticks after boot; None when there is no such process or no /proc."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or ')': the fields after its last ')'
    # start with field 3 (state), so field 22 (starttime) is the 20th of them.
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None
