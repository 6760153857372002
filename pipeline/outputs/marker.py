"""The ownership marker: which top-level entries each command writes (`OWNED_ENTRIES`: all `--overwrite`
may remove), and `.kcorpus-owned.json` saying which command owns a folder, since when, which release,
and whether its last run finished (`state`: `running`, `failed` or `complete`).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
from typing import Any

from kcorpus.pipeline.outputs import folders

MARKER_FILE = ".kcorpus-owned.json"
# build-corpus's and pack's finished input units, kept between runs (pipeline/corpus/units.py,
# pipeline/pack/units.py): bookkeeping, never part of an output, removed by the command that completes (or
# kept on purpose) and after a full disk.
UNITS_ENTRY = ".kcorpus-units"

_VOCAB_FILES = (
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "spm.model",
    "spm.vocab",
    "manifest.json",
)
_ATOMIC_TMP = ".*.tmp-*"  # pipeline/atomic.py's temporary names
# The top-level entries each command writes into its output folder: what `--overwrite` may remove there.
# A folder named here (pack's `train/`) is kcorpus's as a whole; anything not named is the user's and stays.
OWNED_ENTRIES: dict[str, tuple[str, ...]] = {
    "build-corpus": (
        "stats.json",
        "text",
        "docs",
        "rejected",
        "examples",
        "stages.json",
        ".tmp-build-*",
        _ATOMIC_TMP,
    ),
    "pack": (
        "manifest.json",
        "dataset_dict.json",
        "train",
        "validation",
        "rejected",
        "stages.json",
        ".tmp-pack-*",
        _ATOMIC_TMP,
    ),
    "train-vocab": (*_VOCAB_FILES, ".tmp-train-vocab-*"),  # pipeline/vocab/text_pass.py's scratch folder
    "vocab-merge": _VOCAB_FILES,
    "vocab-report": ("report.json", "report.md", "report.html"),
    "audit": ("audit.json", "audit.md", "audit.html"),
    "run": (
        "corpus",
        "vocab",
        "vocab-report",
        "pack",
        "*.partial",
        "*.old",
        "report.json",
        "report.md",
        "report.html",
    ),
}


def now() -> str:
    """The time stamp of a marker and of a lock (UTC, to the second)."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# Marker states of a run that did not finish: what it left is its own leftovers, not a finished output.
UNFINISHED = ("running", "failed")


def write_marker(out: str, command: str, state: str = "complete") -> None:
    """Write (or refresh) `.kcorpus-owned.json`: which command owns the folder, since when, which release,
    and whether its last run finished (`state`: `running`, `failed` or `complete`)."""
    from kcorpus import __version__

    previous = read_marker(out) or {}
    marker = {
        "owner": "kcorpus",
        "command": command,
        "kcorpus_version": __version__,
        "created_at": previous.get("created_at", now()),
        "updated_at": now(),
        "state": state,
    }
    folders.write_text(folders.join(out, MARKER_FILE), json.dumps(marker, indent=2) + "\n")


def read_marker(out: str) -> dict[str, Any] | None:
    """The folder's ownership marker, or None when kcorpus did not create it."""
    text = folders.read_text(folders.join(out, MARKER_FILE))
    if text is None:
        return None
    try:
        marker = json.loads(text)
    except json.JSONDecodeError:
        return None
    return marker if isinstance(marker, dict) and marker.get("owner") == "kcorpus" else None


def is_bookkeeping(name: str) -> bool:
    """The marker, the lock, the input units and their temporary names: never part of a command's output."""
    return name.startswith(".kcorpus")


def owned_by(command: str, entry: str) -> bool:
    """Whether a top-level entry of an output folder is one `command` writes."""
    return any(fnmatch.fnmatchcase(entry, pattern) for pattern in OWNED_ENTRIES[command])
