"""The folder layout of a `kcorpus build-corpus` output: the one place that names its files.

```
<corpus>/stats.json                                    counts of the run
<corpus>/text/part-00000-of-00004.txt.zst              one sentence per line, a blank line between documents
<corpus>/docs/part-00000-of-00004.jsonl.zst            one document (JSON) per line
<corpus>/rejected/dropped-00000-of-00004.jsonl.zst     filtered records (all, a sample or none)
<corpus>/rejected/duplicates-00000-of-00004.jsonl.zst  dedup losers, with the id of their survivor
<corpus>/rejected/dead_letter.jsonl.zst                records that could not be read or prepared
<corpus>/examples/examples.jsonl                       10 sampled before/after texts per rule (and .md to read)
```
`text/` is written only with `output.text: true`: it holds docs/' sentences again, for BERT/ELECTRA-style data
builders; kcorpus reads a corpus's sentences from text/ when it is there, else from docs/ (`sentence_shards`).
`text/`, `docs/` and `rejected/` are zstd-compressed (one frame per file) unless `output.compression` is
`none`, which writes the same names without `.zst`; readers take either. Paths are joined with "/" so they
work for local folders and `gs://` alike.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from kcorpus.transforms.sharding import shard_name

TEXT_DIR, DOCS_DIR, REJECTED_DIR = "text", "docs", "rejected"
STATS_FILE = "stats.json"
# `output.compression`: how text/, docs/ and rejected/ are written (zstd: `.zst` appended to every name).
ZSTD, NO_COMPRESSION = "zstd", "none"
COMPRESSIONS = (ZSTD, NO_COMPRESSION)
ZSTD_SUFFIX = ".zst"
# The shards of each folder, plain or compressed (a one-level glob each).
TEXT_GLOBS = (f"{TEXT_DIR}/*.txt", f"{TEXT_DIR}/*.txt{ZSTD_SUFFIX}")
DOCS_GLOBS = (f"{DOCS_DIR}/*.jsonl", f"{DOCS_DIR}/*.jsonl{ZSTD_SUFFIX}")
REJECTED_GLOBS = (f"{REJECTED_DIR}/*.jsonl", f"{REJECTED_DIR}/*.jsonl{ZSTD_SUFFIX}")
EXAMPLES_DIR = "examples"
EXAMPLES_FILE, EXAMPLES_MARKDOWN = f"{EXAMPLES_DIR}/examples.jsonl", f"{EXAMPLES_DIR}/examples.md"
# Input layouts of `kcorpus pack`: the shards it reads a corpus from, preferred first.
LAYOUTS = {"docs": DOCS_GLOBS, "text": TEXT_GLOBS}
# Everything a build writes: a folder holding any of these already holds a corpus.
OUTPUT_PATTERNS = (STATS_FILE, f"{TEXT_DIR}/*", f"{DOCS_DIR}/*", f"{REJECTED_DIR}/*", f"{EXAMPLES_DIR}/*")


def sentence_shards(rels: Iterable[str]) -> list[str]:
    """Of a corpus folder's files (relative paths), the shards to read its sentences from, sorted: `text/`'s
    when the build wrote them (a sentence per line, the cheapest to read), else `docs/`' (each document's `text`
    holds its sentences joined by "\\n"). The same sentences in the same order either way."""
    rels = sorted(rels)
    return [r for r in rels if matches(r, TEXT_GLOBS)] or [r for r in rels if matches(r, DOCS_GLOBS)]


def suffix(compression: str) -> str:
    """What `compression` appends to a file name: `.zst` or nothing."""
    if compression not in COMPRESSIONS:
        raise ValueError(f"unknown compression {compression!r}; valid: {', '.join(COMPRESSIONS)}")
    return ZSTD_SUFFIX if compression == ZSTD else ""


def text_shard(shard: int, num_shards: int, *, compression: str) -> str:
    """`text/part-00000-of-00004.txt.zst` (`.txt` without compression)."""
    return f"{TEXT_DIR}/{shard_name('part', shard, num_shards, '.txt' + suffix(compression))}"


def docs_shard(shard: int, num_shards: int, *, compression: str) -> str:
    """`docs/part-00000-of-00004.jsonl.zst` (`.jsonl` without compression)."""
    return f"{DOCS_DIR}/{shard_name('part', shard, num_shards, '.jsonl' + suffix(compression))}"


def dropped_shard(shard: int, num_shards: int, *, compression: str) -> str:
    """`rejected/dropped-00000-of-00004.jsonl.zst`."""
    return f"{REJECTED_DIR}/{shard_name('dropped', shard, num_shards, '.jsonl' + suffix(compression))}"


def duplicates_shard(shard: int, num_shards: int, *, compression: str) -> str:
    """`rejected/duplicates-00000-of-00004.jsonl.zst`."""
    return f"{REJECTED_DIR}/{shard_name('duplicates', shard, num_shards, '.jsonl' + suffix(compression))}"


def dead_letter_file(*, compression: str) -> str:
    """`rejected/dead_letter.jsonl.zst`."""
    return f"{REJECTED_DIR}/dead_letter.jsonl{suffix(compression)}"


def matches(rel: str, globs: tuple[str, ...]) -> bool:
    """Whether a path relative to the corpus folder is one of `globs`' files (`*` stays within one folder)."""
    return any(fnmatch.fnmatchcase(rel, g) and rel.count("/") == g.count("/") for g in globs)
