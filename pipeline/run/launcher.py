"""Running a non-Beam stage (train-vocab, vocab-report) on the launcher when its folders are remote (gs://).

The trainers read and write local files. `run_on_launcher` copies each remote input of the job (a corpus
shard, a vocab folder) into a local temporary folder through Beam's `FileSystems`, runs the job on the local
copies with a local output folder, writes the remote paths back where the outputs recorded the local ones
(manifest.json, report.json), and uploads the output folder to the job's remote `out`.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kcorpus.pipeline import filesystems as fs

# Outputs that name their inputs: the local copies' paths in them are put back to the remote ones.
TEXT_OUTPUTS = (".json", ".md", ".html")


def has_remote_paths(job: Any) -> bool:
    """Whether any path field of a job dataclass names a remote object."""
    return any(fs.is_remote(p) for value in _path_fields(job).values() for p in _as_paths(value))


def run_on_launcher(job: Any, run: Callable[[Any], Any]) -> Any:
    """`run(job)` with the job's remote inputs copied to local files and its output uploaded to `job.out`."""
    with tempfile.TemporaryDirectory(prefix="kcorpus-launcher-") as tmp:
        local_of: dict[str, str] = {}
        changes: dict[str, Any] = {}
        for name, value in _path_fields(job).items():
            if name == "out":
                continue
            local = tuple(_localize(p, Path(tmp, "in"), local_of) for p in _as_paths(value))
            changes[name] = local if isinstance(value, tuple) else local[0]
        remote_out = job.out
        changes["out"] = str(Path(tmp, "out"))
        try:
            result = run(dataclasses.replace(job, **changes))
        finally:
            # A failed check still leaves its files for inspection, as a local run does.
            if Path(changes["out"]).is_dir():
                _restore_paths(Path(changes["out"]), {**local_of, changes["out"]: remote_out})
                fs.upload_tree(changes["out"], remote_out)
        return result


def _path_fields(job: Any) -> dict[str, Any]:
    return {
        f.name: getattr(job, f.name)
        for f in dataclasses.fields(job)
        if isinstance(getattr(job, f.name), str) or _is_str_tuple(getattr(job, f.name))
    }


def _is_str_tuple(value: Any) -> bool:
    return isinstance(value, tuple) and all(isinstance(v, str) for v in value)


def _as_paths(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else (value,)


def _localize(path: str, folder: Path, local_of: dict[str, str]) -> str:
    """A local copy of a remote file or folder (a prefix with files under it); a local path as it is."""
    if not fs.is_remote(path):
        return path
    target = folder / str(len(local_of)) / path.rstrip("/").rsplit("/", 1)[-1]
    if fs.exists(path):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(fs.read_bytes(path))
    elif not fs.download_tree(path, str(target)):
        raise FileNotFoundError(f"no file or folder at {path}")
    local_of[str(target)] = path
    return str(target)


def _restore_paths(out: Path, remote_of: dict[str, str]) -> None:
    """Put the remote paths back into the text outputs that recorded the local copies' paths."""
    # Longest first, so a folder's path is not replaced inside the path of a file below it.
    pairs = sorted(remote_of.items(), key=lambda kv: -len(kv[0]))
    for path in out.rglob("*"):
        if not path.is_file() or path.suffix not in TEXT_OUTPUTS:
            continue
        text = original = path.read_text(encoding="utf-8")
        for local, remote in pairs:
            text = text.replace(json.dumps(local)[1:-1], json.dumps(remote)[1:-1])
        if text != original:
            path.write_text(text, encoding="utf-8")
