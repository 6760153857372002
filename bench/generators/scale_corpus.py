"""A larger (or smaller) corpus folder from a built one: its `docs/` shards repeated with distinct ids.

For measuring how `kcorpus pack` scales without building a bigger corpus: copy 0 is the built corpus's lines as
they are, copy k (k >= 1) the same documents with id `<id>@k`, so every copy's documents land in other pack
shards and splits (pack places a document by a digest of its id) and no two documents share an id. `--shards M`
takes the first M shards of the corpus only (a smaller corpus of the same documents). The folder gets
`docs/part-*.jsonl` (copies x shards files, in copy-then-shard order) and a `stats.json` with what pack reads
of one (`total.kept`, `output.num_shards`), so pack reads it as a build-corpus output. The input is only read.

    python bench/generators/scale_corpus.py /work/data/kowiki_corpus /work/scratch/pack-scale/kowiki_x4 --copies 4
    python bench/generators/scale_corpus.py /work/data/kowiki_corpus /work/scratch/pack-scale/kowiki_200m --shards 32
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kcorpus.transforms.corpus_layout import STATS_FILE, docs_shard


def corpus_shards(corpus: Path) -> list[Path]:
    """The `docs/` shards of a built corpus, as its stats.json lists them."""
    stats = json.loads((corpus / STATS_FILE).read_text(encoding="utf-8"))
    count = stats["output"]["num_shards"]
    return [corpus / docs_shard(i, count) for i in range(count)]


def rewrite_id(line: bytes, copy: int) -> bytes:
    """A `docs/` line with its id made `<id>@<copy>` (copy 0: the line as it is)."""
    if copy == 0:
        return line
    doc = json.loads(line)
    doc["id"] = f"{doc['id']}@{copy}"
    return json.dumps(doc, ensure_ascii=False).encode() + b"\n"


def scale(corpus: Path, out: Path, copies: int, shards: int | None) -> dict[str, int]:
    """Write the scaled folder; returns its documents, files and bytes."""
    sources = corpus_shards(corpus)[:shards]
    total = copies * len(sources)
    (out / "docs").mkdir(parents=True, exist_ok=False)
    documents = size = 0
    for copy in range(copies):
        for i, source in enumerate(sources):
            target = out / docs_shard(copy * len(sources) + i, total)
            with source.open("rb") as src, target.open("wb") as dst:
                for line in src:
                    if line.strip():
                        data = rewrite_id(line, copy)
                        dst.write(data)
                        documents += 1
                        size += len(data)
    stats = {"total": {"kept": documents}, "output": {"num_shards": total},
             "scaled_from": {"corpus": str(corpus), "copies": copies, "shards": len(sources)}}
    (out / STATS_FILE).write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return {"documents": documents, "files": total, "bytes": size}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a build-corpus output folder (read only)")
    parser.add_argument("out", type=Path, help="the new corpus folder (must not exist)")
    parser.add_argument("--copies", type=int, default=1, help="times the documents are repeated (distinct ids)")
    parser.add_argument("--shards", type=int, default=None, help="only the first SHARDS docs shards")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists; give a new folder")
    if args.copies < 1 or (args.shards is not None and args.shards < 1):
        parser.error("--copies and --shards must be at least 1")
    figures = scale(args.corpus, args.out, args.copies, args.shards)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
