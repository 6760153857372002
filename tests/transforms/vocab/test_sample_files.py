"""train-vocab's sample files: compressed on disk, read back line for line, and streamed to a reader of paths
through a pipe that never hangs and never passes a shortened sample off as whole (real NSMC/petition lines)."""

import threading

import pytest
import zstandard

from kcorpus.transforms.vocab.sample_files import SUFFIX, decompressed_pipe, written, written_sentences
from testdata_paths import TESTDATA

LINES = (TESTDATA / "vocab" / "nsmc_petitions.txt").read_text(encoding="utf-8").splitlines()


def write_sample(folder, parts=3):
    """The test lines written as `parts` sample files, as train-vocab's ranges write them."""
    paths = []
    for index in range(parts):
        path = folder / f"sample-{index:05d}{SUFFIX}"
        chunk = LINES[index::parts]
        assert list(written(chunk, str(path))) == chunk  # passes every sentence on
        paths.append(str(path))
    return paths, [line for index in range(parts) for line in LINES[index::parts]]


def test_the_files_are_compressed_and_read_back_in_order(tmp_path):
    paths, expected = write_sample(tmp_path)
    assert list(written_sentences(paths)) == expected
    plain = sum(len(line.encode()) + 1 for line in LINES)
    on_disk = sum((tmp_path / p).stat().st_size for p in paths)
    assert on_disk < plain / 2
    with open(paths[0], "rb") as raw:  # plain zstd, as `zstdcat` reads it
        assert zstandard.ZstdDecompressor().stream_reader(raw).read().decode().splitlines() == LINES[0::3]


def test_written_applies_the_line_form(tmp_path):
    path = str(tmp_path / f"s{SUFFIX}")
    assert list(written(["가 나", "다"], path, line=str.upper)) == ["가 나", "다"]
    assert list(written_sentences([path])) == ["가 나", "다"]


def test_the_pipe_gives_the_decompressed_files_in_order(tmp_path):
    paths, expected = write_sample(tmp_path)
    # opened by path, as tokenizers opens its files
    with decompressed_pipe(paths) as stream, open(stream, encoding="utf-8") as text:
        assert text.read().splitlines() == expected


def test_a_reader_that_stops_early_does_not_hang(tmp_path):
    big = tmp_path / f"big{SUFFIX}"
    list(written(LINES * 40, str(big)))  # more than a pipe holds
    with decompressed_pipe([str(big)]) as stream, open(stream, "rb") as handle:
        assert handle.read(100)
    assert not [t for t in threading.enumerate() if t.name == "kcorpus-sample-pipe"]


def test_a_file_that_cannot_be_read_fails_after_the_reader(tmp_path):
    paths, _ = write_sample(tmp_path, parts=2)
    (tmp_path / paths[1]).write_bytes(b"not zstd at all")
    failed = pytest.raises(RuntimeError, match="reading the vocab sample back failed")
    with failed, decompressed_pipe(paths) as stream, open(stream, encoding="utf-8") as text:
        assert text.read().splitlines() == LINES[0::2]  # what came before the bad file


def test_a_truncated_file_is_an_error_not_a_shorter_sample(tmp_path):
    paths, _ = write_sample(tmp_path, parts=1)
    data = (tmp_path / paths[0]).read_bytes()
    (tmp_path / paths[0]).write_bytes(data[: len(data) // 2])
    with pytest.raises(EOFError):
        list(written_sentences(paths))
    failed = pytest.raises(RuntimeError, match="reading the vocab sample back failed")
    with failed, decompressed_pipe(paths) as stream, open(stream, encoding="utf-8") as text:
        text.read()
