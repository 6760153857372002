"""The per-run row every scale bench prints, medians over repeats, and the marginal-cost summary against goals.

A row: system, input MB, cores, workers, wall, CPU, CPU s per MB, peak RSS of the process tree, busy cores
(CPU / wall) and the ratios to the baseline run on the same input in the same bench run (wall and CPU;
below 1 beats the baseline). The summary takes two input sizes of one system: the marginal CPU s per MB
between them (so start-up cost drops out) and the growth of peak RSS, each against its goal.
"""

from __future__ import annotations

import datetime
import shlex
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from lib.measure import Figures, machine_description


@dataclass(frozen=True)
class Row:
    """One system on one input: the median figures of its repeats and the baseline's on the same input."""

    system: str
    size: str  # the input's label ("100", "quarter")
    megabytes: float
    figures: Figures
    baseline: Figures | None = None

    @property
    def wall_ratio(self) -> float | None:
        """Wall time over the baseline's."""
        return self.figures.wall / self.baseline.wall if self.baseline and self.baseline.wall else None

    @property
    def cpu_ratio(self) -> float | None:
        """CPU time over the baseline's."""
        return self.figures.cpu / self.baseline.cpu if self.baseline and self.baseline.cpu else None

    def as_dict(self) -> dict:
        """The row as plain JSON-able data."""
        return {
            "system": self.system,
            "size": self.size,
            "mb": self.megabytes,
            **self.figures.as_dict(),
            "cpu_per_mb": self.figures.per_mb(self.megabytes),
            "wall_ratio_to_baseline": self.wall_ratio,
            "cpu_ratio_to_baseline": self.cpu_ratio,
        }


def median_figures(runs: Sequence[Figures]) -> Figures:
    """Medians of wall, CPU and peak RSS; busy cores per interval of the run with the median wall."""
    middle = sorted(runs, key=lambda f: f.wall)[(len(runs) - 1) // 2]
    return Figures(
        wall=statistics.median(f.wall for f in runs),
        cpu=statistics.median(f.cpu for f in runs),
        peak_rss=int(statistics.median(f.peak_rss for f in runs)),
        busy_per_interval=middle.busy_per_interval,
        workers=middle.workers,
        cores=middle.cores,
    )


def _ratio(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else "-"


def format_rows(rows: Sequence[Row], baseline_name: str) -> str:
    """The table of rows, one line each, with a header naming the baseline of the ratio columns."""
    header = (
        f"{'system':<12} {'size':>8} {'MB':>8} {'cores':>5} {'workers':>7} {'wall s':>8} {'CPU s':>8} "
        f"{'CPU s/MB':>8} {'peak RSS MB':>11} {'busy cores':>10} {'wall/' + baseline_name:>10} "
        f"{'CPU/' + baseline_name:>10}"
    )
    lines = [header]
    for row in rows:
        f = row.figures
        lines.append(
            f"{row.system:<12} {row.size:>8} {row.megabytes:8.1f} {f.cores:>5} {f.workers!s:>7} "
            f"{f.wall:8.1f} {f.cpu:8.1f} {f.per_mb(row.megabytes):8.3f} {f.peak_rss / 2**20:11.0f} "
            f"{f.busy_cores:10.1f} {_ratio(row.wall_ratio):>10} {_ratio(row.cpu_ratio):>10}"
        )
    return "\n".join(lines)


def format_intervals(rows: Sequence[Row], interval: float) -> str:
    """Busy cores per `interval` seconds of each row's median run."""
    return "\n".join(
        f"{row.system} @ {row.size}: busy cores per {interval:g} s: "
        + ", ".join(f"{b:.1f}" for b in row.figures.busy_per_interval)
        for row in rows
    )


def marginal_cpu_per_mb(small: Row, large: Row) -> float:
    """CPU seconds per MB between two inputs: the cost of the extra MB, start-up cost cancelled."""
    extra = large.megabytes - small.megabytes
    return (large.figures.cpu - small.figures.cpu) / extra if extra > 0 else float("nan")


def rss_growth(small: Row, large: Row) -> float:
    """Peak RSS of the larger input over that of the smaller."""
    return large.figures.peak_rss / small.figures.peak_rss if small.figures.peak_rss else float("nan")


def verdict(value: float, goal: float | None) -> str:
    """PASS or FAIL against an upper bound; no goal, no verdict."""
    if goal is None:
        return "(no goal)"
    return "PASS" if value <= goal else "FAIL"


@dataclass(frozen=True)
class Check:
    """One summary figure and its goal (an upper bound)."""

    name: str
    value: float
    goal: float | None
    unit: str = ""

    @property
    def verdict(self) -> str:
        return verdict(self.value, self.goal)

    def line(self) -> str:
        goal = f"goal <= {self.goal:g}{self.unit}" if self.goal is not None else ""
        return f"{self.name:<66} {self.value:8.3f}{self.unit:<2} {goal:<16} {self.verdict}"

    def as_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "goal": self.goal, "verdict": self.verdict}


def run_header() -> str:
    """The date, the machine, the command line and whether kcorpus's C extensions run (or their Python twins:
    ~30% of a build's CPU apart), for bench/RESULTS.md."""
    from kcorpus.transforms.rules import letter_stats, repetition
    from kcorpus.transforms.text import passes

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    extensions = {
        "letter counts": letter_stats.COMPILED,
        "n-gram rules": repetition.NGRAMS_COMPILED,
        "text passes": passes.COMPILED,
    }
    built = ", ".join(f"{name} {'compiled' if on else 'in Python (no C compiler at install)'}"
                      for name, on in extensions.items())
    return f"{now}; {machine_description()}\ncommand: {shlex.join([sys.executable, *sys.argv])}\nkcorpus: {built}"
