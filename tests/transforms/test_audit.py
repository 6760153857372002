"""The audit's sample and diffs: deterministic, order-free samples; word diffs that show what a rule did."""

import random

from kcorpus.transforms.audit import DELETE, EQUAL, INSERT, GroupSample, condensed, diff_counts, word_diff


def sample(ids: list[str], n: int, seed: int = 0) -> list[str]:
    s = GroupSample(n, seed)
    for i in ids:
        s.add("src", i, i)
    return s.groups()["src"]


def test_the_sample_depends_on_the_seed_and_the_ids_not_their_order():
    ids = [f"nsmc:{i}" for i in range(500)]
    first = sample(ids, 5)
    shuffled = ids[:]
    random.Random(1).shuffle(shuffled)
    assert sample(shuffled, 5) == first
    assert sample(ids, 8)[:5] == first  # a larger sample only adds records
    assert sample(ids, 5, seed=1) != first
    assert len(set(first)) == 5


def test_groups_are_sampled_apart_and_counted():
    s = GroupSample(2, 0)
    for i in range(10):
        s.add("a", str(i), i)
    s.add("b", "x", "only")
    groups = s.groups()
    assert len(groups["a"]) == 2 and groups["b"] == ["only"]
    assert s.seen == {"a": 10, "b": 1}
    empty = GroupSample(0, 0)
    empty.add("a", "1", 1)
    assert empty.groups() == {"a": []} and empty.seen == {"a": 1}


def test_word_diff_shows_a_deleted_hanja_and_ignores_line_breaks():
    before = "공언(公言)이 지켜지지 않았다. 두 번째 문장입니다."
    after = "공언( )이 지켜지지 않았다.\n두 번째 문장입니다."
    runs = word_diff(before, after)
    assert runs == [
        (DELETE, "공언(公言)이"),
        (INSERT, "공언( )이"),
        (EQUAL, "지켜지지 않았다. 두 번째 문장입니다."),
    ]
    assert diff_counts(runs) == {
        "kept_words": 5, "removed_words": 1, "added_words": 2, "removed_chars": 7, "added_chars": 5
    }
    assert word_diff("같은 문장\n둘", "같은 문장 둘") == [(EQUAL, "같은 문장 둘")]


def test_condensed_cuts_long_unchanged_stretches_only():
    words = " ".join(f"w{i}" for i in range(100))
    runs = [(EQUAL, words), (DELETE, "x"), (EQUAL, words), (INSERT, "y"), (EQUAL, words)]
    out = condensed(runs, context=3)
    assert out == [
        (EQUAL, "… w97 w98 w99"),
        (DELETE, "x"),
        (EQUAL, "w0 w1 w2 … w97 w98 w99"),
        (INSERT, "y"),
        (EQUAL, "w0 w1 w2 …"),
    ]
    assert condensed([(EQUAL, "a b c")], context=3) == [(EQUAL, "a b c")]
    assert condensed([(EQUAL, words)], context=3) == [(EQUAL, " ".join(f"w{i}" for i in range(12)) + " …")]
