"""The folder layout of a `kcorpus build-corpus` output: the one place that names its files.

```
<corpus>/stats.json                                counts of the run
<corpus>/text/part-00000-of-00004.txt              one sentence per line, a blank line between documents
<corpus>/docs/part-00000-of-00004.jsonl            one document (JSON) per line
<corpus>/rejected/dropped-00000-of-00004.jsonl     filtered records (all, a sample or none)
<corpus>/rejected/duplicates-00000-of-00004.jsonl  dedup losers, with the id of their survivor
<corpus>/rejected/dead_letter.jsonl                records that could not be read or prepared
<corpus>/examples/examples.jsonl                   10 sampled before/after texts per rule (and .md to read)
```
Paths are joined with "/" so they work for local folders and `gs://` alike.
"""

from __future__ import annotations

from kcorpus.transforms.sharding import shard_name

TEXT_DIR, DOCS_DIR, REJECTED_DIR = "text", "docs", "rejected"
STATS_FILE = "stats.json"
TEXT_GLOB, DOCS_GLOB = f"{TEXT_DIR}/*.txt", f"{DOCS_DIR}/*.jsonl"
DEAD_LETTER_FILE = f"{REJECTED_DIR}/dead_letter.jsonl"
EXAMPLES_DIR = "examples"
EXAMPLES_FILE, EXAMPLES_MARKDOWN = f"{EXAMPLES_DIR}/examples.jsonl", f"{EXAMPLES_DIR}/examples.md"
# Input layouts of `kcorpus pack`: the shards it reads a corpus from, preferred first.
LAYOUTS = {"docs": DOCS_GLOB, "text": TEXT_GLOB}
# Everything a build writes: a folder holding any of these already holds a corpus.
OUTPUT_PATTERNS = (STATS_FILE, f"{TEXT_DIR}/*", f"{DOCS_DIR}/*", f"{REJECTED_DIR}/*", f"{EXAMPLES_DIR}/*")


def text_shard(shard: int, num_shards: int) -> str:
    """`text/part-00000-of-00004.txt`."""
    return f"{TEXT_DIR}/{shard_name('part', shard, num_shards, '.txt')}"


def docs_shard(shard: int, num_shards: int) -> str:
    """`docs/part-00000-of-00004.jsonl`."""
    return f"{DOCS_DIR}/{shard_name('part', shard, num_shards, '.jsonl')}"


def dropped_shard(shard: int, num_shards: int) -> str:
    """`rejected/dropped-00000-of-00004.jsonl`."""
    return f"{REJECTED_DIR}/{shard_name('dropped', shard, num_shards, '.jsonl')}"


def duplicates_shard(shard: int, num_shards: int) -> str:
    """`rejected/duplicates-00000-of-00004.jsonl`."""
    return f"{REJECTED_DIR}/{shard_name('duplicates', shard, num_shards, '.jsonl')}"
