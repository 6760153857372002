import os
from pathlib import Path

import pytest

from testdata_paths import TESTDATA

# `make test` runs one pytest-xdist worker per core: a worker's torch (OpenMP) threads would only fight the
# other workers for the cores, and OpenMP threads that wait spin. One thread a worker; a value set by hand wins.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per CPU this process may run on (not psutil's physical cores, which is 1 on a
    machine of 2 hyperthreads and ignores CPU affinity), at most 4; PYTEST_XDIST_AUTO_NUM_WORKERS wins."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return max(1, min(4, len(os.sched_getaffinity(0))))


@pytest.fixture
def testdata() -> Path:
    return TESTDATA
