"""tests/bench/ tests the bench scripts themselves, so only here is bench/ put on the path (`import bench_corpus`,
`from lib.measure import ...`, as the scripts import each other); no test outside this folder imports from bench/."""

import sys

from testdata_paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
