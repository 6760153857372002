"""SentencePiece training as a progress bar: its own log lines, read back from the process's stderr.

SentencePiece trains in C++ without a progress callback; what it does shows only in the lines it logs on file
descriptor 2 (`Initialized 1000000 seed pieces`, `EM sub_iter=0 size=785334 ...`, `Merged: ... merges=900`).
`spm_progress_bar` points descriptor 2 at a pipe for the duration of a training, reads the lines back in a
thread and moves a bar by them: a unigram model's EM rounds prune the seed pieces down to the vocabulary size
(the bar moves on a log scale from the seed count to the size), a BPE model merges until the vocabulary is
full. Python's own output in the block (`sys.stderr`, the bars) goes to the real stderr directly, so what
reaches descriptor 2 is the trainer's: its log lines and the settings it prints over several lines, passed
through only when asked (`kcorpus -v`).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

# absl's format: severity, MMDD, time, thread id, file:line] message
LOG_LINE = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] (?P<message>.*)$")
_SEED = re.compile(r"Initialized (\d+) seed pieces")
_EM = re.compile(r"EM sub_iter=\d+ size=(\d+)")
_ALPHABET = re.compile(r"Alphabet size=(\d+)")
_MERGED = re.compile(r"Merged: .*\bmerges=(\d+)")
# The unigram trainer prunes to 1.1 x the vocabulary size, then cuts to the size in its last step.
UNIGRAM_PRUNE_TARGET = 1.1
# Phases before the iterative part, by the message that starts them.
_PHASES = (
    ("Normalizing sentences", "normalize"),
    ("Extracting seed sentencepieces", "seed pieces"),
    ("Tokenizing input sentences", "tokenize"),
    ("Using ", "EM"),
    ("Merged:", "merge"),
    ("PruneUnreachableSentencePieces", "finish"),  # unigram: after the last EM round's prune to the size
    ("Completed ", "finish"),  # BPE: `Completed N merge steps`
    ("Saving model", "finish"),
)


class SpmLogProgress:
    """The training's phase and how far its iterative part has come (0-1), from its log messages."""

    def __init__(self, vocab_size: int, model_type: str) -> None:
        self.vocab_size, self.model_type = vocab_size, model_type
        self.phase = "load"
        self.fraction = 0.0
        self.seed_pieces: int | None = None
        self.alphabet: int | None = None

    def feed(self, message: str) -> None:
        """Updates `phase` and `fraction` from one log message (the text after `file:line] `)."""
        for prefix, phase in _PHASES:
            if message.startswith(prefix):
                self.phase = phase
        if match := _SEED.search(message):
            self.seed_pieces = int(match.group(1))
        elif match := _ALPHABET.search(message):
            self.alphabet = int(match.group(1))
        elif (match := _EM.search(message)) and self.seed_pieces:
            self.phase = "EM"
            target = self.vocab_size * UNIGRAM_PRUNE_TARGET
            size = int(match.group(1))
            if self.seed_pieces > target:
                done = math.log(self.seed_pieces / max(size, target)) / math.log(self.seed_pieces / target)
                self.fraction = max(self.fraction, min(1.0, done))
        elif match := _MERGED.search(message):
            self.phase = "merge"
            merges = max(1, self.vocab_size - (self.alphabet or 0))
            self.fraction = max(self.fraction, min(1.0, int(match.group(1)) / merges))
        if self.phase == "finish":
            self.fraction = 1.0


@contextlib.contextmanager
def native_stderr_lines(on_line: Callable[[str], bool], real: TextIO | None = None) -> Iterator[TextIO]:
    """Descriptor 2 into `on_line`, line by line, for the block; yields a stream on the real stderr.

    `on_line(line)` returns whether the line is passed through to the real stderr. `sys.stderr` is that
    stream during the block, so Python's own output is not delayed or parsed.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    stream = real or os.fdopen(os.dup(saved), "w", buffering=1, encoding="utf-8", errors="replace")
    pump = threading.Thread(target=_pump, args=(read_end, on_line, stream), name="kcorpus-stderr", daemon=True)
    pump.start()
    previous, sys.stderr = sys.stderr, stream
    try:
        yield stream
    finally:
        sys.stderr = previous
        os.dup2(saved, 2)  # closes the pipe's last write end: the pump reads to its end and stops
        os.close(saved)
        pump.join()
        stream.flush()
        if real is None:
            stream.close()


def _pump(read_end: int, on_line: Callable[[str], bool], stream: TextIO) -> None:
    pending = b""
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while chunk := pipe.read(1 << 16):
            *lines, pending = (pending + chunk).split(b"\n")
            for raw in lines:
                line = raw.decode("utf-8", errors="replace")
                if on_line(line):
                    stream.write(line + "\n")
    if pending:
        line = pending.decode("utf-8", errors="replace")
        if on_line(line):
            stream.write(line)


@contextlib.contextmanager
def spm_progress_bar(vocab_size: int, model_type: str, *, logs: bool) -> Iterator[SpmLogProgress]:
    """A bar over a SentencePiece training in the block (which must train with INFO logs: `logs=True` to
    `train_sentencepiece`); its log lines reach stderr only with `logs`."""
    from kcorpus.pipeline.progress import tqdm_bar

    tracker = SpmLogProgress(vocab_size, model_type)
    bar: Any = None

    def on_line(line: str) -> bool:
        match = LOG_LINE.match(line)
        if match is None:  # absl's preamble, the settings printed over several lines
            return logs
        tracker.feed(match.group("message"))
        if bar is not None:
            bar.set_description_str(f"train ({tracker.phase})", refresh=False)
            bar.update(round(100 * tracker.fraction) - bar.n)
        return logs

    real = os.fdopen(os.dup(2), "w", buffering=1, encoding="utf-8", errors="replace")
    try:
        with native_stderr_lines(on_line, real=real):
            bar = tqdm_bar(total=100, desc="train (load)", unit="%", bar_format="{l_bar}{bar}| {elapsed}")
            yield tracker
        # the pipe is read to its end here: the last lines are in
        bar.update(round(100 * tracker.fraction) - bar.n)
    finally:
        if bar is not None:
            bar.close()
        real.close()
