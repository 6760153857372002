import pickle
import struct

import pytest
import zstandard

from kcorpus.pipeline.external_sort.blocks import BlockWriter, read_blocks, read_blocks_at, write_blocks


def test_blocks_round_trip_and_an_empty_file_is_written(tmp_path):
    write_blocks(str(tmp_path / "a"), [[1, "가"], {"x": 2}, None])
    assert list(read_blocks(str(tmp_path / "a"))) == [[1, "가"], {"x": 2}, None]
    write_blocks(str(tmp_path / "empty"), [])
    assert (tmp_path / "empty").exists() and list(read_blocks(str(tmp_path / "empty"))) == []


def test_block_writer_says_where_each_block_lies(tmp_path):
    path = str(tmp_path / "spill")
    writer = BlockWriter(path)
    assert not writer.opened and not (tmp_path / "spill").exists()
    with writer:
        where = [writer.write(block) for block in (["a"], ["b", "c"], ["d"])]
    assert [offset for offset, _ in where] == [0, where[0][1], where[0][1] + where[1][1]]
    assert read_blocks_at(path, [where[2], where[0]]) == [["d"], ["a"]]
    assert list(read_blocks(path)) == [["a"], ["b", "c"], ["d"]]


def test_blocks_are_zstd_frames_of_their_pickles_each_after_its_length(tmp_path):
    blocks = [[1], ["문장 하나. " * 200, 3]]
    write_blocks(str(tmp_path / "a"), blocks)
    data = (tmp_path / "a").read_bytes()
    stored = []
    while data:
        (length,) = struct.unpack("<Q", data[:8])
        frame, data = data[8 : 8 + length], data[8 + length :]
        assert frame.startswith(b"\x28\xb5\x2f\xfd")  # a zstd frame
        stored.append(pickle.loads(zstandard.ZstdDecompressor().decompress(frame)))
    assert stored == blocks
    assert (tmp_path / "a").stat().st_size < len(pickle.dumps(blocks[1])) / 10  # repeated text compresses


def test_a_truncated_spill_file_is_an_error_not_a_shorter_run(tmp_path):
    write_blocks(str(tmp_path / "a"), [[1], [2, 3]])
    data = (tmp_path / "a").read_bytes()
    for cut in (len(data) - 1, 4):
        (tmp_path / "b").write_bytes(data[:cut])
        with pytest.raises(OSError, match="a block cut short"):
            list(read_blocks(str(tmp_path / "b")))
