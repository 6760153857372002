"""The progress channel: worker files under a watched folder, the launcher's polling thread and its bars, and
`kcorpus build-corpus --progress` end to end in every local runner mode."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
import yaml
from apache_beam.options.pipeline_options import PipelineOptions

from kcorpus.pipeline import progress
from testdata_paths import TESTDATA

NSMC = TESTDATA / "nsmc_sample.tsv"


@pytest.fixture
def watched(tmp_path, monkeypatch):
    monkeypatch.setenv(progress.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(progress.RUN_ENV, "run-1")
    monkeypatch.setattr(progress, "_writer", None)
    return tmp_path


@pytest.fixture
def mode():
    yield progress.set_mode
    progress.set_mode("auto")


class FakeBar:
    """Records what the monitor asks of a tqdm bar."""

    def __init__(self, **kwargs):
        self.kwargs, self.n, self.postfix, self.closed = kwargs, 0, "", False

    def update(self, delta):
        self.n += delta

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def close(self):
        self.closed = True


def test_progress_flags_are_global_flags_before_the_beam_options():
    from kcorpus.pipeline.cli import split_global_flags

    argv, flags = split_global_flags(["build-corpus", "--progress", "--config", "c.yaml", "--", "--progress"])
    assert (argv, flags) == (["build-corpus", "--config", "c.yaml", "--", "--progress"], {"progress"})
    assert split_global_flags(["--no-progress", "pack"])[1] == {"no_progress"}


def test_add_without_a_watcher_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.DIR_ENV, raising=False)
    monkeypatch.setattr(progress, "_writer", None)
    progress.add("read", records=10, nbytes=100)
    progress.flush()
    assert progress._writer is None
    assert progress.range_bytes(str(NSMC), 0, -1) == 0


def test_worker_writes_one_file_per_process_at_most_every_half_second(watched, monkeypatch):
    clock = iter([100.0, 100.1, 100.2])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    progress.add("read", records=1000)  # first news: written at once
    progress.add("read", records=1000, nbytes=4096)  # 0.1 s later: held back
    files = list(watched.glob("*.json"))
    assert len(files) == 1 and files[0].name.startswith(f"{progress.os.getpid()}-")
    assert json.loads(files[0].read_text())["phases"] == {"read": {"records": 1000, "bytes": 0}}
    progress.flush()  # the end of a bundle writes what is held back
    assert json.loads(files[0].read_text())["phases"] == {"read": {"records": 2000, "bytes": 4096}}
    assert not list(watched.glob("*.tmp"))
    assert progress.read_folder(str(watched)) == [files[0].read_text()]


def test_counted_adds_each_record_and_the_bytes_at_the_end(watched):
    assert list(progress.counted(iter("abc"), 300)) == ["a", "b", "c"]
    assert progress.range_bytes(str(NSMC), 100, 400) == 300
    assert progress.range_bytes(str(NSMC), 0, -1) == NSMC.stat().st_size
    [text] = progress.read_folder(str(watched))
    assert json.loads(text)["phases"] == {"read": {"records": 3, "bytes": 300}}


def test_monitor_moves_its_bars_to_the_merged_counts():
    files = ['{"run": "r", "phases": {"read": {"records": 10, "bytes": 500}}}', '{"run": "r", "phases": {"rea']
    monitor = progress.ProgressMonitor("build-corpus", 2000, 4, lambda: list(files), "r", make_bar=FakeBar)
    monitor.poll()
    read = monitor.bars["read"]
    assert (read.n, read.postfix, read.kwargs["total"], read.kwargs["unit"]) == (500, "10 records", 2000, "B")
    assert read.kwargs["desc"] == "build-corpus read" and "write" not in monitor.bars
    files[1] = '{"run": "r", "phases": {"read": {"records": 30, "bytes": 1500}, "write": {"records": 1, "bytes": 0}}}'
    monitor.poll()
    assert (read.n, read.postfix, read.closed) == (2000, "40 records", True)  # writing starts: reading is done
    write = monitor.bars["write"]
    assert (write.n, write.kwargs["total"], write.closed) == (1, 4, False)
    monitor.stop()
    assert write.closed


def test_write_bar_opens_when_every_input_byte_is_read():
    files = ['{"run": "r", "phases": {"read": {"records": 10, "bytes": 1999}}}']
    monitor = progress.ProgressMonitor("pack", 2000, 3, lambda: list(files), "r", make_bar=FakeBar)
    monitor.poll()
    assert "write" not in monitor.bars
    files[0] = '{"run": "r", "phases": {"read": {"records": 11, "bytes": 2000}}}'
    monitor.poll()
    assert monitor.bars["read"].closed and monitor.bars["write"].n == 0


def test_monitor_thread_polls_until_stopped_then_shows_the_final_count():
    files: list[str] = []
    polled = threading.Event()

    def read_texts():
        polled.set()
        return list(files)

    monitor = progress.ProgressMonitor("pack", 100, None, read_texts, "r", make_bar=FakeBar, interval=0.01)
    monitor.start()
    files.append('{"run": "r", "phases": {"read": {"records": 1, "bytes": 40}}}')
    assert polled.wait(5)
    files[0] = '{"run": "r", "phases": {"read": {"records": 2, "bytes": 100}}}'
    monitor.stop()
    assert not monitor._thread.is_alive()
    assert (monitor.bars["read"].n, monitor.bars["read"].closed) == (100, True)


def test_wanted_follows_the_flags_the_terminal_and_the_runner(mode):
    class Tty:
        def isatty(self):
            return True

    local, remote = PipelineOptions([]), PipelineOptions(["--runner", "DataflowRunner"])
    mode("auto")
    assert progress.wanted(local, Tty()) and not progress.wanted(local, object())
    assert not progress.wanted(remote, Tty())
    mode("on")
    assert progress.wanted(local, object()) and not progress.wanted(remote, object())
    mode("off")
    assert not progress.wanted(local, Tty())
    with pytest.raises(ValueError, match="unknown progress mode"):
        mode("loud")


def test_progress_display_off_leaves_no_trace(mode, monkeypatch):
    monkeypatch.delenv(progress.DIR_ENV, raising=False)
    mode("off")
    with progress.progress_display("pack", 100, PipelineOptions([])) as monitor:
        assert monitor is None and progress.DIR_ENV not in progress.os.environ


def test_progress_display_on_watches_a_folder_for_the_block_only(mode, monkeypatch, capsys):
    monkeypatch.delenv(progress.DIR_ENV, raising=False)
    monkeypatch.setattr(progress, "_writer", None)
    mode("on")
    with progress.progress_display("pack", 100, PipelineOptions([])) as monitor:
        folder = progress.os.environ[progress.DIR_ENV]
        progress.add("read", records=2, nbytes=100)
        progress.flush()
    assert monitor.bars["read"].n == 100
    assert progress.DIR_ENV not in progress.os.environ and not progress.os.path.exists(folder)
    assert "pack read: 100%" in capsys.readouterr().err


def _build(tmp_path, *flags):
    profile = tmp_path / "p.yaml"
    profile.write_text(yaml.safe_dump({
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]}],
        "dedup": {"near": {"enabled": False}},
        "output": {"num_shards": 2},
    }), encoding="utf-8")
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "kcorpus.pipeline.cli", "build-corpus", "--config", str(profile), "--out", str(out)]
    done = subprocess.run([*argv, *flags], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    return done.stderr, stats


@pytest.mark.slow
@pytest.mark.parametrize("local_mode", ["multi_processing", "multi_threading", "in_memory"])
def test_build_corpus_progress_reaches_the_input_size(tmp_path, local_mode):
    workers = "1" if local_mode == "in_memory" else "2"
    stderr, stats = _build(tmp_path, "--progress", "--local-mode", local_mode, "--", f"--direct_num_workers={workers}")
    final = stderr.replace("\r", "\n").splitlines()
    read = [line for line in final if line.startswith("build-corpus read:")][-1]
    write = [line for line in final if line.startswith("build-corpus write:")][-1]
    size = f"{NSMC.stat().st_size / 1000:.0f}k"  # tqdm's unit_scale: 193542 B -> 194k
    assert f"100%|██████████| {size}/{size} [" in read, stderr
    assert f"{stats['total']['input']:,} records]" in read, stderr
    assert "100%|██████████| 4/4 [" in write, stderr
    assert not [line for line in final if "INFO" in line], stderr


@pytest.mark.slow
def test_build_corpus_without_a_terminal_shows_no_bar(tmp_path):
    stderr, _ = _build(tmp_path, "--", "--direct_num_workers=1")
    assert "build-corpus read" not in stderr and "%|" not in stderr, stderr
