"""Where a record goes: shard file names and id-to-shard hashing, the same on every worker and run.

Digests are blake2b of the id (never Python's salted `hash()`), so a record's shard depends on its id only.
"""

from __future__ import annotations

import hashlib
import math


def shard_name(prefix: str, shard: int, num_shards: int, suffix: str) -> str:
    """`part-00000-of-00004.txt` style names."""
    return f"{prefix}-{shard:05d}-of-{num_shards:05d}{suffix}"


def shard_of(doc_id: str, num_shards: int) -> int:
    """The output shard of a document: a digest of its id, so it is the same on every worker and run."""
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=8).digest()
    if num_shards <= 256 and not num_shards & (num_shards - 1):
        # A power of two up to 256 divides 256: the big-endian number's remainder is its last byte's.
        return digest[7] % num_shards
    return int.from_bytes(digest, "big") % num_shards


def split_and_shard(doc_id: str, validation_fraction: float, counts: dict[str, int]) -> tuple[str, int]:
    """(split, shard index) from a digest of the id: a document id always lands in one place."""
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=16).digest()
    u = int.from_bytes(digest[:8], "big") / 2.0**64
    split = "validation" if u < validation_fraction else "train"
    return split, int.from_bytes(digest[8:], "big") % counts[split]


def shards_for_sample(num_shards: int, total_items: int, wanted: int, margin: float = 2.0) -> int:
    """How many shards, taken from the first, hold about `margin` x `wanted` of `total_items` items.

    Items go to shards by a digest of their id, so any set of shards is a uniform sample of the items and the
    first k shards hold about k / num_shards of them; the margin keeps a sample of `wanted` drawn from them
    full. All shards when the items are too few (or their count is unknown: `total_items` <= 0).
    """
    if num_shards < 1:
        raise ValueError(f"num_shards must be positive, got {num_shards}")
    if total_items <= 0 or wanted * margin >= total_items:
        return num_shards
    return max(1, min(num_shards, math.ceil(num_shards * wanted * margin / total_items)))
