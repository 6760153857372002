"""After a failed run: its temporary files go; one that ran out of disk space (ENOSPC) removes all it wrote
(build-corpus's input units too), so the disk is not left full, and ends with one line naming ENOSPC and the folder (`DiskFullError`).
The marker then says `failed`, so the next run removes those leftovers as its own.
"""

from __future__ import annotations

import contextlib
import errno
import re
from typing import Any

from kcorpus.pipeline.errors import DiskFullError
from kcorpus.pipeline.outputs import folders
from kcorpus.pipeline.outputs.marker import UNITS_ENTRY, is_bookkeeping, owned_by, write_marker
from kcorpus.pipeline.outputs.plan import OutputPlan


def clean_up_failure(plan: OutputPlan, err: BaseException, marker: dict[str, Any]) -> None:
    """After a failed run: its temporary files go (all it wrote when the disk is full), the marker says
    `failed` (or is restored for `kcorpus run`, whose finished stages stay); DiskFullError for ENOSPC."""
    full = None if isinstance(err, DiskFullError) else disk_full(err)  # a stage's own report stands
    if full and UNITS_ENTRY in folders.list_entries(plan.out):
        folders.remove_entry(plan.out, UNITS_ENTRY)  # a build's input units: a full disk must not stay full
    if not plan.resume:
        for entry in folders.list_entries(plan.out):
            if is_bookkeeping(entry) or not owned_by(plan.command, entry):
                continue
            if full:
                folders.remove_entry(plan.out, entry)
            else:
                _remove_temporary(plan.out, entry)
    with contextlib.suppress(OSError):  # the marker is bookkeeping: the run's own error is the one to report
        write_marker(
            plan.out, plan.command, state=marker.get("state", "complete") if plan.resume else "failed"
        )
    if full is not None:
        kept = "its finished stages are kept" if plan.resume else "the partial output was removed"
        raise DiskFullError(
            f"--out {plan.out}: no space left on device (ENOSPC) writing {full}; {kept}: free "
            "space or choose another folder, then run again"
        ) from err


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
        folders.remove_entry(out, entry)
        return
    path = folders.join(out, entry)
    for rel in fs.list_files(path):
        if ".tmp-" in rel.rsplit("/", 1)[-1]:
            fs.delete_file(fs.join(path, rel))
