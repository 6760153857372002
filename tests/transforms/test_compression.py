"""`transforms.compression` and `files.open_binary`: every compression by suffix and by magic bytes, streamed,
a truncated or corrupt stream an error, a zip archive one clear error."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile

import pytest
import zstandard

from kcorpus.transforms import compression, files

TEXT = "".join(f"{i}번째 줄: 한국어 문장입니다.\n" for i in range(5000)).encode("utf-8")
COMPRESS = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
}
SUFFIX = {"gzip": ".gz", "bz2": ".bz2", "xz": ".xz", "zstd": ".zst"}


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_magic_bytes_name_each_compression_and_never_text(kind):
    assert compression.by_magic(COMPRESS[kind](TEXT)[: compression.HEAD_BYTES]) == kind
    assert compression.by_magic(COMPRESS[kind](b"")[: compression.HEAD_BYTES]) == kind
    assert compression.by_suffix(f"a.txt{SUFFIX[kind]}") == kind
    for plain in (TEXT, b"", b"BZh91AY", b"BZh9 is a bz2 header", b'{"text": "x"}'):
        assert compression.by_magic(plain[: compression.HEAD_BYTES]) is None


@pytest.mark.parametrize("kind", sorted(COMPRESS))
@pytest.mark.parametrize("named", [True, False])
def test_open_binary_decompresses_by_suffix_or_by_magic(tmp_path, kind, named):
    path = tmp_path / (f"a.txt{SUFFIX[kind]}" if named else "a.txt")
    path.write_bytes(COMPRESS[kind](TEXT))
    assert files.compression_of(str(path)) == kind and files.is_compressed(str(path))
    with files.open_binary(str(path)) as stream:
        assert stream.readline() == TEXT.split(b"\n")[0] + b"\n"
        assert b"".join([stream.readline(), *stream]) == TEXT[len(TEXT.split(b"\n")[0]) + 1 :]


def test_plain_files_are_not_compressed(tmp_path):
    (tmp_path / "a.txt").write_bytes(TEXT)
    (tmp_path / "empty").write_bytes(b"")
    assert not files.is_compressed(str(tmp_path / "a.txt")) and not files.is_compressed(
        str(tmp_path / "empty")
    )
    with files.open_binary(str(tmp_path / "a.txt")) as stream:
        stream.seek(10)  # a plain file stays a seekable file (byte-range readers seek)
        assert stream.read() == TEXT[10:]


def test_zstd_reads_every_frame_and_streams():
    frames = zstandard.ZstdCompressor().compress(TEXT[:1000]) + zstandard.ZstdCompressor().compress(
        TEXT[1000:]
    )
    reader = io.BufferedReader(compression.ZstdReader(io.BytesIO(frames)))
    assert reader.read() == TEXT
    # stream_reader's stream (a file written by `zstd`: the content size is not in the header) reads the same
    buffer = io.BytesIO()
    with zstandard.ZstdCompressor().stream_writer(buffer, closefd=False) as writer:
        writer.write(TEXT)
    assert io.BufferedReader(compression.ZstdReader(io.BytesIO(buffer.getvalue()))).read() == TEXT


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_truncated_stream_is_an_error_not_a_shorter_file(tmp_path, kind):
    data = COMPRESS[kind](TEXT)
    path = tmp_path / f"cut{SUFFIX[kind]}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(files.STREAM_ERRORS), files.open_binary(str(path)) as stream:
        stream.read()


def test_a_corrupt_zstd_stream_is_an_oserror(tmp_path):
    path = tmp_path / "bad.zst"
    data = bytearray(COMPRESS["zstd"](TEXT))
    data[20:40] = b"\xff" * 20
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="zstd"), files.open_binary(str(path)) as stream:
        stream.read()


def test_a_zip_archive_is_one_clear_error(tmp_path):
    path = tmp_path / "comments.txt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "x\n")
    with pytest.raises(
        compression.UnsupportedCompression, match=r"comments.txt is a zip archive: unzip it first"
    ):
        files.open_binary(str(path))


def test_remote_files_are_decompressed_by_suffix_and_magic(monkeypatch):
    class Remote:
        def open(self, path):
            return io.BytesIO(blobs[path])

    blobs = {
        "gs://b/a.zst": COMPRESS["zstd"](TEXT),
        "gs://b/part-0": COMPRESS["gzip"](TEXT),
        "gs://b/p": TEXT,
    }
    monkeypatch.setattr(files, "_remote", [Remote()])
    for path in blobs:
        with files.open_binary(path) as stream:
            assert stream.read() == TEXT


def test_base_name_drops_every_compression_suffix():
    assert [files.base_name(f"d/news.jsonl{s}") for s in (".gz", ".bz2", ".zst", ".xz")] == ["news.jsonl"] * 4
