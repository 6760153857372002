import itertools
import random
import subprocess
import sys

import apache_beam as beam
import numpy as np
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus.build import ExactDedup, NearDedup
from kcorpus.transforms.dedup import (
    NearDedupConfig,
    bucket_candidates,
    bucket_edges,
    bucketed,
    connected_components,
    dedup_text,
    digest,
    duplicate_losers,
    estimated_jaccard,
    ids_by_key,
    jaccard,
    lsh_keys,
    lsh_keys_and_signatures,
    minhash_signatures,
    shard_of,
    shingle_hashes,
)

NEAR = NearDedupConfig()


def local_test_pipeline() -> TestPipeline:
    """A TestPipeline on the in-process FnApiRunner (the DirectRunner default would try Prism first)."""
    return TestPipeline(runner=FnApiRunner(), options=PipelineOptions([]))


A = "이 영화는 배우들의 연기가 정말 좋았고 음악도 훌륭했어요"
A2 = "이 영화는 배우들의 연기가 정말 좋았고 음악도 훌륭했어요!!"
B = "스토리가 너무 뻔해서 중간에 졸았습니다 비추합니다"


def test_dedup_text_collapses_whitespace_keeps_case():
    assert dedup_text("  Good   영화\n좋아 ") == "Good 영화 좋아"
    assert dedup_text("Good") != dedup_text("good")


def test_digest_and_shard_are_stable_across_processes():
    code = (
        "from kcorpus.transforms.dedup import digest, shard_of;"
        "print(digest('영화').hex(), shard_of('nsmc-1', 4))"
    )
    outs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    }
    assert outs == {f"{digest('영화').hex()} {shard_of('nsmc-1', 4)}\n"}
    assert len(digest("영화")) == 16


def test_duplicate_losers_keep_smallest_id():
    assert duplicate_losers(["b", "c", "a", "c"]) == [("b", "a"), ("c", "a")]
    assert duplicate_losers(["z"]) == []


def test_shingles_of_short_text_and_of_a_batch_match_single():
    hashes, owner = shingle_hashes(["가나", "가나다라마바"], 5)
    assert len(set(hashes.tolist())) == 3
    assert owner.tolist() == [0, 1, 1]  # a 2-char text is one shingle; 6 chars -> 2 five-grams
    batch = minhash_signatures([A, "짧다", B, ""], NEAR)
    singles = np.vstack([minhash_signatures([t], NEAR) for t in [A, "짧다", B, ""]])
    assert batch.shape == (4, 128)
    assert (batch == singles).all()


def test_minhash_estimates_jaccard():
    rng = random.Random(7)
    errors = []
    for _ in range(50):
        base = "".join(rng.choice("가나다라마바사아자차카타파하 ") for _ in range(rng.randint(40, 120)))
        chars = list(base)
        for _ in range(rng.randint(1, 12)):
            chars[rng.randrange(len(chars))] = rng.choice("가나다라")
        other = "".join(chars)
        sig = minhash_signatures([base, other], NEAR)
        errors.append(float((sig[0] == sig[1]).mean()) - jaccard(base, other, 5))
    assert abs(np.mean(errors)) < 0.02
    assert np.std(errors) < 0.08  # sqrt(J(1-J)/128) <= 0.044


def test_lsh_puts_near_duplicates_in_a_common_bucket_and_different_texts_not():
    keys = lsh_keys([A, A2, B], NEAR)
    assert jaccard(A, A2, 5) > 0.85
    assert set(keys[0]) & set(keys[1])
    assert not set(keys[0]) & set(keys[2])
    assert keys == lsh_keys([A, A2, B], NEAR)


def test_buckets_never_change_which_ids_share_a_key():
    pairs = [(digest("가"), "b"), (digest("나"), "c"), (digest("가"), "a"), (7, "x"), (7, "y"), (9, "z")]
    buckets = bucketed(pairs[:3], 4)
    assert sorted(p for members in buckets.values() for p in members) == sorted(pairs[:3])
    assert ids_by_key(pairs[:3]) == [["a", "b"]]
    assert ids_by_key(pairs[3:]) == [["x", "y"]]
    assert ids_by_key([(7, "x"), (7, "x")]) == []


def test_components_are_order_independent_with_smallest_survivor():
    edges = [("d", "e"), ("b", "c"), ("a", "b"), ("e", "a"), ("x", "y")]
    expected = {"b": "a", "c": "a", "d": "a", "e": "a", "y": "x"}
    for perm in itertools.permutations(edges):
        assert connected_components(perm) == expected
    assert bucket_edges(["c", "a", "b"]) == [("a", "b"), ("a", "c")]


def test_near_config_validation():
    with pytest.raises(ValueError):
        NearDedupConfig(scope="everywhere")
    assert NearDedupConfig(bands=16, rows=8).num_perm == 128
    assert 0.70 < NearDedupConfig().lsh_step < 0.72
    assert NearDedupConfig().min_jaccard == NearDedupConfig().lsh_step
    assert NearDedupConfig(threshold=0.8).min_jaccard == 0.8
    with pytest.raises(ValueError):
        NearDedupConfig(threshold=1.5)


def _meta(node, source, text):
    keys, sigs = lsh_keys_and_signatures([dedup_text(text)], NEAR)
    return (node, source, digest(dedup_text(text)), keys[0], sigs[0])


def test_exact_dedup_transform_global_and_per_source():
    meta = [
        _meta("1\x00a", "a", "같은 댓글입니다 정말로"),
        _meta("2\x00b", "b", "같은  댓글입니다 정말로"),
        _meta("3\x00a", "a", "같은 댓글입니다 정말로"),
        _meta("4\x00a", "a", "다른 댓글"),
    ]
    with local_test_pipeline() as p:
        rows = p | beam.Create([meta[:2], meta[2:]])
        assert_that(
            rows | "G" >> ExactDedup("global"),
            equal_to(
                [("2\x00b", (0, "exact_duplicate", "1\x00a")), ("3\x00a", (0, "exact_duplicate", "1\x00a"))]
            ),
            label="Global",
        )
        assert_that(
            rows | "S" >> ExactDedup("per_source"),
            equal_to([("3\x00a", (0, "exact_duplicate", "1\x00a"))]),
            label="PerSource",
        )


def test_near_dedup_transform_links_chains_into_one_cluster():
    # c1 ~ c2 ~ c3 (a chain of small edits) form one cluster whose survivor is the smallest id.
    c1 = "배우들의 연기가 정말 좋았고 음악도 훌륭했어요 다시 보고 싶은 영화입니다"
    c2 = c1 + " 강추"
    c3 = c2 + "합니다"
    meta = [_meta("k3", "s", c3), _meta("k1", "s", c1), _meta("k2", "s", c2), _meta("k9", "s", B)]
    with local_test_pipeline() as p:
        out = p | beam.Create([meta[:1], meta[1:]]) | NearDedup(NEAR)
        assert_that(
            out["losers"], equal_to([("k2", (1, "near_duplicate", "k1")), ("k3", (1, "near_duplicate", "k1"))])
        )


# Two real NSMC reviews (tests/testdata/sample): exact 5-gram Jaccard 0.54, yet they share an LSH bucket
# with the default 16 x 8 bands. Unverified LSH merged them.
FALSE_A = "평점 1점도 아까운 영화."
FALSE_B = "솔직히 1점도 아까운 영화"


def test_compact_signatures_estimate_jaccard():
    keys, sigs = lsh_keys_and_signatures([A, A2, B, A], NEAR)
    assert keys == lsh_keys([A, A2, B, A], NEAR)
    assert [len(s) for s in sigs] == [128] * 4
    assert estimated_jaccard(sigs[0], sigs[3]) == 1.0
    assert abs(estimated_jaccard(sigs[0], sigs[1]) - jaccard(A, A2, 5)) < 0.1
    assert estimated_jaccard(sigs[0], sigs[2]) < 0.1
    with pytest.raises(ValueError):
        estimated_jaccard(sigs[0], sigs[0][:64])


def test_real_false_candidate_pair_is_a_candidate_but_fails_verification():
    keys, sigs = lsh_keys_and_signatures([FALSE_A, FALSE_B], NEAR)
    assert set(keys[0]) & set(keys[1])  # LSH alone links them
    assert 0.5 < jaccard(FALSE_A, FALSE_B, 5) < 0.55
    assert estimated_jaccard(sigs[0], sigs[1]) < NEAR.min_jaccard


def test_bucket_candidates_links_identical_signatures_and_pairs_the_rest():
    members = [("d", 1), ("b", 2), ("a", 1), ("c", 3), ("e", 2), ("a", 1)]
    same, candidates = bucket_candidates(members)
    assert same == [("a", "d"), ("b", "e")]
    assert candidates == [("a", "b"), ("a", "c"), ("b", "c")]
    assert bucket_candidates([("x", 5)]) == ([], [])


def test_near_dedup_verifies_candidates_keeps_false_pair_and_merges_planted():
    # Planted near-duplicates of real reviews (a few characters edited) must merge; the real pair of
    # different reviews that LSH pairs must both survive.
    base = "이게 뭥미? 이건 머 감동도 없고 재미도 없고 개연성도 없고...1점도 아까운 영화..마이너스 5점 주구 싶다."
    planted = base.replace("5점", "10점")
    texts = {"n1": FALSE_A, "n2": FALSE_B, "n3": base, "n4": planted, "n5": base + "!!"}
    assert all(jaccard(base, t, 5) > 0.8 for t in (planted, base + "!!"))
    meta = [_meta(node + "\x00nsmc", "nsmc", text) for node, text in sorted(texts.items())]
    with local_test_pipeline() as p:
        out = p | beam.Create([meta[:2], meta[2:]]) | NearDedup(NEAR)
        assert_that(
            out["losers"],
            equal_to(
                [
                    ("n4\x00nsmc", (1, "near_duplicate", "n3\x00nsmc")),
                    ("n5\x00nsmc", (1, "near_duplicate", "n3\x00nsmc")),
                ]
            ),
            label="Losers",
        )
        counts = out["counts"] | beam.CombinePerKey(sum)
        assert_that(
            counts,
            equal_to(
                [
                    (("nsmc", "dedup:near_candidates"), 4),
                    (("nsmc", "dedup:near_verified"), 3),
                    (("nsmc", "dedup:near_rejected"), 1),
                ]
            ),
            label="Counts",
        )
