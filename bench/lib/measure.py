"""Measuring a command and its whole process tree: wall, CPU, peak RSS and busy cores, from Linux /proc.

    figures = run_measured([sys.executable, "-c", "..."], workers=4)
    print(figures.wall, figures.cpu, figures.peak_rss, figures.busy_cores, figures.busy_per_interval)

A sampler polls the tree every `poll` seconds: its resident memory (the peak is kept) and its cumulative CPU
(user + system of every live process plus the CPU of the children they have reaped), from which the busy
cores per `interval` seconds follow. The run's total CPU is the children rusage of this process, which holds
every descendant once the command has exited and reaped its own children (or the last sample's figure where
that is larger: a child left unreaped).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import platform
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class ProcStat:
    """The fields of one /proc/<pid>/stat line a tree measurement needs."""

    pid: int
    ppid: int
    cpu_ticks: int  # utime + stime + cutime + cstime: its own CPU and that of its reaped children
    rss_pages: int


@dataclass(frozen=True)
class TreeSample:
    """One poll of a process tree: when, its cumulative CPU seconds and its resident bytes."""

    time: float
    cpu: float
    rss: int


@dataclass(frozen=True)
class Figures:
    """What one measured run cost."""

    wall: float
    cpu: float
    peak_rss: int
    busy_per_interval: tuple[float, ...] = ()
    workers: int | str | None = None
    cores: int = field(default_factory=lambda: usable_cores())
    stdout: str = ""

    @property
    def busy_cores(self) -> float:
        """CPU seconds per wall second over the whole run."""
        return busy_cores(self.cpu, self.wall)

    def per_mb(self, megabytes: float) -> float:
        """CPU seconds per MB of input."""
        return self.cpu / megabytes if megabytes > 0 else float("nan")

    def as_dict(self) -> dict:
        """The figures as plain JSON-able data (stdout left out)."""
        return {
            "wall": self.wall,
            "cpu": self.cpu,
            "peak_rss": self.peak_rss,
            "busy_cores": self.busy_cores,
            "busy_per_interval": list(self.busy_per_interval),
            "workers": self.workers,
            "cores": self.cores,
        }


def usable_cores() -> int:
    """The cores this process may run on (its affinity), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def machine_description() -> str:
    """One line naming the machine: CPU model, cores usable/present, memory, kernel."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    memory = os.sysconf("SC_PHYS_PAGES") * PAGE_SIZE / 2**30
    return (
        f"{model}; {usable_cores()} usable of {os.cpu_count()} cores; {memory:.0f} GiB; "
        f"{platform.system()} {platform.release()}; load average {os.getloadavg()[0]:.1f}"
    )


def parse_stat(line: str) -> ProcStat:
    """Parses a /proc/<pid>/stat line; the command name may hold spaces and parentheses."""
    head, _, rest = line.rpartition(")")
    fields = rest.split()
    # fields[0] is field 3 of proc(5) (state): ppid is 4, utime..cstime 14..17, rss 24
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return ProcStat(
        pid=int(head.split("(", 1)[0]),
        ppid=int(fields[1]),
        cpu_ticks=utime + stime + cutime + cstime,
        rss_pages=int(fields[21]),
    )


def read_proc_table(proc: str = "/proc") -> dict[int, ProcStat]:
    """Every process's stat fields, by pid; processes that vanish while being read are skipped."""
    table = {}
    for entry in os.listdir(proc):
        if entry.isdigit():
            try:
                with open(f"{proc}/{entry}/stat") as f:
                    stat = parse_stat(f.read())
            except (OSError, IndexError, ValueError):
                continue
            table[stat.pid] = stat
    return table


def tree_pids(table: Mapping[int, ProcStat], root: int) -> list[int]:
    """The root and all its descendants present in `table`."""
    children: dict[int, list[int]] = {}
    for stat in table.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    pids, stack = [], [root]
    while stack:
        pid = stack.pop()
        if pid in table:
            pids.append(pid)
            stack.extend(children.get(pid, []))
    return pids


def sample_tree(table: Mapping[int, ProcStat], root: int, at: float) -> TreeSample:
    """The tree's cumulative CPU seconds and resident bytes in one /proc snapshot."""
    stats = [table[pid] for pid in tree_pids(table, root)]
    return TreeSample(
        time=at,
        cpu=sum(s.cpu_ticks for s in stats) / CLOCK_TICKS,
        rss=sum(s.rss_pages for s in stats) * PAGE_SIZE,
    )


def busy_cores(cpu: float, wall: float) -> float:
    """Average cores busy: CPU seconds per wall second (0 for an empty interval)."""
    return cpu / wall if wall > 0 else 0.0


def busy_between(earlier: TreeSample, later: TreeSample) -> float:
    """Cores busy between two samples of the same tree.

    A child that exited and was not yet reaped by a member of the tree takes its CPU out of the sum for a
    moment; the difference is then floored at 0 rather than reported as negative cores.
    """
    return busy_cores(max(0.0, later.cpu - earlier.cpu), later.time - earlier.time)


def busy_per_interval(samples: Sequence[TreeSample], interval: float) -> list[float]:
    """Cores busy in each `interval` seconds from the first sample; the last interval may be shorter.

    An interval runs from the first sample at or after its start to the first at or after its end, so a gap
    in the sampling widens an interval (or merges two) rather than losing CPU.
    """
    if len(samples) < 2 or interval <= 0:
        return []
    marks, boundary = [0], samples[0].time + interval
    for j in range(1, len(samples)):
        if samples[j].time >= boundary:
            marks.append(j)
            while boundary <= samples[j].time:
                boundary += interval
    if marks[-1] != len(samples) - 1:
        marks.append(len(samples) - 1)
    return [busy_between(samples[a], samples[b]) for a, b in itertools.pairwise(marks)]


def peak_rss(samples: Iterable[TreeSample]) -> int:
    """The largest resident size seen."""
    return max((s.rss for s in samples), default=0)


def total_cpu(reaped: float, samples: Iterable[TreeSample]) -> float:
    """The run's CPU seconds: its reaped children's rusage, or more where the tree's last samples saw more.

    rusage misses a worker its launcher left running (not reaped at exit); the samples saw its CPU until then.
    """
    return max(reaped, max((s.cpu for s in samples), default=0.0))


def children_cpu() -> float:
    """User + system CPU seconds of this process's reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(
    cmd: Sequence[str],
    *,
    workers: int | str | None = None,
    interval: float = 5.0,
    poll: float = 0.2,
    env: Mapping[str, str] | None = None,
    rss_limit: int | None = None,
) -> Figures:
    """Runs `cmd` to completion while sampling its process tree; raises with stderr's tail if it fails.

    Args:
        cmd: the command line.
        workers: the worker count the command was given, recorded in the figures.
        interval: seconds per busy-core figure.
        poll: seconds between samples (the peak RSS is the largest sampled).
        env: the environment, else this process's.
        rss_limit: bytes: when the tree's resident size passes it, every process of the tree is killed and the
            run fails (a cap for a command that may not fit a shared machine).
    """
    cpu_before = children_cpu()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, tempfile.TemporaryFile("w+") as err:
        # files, not pipes: a chatty command never blocks on a full pipe while the sampler polls
        start = time.monotonic()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, text=True, env=None if env is None else dict(env))
        samples = [TreeSample(start, 0.0, 0)]
        killed = None
        while proc.poll() is None:
            table = read_proc_table()
            samples.append(sample_tree(table, proc.pid, time.monotonic()))
            if rss_limit is not None and samples[-1].rss > rss_limit and killed is None:
                killed = samples[-1].rss
                for pid in tree_pids(table, proc.pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(poll)
        wall = time.monotonic() - start
        cpu = total_cpu(children_cpu() - cpu_before, samples)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if killed is not None:
        raise RuntimeError(f"{' '.join(cmd)} killed: its tree held {killed / 2**20:.0f} MB, over the "
                           f"{rss_limit / 2**20:.0f} MB limit")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    samples.append(TreeSample(start + wall, cpu, 0))
    return Figures(
        wall=wall,
        cpu=cpu,
        peak_rss=peak_rss(samples),
        busy_per_interval=tuple(busy_per_interval(samples, interval)),
        workers=workers,
        stdout=stdout,
    )
