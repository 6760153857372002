"""Naver-style comment threads from NSMC's comments, for build-corpus on a `thread_field` source.

No public Naver news comment dump keeps its thread ids, so this gives real comments synthetic threads: rows
`{"article_id": ..., "text": ...}` as JSON Lines in `--files` files (a month each), comment i of copy k in
thread `k-<i // (10 + k)>` (about ten comments a thread), but every tenth comment a late reply to the thread
300 threads earlier, which often lies in an earlier file. Copy k >= 1 repeats the comments in threads of other
sizes, so that its threads are other documents; `--copies` sets the size (NSMC's test split: ~6 MB of rows a
copy). The input is only read.

    python bench/generators/comment_threads.py /work/shared/data/nsmc/ratings_test.txt /tmp/threads --copies 4
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

THREAD_SIZE, LATE_EVERY, LATE_BY = 10, 10, 300


def nsmc_comments(path: Path) -> list[str]:
    """The `document` column of an NSMC file (header skipped, split on tabs as published)."""
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] if line.count("\t") >= 2 else "" for line in lines]


def thread_of(i: int, copy: int) -> str:
    """Comment i's thread: its run of `THREAD_SIZE + copy`, or for every `LATE_EVERY`th one `LATE_BY` earlier."""
    thread = i // (THREAD_SIZE + copy)
    if i % LATE_EVERY == LATE_EVERY - 1:
        thread = max(0, thread - LATE_BY)
    return f"{copy}-{thread}"


def write_threads(comments: list[str], out: Path, copies: int, files: int) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    rows = [(thread_of(i, k), text) for k in range(copies) for i, text in enumerate(comments)]
    step = -(-len(rows) // files)
    paths = []
    for f in range(files):
        path = out / f"comments_{f:02d}.jsonl"
        part = rows[f * step : (f + 1) * step]
        path.write_text("".join(json.dumps({"article_id": t, "text": x}, ensure_ascii=False) + "\n" for t, x in part),
                        encoding="utf-8")  # fmt: skip
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("nsmc", type=Path, help="an NSMC file (id, document, label)")
    parser.add_argument("out", type=Path, help="the folder for comments_NN.jsonl")
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--files", type=int, default=12)
    args = parser.parse_args()
    paths = write_threads(nsmc_comments(args.nsmc), args.out, args.copies, args.files)
    print(f"{len(paths)} files, {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
