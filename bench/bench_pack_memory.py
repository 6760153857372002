"""`kcorpus pack` at growing corpus sizes: peak RSS of the whole process tree, wall, CPU, shards, padding, and
whether the shards hold every row the manifest counts; a baseline kcorpus (another checkout) beside it.

Each corpus (a build-corpus output; `bench/generators/scale_corpus.py` makes bigger ones from a built one) is packed by
the baseline and the candidate in turn, `--repeats` times, in the same bench run (so both meet the same load),
on the local runner with `--workers` workers, every layout of `--layouts`; the baseline only up to
`--baseline-max-mb` of corpus (main's pack held ~6 GB at 1 GB) and every run under `--rss-limit-mb` (the tree
is killed past it). A run's figures: wall, CPU s (user + system of the tree), peak RSS of the tree
(bench/lib/measure.py), the shards written and their rows, the padding share, and `complete`: the rows and content
tokens in the shard files equal the manifest's (bench/checks/verify_pack.py's check). Medians of the repeats, ratios
candidate / baseline, the growth of the candidate's peak RSS from the smallest corpus to the largest.

    python bench/bench_pack_memory.py --tokenizer /work/scratch/pack-scale/tok_kcbert \\
        --corpus 200M=/work/scratch/pack-scale/kowiki_200m --corpus 1G=/work/data/kowiki_corpus \\
        --corpus 4G=/work/scratch/pack-scale/kowiki_x4 --baseline /work/scratch/pack-scale/main-wt \\
        --baseline-max-mb 1100 --layouts pair full_sentences --repeats 1 \\
        --work /work/scratch/pack-scale/bench --json /work/scratch/pack-scale/bench.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from checks.verify_pack import shard_facts
from lib.measure import machine_description, run_measured

HERE = Path(__file__).resolve().parent


def corpus_megabytes(corpus: Path) -> float:
    return sum(p.stat().st_size for p in (corpus / "docs").glob("*.jsonl")) / 1e6


def revision(checkout: Path) -> str:
    return subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def pack_once(kcorpus: Path, corpus: Path, tokenizer: Path, out: Path, layout: str, args) -> dict:
    """One measured pack, its manifest's figures and the check of its files; the output is removed after."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(kcorpus), "pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(out),
           "--max-length", str(args.max_length), "--layout", layout, "--no-progress", "--",
           f"--direct_num_workers={args.workers}"]
    figures = run_measured(cmd, workers=args.workers, rss_limit=args.rss_limit_mb << 20)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    rows = tokens = 0
    for shard in manifest["shards"]:
        facts = shard_facts(out / shard["file"])
        rows += facts["rows"]
        tokens += facts["tokens"]
    counts = manifest["counts"]
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": figures.wall, "cpu": figures.cpu, "peak_rss_mb": figures.peak_rss / 2**20,
            "shards": len(manifest["shards"]), "sequences": counts["sequences"],
            "padding_fraction": counts["padding_fraction"],
            "output_mb": sum(s["bytes"] for s in manifest["shards"]) / 1e6,
            "complete": rows == counts["sequences"] and tokens == counts["tokens"],
            "rows_in_files": rows, "tokens_in_files": tokens, "tokens": counts["tokens"]}


def median(runs: list[dict]) -> dict:
    out = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "peak_rss_mb")}
    out.update({k: runs[0][k] for k in ("shards", "sequences", "padding_fraction", "output_mb")})
    out["complete"] = all(r["complete"] for r in runs)
    out["runs"] = len(runs)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", required=True, help="LABEL=FOLDER, smallest first")
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--baseline", type=Path, help="a kcorpus checkout with its own .venv (e.g. main)")
    parser.add_argument("--candidate", type=Path, default=HERE.parent, help="default: this checkout")
    parser.add_argument("--baseline-max-mb", type=float, default=1100.0)
    parser.add_argument("--layouts", nargs="+", default=["pair"])
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--rss-limit-mb", type=int, default=9000)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder for the outputs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpora = [(label, Path(folder)) for label, folder in (c.split("=", 1) for c in args.corpus)]
    systems = {"candidate": args.candidate}
    if args.baseline:
        systems = {"baseline": args.baseline, **systems}
    print(f"# {machine_description()}")
    print("# " + " ".join(sys.argv))
    print("# " + ", ".join(f"{name} {revision(path)}" for name, path in systems.items()))
    results = []
    for label, corpus in corpora:
        megabytes = corpus_megabytes(corpus)
        for layout in args.layouts:
            runs: dict[str, list[dict]] = {name: [] for name in systems}
            for _ in range(args.repeats):
                for name, checkout in systems.items():
                    if name == "baseline" and (megabytes > args.baseline_max_mb or layout == "full_sentences"):
                        continue  # main's pack past ~1 GB would not fit this machine; main has no full_sentences
                    run = pack_once(checkout / ".venv" / "bin" / "kcorpus", corpus, args.tokenizer,
                                    args.work / f"{name}-{label}-{layout}", layout, args)
                    runs[name].append(run)
                    print(json.dumps({"corpus": label, "layout": layout, "system": name, **run}), flush=True)
            for name, done in runs.items():
                if done:
                    results.append({"corpus": label, "mb": round(megabytes, 1), "layout": layout, "system": name,
                                    **median(done)})
    print(f"\n{'corpus':>7} {'MB':>7} {'layout':>15} {'system':>9} {'wall s':>7} {'CPU s':>7} {'peak RSS MB':>11} "
          f"{'shards':>6} {'padding':>8} {'complete':>8} {'RSS/base':>8} {'CPU/base':>8}")
    for r in results:
        base = next((b for b in results if b["system"] == "baseline" and b["corpus"] == r["corpus"]
                     and b["layout"] == r["layout"]), None)
        ratios = [f"{r[k] / base[k]:.2f}x" if base and r is not base else "-" for k in ("peak_rss_mb", "cpu")]
        print(f"{r['corpus']:>7} {r['mb']:7.0f} {r['layout']:>15} {r['system']:>9} {r['wall']:7.0f} {r['cpu']:7.0f} "
              f"{r['peak_rss_mb']:11.0f} {r['shards']:6d} {100 * r['padding_fraction']:7.2f}% "
              f"{'yes' if r['complete'] else 'NO':>8} {ratios[0]:>8} {ratios[1]:>8}")
    for layout in args.layouts:
        mine = [r for r in results if r["system"] == "candidate" and r["layout"] == layout]
        if len(mine) > 1:
            print(f"candidate {layout}: peak RSS {mine[-1]['corpus']} / {mine[0]['corpus']} = "
                  f"{mine[-1]['peak_rss_mb'] / mine[0]['peak_rss_mb']:.2f}x for "
                  f"{mine[-1]['mb'] / mine[0]['mb']:.1f}x the corpus")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
