"""What a kcorpus command prints besides its results: quiet logs by default, Beam's INFO only with `-v`.

Beam's worker subprocesses configure their own logging (the harness sets the root logger to INFO before it
reads any option), so they start through `kcorpus.pipeline.beam_worker`, which reads the level chosen here
from the environment variable `KCORPUS_LOG_LEVEL` that the subprocesses inherit.
"""

from __future__ import annotations

import logging
import os
import sys

LOG_LEVEL_ENV = "KCORPUS_LOG_LEVEL"
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
# Warnings Beam prints on every start that no user can act on, and errors a command reports in one line.
NOISE = (
    "apitools not found",
    "No semi_persistent_directory found",
    "Discarding unparseable args",
    # A worker's full disk: the command ends with one line naming ENOSPC and the file (pipeline/outputs/cleanup.py).
    "[Errno 28] No space left on device",
)


class DropNoise(logging.Filter):
    """Drops Beam's start-up warnings that say nothing about the user's run (and errors reported otherwise)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(noise in message for noise in NOISE)


def quiet_handler(level: int) -> logging.Handler:
    """A stderr handler at `level` without Beam's start-up noise."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(DropNoise())
    return handler


def configure_logging(verbose: bool = False) -> None:
    """Warnings and errors only (kcorpus's own INFO and Beam's too with `verbose`), here and in Beam workers."""
    level = logging.INFO if verbose else logging.WARNING
    os.environ[LOG_LEVEL_ENV] = logging.getLevelName(level)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_kcorpus", False):
            root.removeHandler(handler)
    handler = quiet_handler(level)
    handler._kcorpus = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("kcorpus").setLevel(level)
    # Beam's own warnings in the main process (worker log relays, runner notes) are for -v.
    logging.getLogger("apache_beam").setLevel(logging.INFO if verbose else logging.ERROR)
