"""bench/bench_tests.py: what each configuration runs and the counts it reports."""

from bench_tests import CONFIGURATIONS, XDIST, passed

from testdata_paths import ROOT


def test_passed_keeps_pytests_counts_without_the_time():
    assert passed("....\n1342 passed, 14 warnings in 249.17s (0:04:09)\n") == "1342 passed, 14 warnings"
    assert passed("F.\n===== 1 failed, 1 passed in 0.52s =====\n") == "1 failed, 1 passed"
    assert passed("") == ""


def test_make_test_and_quick_run_what_the_makefile_runs():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"XDIST := {' '.join(XDIST)}\n" in makefile
    assert CONFIGURATIONS["quick"] == [*XDIST, "-m", "not slow"] and '-m "not slow"' in makefile
    assert CONFIGURATIONS["serial"] == ["-p", "no:xdist"]
