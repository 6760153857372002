"""bench_scale.py's figures of how a stage uses its cores: the serial share and Amdahl's projection."""

import math

import pytest
from bench_scale import amdahl, serial_share


def test_amdahl_projects_16_cores_from_the_1_to_2_core_speedup():
    assert amdahl(2.0) == (1.0, 16.0)  # all of it parallel
    assert amdahl(1.0) == (0.0, 1.0)  # none of it
    parallel, projected = amdahl(1.6)  # 1 / (0.25 + 0.75 / 2) = 1.6
    assert parallel == pytest.approx(0.75) and projected == pytest.approx(1 / (0.25 + 0.75 / 16))
    assert amdahl(0.9) == (0.0, 1.0)  # slower on 2 cores (a loaded machine): no parallel share, not a negative one


def test_serial_share_counts_intervals_under_1_2_busy_cores():
    assert serial_share([2.0, 1.9, 1.0, 0.3]) == 0.5
    assert math.isnan(serial_share([]))
