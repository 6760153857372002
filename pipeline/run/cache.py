"""The make-like cache of `kcorpus run`: stage manifests, config and input hashes, staleness, commit.

A stage writes into `<out>/<stage>.partial/`; `commit` writes its `_STAGE.json` (config hash, input
fingerprints, output listing and digest, timings) last and renames the folder to `<out>/<stage>/` in one
`os.replace`, so a stage killed half-way leaves only a `.partial` folder. A stage is up to date when its
manifest's config and input hashes match and its output files are all there with their sizes.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kcorpus.pipeline.outputs import is_bookkeeping
from kcorpus.pipeline.run.errors import RunError

STAGE_MANIFEST = "_STAGE.json"
PARTIAL_SUFFIX = ".partial"


def canonical_hash(obj: Any) -> str:
    """sha256 of an object's canonical JSON (sorted keys), so equal configs hash equal."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def list_outputs(stage_dir: Path) -> dict[str, int]:
    """Every file of a stage folder (but its manifest and kcorpus's ownership marker) as path -> size in bytes."""
    return {
        p.relative_to(stage_dir).as_posix(): p.stat().st_size
        for p in sorted(stage_dir.rglob("*"))
        if p.is_file() and p.name != STAGE_MANIFEST and not is_bookkeeping(p.name)
    }


def output_digest(stage_dir: Path, listing: Mapping[str, int]) -> str:
    """sha256 over every output file's path and content: what downstream stages depend on."""
    return canonical_hash([[rel, size, _file_sha256(stage_dir / rel)] for rel, size in listing.items()])


def fingerprint_files(patterns: Sequence[str]) -> list[dict[str, Any]]:
    """Path, size and mtime of every file a pattern matches, local or on a Beam filesystem (gs://).

    Size and mtime, not content hashes: raw inputs run to tens of GB, and rsync/make judge change the same way.
    """
    prints: list[dict[str, Any]] = []
    for pattern in patterns:
        if "://" in pattern:
            prints += _fingerprint_remote(pattern)
            continue
        matches = sorted(glob.glob(pattern, recursive=True))
        prints.append({"pattern": pattern, "matched": len(matches)})
        for path in matches:
            st = os.stat(path)
            prints.append({"path": path, "bytes": st.st_size, "mtime_ns": st.st_mtime_ns})
    return prints


def _fingerprint_remote(pattern: str) -> list[dict[str, Any]]:
    """Path, size and last-update time of every object a gs:// (or other Beam filesystem) pattern matches."""
    from apache_beam.io.filesystems import FileSystems

    try:
        metadata = sorted(FileSystems.match([pattern])[0].metadata_list, key=lambda m: m.path)
    except Exception as err:  # Beam raises BeamIOError or ValueError (unknown scheme, missing extras)
        raise RunError(f"cannot list {pattern}: {err}") from err
    return [{"pattern": pattern, "matched": len(metadata)}] + [
        {"path": m.path, "bytes": m.size_in_bytes, "mtime": m.last_updated_in_seconds} for m in metadata
    ]


def read_manifest(stage_dir: Path) -> dict[str, Any] | None:
    """A stage's `_STAGE.json`, or None when the stage never completed."""
    try:
        with open(stage_dir / STAGE_MANIFEST, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as err:
        print(f"[run] ignoring unreadable {stage_dir / STAGE_MANIFEST}: {err}", file=sys.stderr)
        return None


def why_stale(manifest: Mapping[str, Any] | None, stage_dir: Path, config_hash: str, input_hash: str) -> str:
    """Why a stage must run again, or "" when its manifest matches and its outputs are all there."""
    if manifest is None:
        return "not run yet"
    if manifest.get("config_hash") != config_hash:
        return "config changed"
    if manifest.get("input_hash") != input_hash:
        return "inputs changed"
    # Files added later (a `datasets` map cache next to the shards) do not matter; missing or resized ones do.
    for rel, size in (manifest.get("outputs") or {}).items():
        path = stage_dir / rel
        if not path.is_file() or path.stat().st_size != size:
            return "output files changed since it ran"
    return ""


def commit(partial: Path, final: Path, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Write the manifest (with the output listing and digest) into `partial` last, then rename it to `final`."""
    listing = list_outputs(partial)
    manifest = {
        **manifest,
        "outputs": listing,
        "output_bytes": sum(listing.values()),
        "output_digest": output_digest(partial, listing),
    }
    tmp = partial / (STAGE_MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, partial / STAGE_MANIFEST)
    if final.exists():
        # Move the old output aside first: only the rename below makes the new stage visible.
        old = final.with_name(final.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
        os.replace(partial, final)
        shutil.rmtree(old)
    else:
        os.replace(partial, final)
    return manifest
