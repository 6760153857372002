"""Quiet by default: a `kcorpus run` in a subprocess (the local multi-processing runner, as `make run` uses)
prints no Beam INFO line and no start-up warning; `-v` brings kcorpus's INFO logs back."""

from __future__ import annotations

import subprocess
import sys

import yaml

from testdata_paths import TESTDATA

NSMC = TESTDATA / "readers" / "nsmc_ratings_test_slice.txt"


def test_kcorpus_run_prints_no_info_line(tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text(yaml.safe_dump({
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]}],
        "filters": {"min_chars": 2},
        "dedup": {"near": {"enabled": False}},
        "output": {"num_shards": 1},
        "vocab": {"kind": "wordpiece", "vocab_size": 800, "min_frequency": 1, "quiet": True},
        "pack": {"max_length": 32, "validation_fraction": 0.0},
        "run": {"out": "run"},
    }), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "kcorpus.pipeline.cli", "run", str(profile), "--no-report"],
                          capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not [line for line in output.splitlines() if "INFO" in line], output
    assert "apitools" not in output and "semi_persistent_directory" not in output, output
    assert "corpus        ran: first run" in done.stdout
    assert "not run yet" not in done.stdout
