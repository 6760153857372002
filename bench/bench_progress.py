"""The cost of the progress display: build-corpus and pack with `--progress` against `--no-progress`.

Runs each command in a subprocess (the local multi-processing runner, as users run it), alternating the two
settings so that noise on a shared machine hits both alike, and prints the median wall and CPU seconds
(the command and its Beam worker processes) and their ratios. The corpus is `bench_corpus.scale_sample` (the bundled sample repeated to `--mb`), the vocabulary
any `tokenizer.json` folder (`--tokenizer`, e.g. a `kcorpus run configs/sample.yaml` run's `vocab/`).

    python bench/bench_progress.py --mb 25 --repeat 3 --tokenizer runs/sample/vocab
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_corpus

KCORPUS = [sys.executable, "-m", "kcorpus.pipeline.cli"]


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the command and its worker processes) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tokenizer", required=True)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-progress-"))
    try:
        source = bench_corpus.scale_sample(work / "in", args.mb)
        profile = work / "profile.yaml"
        bench_corpus.write_config(profile, source, near=True)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.repeat):
            for flag in ("--no-progress", "--progress"):
                corpus, pack = work / f"corpus{flag}", work / f"pack{flag}"
                build = [*KCORPUS, flag, "build-corpus", "--config", str(profile), "--out", str(corpus)]
                times.setdefault(("build-corpus", flag), []).append(timed([*build, "--overwrite"]))
                packing = [*KCORPUS, flag, "pack", "--corpus", str(corpus), "--tokenizer", args.tokenizer]
                times.setdefault(("pack", flag), []).append(timed([*packing, "--out", str(pack), "--overwrite"]))
        print("| command | wall off s | wall on s | wall ratio | CPU off s | CPU on s | CPU ratio |")
        print("|---|---|---|---|---|---|---|")
        for command in ("build-corpus", "pack"):
            row = [command]
            for kind in (0, 1):
                off = statistics.median(t[kind] for t in times[(command, "--no-progress")])
                on = statistics.median(t[kind] for t in times[(command, "--progress")])
                row += [f"{off:.2f}", f"{on:.2f}", f"{on / off:.3f}"]
            print("| " + " | ".join(row) + " |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
