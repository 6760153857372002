from pathlib import Path

import pytest

from testdata_paths import TESTDATA


@pytest.fixture
def testdata() -> Path:
    return TESTDATA
