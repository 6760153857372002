"""bench/lib/run_table.py and bench_corpus's summary: rows, medians, marginal cost and RSS growth against goals."""

import bench_corpus
import pytest
from lib import corpus_inputs
from lib.measure import Figures
from lib.run_table import Check, Row, format_rows, marginal_cpu_per_mb, median_figures, rss_growth, verdict

MB = 2**20


def figures(wall: float, cpu: float, rss_mb: int, busy: tuple[float, ...] = ()) -> Figures:
    return Figures(wall=wall, cpu=cpu, peak_rss=rss_mb * MB, busy_per_interval=busy, workers=2, cores=2)


def test_median_figures_takes_each_median_and_the_median_runs_intervals():
    runs = [figures(30.0, 50.0, 900, (1.0,)), figures(10.0, 40.0, 1000, (2.0,)), figures(20.0, 45.0, 800, (3.0,))]
    median = median_figures(runs)
    assert (median.wall, median.cpu, median.peak_rss) == (20.0, 45.0, 900 * MB)
    assert median.busy_per_interval == (3.0,)


def test_row_ratios_are_over_the_baseline_on_the_same_input():
    row = Row("beam", "100", 100.0, figures(50.0, 90.0, 1000), baseline=figures(100.0, 60.0, 2000))
    assert (row.wall_ratio, row.cpu_ratio) == (0.5, 1.5)
    assert Row("hf", "100", 100.0, figures(1.0, 1.0, 1)).wall_ratio is None
    assert row.as_dict()["cpu_per_mb"] == 0.9


def test_format_rows_prints_every_column():
    table = format_rows([Row("beam", "100", 100.0, figures(50.0, 90.0, 1000), figures(100.0, 60.0, 2000))], "hf")
    header, line = table.split("\n")
    assert header.split() == ["system", "size", "MB", "cores", "workers", "wall", "s", "CPU", "s", "CPU", "s/MB",
                              "peak", "RSS", "MB", "busy", "cores", "wall/hf", "CPU/hf"]
    assert line.split() == ["beam", "100", "100.0", "2", "2", "50.0", "90.0", "0.900", "1000", "1.8", "0.50x", "1.50x"]


def test_marginal_cost_cancels_the_start_up_cost():
    # 10 s of start-up in both runs, then 0.3 CPU s per MB
    small = Row("beam", "100", 100.0, figures(40.0, 10 + 30.0, 700))
    large = Row("beam", "400", 400.0, figures(90.0, 10 + 120.0, 980))
    assert marginal_cpu_per_mb(small, large) == pytest.approx(0.3)
    assert rss_growth(small, large) == pytest.approx(1.4)


def test_verdict_against_an_upper_bound():
    assert verdict(0.35, 0.35) == "PASS"
    assert verdict(0.36, 0.35) == "FAIL"
    assert verdict(9.0, None) == "(no goal)"
    assert Check("x", 1.6, 1.5, "x").line().endswith("FAIL")


def test_summary_checks_per_system_near_extra_and_no_goal_for_hf():
    rows = [
        Row("beam", "100", 100.0, figures(40.0, 40.0, 700)),
        Row("beam+near", "100", 100.0, figures(60.0, 60.0, 1000)),
        Row("hf", "100", 100.0, figures(50.0, 30.0, 900)),
        Row("beam", "400", 400.0, figures(90.0, 130.0, 1400)),
        Row("beam+near", "400", 400.0, figures(120.0, 180.0, 1200)),
        Row("hf", "400", 400.0, figures(150.0, 120.0, 2700)),
    ]
    checks = {c.name.split(",")[0]: c for c in bench_corpus.summary_checks(rows)}
    assert checks["beam: marginal CPU s/MB"].value == pytest.approx(0.3)
    assert checks["beam: marginal CPU s/MB"].verdict == "PASS"
    assert checks["beam: peak RSS growth"].verdict == "FAIL"  # 2.0x
    assert checks["beam+near: near dedup's extra CPU s/MB over beam"].value == pytest.approx(0.1)
    assert checks["beam+near: near dedup's extra CPU s/MB over beam"].verdict == "PASS"
    assert checks["beam+near: peak RSS growth"].value == pytest.approx(1.2)
    assert checks["hf: marginal CPU s/MB"].verdict == "(no goal)"
    assert checks["hf: peak RSS growth"].verdict == "(no goal)"


def test_summary_checks_need_two_sizes():
    assert bench_corpus.summary_checks([Row("beam", "100", 100.0, figures(40.0, 40.0, 700))]) == []


def test_first_quarter_cuts_at_the_first_record_end_after_a_quarter_of_the_bytes():
    rows = "".join(f"{i}\t재밌다\t1\n" for i in range(6)).encode()  # 6 rows of 14 bytes: a quarter is 21
    assert corpus_inputs.first_quarter(rows, b"\n") == rows[:28]  # the second row ends at 27
    wiki = '<doc id="5">\n지미 카터\n\n본문.\n</doc>\n<doc id="9">\n수학\n\n수학은.\n</doc>\n'.encode()
    assert corpus_inputs.first_quarter(wiki, b"</doc>\n") == '<doc id="5">\n지미 카터\n\n본문.\n</doc>\n'.encode()
    assert corpus_inputs.first_quarter(b"no end", b"\n") == b"no end"
