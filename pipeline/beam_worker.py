"""The entry point of kcorpus's local Beam worker subprocesses: Beam's SDK harness with quiet logging.

Beam's `sdk_worker_main` sets the root logger to INFO at start-up, whatever `--default_sdk_harness_log_level`
says, and a module-level `logging.warning` in Beam gives the root logger a stderr handler: ~20 INFO lines per
worker. Here the root logger gets one handler first, at the level `kcorpus.pipeline.console` put into the
environment; the harness may raise the root logger's level, but the handler's level still filters. The
worker inspects DoFn signatures through `signature_cache`, as the launcher does.

A worker ignores SIGINT (from its start: `trap '' INT` in `QUIET_WORKER_COMMAND`): Ctrl-C reaches every process
of the terminal's process group, and the launcher, not the terminal, ends its workers (SIGTERM,
pipeline/process/interrupt.py), so no worker prints a KeyboardInterrupt traceback. On Linux a worker also gets SIGTERM
when the launcher dies (`kill -9`), instead of running on.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_launcher()
    from kcorpus.pipeline.console import LOG_LEVEL_ENV, quiet_handler

    level = logging.getLevelName(os.environ.get(LOG_LEVEL_ENV, "WARNING"))
    logging.getLogger().addHandler(quiet_handler(level if isinstance(level, int) else logging.WARNING))
    from apache_beam.runners.worker import sdk_worker_main

    from kcorpus.pipeline import signature_cache

    signature_cache.install()
    sdk_worker_main.main(argv)


def _end_with_launcher() -> None:
    """Linux: SIGTERM when the process that started this worker dies (elsewhere: nothing)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


if __name__ == "__main__":
    main(sys.argv)
