"""CPU cost per MB of build-corpus and pack, and the Dataflow estimate derived from it (README, "Running on Dataflow").

Runs `kcorpus build-corpus` then `kcorpus pack` on two inputs of different size, the bundled sample
(configs/sample.yaml, 3 MB) and the whole of the shared real data (NSMC test split, one month of petitions, two
Korean Wikipedia files: 8.9 MB), each stage in its own process on the local runner with one worker per core.
It measures wall time and CPU seconds (user + sys of the whole process tree, Beam's worker processes included)
and reports the *marginal* cost, (CPU_large - CPU_small) / (MB_large - MB_small), which leaves out the fixed
start-up cost (imports, worker start, pipeline construction) that a long Dataflow job pays once per worker.
Then it turns the figures into vCPU-hours, n2-standard-4 worker-hours and dollars for 40 GB and 17 GB.

    python bench/bench_run.py --data ../shared/data --repeat 3

CPU time is steadier than wall time on a shared machine, but contention still inflates it: the estimate is
an upper bound for an idle core.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KCORPUS = [sys.executable, "-m", "kcorpus.pipeline.cli"]
# Dataflow batch list prices, us-central1, USD (https://cloud.google.com/dataflow/pricing).
VCPU_HOUR = 0.056
GB_MEMORY_HOUR = 0.003557
GB_PD_HOUR = 0.000054
SHUFFLE_GB = 0.011
WORKER_VCPUS, WORKER_GB, WORKER_DISK_GB = 4, 16, 50  # n2-standard-4, --disk_size_gb 50
# Worker start-up, autoscaling ramp, stragglers: billed time over pure CPU time.
OVERHEAD = 1.5


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command's whole process tree)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - start, cpu


def full_profile(data: Path, work: Path) -> Path:
    """configs/sample.yaml pointed at the whole shared data instead of the bundled slices."""
    text = (ROOT / "configs" / "sample.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "../tests/testdata/sample/nsmc_ratings_test_head.txt", str(data / "nsmc/ratings_test.txt")
    )
    text = text.replace(
        "../tests/testdata/sample/petitions_2017-08_head", str(data / "petitions/petitions_2017-08")
    )
    text = text.replace("../tests/testdata/sample/wiki_00_head", str(data / "kowiki/wiki_0*"))
    text = text.replace("reference: ../tests", f"reference: {ROOT / 'tests'}")
    path = work / "full.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def raw_mb(profile: Path) -> float:
    import glob

    import yaml

    raw = yaml.safe_load(profile.read_text(encoding="utf-8"))
    files = {
        f for s in raw["sources"] for p in s["paths"] for f in glob.glob(str((profile.parent / p).resolve()))
    }
    return sum(Path(f).stat().st_size for f in files) / 1e6


def measure(profile: Path, tokenizer: Path, work: Path) -> dict[str, float]:
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    corpus_wall, corpus_cpu = timed(
        [*KCORPUS, "build-corpus", "--config", str(profile), "--out", str(out / "corpus")]
    )
    pack_wall, pack_cpu = timed(
        [
            *KCORPUS,
            "pack",
            "--corpus",
            str(out / "corpus"),
            "--tokenizer",
            str(tokenizer),
            "--out",
            str(out / "pack"),
            "--layout",
            "cross_document",
        ]
    )
    docs_mb = sum(p.stat().st_size for p in (out / "corpus" / "docs").glob("*.jsonl")) / 1e6
    return {
        "raw_mb": raw_mb(profile),
        "docs_mb": docs_mb,
        "corpus_wall": corpus_wall,
        "corpus_cpu": corpus_cpu,
        "pack_wall": pack_wall,
        "pack_cpu": pack_cpu,
    }


def estimate(gb: float, corpus_s_per_mb: float, pack_s_per_mb: float, docs_ratio: float) -> dict[str, float]:
    mb = gb * 1000
    vcpu_h = OVERHEAD * (mb * corpus_s_per_mb + mb * docs_ratio * pack_s_per_mb) / 3600
    worker_h = vcpu_h / WORKER_VCPUS
    # Shuffled bytes: pack groups the tokenized documents by shard (about the corpus size); dedup keys are small.
    shuffle_gb = gb * docs_ratio
    dollars = (
        vcpu_h * VCPU_HOUR
        + worker_h * WORKER_GB * GB_MEMORY_HOUR
        + worker_h * WORKER_DISK_GB * GB_PD_HOUR
        + shuffle_gb * SHUFFLE_GB
    )
    return {"vcpu_hours": vcpu_h, "worker_hours": worker_h, "shuffle_gb": shuffle_gb, "usd": dollars}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--tokenizer",
        type=Path,
        default=ROOT / "runs" / "sample" / "vocab",
        help="a vocab folder (make run writes runs/sample/vocab)",
    )
    args = parser.parse_args()
    if not (args.tokenizer / "tokenizer.json").exists():
        sys.exit(f"{args.tokenizer}/tokenizer.json missing: run `make run` first or pass --tokenizer")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runs = {"small": [], "large": []}
        for _ in range(args.repeat):
            runs["small"].append(measure(ROOT / "configs" / "sample.yaml", args.tokenizer, work))
            runs["large"].append(measure(full_profile(args.data, work), args.tokenizer, work))
    med = {size: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for size, rs in runs.items()}
    small, large = med["small"], med["large"]
    corpus_s = (large["corpus_cpu"] - small["corpus_cpu"]) / (large["raw_mb"] - small["raw_mb"])
    pack_s = (large["pack_cpu"] - small["pack_cpu"]) / (large["docs_mb"] - small["docs_mb"])
    docs_ratio = large["docs_mb"] / large["raw_mb"]
    print(json.dumps(med, indent=1))
    print(f"build-corpus: {corpus_s:.2f} CPU s per MB of raw input ({1 / corpus_s:.3f} MB/s per core)")
    print(f"pack:         {pack_s:.2f} CPU s per MB of docs/*.jsonl ({1 / pack_s:.2f} MB/s per core)")
    print(f"docs/*.jsonl is {docs_ratio:.2f}x the raw input")
    for gb in (40, 17):
        e = estimate(gb, corpus_s, pack_s, docs_ratio)
        print(
            f"{gb} GB: {e['vcpu_hours']:.1f} vCPU-h = {e['worker_hours']:.1f} n2-standard-4 worker-h, "
            f"shuffle ~{e['shuffle_gb']:.0f} GB, ~${e['usd']:.2f} at list prices (x{OVERHEAD} overhead)"
        )


if __name__ == "__main__":
    main()
