"""CPU of `kcorpus build-corpus` in two installed checkouts, alternating, on the same profiles.

    python bench/bench_build_cpu_pair.py --before BASE/.venv/bin/kcorpus --after HEAD/.venv/bin/kcorpus \
        --out /tmp/pair --rounds 5 configs/sample.yaml bench/mdeberta_shared.yaml bench/nsmc_shared.yaml

Each round runs every profile with `before`, then with `after` (the order flips every round, so neither side
always runs on a warmer machine), `--local-mode in_memory`, output into OUT; CPU is user + system of the whole
process tree (bench/lib/measure.py). Prints per profile the input MB, the medians of both and their ratio, and the
ratio of each round. Give each side a venv of the same extras (`make .venv/.installed-run` in each checkout),
so that neither pays imports the other does not.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from lib.measure import run_measured


def build(kcorpus: str, profile: str, out: Path) -> float:
    cmd = [kcorpus, "--no-progress", "build-corpus", "--config", profile, "--out", str(out),
           "--local-mode", "in_memory", "--overwrite"]  # fmt: skip
    return run_measured(cmd).cpu


def input_mb(out: Path) -> float:
    counters = json.loads((out / "stats.json").read_text(encoding="utf-8"))["total"]["counters"]
    return counters.get("read:characters", 0) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profiles", nargs="+")
    parser.add_argument("--before", required=True, help="the baseline checkout's kcorpus executable")
    parser.add_argument("--after", required=True, help="the candidate checkout's kcorpus executable")
    parser.add_argument("--out", type=Path, required=True, help="a scratch folder for the outputs")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cpu: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        sides = [("before", args.before), ("after", args.after)]
        for profile in args.profiles:
            for side, kcorpus in sides if round_ % 2 == 0 else sides[::-1]:
                cpu.setdefault((profile, side), []).append(build(kcorpus, profile, args.out / side / Path(profile).stem))
    print("| profile | M characters in | before CPU s, median | after CPU s, median | ratio | ratio per round |")
    print("|---|---|---|---|---|---|")
    for profile in args.profiles:
        before, after = cpu[(profile, "before")], cpu[(profile, "after")]
        rounds = ", ".join(f"{a / b:.3f}" for b, a in zip(before, after, strict=True))
        mb = input_mb(args.out / "after" / Path(profile).stem)
        print(f"| {profile} | {mb:.2f} | {statistics.median(before):.2f} | {statistics.median(after):.2f} | "
              f"{statistics.median(after) / statistics.median(before):.3f} | {rounds} |")


if __name__ == "__main__":
    main()
