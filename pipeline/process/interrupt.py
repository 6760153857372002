"""Ctrl-C and SIGTERM: one line on the console, the lock released, exit 130 / 143 (docs/run.md#stopping-a-run).

`handle_signals` (the CLI's, around a whole command) gives SIGTERM (and SIGHUP: a closed terminal, exit 129;
a signal the caller ignores, as `nohup` does SIGHUP, stays ignored) the path Ctrl-C takes: the first signal
raises `Interrupted` (a KeyboardInterrupt) in the main thread, so every `finally` runs: `claim_output` removes
the run's temporary files, marks the output unfinished and releases the lock. Before it raises, the console
goes quiet: file descriptor 2 (log records, the tracebacks of Beam's threads, gRPC's errors from a pipeline
torn down mid-bundle) is pointed at a log file that the closing line names, and the local Beam workers, the
children of this process, are sent SIGTERM. They ignore the terminal's SIGINT (`beam_worker`), so the launcher
alone ends them, and Beam's shutdown, which waits for its workers, returns at once. A second signal while
stopping ends the process at once: the workers are killed, the locks it holds released, the line printed.
`--debug` keeps the console as it is and prints the interrupted traceback.

The kernel may hand a signal to any thread, and Python runs the handler only in the main thread, between its
bytecodes: a main thread asleep in a lock (Beam waiting for a bundle whose workers the signal to the process
group killed) would never wake. So every signal also writes to a wakeup pipe (`signal.set_wakeup_fd`) that a
watcher thread reads: it quiets the console at once and, until the handler has run, wakes the main thread with
SIGURG (a no-op handler: the lock wait returns EINTR and Python runs the pending handler). A thread that dies
of a worker killed by the same signal (`Exception in thread run_worker`) has its traceback held back a moment
and sent to the log file once the stop is seen.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
SIGNAL_NAMES = {
    signal.SIGINT: "Ctrl-C (SIGINT)",
    signal.SIGTERM: "SIGTERM",
    signal.SIGHUP: "SIGHUP (terminal closed)",
}
CHILD_CHECK_SECONDS = 0.2
WAKE_SIGNAL = signal.SIGURG  # ignored by default: a no-op handler only makes the main thread's wait return
WAKE_SECONDS = 0.1
THREAD_ERROR_GRACE_SECONDS = 2.0  # how long a dying thread's traceback waits for a stop signal to be seen
ORDERLY_STOP_SECONDS = (
    60.0  # then the program (not an in-process caller) stops at once, as on a second signal
)


class Interrupted(KeyboardInterrupt):
    """The command was stopped by a signal (SIGINT or SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(SIGNAL_NAMES.get(signum, f"signal {signum}"))
        self.signum = signum


class _Stop:
    """What the signal handler knows: the command, the first signal, where the console went."""

    def __init__(self, command: str, debug: bool) -> None:
        self.command, self.debug = command, debug
        self.signum: int | None = None
        self.log_path: str | None = None
        self.console_fd: int | None = None  # the real stderr once fd 2 points at the log file
        self.log_fd: int | None = None
        self.said = False
        self.activity: str | None = None  # e.g. "stage pack", set by `kcorpus run`
        self.folders: list[str] = []  # the folders locked when the signal came
        self.writing: list[str] = []  # files written in place (kcorpus read), left unfinished by a signal
        self.seen = threading.Event()  # a stop signal arrived (the watcher may see it before the handler)
        self.ended = threading.Event()  # the block is over: the helper threads stop
        self.console_lock = threading.Lock()
        self.restore = True  # an in-process caller goes on running: never end its process from a thread


_stop: _Stop | None = None


def stopping() -> bool:
    """Whether a signal has started stopping the command."""
    return _stop is not None and _stop.signum is not None


@contextlib.contextmanager
def activity(what: str) -> Iterator[None]:
    """Names what the command is doing in the closing line ("interrupted during stage pack")."""
    previous = _stop.activity if _stop else None
    if _stop:
        _stop.activity = what
    try:
        yield
    finally:
        if _stop and not stopping():
            _stop.activity = previous


@contextlib.contextmanager
def writing(path: str) -> Iterator[None]:
    """Names a file the command writes in place in the closing line ("<path> is left unfinished")."""
    if _stop:
        _stop.writing.append(path)
    try:
        yield
    finally:
        if _stop and not stopping():
            _stop.writing.remove(path)


@contextlib.contextmanager
def handle_signals(command: str, *, debug: bool = False, restore: bool = True) -> Iterator[None]:
    """SIGINT and SIGTERM stop `command` in order inside the block (module docstring).

    `restore`: put the console and the handlers back at the end (a caller that goes on running); the
    `kcorpus` program keeps them until it exits, so what Beam's threads log while the process ends stays off
    the console too.
    """
    global _stop
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    _stop = state = _Stop(command, debug)
    state.restore = restore
    # A signal the caller ignores stays ignored (`nohup` ignores SIGHUP, `cmd &` in a script SIGINT).
    ignored = {signum for signum in EXIT_CODES if signal.getsignal(signum) == signal.SIG_IGN}
    previous = {signum: signal.signal(signum, _on_signal) for signum in EXIT_CODES if signum not in ignored}
    previous[WAKE_SIGNAL] = signal.signal(WAKE_SIGNAL, _on_wake)
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    previous_wakeup_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(state, read_fd), name="kcorpus-signal-watcher", daemon=True).start()
    previous_excepthook = threading.excepthook
    threading.excepthook = _thread_excepthook(state, previous_excepthook)
    try:
        yield
    finally:
        if restore:
            state.ended.set()
            threading.excepthook = previous_excepthook
            signal.set_wakeup_fd(previous_wakeup_fd)
            os.close(write_fd)  # the watcher's read returns b"": it ends and closes read_fd
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            if state.console_fd is not None:
                sys.stderr.flush()
                os.dup2(state.console_fd, 2)
                os.close(state.console_fd)
                os.close(state.log_fd)
            _stop = None


def closing_line(err: BaseException | None = None) -> tuple[str, int]:
    """The one line that ends an interrupted command, and its exit status (130 for SIGINT, 143 for SIGTERM)."""
    from kcorpus.pipeline.outputs.lock import held_locks

    state = _stop or _Stop("?", False)
    signum = state.signum or getattr(err, "signum", signal.SIGINT)
    line = f"kcorpus {state.command}: interrupted by {SIGNAL_NAMES.get(signum, f'signal {signum}')}"
    folders = state.folders or [*held_locks(), *state.writing]
    if state.activity:
        line += f" during {state.activity}"
    if state.command == "run":
        line += "; the finished stages are kept: run the same command to resume"
    elif folders and state.command in ("build-corpus", "pack"):  # both commit their work in input units
        line += f"; {folders[-1]} is left unfinished: the same command resumes it from its finished input units"
    elif folders:
        line += f"; {folders[-1]} is left unfinished: the same command starts it over"
    if state.log_path and os.path.exists(state.log_path):
        if os.path.getsize(state.log_path) > 0:
            line += f" (what Beam printed while stopping: {state.log_path})"
        else:
            os.remove(state.log_path)
    return line, EXIT_CODES.get(signum, 128 + signum)


def say(line: str, *, exit_now: bool = False, code: int = 0) -> None:
    """Print `line` on the console (the real stderr, also after fd 2 went to the log file).

    `exit_now`: then end the process with `code` at once: what is left of an interrupted command is its
    threads, which Python would wait for (Beam's, a trainer's), and their noise.
    """
    fd = 2
    if _stop and _stop.console_fd is not None:
        fd = _stop.console_fd
        os.dup2(_stop.log_fd, 2)  # again: a `finally` on the way out may have put the console back
    with contextlib.suppress(ValueError, OSError):
        sys.stdout.flush()
        sys.stderr.flush()
    from kcorpus.pipeline import progress

    # A new line after the terminal's ^C or a progress bar's line (bars end their line with \r, not \n).
    prefix = "\n" if os.isatty(fd) or progress.wanted() else ""
    with contextlib.suppress(OSError):  # a closed terminal (SIGHUP) has no console left
        os.write(fd, (prefix + line + "\n").encode("utf-8", "replace"))
    if _stop:
        _stop.said = True
    if exit_now:
        os._exit(code)


def in_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` in a daemon thread while the main thread waits for it.

    Python runs a signal handler only between the main thread's bytecodes: a trainer's C++ or Rust loop in
    the main thread would keep Ctrl-C and SIGTERM waiting until it returns. A waiting main thread stops at
    once; the thread is left to the end of the process.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as err:  # noqa: BLE001 (raised again in the caller)
            outcome["error"] = err

    thread = threading.Thread(target=target, name=f"kcorpus-{getattr(fn, '__name__', 'task')}", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.5)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _on_signal(signum: int, frame: Any) -> None:
    assert _stop is not None
    if _stop.signum is not None:
        _stop_now(signum, "second signal")
    from kcorpus.pipeline.outputs.lock import held_locks

    _stop.signum = signum
    _stop.folders = [*held_locks(), *_stop.writing]
    if not _stop.debug:
        _quiet_console(_stop)
    _stop.seen.set()
    # Beam starts each worker from a thread of its own: one may start after this signal, and Beam's shutdown
    # waits for every worker. So the workers are ended again until the process ends.
    threading.Thread(target=_end_children, args=(_stop,), name="kcorpus-stop-workers", daemon=True).start()
    raise Interrupted(signum)


def _on_wake(signum: int, frame: Any) -> None:
    """WAKE_SIGNAL's handler: nothing; receiving it made the main thread's wait return (module docstring)."""


def _watch(state: _Stop, read_fd: int) -> None:
    """Reads the wakeup pipe: on a stop signal, quiet the console and wake the main thread until it stops.

    If the program's orderly stop has not printed its line ORDERLY_STOP_SECONDS later, it stops at once.
    """
    try:
        while data := os.read(read_fd, 64):
            signums = [byte for byte in data if byte in EXIT_CODES]
            if not signums:
                continue  # WAKE_SIGNAL itself, or another handled signal
            if not state.debug:
                _quiet_console(state)
            state.seen.set()
            deadline = time.monotonic() + ORDERLY_STOP_SECONDS
            while not state.said and not state.ended.wait(WAKE_SECONDS):
                if state.signum is None:
                    with contextlib.suppress(OSError, ValueError):
                        signal.pthread_kill(threading.main_thread().ident, WAKE_SIGNAL)
                if time.monotonic() > deadline and not state.restore:
                    _stop_now(
                        state.signum or signums[0], f"the orderly stop took over {ORDERLY_STOP_SECONDS:.0f} s"
                    )
    finally:
        os.close(read_fd)


def _thread_excepthook(state: _Stop, previous: Callable[[Any], Any]) -> Callable[[Any], None]:
    """A thread's uncaught exception waits a moment for a stop signal, so that one caused by the signal (a
    Beam worker it killed) goes to the log file, not the console."""

    def hook(args: Any) -> None:
        if not state.debug:
            state.seen.wait(THREAD_ERROR_GRACE_SECONDS)
        previous(args)

    return hook


def _quiet_console(state: _Stop) -> None:
    """Point fd 2 at a log file, keeping the real stderr for the closing line (once; from either thread)."""
    with state.console_lock:
        if state.console_fd is not None:
            return
        state.log_fd, state.log_path = tempfile.mkstemp(prefix=f"kcorpus-{state.command}-", suffix=".log")
        console = 2
        with contextlib.suppress(AttributeError, ValueError, OSError):
            sys.stderr.flush()
            # the real stderr, also while fd 2 feeds a trainer's log reader (spm_progress)
            console = sys.stderr.fileno()
        state.console_fd = os.dup(console)
        os.dup2(state.log_fd, 2)


def _stop_now(signum: int, why: str) -> None:
    """A second signal (or a stuck stop): kill the workers, release the locks, print the line, exit at once."""
    from kcorpus.pipeline.outputs.lock import held_locks, release_lock

    assert _stop is not None
    code = EXIT_CODES.get(signum, 128 + signum)
    if _stop.said:  # the closing line is out: only the process's end is left
        os._exit(code)
    _signal_children(signal.SIGKILL)
    for out, token in list(held_locks().items()):
        with contextlib.suppress(Exception):
            release_lock(out, token)
    line, _ = closing_line()
    say(
        line.replace(": interrupted", f": stopped at once ({why}), interrupted", 1),
        exit_now=True,
        code=code,
    )


def _end_children(state: _Stop) -> None:
    while not state.ended.is_set():
        _signal_children(signal.SIGTERM)
        time.sleep(CHILD_CHECK_SECONDS)


def _signal_children(signum: int) -> None:
    for pid in child_pids(os.getpid()):
        with contextlib.suppress(OSError):
            os.kill(pid, signum)


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is `parent` (Linux's /proc; elsewhere `pgrep -P`)."""
    if os.path.isdir("/proc/self"):
        pids = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            # pid (comm) state ppid ...: comm may hold spaces and parentheses; the last ')' ends it.
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == parent:
                pids.append(int(name))
        return pids
    import subprocess

    found = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True, check=False)
    return [int(p) for p in found.stdout.split()]
