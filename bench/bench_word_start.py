"""What the `word_start` column costs `kcorpus pack`: shard bytes, and CPU (the command, and encoding alone).

Builds a comments + petitions corpus in build-corpus `docs/*.jsonl` layout from the real data (every NSMC test
comment, source `nsmc`; every 2017-08 petition, title + content, source `petitions`) and a WordPiece tokenizer
from the real KcBERT vocab, then per layout:
1. `kcorpus pack` with the column (the default) and with `--no-word-start`, alternating, `--repeats` rounds,
   the whole command measured (bench/measure.py): shard bytes (the same every run), wall and CPU medians, and
   the ratios with / without;
2. encoding alone in this process: `encode_flat` with offsets and flags vs `encode_batch_fast`, over the same
   sentences, median of `--repeats` (the CPU the flags add where pack spends most of it).
Usage:
    python bench/bench_word_start.py --data /work/shared/data --repeats 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_pack import kcbert_tokenizer, sentences
from measure import machine_description, run_measured

KCORPUS = Path(sys.executable).parent / "kcorpus"


def comments_and_petitions(data: Path, out: Path) -> tuple[int, list[str]]:
    """The corpus (4 files) and its sentences; returns (text bytes, sentences)."""
    docs: list[dict] = []
    with (data / "nsmc" / "ratings_test.txt").open(encoding="utf-8") as f:
        next(f)
        for line in f:
            rid, text, _ = line.rstrip("\n").split("\t")
            if text.strip():
                docs.append({"id": f"nsmc:{rid}", "text": "\n".join(sentences(text)), "source": "nsmc"})
    for line in (data / "petitions" / "petitions_2017-08").open(encoding="utf-8"):
        obj = json.loads(line)
        text = "\n".join([obj["title"].strip(), *sentences(obj["content"])])
        docs.append({"id": f"petitions:{obj['petition_idx']}", "text": text, "source": "petitions"})
    (out / "docs").mkdir(parents=True)
    for i in range(4):
        with (out / "docs" / f"part-{i:05d}-of-00004.jsonl").open("w", encoding="utf-8") as f:
            f.writelines(json.dumps({**d, "metadata": {}}, ensure_ascii=False) + "\n" for d in docs[i::4])
    lines = [s for d in docs for s in d["text"].split("\n") if s.strip()]
    return sum(len(s.encode("utf-8")) for s in lines), lines


def pack(corpus: Path, tok: Path, out: Path, layout: str, max_length: int, word_start: bool):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(KCORPUS), "--no-progress", "pack", "--corpus", str(corpus), "--tokenizer", str(tok), "--out",
           str(out), "--layout", layout, "--max-length", str(max_length), "--validation-fraction", "0"]
    figures = run_measured([*cmd, "--word-start" if word_start else "--no-word-start"])
    manifest = json.loads((out / "manifest.json").read_text())
    return figures, sum(s["bytes"] for s in manifest["shards"]), manifest["counts"]


def encode_seconds(tok_dir: Path, lines: list[str], word_starts: bool, repeats: int) -> float:
    from kcorpus.transforms.packing.tokenize import encode_flat, tokenizer_from_bytes

    tok = tokenizer_from_bytes((tok_dir / "tokenizer.json").read_bytes())
    text = ["\n".join(lines[i : i + 1000]) for i in range(0, len(lines), 1000)]  # documents of 1000 sentences
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for i in range(0, len(text), 8):
            encode_flat(tok, text[i : i + 8], "uint16", word_starts)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--layouts", nargs="+", default=["pair", "cross_document"])
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench_word_start_"))
    try:
        mb, lines = comments_and_petitions(args.data, work / "corpus")
        tok = kcbert_tokenizer(args.data, work / "tok")
        print(f"# {machine_description()}; corpus {mb / 1e6:.2f} MB of text, {len(lines):,} sentences; "
              f"max_length {args.max_length}; {args.repeats} rounds")
        print("| layout | shard bytes with | without | size ratio | tokens | sequences | pack CPU s with | without "
              "| CPU ratio | wall s with | without |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for layout in args.layouts:
            runs: dict[bool, list] = {True: [], False: []}
            sizes: dict[bool, int] = {}
            counts = {}
            for _ in range(args.repeats):
                for flag in (True, False):
                    figures, size, counts = pack(work / "corpus", tok, work / f"out-{flag}", layout,
                                                 args.max_length, flag)
                    runs[flag].append(figures)
                    sizes[flag] = size
            cpu = {f: statistics.median(r.cpu for r in runs[f]) for f in runs}
            wall = {f: statistics.median(r.wall for r in runs[f]) for f in runs}
            ratio = statistics.median(a.cpu / b.cpu for a, b in zip(runs[True], runs[False], strict=True))
            print(f"| {layout} | {sizes[True]:,} | {sizes[False]:,} | {sizes[True] / sizes[False]:.4f} | "
                  f"{counts['tokens']:,} | {counts['sequences']:,} | {cpu[True]:.2f} | {cpu[False]:.2f} | "
                  f"{ratio:.3f} | {wall[True]:.2f} | {wall[False]:.2f} |", flush=True)
        with_flags = encode_seconds(tok, lines, True, args.repeats)
        without = encode_seconds(tok, lines, False, args.repeats)
        print(f"encoding alone (this process, CPU s, median of {args.repeats}): with offsets + flags "
              f"{with_flags:.2f}, encode_batch_fast {without:.2f}, ratio {with_flags / without:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
