"""CPU seconds per MB of `kcorpus build-corpus` with this checkout's filter rules vs the code of a git ref.

    python bench/bench_rules.py --code-ref main --repeat 3

Input: the NSMC test split (50,000 comments) and a month of petitions (split into sentences) from
/work/shared/data, as configs/sample.yaml prepares them (kcelectra preset, each code's default filters, exact
and near dedup), on the local runner in one process (`--local-mode in_memory`). The two codes run alternately,
`--repeat` times each, in subprocesses; CPU time is user + system of the whole process tree. Prints the
median CPU s per MB of input for each and their ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from filter_drops import SOURCES, code_of_ref

PROFILE = """sources:
  - {{name: nsmc, format: nsmc, paths: ["{nsmc}"], preset: kcelectra}}
  - {{name: petitions, format: petitions, paths: ["{petitions}"], preset: kcelectra, split_sentences: true}}
output: {{num_shards: 4, dropped: all}}
"""


def run_once(profile: Path, out: Path, env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one build-corpus in a subprocess."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        sys.executable,
        "-c",
        "import sys; from kcorpus.pipeline.cli import main; sys.exit(main(sys.argv[1:]))",
        "build-corpus", "--config", str(profile), "--out", str(out), "--local-mode", "in_memory",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--code-ref", default="main", help="the git ref whose code is the baseline")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = {name: str(path) for name, (_, path, _) in SOURCES.items()}
    megabytes = sum(os.path.getsize(p) for p in paths.values()) / 1e6
    with tempfile.TemporaryDirectory(prefix="bench-rules-") as tmp:
        work = Path(tmp)
        profile = work / "profile.yaml"
        profile.write_text(PROFILE.format(**paths), encoding="utf-8")
        site = code_of_ref(args.code_ref, work / "baseline")
        envs = {
            f"before ({args.code_ref})": {**os.environ, "PYTHONPATH": str(site)},
            "after (this checkout)": dict(os.environ),
        }
        cpu: dict[str, list[float]] = {name: [] for name in envs}
        wall: dict[str, list[float]] = {name: [] for name in envs}
        for _ in range(args.repeat):
            for name, env in envs.items():
                c, w = run_once(profile, work / "out", env, tmp)
                cpu[name].append(c)
                wall[name].append(w)
        print(f"input: {megabytes:.2f} MB (NSMC test + petitions 2017-08); load {os.getloadavg()[0]:.1f}")
        for name in envs:
            med = statistics.median(cpu[name])
            print(
                f"{name:<24} CPU s {med:6.1f} (runs {', '.join(f'{c:.1f}' for c in cpu[name])}), "
                f"{med / megabytes:.2f} CPU s/MB, wall {statistics.median(wall[name]):.1f} s"
            )
        before, after = (statistics.median(cpu[name]) for name in envs)
        print(f"after / before CPU: {after / before:.3f}")


if __name__ == "__main__":
    main()
