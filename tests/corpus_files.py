"""Reading a build-corpus output in tests: its shards are `.zst` by default (`output.compression`), plain with
`none`; a test names a shard by its plain name and reads it either way."""

from __future__ import annotations

import json
from pathlib import Path

import zstandard


def shard(corpus: Path, rel: str) -> Path:
    """The file a plain shard name (`docs/part-00000-of-00001.jsonl`) stands for: its `.zst` when that exists."""
    compressed = Path(corpus) / f"{rel}.zst"
    return compressed if compressed.exists() else Path(corpus) / rel


def read_bytes(path: Path) -> bytes:
    """A file's content, decompressed when it is `.zst`."""
    data = Path(path).read_bytes()
    return zstandard.ZstdDecompressor().decompressobj().decompress(data) if str(path).endswith(".zst") else data


def read_shard(corpus: Path, rel: str) -> str:
    """The text of a shard named by its plain name."""
    return read_bytes(shard(corpus, rel)).decode("utf-8")


def shard_rows(corpus: Path, rel: str) -> list[dict]:
    """The JSON rows of a `.jsonl` shard named by its plain name."""
    return [json.loads(line) for line in read_shard(corpus, rel).splitlines() if line.strip()]


def rows(corpus: Path, pattern: str) -> list[dict]:
    """The JSON rows of every file matching a plain glob (`docs/*.jsonl`) or its `.zst` twin, in name order."""
    paths = sorted([*Path(corpus).glob(pattern), *Path(corpus).glob(f"{pattern}.zst")])
    return [json.loads(line) for p in paths for line in read_bytes(p).decode("utf-8").splitlines() if line.strip()]
