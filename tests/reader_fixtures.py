"""Shared helpers of the reader tests: the bundled reader data and outcome counts of a read."""

from __future__ import annotations

import collections
from pathlib import Path

from kcorpus.transforms.readers import read_file, reason_code
from kcorpus.transforms.record import DeadLetter, Document
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"
FAULTS = DATA / "faults"


def read(fmt: str, path: Path | str, source: str | None = None, **options) -> list:
    return list(read_file(fmt, str(path), options or None, source))


def docs(records: list) -> list[Document]:
    return [r for r in records if isinstance(r, Document)]


def outcome_counts(records: list) -> dict[str, int]:
    """`document`, `dead_letter:<code>` and `dropped:<reason>` counts."""
    counts: collections.Counter = collections.Counter()
    for r in records:
        if isinstance(r, Document):
            counts["document"] += 1
        elif isinstance(r, DeadLetter):
            counts[f"dead_letter:{reason_code(r.reason)}"] += 1
        else:
            counts[f"dropped:{r.reason}"] += 1
    return dict(counts)

