import pickle

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


def test_blocks_are_pickled_one_after_another(tmp_path):
    # The format of today's spill files (compression would change this test only).
    write_blocks(str(tmp_path / "a"), [[1], [2, 3]])
    with open(tmp_path / "a", "rb") as f:
        assert pickle.load(f) == [1] and pickle.load(f) == [2, 3]
