"""The test suite's own cost: `make test` (pytest-xdist workers), `make quick` and one process, interleaved.

    python bench/bench_tests.py --repeat 3
    python bench/bench_tests.py --repeat 3 --only make-test,quick
    python bench/bench_tests.py --repeat 3 --compare /path/to/a/clone/of/main --only make-test,quick

Each configuration runs this checkout's suite with its `.venv`, `--repeat` times, the configurations
interleaved round by round (the machine is noisy); medians of wall, CPU of the whole process tree (workers,
Beam's worker processes and every subprocess a test starts) and peak RSS are printed, with the ratio to the
first configuration. `--compare` puts first another clone's suite in one process (`pytest -q` with its own
`.venv`: what `make test` ran before pytest-xdist), the baseline of the ratios. A run whose tests fail stops
the bench with pytest's tail.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from lib.measure import Figures, machine_description, run_measured
from lib.run_table import median_figures

ROOT = Path(__file__).resolve().parent.parent
# What `make test` and `make quick` run (Makefile's XDIST), and the same suite in one process.
XDIST = ["-n", "auto", "--dist", "loadfile"]
CONFIGURATIONS = {
    "serial": ["-p", "no:xdist"],
    "make-test": XDIST,
    "quick": [*XDIST, "-m", "not slow"],
}


def pytest_command(checkout: Path, extra: list[str]) -> list[str]:
    python = checkout / ".venv" / "bin" / "python"
    return [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]


def passed(stdout: str) -> str:
    """pytest's closing counts ("1342 passed, 14 warnings"), without the time."""
    last = stdout.strip().splitlines()[-1] if stdout.strip() else ""
    return re.sub(r" in [0-9.]+s.*", "", last.strip("= "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(CONFIGURATIONS),
                        help="configurations, comma-separated, the first is the ratios' baseline")
    parser.add_argument("--compare", type=Path, help="another clone (with its .venv): its suite in one process first")
    args = parser.parse_args()
    names = args.only.split(",")
    unknown = [n for n in names if n not in CONFIGURATIONS]
    if unknown:
        parser.error(f"unknown configuration {unknown[0]!r}; known: {', '.join(CONFIGURATIONS)}")
    runs_in = {name: (ROOT, CONFIGURATIONS[name]) for name in names}
    if args.compare:
        names.insert(0, "compare")
        runs_in["compare"] = (args.compare.resolve(), [])
    for checkout, _ in runs_in.values():
        if not (checkout / ".venv" / "bin" / "python").exists():
            parser.error(f"{checkout} has no .venv: run `make .venv/.installed-test` there first")
    print(machine_description())
    runs: dict[str, list[Figures]] = {name: [] for name in names}
    for round_ in range(args.repeat):
        for name in names:
            checkout, extra = runs_in[name]
            os.chdir(checkout)  # pytest finds the checkout's tests and settings from its root, as `make test` does
            load = os.getloadavg()[0]
            figures = run_measured(pytest_command(checkout, extra))
            runs[name].append(figures)
            print(f"round {round_ + 1} {name:<10} wall {figures.wall:7.1f} s  CPU {figures.cpu:7.1f} s  "
                  f"load before {load:4.1f}  {passed(figures.stdout)}", flush=True)
    base = median_figures(runs[names[0]])
    print(f"\n{'configuration':<14} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>11} {'wall/' + names[0]:>12} "
          f"{'CPU/' + names[0]:>12}")
    for name in names:
        m = median_figures(runs[name])
        print(f"{name:<14} {m.wall:8.1f} {m.cpu:8.1f} {m.peak_rss / 2**20:11.0f} {m.wall / base.wall:12.2f} "
              f"{m.cpu / base.cpu:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
