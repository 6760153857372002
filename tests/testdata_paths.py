"""Where the tests find the repository and their bundled data, whatever folder a test lives in."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "tests" / "testdata"
