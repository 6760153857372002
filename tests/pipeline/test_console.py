"""Quiet by default: a `kcorpus run` in a subprocess (the local multi-processing runner, as `make run` uses)
prints no Beam INFO line, no start-up warning and no trainer log; `-v` brings kcorpus's INFO logs and the
trainers' logs back. Progress bars only on a terminal (or with `--progress`), never with `--no-progress`."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
import yaml

from kcorpus.pipeline.cli import main as cli
from kcorpus.pipeline.console import configure_logging
from kcorpus.pipeline.progress import set_mode
from testdata_paths import TESTDATA

NSMC = TESTDATA / "readers" / "nsmc_ratings_test_slice.txt"
VOCAB_TEXT = TESTDATA / "vocab" / "nsmc_petitions.txt"
VOCAB_SIZE = {"wordpiece": "4000", "sentencepiece": "3000"}


@pytest.fixture(autouse=True)
def default_console():
    """The CLI sets the process-wide log level and progress mode: back to the defaults after each test."""
    yield
    configure_logging(verbose=False)
    set_mode("auto")
    logging.getLogger("kcorpus").setLevel(logging.NOTSET)


def train_vocab(kind, out, *global_flags):
    return cli([*global_flags, "train-vocab", "--kind", kind, "--vocab-size", VOCAB_SIZE[kind],
                "--input", str(VOCAB_TEXT), "--out", str(out)])


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--no-progress",)], ids=["not-a-terminal", "no-progress"])
@pytest.mark.parametrize("kind", ["wordpiece", "sentencepiece"])
def test_train_vocab_off_a_terminal_prints_its_result_only(tmp_path, capfd, kind, flags):
    # capfd: the trainers write to file descriptor 2 from Rust (tokenizers) and C++ (SentencePiece)
    assert train_vocab(kind, tmp_path / "vocab", *flags) == 0
    out, err = capfd.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{kind} vocab of {VOCAB_SIZE[kind]} tokens in "), err


def test_train_vocab_bars_with_progress(tmp_path, capfd):
    assert train_vocab("wordpiece", tmp_path / "vocab", "--progress") == 0
    err = capfd.readouterr().err
    assert "read: 100%" in err and "check: 100%" in err


def test_sentencepiece_bars_with_progress_cover_its_training_and_hide_its_logs(tmp_path, capfd):
    # the trainer's log lines on descriptor 2 move the `train` bar (pipeline/vocab/spm_progress.py)
    assert train_vocab("sentencepiece", tmp_path / "vocab", "--progress") == 0
    err = capfd.readouterr().err
    for bar in ("read: 100%", "load: 100%", "train (finish): 100%", "check: 100%"):
        assert bar in err, bar
    assert "trainer_interface.cc" not in err


def test_sentencepiece_bars_and_logs_with_progress_and_verbose(tmp_path, capfd):
    assert train_vocab("sentencepiece", tmp_path / "vocab", "-v", "--progress") == 0
    err = capfd.readouterr().err
    assert "train (finish): 100%" in err and "trainer_interface.cc" in err and "trainer_spec {" in err


def test_sentencepiece_logs_with_verbose(tmp_path, capfd):
    assert train_vocab("sentencepiece", tmp_path / "vocab", "-v") == 0
    err = capfd.readouterr().err
    assert "trainer_interface.cc" in err and "train-vocab: read " in err and "CPU s), train " in err


@pytest.mark.slow
def test_kcorpus_run_prints_no_info_line(tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text(yaml.safe_dump({
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]}],
        "filters": {"min_chars": 2},
        "dedup": {"near": {"enabled": False}},
        "output": {"num_shards": 1},
        "vocab": {"kind": "sentencepiece", "vocab_size": 400},
        "pack": {"max_length": 32, "validation_fraction": 0.0},
        "run": {"out": "run"},
    }), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "kcorpus.pipeline.cli", "run", str(profile), "--no-report"],
                          capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not [line for line in output.splitlines() if "INFO" in line], output
    # the stage lines only: no SentencePiece log, no progress bar, no blank line
    assert all(line.startswith("[run] ") for line in done.stderr.splitlines()), done.stderr
    assert "apitools" not in output and "semi_persistent_directory" not in output, output
    assert "corpus        ran: first run" in done.stdout
    assert "not run yet" not in done.stdout
