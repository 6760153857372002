from kcorpus.transforms.sharding import shard_name, shard_of, split_and_shard


def test_shard_names():
    assert shard_name("part", 1, 4, ".txt") == "part-00001-of-00004.txt"
    assert shard_name("data", 12, 100, ".arrow") == "data-00012-of-00100.arrow"


def test_shards_depend_on_the_id_only():
    assert [shard_of(f"doc-{i}", 4) for i in range(200)] == [shard_of(f"doc-{i}", 4) for i in range(200)]
    assert {shard_of(f"doc-{i}", 4) for i in range(200)} == {0, 1, 2, 3}
    counts = {"train": 3, "validation": 1}
    placed = [split_and_shard(f"doc-{i}", 0.1, counts) for i in range(1000)]
    assert 50 < sum(split == "validation" for split, _ in placed) < 150
    assert {shard for split, shard in placed if split == "train"} == {0, 1, 2}
    assert split_and_shard("doc-1", 0.0, counts)[0] == "train"
