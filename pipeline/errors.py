"""`UserError`: a mistake the user can fix (a path, a key, a value), as one line per problem.

`kcorpus.pipeline.cli` turns it into `kcorpus <command>: error: <line>` and exit status 2, with no traceback
unless `--debug`. `DataLossError` is a run that completed but lost a source or too many records, and
`DiskFullError` a run that ran out of disk space: exit 1. `OutputError` is an output path kcorpus must not
write (pipeline/outputs/): exit 2.
"""

from __future__ import annotations

from collections.abc import Sequence

USER_ERROR_EXIT = 2
DATA_LOSS_EXIT = 1


class UserError(Exception):
    """A user mistake found before (or instead of) any work; `errors` holds one line per problem."""

    exit_code = USER_ERROR_EXIT

    def __init__(self, errors: str | Sequence[str]) -> None:
        self.errors = [errors] if isinstance(errors, str) else list(errors)
        super().__init__("\n".join(self.errors))


class DataLossError(UserError):
    """A run that finished but lost a whole source or dead-lettered more than allowed (exit 1)."""

    exit_code = DATA_LOSS_EXIT


class DiskFullError(UserError):
    """A run that ran out of disk space (ENOSPC): one line naming the folder, its partial output removed (exit 1)."""

    exit_code = DATA_LOSS_EXIT


class OutputError(UserError, ValueError):
    """An output path kcorpus must not write (or a folder another process is writing): one line, exit 2."""
