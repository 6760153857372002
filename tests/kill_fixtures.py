"""Kill a kcorpus command with SIGKILL at a chosen moment: the resume tests of build-corpus and pack."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

When = Callable[[float], bool]  # seconds since the start -> whether to kill now


def after(seconds: float) -> When:
    return lambda elapsed: elapsed >= seconds


def once_files(folder: Path, pattern: str = "*", count: int = 1) -> When:
    """As soon as `count` files matching `pattern` are in `folder` (units finished, or final outputs begun)."""
    return lambda _: folder.exists() and sum(1 for _ in folder.glob(pattern)) >= count


def run_and_kill(argv: list[str], when: When) -> bool:
    """Starts a command in its own process group and kills the group with SIGKILL once `when` says so; False
    when the command ended first."""
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started = time.monotonic()
    while proc.poll() is None:
        if when(time.monotonic() - started):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.005)
    return False
