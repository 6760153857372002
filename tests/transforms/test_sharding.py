import hashlib

import pytest

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


def test_shards_for_sample_takes_about_twice_the_wanted_share():
    from kcorpus.transforms.sharding import shards_for_sample

    # 512 shards of 100M sentences, 10M wanted: 20M / 100M of 512 shards, rounded up
    assert shards_for_sample(512, 100_000_000, 10_000_000) == 103
    assert shards_for_sample(512, 100_000_000, 10_000_000, margin=1.0) == 52
    assert shards_for_sample(4, 1_000, 10) == 1
    # too few sentences, or their count unknown: every shard
    assert shards_for_sample(4, 1_000, 500) == 4
    assert shards_for_sample(4, 0, 10) == 4


def test_first_shards_are_a_uniform_sample_of_documents():
    from kcorpus.transforms.sharding import shards_for_sample

    ids = [f"nsmc-{i}" for i in range(4000)] + [f"kowiki-{i}" for i in range(1000)]
    taken = shards_for_sample(8, len(ids), 500)
    assert taken == 2
    sample = [i for i in ids if shard_of(i, 8) < taken]
    assert 1000 <= len(sample) <= 1500
    # the mix of sources in the sample is the corpus's 4:1
    share = sum(i.startswith("kowiki") for i in sample) / len(sample)
    assert 0.16 < share < 0.24


@pytest.mark.parametrize("num_shards", [1, 2, 3, 4, 7, 8, 64, 100, 128, 256, 512, 1000, 1024])
def test_shard_of_equals_the_digest_number_modulo_the_shards(num_shards):
    ids = [f"nsmc:{i}" for i in range(2000)] + ["petitions:영화 리뷰", "kowiki:수학\x00kowiki", ""]
    for doc_id in ids:
        number = int.from_bytes(hashlib.blake2b(doc_id.encode("utf-8"), digest_size=8).digest(), "big")
        assert shard_of(doc_id, num_shards) == number % num_shards, doc_id
