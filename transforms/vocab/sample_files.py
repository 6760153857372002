"""The files that hold train-vocab's sample: one sentence a line, zstd-compressed, read back in order.

train-vocab's workers write each range's sample sentences to a scratch file (`written`); the trainer reads
them last. They are compressed (zstd level `ZSTD_LEVEL`, ~3x on Korean text for ~1% of train-vocab's CPU),
so the sample costs a third of its bytes on disk: up to ~620 MB plain at the default 5M sentences.
SentencePiece's sentences are read back in Python (`written_sentences`); `tokenizers` reads WordPiece's itself,
on its own threads, from a pipe that a thread fills with the decompressed files (`decompressed_pipe`): it
takes file paths only, and reads them as a stream. Both read through `compression.decompressed`, which raises
on a truncated file where `zstandard`'s reader ends quietly: a shortened sample never passes for the whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator

import zstandard

from kcorpus.transforms import compression
from kcorpus.transforms.vocab.sample import progress_bar

SUFFIX = ".txt.zst"
# zstd level 1, the fastest: the sample is written once and read once or twice.
ZSTD_LEVEL = 1
_BLOCK = 1 << 20
# Lines between two updates of the reading progress bar (its position is the compressed bytes read).
_BAR_LINES = 4096


def written(sentences: Iterable[str], path: str, line: Callable[[str], str] = str) -> Iterator[str]:
    """`sentences`, each also written to `path` as the line `line(sentence)`."""
    with open(path, "wb") as raw, zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(raw) as out:
        for sentence in sentences:
            out.write((line(sentence) + "\n").encode("utf-8"))
            yield sentence


def written_sentences(paths: Iterable[str], progress: bool = False) -> Iterator[str]:
    """The lines `written` wrote, in order."""
    paths = list(paths)
    bar = progress_bar(sum(os.path.getsize(p) for p in paths), progress, "load")
    try:
        for path in paths:
            with open(path, "rb") as raw:
                lines = compression.decompressed(raw, compression.ZSTD, path)
                position = 0
                for count, line in enumerate(lines, 1):
                    if bar is not None and count % _BAR_LINES == 0:
                        position = _advance(bar, raw.tell(), position)
                    yield line[:-1].decode("utf-8")
                if bar is not None:
                    _advance(bar, raw.tell(), position)
    finally:
        if bar is not None:
            bar.close()


def _advance(bar: object, now: int, before: int) -> int:
    bar.update(now - before)  # type: ignore[attr-defined]
    return now


@contextlib.contextmanager
def decompressed_pipe(paths: Iterable[str]) -> Iterator[str]:
    """A path (`/dev/fd/N`, Linux and macOS) to read the files `written` wrote from, decompressed, in order.

    A thread writes them into a pipe. A reader that stops early is harmless: when the block ends, the pipe's
    read end is closed, which stops the thread. The thread's own error (a file unreadable) is raised when the
    block ends, so a trainer never takes a shortened sample for the whole."""
    paths = list(paths)
    read_end, write_end = os.pipe()
    failure: list[BaseException] = []

    def feed() -> None:
        try:
            with os.fdopen(write_end, "wb", buffering=0) as out:
                for path in paths:
                    with compression.decompressed(open(path, "rb"), compression.ZSTD, path) as source:
                        shutil.copyfileobj(source, out, _BLOCK)
        except BrokenPipeError:
            pass  # the reader is gone: its error is the one that counts
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            failure.append(exc)

    feeder = threading.Thread(target=feed, name="kcorpus-sample-pipe", daemon=True)
    feeder.start()
    try:
        yield f"/dev/fd/{read_end}"
    finally:
        os.close(read_end)  # the reader is done: a thread still writing stops
    feeder.join()  # not after an error or Ctrl-C: a reader in another thread may still read; it ends with us
    if failure:
        raise RuntimeError(f"reading the vocab sample back failed: {failure[0]}") from failure[0]
