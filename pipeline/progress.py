"""The progress display of the Beam commands: a worker -> launcher channel through small files.

The local FnApiRunner runs a pipeline blocking, and Beam's metrics arrive only at its end, so progress takes
another way. `progress_display` (the launcher) makes a folder, names it in the environment variable
`KCORPUS_PROGRESS_DIR` (Beam's worker subprocesses inherit it; in_memory and multi_threading workers share
the launcher's environment) and starts a thread that polls it and drives tqdm bars on stderr. The input
steps call `add("read", records=..., nbytes=...)`: each worker process keeps one tally (`transforms/progress.py`)
and rewrites its own file (`<pid>-<token>.json`, atomically) at most every half second, and at the end of
every bundle (`flush`). Without the variable (a remote runner, tests, progress off) `add` returns at once.

Shown when stderr is a terminal, or with `kcorpus --progress`; never with `--no-progress` or on a remote
runner (Dataflow has its own monitoring UI). It never touches an output folder: the folder is a local
temporary one, removed at the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kcorpus.transforms.progress import (
    PHASES,
    WRITE_SECONDS,
    PhaseCount,
    Tally,
    merge_tallies,
    records_note,
    tally_json,
)

DIR_ENV = "KCORPUS_PROGRESS_DIR"
RUN_ENV = "KCORPUS_PROGRESS_RUN"
MODES = ("auto", "on", "off")
POLL_SECONDS = 0.25
FILE_SUFFIX = ".json"

_mode = "auto"


def set_mode(mode: str) -> None:
    """`auto` (when stderr is a terminal), `on` (`--progress`) or `off` (`--no-progress`)."""
    global _mode
    if mode not in MODES:
        raise ValueError(f"unknown progress mode {mode!r}; valid: {', '.join(MODES)}")
    _mode = mode


def wanted(options: Any = None, stream: Any = None) -> bool:
    """Whether to show progress for a pipeline with these options (never for a named, remote runner)."""
    if _mode == "off":
        return False
    if options is not None:
        from apache_beam.options.pipeline_options import StandardOptions

        if options.view_as(StandardOptions).runner is not None:
            return False
    if _mode == "on":
        return True
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


# ---- worker side ---------------------------------------------------------------------------------------


class _Writer:
    """This process's tally and the file it is written to."""

    def __init__(self, folder: str, run: str) -> None:
        self.folder, self.pid, self.tally = folder, os.getpid(), Tally(run)
        self.path = os.path.join(folder, f"{self.pid}-{uuid.uuid4().hex[:8]}{FILE_SUFFIX}")

    def write(self, now: float) -> None:
        partial = f"{self.path}.tmp"
        try:
            with open(partial, "w", encoding="utf-8") as f:
                f.write(tally_json(self.tally))
            os.replace(partial, self.path)
        except OSError:
            pass  # the run ended and its folder is gone: progress never fails a pipeline
        self.tally.mark_written(now)


_lock = threading.Lock()
_writer: _Writer | None = None


def _current(folder: str) -> _Writer:
    global _writer
    run = os.environ.get(RUN_ENV, "")
    if _writer is None or (_writer.folder, _writer.tally.run, _writer.pid) != (folder, run, os.getpid()):
        _writer = _Writer(folder, run)
    return _writer


def add(phase: str, records: int = 0, nbytes: int = 0) -> None:
    """Adds finished records and bytes of `phase` to this process's tally (a no-op when nobody watches)."""
    folder = os.environ.get(DIR_ENV)
    if not folder:
        return
    with _lock:
        writer = _current(folder)
        writer.tally.add(phase, records, nbytes)
        now = time.monotonic()
        if writer.tally.due(now, WRITE_SECONDS):
            writer.write(now)


def flush() -> None:
    """Writes this process's tally now if it has news (at the end of a bundle)."""
    folder = os.environ.get(DIR_ENV)
    if not folder:
        return
    with _lock:
        writer = _current(folder)
        if writer.tally.dirty:
            writer.write(time.monotonic())


def counted(records: Iterable[Any], nbytes: int, phase: str = "read") -> Iterator[Any]:
    """Yields `records`, adding each to `phase`, and `nbytes` once they are all read."""
    for record in records:
        add(phase, records=1)
        yield record
    add(phase, nbytes=nbytes)
    flush()


def range_bytes(path: str, start: int, end: int) -> int:
    """The bytes a read range covers; `end < 0` is the whole file (its size, looked up only when watched)."""
    if end >= 0:
        return end - start
    if not os.environ.get(DIR_ENV):
        return 0
    from apache_beam.io.filesystems import FileSystems

    try:
        return sum(m.size_in_bytes for m in FileSystems.match([path])[0].metadata_list)
    except Exception:  # noqa: BLE001 - a size for a progress bar is never worth a failure
        return 0


# ---- launcher side -------------------------------------------------------------------------------------


def read_folder(folder: str) -> list[str]:
    """The texts of the worker files in `folder` (a file replaced or removed meanwhile is skipped)."""
    texts = []
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(FILE_SUFFIX))
    except OSError:
        return texts
    for name in names:
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                texts.append(f.read())
        except OSError:
            continue
    return texts


def tqdm_bar(**kwargs: Any) -> Any:
    from tqdm import tqdm

    return tqdm(file=sys.stderr, mininterval=0.5, dynamic_ncols=True, **kwargs)


class ProgressMonitor:
    """Polls the worker files and drives one bar per phase: `read` (bytes of `total_bytes`, with the records
    in the postfix) and, once every byte is read or a shard is written, `write` (shards of `write_total`).
    Writing starts only after every record was read, so the read bar is closed then and its rate and time
    stay its own."""

    def __init__(
        self,
        label: str,
        total_bytes: int | None,
        write_total: int | None,
        read_texts: Callable[[], list[str]],
        run: str,
        *,
        make_bar: Callable[..., Any] = tqdm_bar,
        interval: float = POLL_SECONDS,
    ) -> None:
        self.label, self.total_bytes, self.write_total = label, total_bytes, write_total
        self.read_texts, self.run, self.make_bar, self.interval = read_texts, run, make_bar, interval
        self.bars: dict[str, Any] = {}
        self.closed: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kcorpus-progress", daemon=True)

    def start(self) -> None:
        self._bar("read")
        self._thread.start()

    def stop(self) -> None:
        """Stops polling, shows the final counts and closes the bars."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.poll()
        for phase in self.bars:
            self._close(phase)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.poll()

    def _bar(self, phase: str) -> Any:
        if phase not in self.bars:
            if phase == "read":
                kwargs = {"total": self.total_bytes or None, "unit": "B", "unit_scale": True}
            else:
                kwargs = {"total": self.write_total, "unit": " shards"}
            self.bars[phase] = self.make_bar(desc=f"{self.label} {phase}", **kwargs)
        return self.bars[phase]

    def _close(self, phase: str) -> None:
        if phase in self.bars and phase not in self.closed:
            self.bars[phase].close()
            self.closed.add(phase)

    def poll(self) -> dict[str, PhaseCount]:
        """One look at the worker files: each phase's bar moves to the merged count."""
        counts = merge_tallies(self.read_texts(), self.run)
        for index, phase in enumerate(PHASES):
            count = counts.get(phase)
            if count is None or phase in self.closed:
                continue
            for earlier in PHASES[:index]:
                self._close(earlier)
            bar = self._bar(phase)
            if phase == "read":
                bar.set_postfix_str(records_note(counts, phase), refresh=False)
                done = count.bytes
            else:
                done = count.records
            if done != bar.n:
                bar.update(done - bar.n)
        read = counts.get("read")
        if read and self.total_bytes and read.bytes >= self.total_bytes and self.write_total:
            # Every input byte is read: the write bar starts now, so its time covers dedup and packing too.
            self._close("read")
            self._bar("write")
        return counts


@contextlib.contextmanager
def progress_display(
    label: str, total_bytes: int | None, options: Any = None, *, write_total: int | None = None
) -> Iterator[ProgressMonitor | None]:
    """Shows the progress of the pipeline run inside the block, when `wanted(options)`."""
    if not wanted(options):
        yield None
        return
    folder = tempfile.mkdtemp(prefix="kcorpus-progress-")
    run = uuid.uuid4().hex
    saved = {name: os.environ.get(name) for name in (DIR_ENV, RUN_ENV)}
    os.environ[DIR_ENV], os.environ[RUN_ENV] = folder, run
    monitor = ProgressMonitor(label, total_bytes, write_total, lambda: read_folder(folder), run)
    monitor.start()
    try:
        yield monitor
    finally:
        monitor.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(folder, ignore_errors=True)
