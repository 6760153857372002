"""The make-like cache of `kcorpus run`: stage manifests, config and input hashes, staleness, commit.

A stage writes into `<out>/<stage>.partial/`; `commit` writes its `_STAGE.json` (config hash, input
fingerprints, output listing and digest, timings) there, deletes the old `<out>/<stage>/` (its manifest
first) and moves the new files to `<out>/<stage>/`, the manifest last. The manifest is the completion
marker: a stage is complete only when its manifest exists, so a stage killed half-way, or a commit cut
short, only ever leaves a folder without one. A local folder moves in one `os.replace`; on gs://, where a
folder cannot be renamed, the objects move one by one and the manifest after all the others. Every path
goes through the helpers of `kcorpus.pipeline.filesystems`, local folder or remote prefix alike. A stage is up to date when its
manifest's config and input hashes match and its output files are all there with their sizes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.outputs.marker import is_bookkeeping
from kcorpus.pipeline.run.errors import RunError
from kcorpus.transforms import matching
from kcorpus.transforms.files import broken_link

STAGE_MANIFEST = "_STAGE.json"
PARTIAL_SUFFIX = ".partial"


def canonical_hash(obj: Any) -> str:
    """sha256 of an object's canonical JSON (sorted keys), so equal configs hash equal."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def list_outputs(stage_dir: str) -> dict[str, int]:
    """Every file of a stage folder (but its manifest and kcorpus's ownership marker) as path -> size in bytes."""
    return {
        rel: size
        for rel, size in fs.list_files(stage_dir).items()
        if rel != STAGE_MANIFEST and not is_bookkeeping(rel.rsplit("/", 1)[-1])
    }


def output_digest(stage_dir: str, listing: Mapping[str, int]) -> str:
    """A digest over every output file's path and content: what downstream stages depend on.

    Local files are hashed (sha256); remote objects contribute the checksum their store keeps.
    """
    return canonical_hash(
        [[rel, size, fs.content_checksum(fs.join(stage_dir, rel))] for rel, size in listing.items()]
    )


def fingerprint_files(patterns: Sequence[str]) -> list[dict[str, Any]]:
    """Path, size and mtime of every file a pattern matches, local or on a Beam filesystem (gs://).

    Size and mtime, not content hashes: raw inputs run to tens of GB, and rsync/make judge change the same way.
    """
    prints: list[dict[str, Any]] = []
    for pattern in patterns:
        if "://" in pattern:
            prints += _fingerprint_remote(pattern)
            continue
        matches = [path for path, _ in matching.match(pattern) if not broken_link(path)]
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


def read_stage_manifest(stage_dir: str) -> dict[str, Any] | None:
    """A stage's `_STAGE.json`, or None when the stage never completed."""
    path = fs.join(stage_dir, STAGE_MANIFEST)
    try:
        return json.loads(fs.read_bytes(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        print(f"[run] ignoring unreadable {path}: {err}", file=sys.stderr)
        return None


def why_stale(manifest: Mapping[str, Any] | None, stage_dir: str, config_hash: str, input_hash: str) -> str:
    """Why a stage must run again, or "" when its manifest matches and its outputs are all there."""
    if manifest is None:
        return "not run yet"
    if manifest.get("config_hash") != config_hash:
        return "config changed"
    if manifest.get("input_hash") != input_hash:
        return "inputs changed"
    # Files added later (a `datasets` map cache next to the shards) do not matter; missing or resized ones do.
    present = fs.list_files(stage_dir)
    for rel, size in (manifest.get("outputs") or {}).items():
        if present.get(rel) != size:
            return "output files changed since it ran"
    return ""


def commit(partial: str, final: str, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Write the manifest (with the output listing and digest) into `partial`, then move it all to `final`.

    The old manifest is deleted first, so the old output stops reading as complete; the new manifest moves
    last (a local folder moves in one rename with it inside), so `final` reads as complete only when whole.
    """
    listing = list_outputs(partial)
    manifest = {
        **manifest,
        "outputs": listing,
        "output_bytes": sum(listing.values()),
        "output_digest": output_digest(partial, listing),
    }
    blob = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    fs.write_bytes(fs.join(partial, STAGE_MANIFEST), blob.encode("utf-8"))
    fs.delete_file(fs.join(final, STAGE_MANIFEST))
    fs.delete_tree(final)
    fs.move_tree(partial, final, last=STAGE_MANIFEST)
    fs.delete_tree(partial)
    return manifest
