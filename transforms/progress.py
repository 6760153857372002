"""Progress accounting between Beam workers and the launcher: per-process tallies and their merge.

A worker process adds the records and bytes its input steps finished to a `Tally` (one per process, per
phase: `read`, `write`); the tally says when it is due to be written (at most every `WRITE_SECONDS`), and
`tally_json` is the small file it is written as. The launcher reads every worker's file and `merge_tallies`
adds them up, ignoring a file that is partial (cut mid-write, unparsable) or stale (another run's).
Nothing here touches a file: the pipeline side (`pipeline/progress.py`) does the I/O.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping

# A worker rewrites its file at most this often; the launcher polls about twice as often.
WRITE_SECONDS = 0.5
PHASES = ("read", "write")


@dataclasses.dataclass
class PhaseCount:
    """Records and bytes one phase has finished."""

    records: int = 0
    bytes: int = 0


@dataclasses.dataclass
class Tally:
    """One worker process's counts for one run, and when they were last written."""

    run: str
    phases: dict[str, PhaseCount] = dataclasses.field(default_factory=dict)
    written_at: float | None = None
    dirty: bool = False

    def add(self, phase: str, records: int = 0, nbytes: int = 0) -> None:
        """Adds finished records and bytes to `phase`."""
        count = self.phases.setdefault(phase, PhaseCount())
        count.records += records
        count.bytes += nbytes
        self.dirty = True

    def due(self, now: float, every: float = WRITE_SECONDS) -> bool:
        """Whether the tally has news and was not written in the last `every` seconds."""
        return self.dirty and (self.written_at is None or now - self.written_at >= every)

    def mark_written(self, now: float) -> None:
        self.written_at, self.dirty = now, False


def tally_json(tally: Tally) -> str:
    """The file a worker writes: `{"run": ..., "phases": {phase: {"records": n, "bytes": n}}}`."""
    phases = {name: dataclasses.asdict(count) for name, count in sorted(tally.phases.items())}
    return json.dumps({"run": tally.run, "phases": phases}, sort_keys=True)


def parse_tally(text: str, run: str) -> dict[str, PhaseCount] | None:
    """A worker file's counts, or None when it is partial, malformed or from another run."""
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("run") != run:
            return None
        return {
            str(name): PhaseCount(int(c.get("records", 0)), int(c.get("bytes", 0)))
            for name, c in doc["phases"].items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def merge_tallies(texts: Iterable[str], run: str) -> dict[str, PhaseCount]:
    """The sum over every worker file of this run, phase by phase (unusable files are skipped)."""
    total: dict[str, PhaseCount] = {}
    for text in texts:
        for name, count in (parse_tally(text, run) or {}).items():
            acc = total.setdefault(name, PhaseCount())
            acc.records += count.records
            acc.bytes += count.bytes
    return total


def records_note(counts: Mapping[str, PhaseCount], phase: str, unit: str = "records") -> str:
    """`12,345 records` for a phase's bar postfix ('' before the phase started)."""
    count = counts.get(phase)
    return f"{count.records:,} {unit}" if count else ""
