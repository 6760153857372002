import itertools
import random
import subprocess
import sys

import numpy as np
import pytest

from kcorpus.transforms.dedup import (
    NearDedupConfig,
    bucket_candidates,
    connected_components,
    dedup_text,
    digest,
    duplicate_losers,
    estimated_jaccard,
    fold_digits,
    ids_by_key,
    jaccard,
    lsh_keys_and_signatures,
    minhash_signatures,
    shingle_hashes,
)
from kcorpus.transforms.sharding import shard_of

NEAR = NearDedupConfig()


A = "이 영화는 배우들의 연기가 정말 좋았고 음악도 훌륭했어요"
A2 = "이 영화는 배우들의 연기가 정말 좋았고 음악도 훌륭했어요!!"
B = "스토리가 너무 뻔해서 중간에 졸았습니다 비추합니다"


def test_dedup_text_collapses_whitespace_keeps_case():
    assert dedup_text("  Good   영화\n좋아 ") == "Good 영화 좋아"
    assert dedup_text("Good") != dedup_text("good")


def test_digest_and_shard_are_stable_across_processes():
    code = (
        "from kcorpus.transforms.dedup import digest; from kcorpus.transforms.sharding import shard_of;"
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
    keys = lsh_keys_and_signatures([A, A2, B], NEAR)[0]
    assert jaccard(A, A2, 5) > 0.85
    assert set(keys[0]) & set(keys[1])
    assert not set(keys[0]) & set(keys[2])
    assert (keys == lsh_keys_and_signatures([A, A2, B], NEAR)[0]).all()


def test_ids_by_key_lists_only_keys_with_several_distinct_ids():
    pairs = [(digest("가"), "b"), (digest("나"), "c"), (digest("가"), "a"), (7, "x"), (7, "y"), (9, "z")]
    assert ids_by_key(pairs[:3] + [(digest("가"), "b"), (digest("가"), "d")]) == [["a", "b", "d"]]
    assert ids_by_key(pairs[:3]) == [["a", "b"]]
    assert ids_by_key(pairs[3:]) == [["x", "y"]]
    assert ids_by_key([(7, "x"), (7, "x")]) == []


def test_components_are_order_independent_with_smallest_survivor():
    edges = [("d", "e"), ("b", "c"), ("a", "b"), ("e", "a"), ("x", "y")]
    expected = {"b": "a", "c": "a", "d": "a", "e": "a", "y": "x"}
    for perm in itertools.permutations(edges):
        assert connected_components(perm) == expected


def test_near_config_validation():
    with pytest.raises(ValueError):
        NearDedupConfig(scope="everywhere")
    assert NearDedupConfig(bands=16, rows=8).num_perm == 128
    assert 0.70 < NearDedupConfig().lsh_step < 0.72
    assert NearDedupConfig().min_jaccard == NearDedupConfig().lsh_step
    assert NearDedupConfig(threshold=0.8).min_jaccard == 0.8
    with pytest.raises(ValueError):
        NearDedupConfig(threshold=1.5)


# Two real NSMC reviews (tests/testdata/sample): exact 5-gram Jaccard 0.54, yet they share an LSH bucket
# with the default 16 x 8 bands. Unverified LSH merged them.
FALSE_A = "평점 1점도 아까운 영화."
FALSE_B = "솔직히 1점도 아까운 영화"


def test_compact_signatures_estimate_jaccard():
    _, sigs = lsh_keys_and_signatures([A, A2, B, A], NEAR)
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


def test_dedup_text_matches_the_regex_definition_on_every_kind_of_space():
    import re

    texts = ["  Good   영화\n좋아 ", "가\u3000나\u00a0다\x1c라\x85마\u2028바", "\t\n", "", "한 줄"]
    assert [dedup_text(t) for t in texts] == [re.sub(r"\s+", " ", t).strip() for t in texts]


def test_signature_ids_are_equal_exactly_for_equal_signatures():
    from kcorpus.transforms.dedup import signature_ids

    _, sigs = lsh_keys_and_signatures([A, A2, B, A], NEAR)
    ids = signature_ids(sigs).tolist()
    assert ids[0] == ids[3] and len({ids[0], ids[1], ids[2]}) == 3
    assert signature_ids([sigs[1]]).tolist() == [ids[1]]  # one at a time or in a batch: the same id
    assert len(set(signature_ids([bytes([i]) * 7 for i in range(256)]).tolist())) == 256  # width not a multiple of 8


def test_estimated_jaccards_equal_the_one_pair_function_bit_for_bit():
    from kcorpus.transforms.dedup import estimated_jaccards

    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, size=(500, 128), dtype=np.uint8)
    b = a.copy()
    for i, changed in enumerate(rng.integers(0, 129, size=500)):  # 0 to 128 slots differ
        b[i, :changed] = a[i, :changed] + 1
    _, sigs = lsh_keys_and_signatures([A, A2, B, FALSE_A, FALSE_B], NEAR)
    real = np.frombuffer(b"".join(sigs), dtype=np.uint8).reshape(5, -1)
    a, b = np.vstack([a, real[[0, 0, 3]]]), np.vstack([b, real[[1, 2, 4]]])
    expected = [estimated_jaccard(x.tobytes(), y.tobytes()) for x, y in zip(a, b, strict=True)]
    assert estimated_jaccards(a, b).tolist() == expected
    with pytest.raises(ValueError):
        estimated_jaccards(a[:, :64], b)


def test_fold_digits_makes_every_number_one_zero():
    assert fold_digits("5월 31일은 그레고리력으로 151번째(윤년일 경우 152번째)") == "0월 0일은 그레고리력으로 0번째(윤년일 경우 0번째)"
    assert fold_digits("12월 19일") == fold_digits("1월 9일") == "0월 0일"
    assert fold_digits("4.8 (10자 제한), 1,200원") == "0 (0자 제한), 0원"
    assert fold_digits("숫자 없는 문장") == "숫자 없는 문장"
