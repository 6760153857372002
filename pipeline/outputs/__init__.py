"""Output safety: the one owner of "may kcorpus write (or clear) this folder, and is anyone else writing it?".

Every output folder a command creates carries `.kcorpus-owned.json` (the command, kcorpus version, time).
Before any work, `check_output` refuses (`OutputError`, one line):
- `-` as a folder, an output that is a file, an output equal to or inside an input, or an input inside it;
- a non-empty folder without the marker (kcorpus never deletes or mixes into a folder it does not own);
- a folder owned by another command, or holding this command's previous output without `overwrite`;
- a folder another kcorpus process holds the lock of (`.kcorpus.lock`: pid, host, command, start time).

`claim_output` then takes the lock (created atomically: written under a temporary name and hard-linked into
place), removes only the entries this command writes (`OWNED_ENTRIES`, when overwriting: any other file is the
user's and stays), writes the marker, and releases the lock when the work ends. A lock whose holder is
provably gone from this host (same boot and pid namespace; its pid free or reused) is taken over with one
warning line; any doubt (another host or boot, an older lock) is reported with how to clear it.
Remote folders (`gs://`) get the same marker and checks; their lock is best effort (an object store has no
atomic create-if-absent through Beam's FileSystems).

The marker's `state` is `running` while a command writes and `complete` once it finished: a run that failed
(or was killed) leaves `running` or `failed`, and the next run removes those leftovers as its own, without
`--overwrite`. A failed run removes its temporary files; one that ran out of disk space (ENOSPC) removes all
it wrote, so the disk is not left full, and ends with one line naming ENOSPC and the folder (`DiskFullError`).

The modules: `claim.py` (check_output, claim_output), `plan.py` (OutputPlan), `marker.py` (the marker,
`OWNED_ENTRIES`), `lock.py` (the lock), `holder.py` (a holder's identity, provably gone or not), `overlap.py` (outputs against inputs), `cleanup.py` (after a failed
run, ENOSPC) and `folders.py` (a folder's entries and small files, local or remote).
"""

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.outputs.lock import LOCK_FILE
from kcorpus.pipeline.outputs.marker import MARKER_FILE, OWNED_ENTRIES
from kcorpus.pipeline.outputs.overlap import STREAM
from kcorpus.pipeline.outputs.plan import OutputPlan

__all__ = [
    "LOCK_FILE", "MARKER_FILE", "OWNED_ENTRIES", "STREAM", "OutputError", "OutputPlan", "check_output",
    "claim_output",
]
