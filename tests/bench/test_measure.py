"""bench/lib/measure.py: parsing /proc, the process tree, and busy cores from tree samples (no timing)."""

import sys

import pytest
from lib import measure
from lib.measure import CLOCK_TICKS, PAGE_SIZE, Figures, ProcStat, TreeSample


def stat_line(pid: int, comm: str, ppid: int, utime: int, stime: int, cutime: int, cstime: int, rss: int) -> str:
    """A /proc/<pid>/stat line as Linux writes it (52 fields), with the fields tests set."""
    fields = ["S", str(ppid), *["0"] * 9, str(utime), str(stime), str(cutime), str(cstime), *["0"] * 6, str(rss)]
    fields += ["0"] * (50 - len(fields))
    return f"{pid} ({comm}) {' '.join(fields)}\n"


def test_parse_stat_reads_ppid_cpu_ticks_and_rss():
    stat = measure.parse_stat(stat_line(4242, "python3", 17, 100, 20, 3, 4, 5120))
    assert stat == ProcStat(pid=4242, ppid=17, cpu_ticks=127, rss_pages=5120)


def test_parse_stat_survives_a_command_name_with_spaces_and_parentheses():
    stat = measure.parse_stat(stat_line(7, "pool (worker) 1", 1, 1, 1, 0, 0, 9))
    assert stat == ProcStat(pid=7, ppid=1, cpu_ticks=2, rss_pages=9)


def test_parse_stat_of_this_process_matches_its_pid():
    with open("/proc/self/stat") as f:
        line = f.read()
    stat = measure.parse_stat(line)
    assert stat.pid == int(line.split()[0])
    assert stat.rss_pages > 0


TABLE = {
    10: ProcStat(10, 1, 100, 1000),  # the launcher
    11: ProcStat(11, 10, 400, 3000),  # its workers
    12: ProcStat(12, 10, 300, 2000),
    13: ProcStat(13, 11, 50, 500),  # a worker's child
    20: ProcStat(20, 1, 9999, 99999),  # another process on the machine
}


def test_tree_pids_are_the_root_and_all_its_descendants():
    assert sorted(measure.tree_pids(TABLE, 10)) == [10, 11, 12, 13]
    assert sorted(measure.tree_pids(TABLE, 11)) == [11, 13]
    assert measure.tree_pids(TABLE, 99) == []  # exited before the snapshot


def test_sample_tree_sums_cpu_and_rss_of_the_tree_only():
    sample = measure.sample_tree(TABLE, 10, at=3.0)
    assert sample == TreeSample(time=3.0, cpu=850 / CLOCK_TICKS, rss=6500 * PAGE_SIZE)


def test_read_proc_table_skips_non_pid_entries_and_unreadable_stats(tmp_path):
    (tmp_path / "123").mkdir()
    (tmp_path / "123" / "stat").write_text(stat_line(123, "kcorpus", 1, 5, 5, 0, 0, 77))
    (tmp_path / "124").mkdir()  # vanished: no stat file
    (tmp_path / "125").mkdir()
    (tmp_path / "125" / "stat").write_text("garbage")
    (tmp_path / "self").mkdir()
    assert measure.read_proc_table(str(tmp_path)) == {123: ProcStat(123, 1, 10, 77)}


def test_busy_between_two_samples_is_cpu_per_wall_second():
    assert measure.busy_between(TreeSample(10.0, 100.0, 0), TreeSample(15.0, 140.0, 0)) == 8.0


def test_busy_between_floors_a_dip_from_an_unreaped_child_at_zero():
    assert measure.busy_between(TreeSample(10.0, 100.0, 0), TreeSample(15.0, 90.0, 0)) == 0.0
    assert measure.busy_between(TreeSample(10.0, 1.0, 0), TreeSample(10.0, 2.0, 0)) == 0.0


def samples_at(times_and_cpu: list[tuple[float, float]]) -> list[TreeSample]:
    return [TreeSample(t, cpu, 0) for t, cpu in times_and_cpu]


def test_busy_per_interval_splits_a_run_into_fixed_intervals():
    # 2 cores busy for 10 s, then 0.5 for 5 s, then 1 core for the last 2 s
    cpu_at = {t: 2.0 * min(t, 10) + 0.5 * max(0, min(t, 15) - 10) + 1.0 * max(0, t - 15) for t in range(18)}
    samples = samples_at(sorted(cpu_at.items()))
    assert measure.busy_per_interval(samples, 5.0) == [2.0, 2.0, 0.5, 1.0]


def test_busy_per_interval_widens_an_interval_over_a_sampling_gap():
    samples = samples_at([(0, 0), (1, 4), (12, 15), (15, 21)])
    # 0..12 s (the gap swallows the second boundary): 15 CPU s; then 12..15 s: 6 CPU s
    assert measure.busy_per_interval(samples, 5.0) == [15 / 12, 2.0]


def test_busy_per_interval_needs_two_samples():
    assert measure.busy_per_interval(samples_at([(0, 0)]), 5.0) == []
    assert measure.busy_per_interval(samples_at([(0, 0), (1, 1)]), 0) == []


def test_figures_busy_cores_and_cpu_per_mb():
    figures = Figures(wall=20.0, cpu=50.0, peak_rss=2**30, workers=4, cores=16)
    assert figures.busy_cores == 2.5
    assert figures.per_mb(200.0) == 0.25
    assert figures.as_dict()["busy_cores"] == 2.5
    assert figures.as_dict()["workers"] == 4


def test_run_measured_returns_stdout_and_counts_the_tree():
    figures = measure.run_measured([sys.executable, "-c", "print('됐다')"], workers=1)
    assert figures.stdout == "됐다\n"
    assert figures.workers == 1
    assert figures.cpu > 0 and figures.wall > 0


def test_run_measured_raises_with_the_tail_of_stderr():
    with pytest.raises(RuntimeError, match="boom: 입력 없음"):
        measure.run_measured([sys.executable, "-c", "import sys; sys.exit('boom: 입력 없음')"])


def test_total_cpu_is_the_rusage_unless_the_samples_saw_more():
    samples = samples_at([(0, 0), (1, 1.5), (2, 3.0)])
    assert measure.total_cpu(3.4, samples) == 3.4  # the last 0.2 s after the last sample
    assert measure.total_cpu(1.0, samples) == 3.0  # a worker that exited unreaped: rusage lost its CPU
    assert measure.total_cpu(0.5, []) == 0.5
