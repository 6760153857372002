"""Ctrl-C and SIGTERM in real runs (pipeline/process/interrupt.py): the signal goes to the process group, as a terminal
sends Ctrl-C, or to the kcorpus process alone, as `timeout`, systemd or Kubernetes send SIGTERM. The run ends
with one line and exit 130 / 143, its lock released, and the same command then succeeds.

A Beam run is signalled once its worker processes exist: the pipeline is running and cannot finish before
they answer, so the signal always lands mid-run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from kcorpus.pipeline.outputs.lock import LOCK_FILE
from kcorpus.pipeline.process import interrupt
from run_fixtures import write_slice
from testdata_paths import TESTDATA

TWO_WORKERS = ["--", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]
VOCAB_TEXT = TESTDATA / "vocab" / "nsmc_petitions.txt"


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    write_slice(tmp_path)
    data = tmp_path / "data"
    path = tmp_path / "p.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "sources": [
                    {"name": "nsmc", "format": "nsmc", "paths": [str(data / "nsmc.txt")]},
                    {
                        "name": "kowiki",
                        "format": "wikiextractor",
                        "paths": [str(data / "wiki_00")],
                        "split_sentences": True,
                    },
                ],
                "output": {"num_shards": 2},
                "vocab": {"kind": "wordpiece", "vocab_size": 2500},
                "pack": {"max_length": 32, "validation_fraction": 0.0},
                "run": {"out": str(tmp_path / "run")},
            }
        ),
        encoding="utf-8",
    )
    return path


def start(tmp_path: Path, *args: str) -> subprocess.Popen:
    """`kcorpus ARGS` in its own process group (a terminal's foreground job), its log files under tmp_path."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # A suite started in the background of a script (`make test &`) runs with SIGINT ignored, a child inherits
    # that and kcorpus keeps it ignored; a handler in this process is reset to Ctrl-C's default action in the child.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "kcorpus.pipeline.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env=env,
            cwd=tmp_path,
        )
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def wait_until(proc: subprocess.Popen, ready) -> None:
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"ended before the signal (exit {proc.returncode}): {proc.stdout.read()}")
        time.sleep(0.02)


def send(proc: subprocess.Popen, signum: int, to: str) -> None:
    if to == "group":
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)


STOP_TIMEOUT_SECONDS = 90  # a stop takes seconds even on a loaded machine; a hang fails here, not in 5 min


def ended(proc: subprocess.Popen) -> tuple[int, list[str]]:
    try:
        output, _ = proc.communicate(timeout=STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"still running {STOP_TIMEOUT_SECONDS} s after the signal; its output: {output}")
    return proc.returncode, [line for line in output.splitlines() if line.strip()]


def has_workers(proc: subprocess.Popen) -> bool:
    return bool(interrupt.child_pids(proc.pid))


def locks(folder: Path) -> list[Path]:
    return list(folder.rglob(LOCK_FILE))


def check_one_line(lines: list[str], command: str, signum: int) -> None:
    assert len(lines) == 1, "\n".join(lines)
    assert lines[0].startswith(f"kcorpus {command}: interrupted by {interrupt.SIGNAL_NAMES[signum]}"), lines
    assert "Traceback" not in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "to"),
    [(signal.SIGINT, "group"), (signal.SIGTERM, "pid"), (signal.SIGTERM, "group"), (signal.SIGHUP, "group")],
    ids=["ctrl-c", "sigterm", "sigterm-group", "sighup-group"],
)
def test_build_corpus_stopped_mid_run_ends_in_one_line_and_runs_again(tmp_path, profile, signum, to):
    out = tmp_path / "corpus"
    args = ["build-corpus", "--config", str(profile), "--out", str(out), *TWO_WORKERS]
    proc = start(tmp_path, *args)
    wait_until(proc, lambda: has_workers(proc))
    send(proc, signum, to)
    code, lines = ended(proc)
    assert code == interrupt.EXIT_CODES[signum]
    check_one_line(lines, "build-corpus", signum)
    assert f"{out} is left unfinished: the same command resumes it from its finished input units" in lines[0]
    assert not locks(out)
    again = subprocess.run(
        [sys.executable, "-m", "kcorpus.pipeline.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert (out / "stats.json").exists() and not locks(out)


@pytest.mark.slow
def test_second_ctrl_c_stops_at_once_without_traceback(tmp_path, profile):
    out = tmp_path / "corpus"
    proc = start(tmp_path, "build-corpus", "--config", str(profile), "--out", str(out), *TWO_WORKERS)
    wait_until(proc, lambda: has_workers(proc))
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.05)  # not a timing check: the second Ctrl-C lands while stopping or after the line
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    code, lines = ended(proc)
    assert code == 130
    assert len(lines) == 1 and "interrupted by Ctrl-C (SIGINT)" in lines[0], lines
    assert not locks(out)


@pytest.mark.slow
def test_kcorpus_run_interrupted_in_a_stage_resumes(tmp_path, profile):
    proc = start(tmp_path, "run", str(profile), "--no-report", *TWO_WORKERS)
    wait_until(proc, lambda: has_workers(proc))
    os.killpg(proc.pid, signal.SIGINT)
    code, lines = ended(proc)
    assert code == 130
    assert all(line.startswith("[run] ") for line in lines[:-1]), lines  # the stage lines before the signal
    check_one_line(lines[-1:], "run", signal.SIGINT)
    assert "during stage corpus; the finished stages are kept: run the same command to resume" in lines[-1]
    assert not locks(tmp_path / "run")
    again = subprocess.run(
        [sys.executable, "-m", "kcorpus.pipeline.cli", "run", str(profile), "--no-report"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert "corpus        ran: first run" in again.stdout


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wordpiece", "sentencepiece"])
def test_train_vocab_sigterm_ends_in_one_line(tmp_path, kind):
    out = tmp_path / "vocab"
    proc = start(
        tmp_path,
        "train-vocab",
        "--kind",
        kind,
        "--vocab-size",
        "3000",
        "--input",
        str(VOCAB_TEXT),
        "--out",
        str(out),
    )
    wait_until(proc, lambda: bool(locks(out)))
    proc.send_signal(signal.SIGTERM)
    code, lines = ended(proc)
    if code == 0:
        pytest.skip("the training finished before the signal")
    assert code == 143
    check_one_line(lines, "train-vocab", signal.SIGTERM)
    assert not locks(out)


def test_a_signal_taken_by_another_thread_still_stops_a_main_thread_asleep_in_a_lock(tmp_path, monkeypatch):
    # The kernel may run the C handler in any thread: then the main thread, asleep in a lock (Beam waiting for
    # a bundle of workers the same signal killed), is not woken by it. The watcher wakes it.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers need the main thread")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(interrupt, "_signal_children", lambda signum: None)  # pytest's children are not ours
    monkeypatch.setattr(interrupt.tempfile, "tempdir", None)

    def signal_from_this_thread() -> None:
        time.sleep(0.5)  # the main thread is asleep in its wait by then
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    other = threading.Thread(target=signal_from_this_thread)
    started = time.monotonic()
    with pytest.raises(interrupt.Interrupted), interrupt.handle_signals("read"):
        other.start()
        threading.Event().wait(30)  # without the watcher, only its end (30 s) wakes it
    assert time.monotonic() - started < 10
    other.join()


def test_closing_line_names_the_signal_the_stage_and_what_comes_next():
    with interrupt.handle_signals("run"), interrupt.activity("stage pack"):
        line, code = interrupt.closing_line(interrupt.Interrupted(signal.SIGTERM))
    assert code == 143
    assert line == (
        "kcorpus run: interrupted by SIGTERM during stage pack; the finished stages are kept: run the same "
        "command to resume"
    )


def test_closing_line_names_a_file_written_in_place():
    with interrupt.handle_signals("read"), interrupt.writing("/data/docs.jsonl"):
        line, code = interrupt.closing_line(interrupt.Interrupted(signal.SIGINT))
    assert code == 130
    assert line == (
        "kcorpus read: interrupted by Ctrl-C (SIGINT); /data/docs.jsonl is left unfinished: the same command "
        "starts it over"
    )


def test_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as `nohup` starts a command
    try:
        with interrupt.handle_signals("run"):
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_handlers_are_put_back_after_the_command():
    before = signal.getsignal(signal.SIGTERM)
    with interrupt.handle_signals("read"):
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_in_thread_returns_and_raises_as_the_call_would():
    assert interrupt.in_thread(sum, [1, 2, 3]) == 6
    with pytest.raises(ZeroDivisionError):
        interrupt.in_thread(divmod, 1, 0)


def test_child_pids_finds_a_child():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in interrupt.child_pids(os.getpid())
    finally:
        child.kill()
        child.wait()
