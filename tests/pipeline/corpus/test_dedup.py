"""The Beam wiring of dedup: `ExactDedup` and `NearDedup` on the meta batches of `PrepareDocuments`."""

import apache_beam as beam
import numpy as np
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus.dedup import ExactDedup, NearDedup
from kcorpus.transforms.dedup import NearDedupConfig, dedup_text, digest, jaccard, lsh_keys_and_signatures

NEAR = NearDedupConfig()
B = "스토리가 너무 뻔해서 중간에 졸았습니다 비추합니다"
# Two real NSMC reviews (tests/testdata/sample): exact 5-gram Jaccard 0.54, yet they share an LSH bucket
# with the default 16 x 8 bands. Unverified LSH merged them.
FALSE_A = "평점 1점도 아까운 영화."
FALSE_B = "솔직히 1점도 아까운 영화"


def local_test_pipeline() -> TestPipeline:
    """A TestPipeline on the in-process FnApiRunner (the DirectRunner default would try Prism first)."""
    return TestPipeline(runner=FnApiRunner(), options=PipelineOptions([]))


@pytest.fixture(params=["shuffled", "spilled"])
def spill_dir(request, tmp_path):
    """Both ways of grouping dedup records: through the runner, or through files (the local runner's way)."""
    return None if request.param == "shuffled" else str(tmp_path)


def _meta(node, source, text):
    keys, sigs = lsh_keys_and_signatures([dedup_text(text)], NEAR)
    return (node, source, digest(dedup_text(text)), keys[0], sigs[0])


def test_exact_dedup_transform_global_and_per_source(spill_dir):
    meta = [
        _meta("1\x00a\x00r", "a", "같은 댓글입니다 정말로"),
        _meta("2\x00b\x00r", "b", "같은  댓글입니다 정말로"),
        _meta("3\x00a\x00r", "a", "같은 댓글입니다 정말로"),
        _meta("4\x00a\x00r", "a", "다른 댓글"),
    ]
    with local_test_pipeline() as p:
        rows = p | beam.Create([meta[:2], meta[2:]])
        assert_that(
            rows | "G" >> ExactDedup("global", tmp_dir=spill_dir),
            equal_to(
                [("2\x00b\x00r", (0, "exact_duplicate", "1\x00a\x00r")), ("3\x00a\x00r", (0, "exact_duplicate", "1\x00a\x00r"))]
            ),
            label="Global",
        )
        assert_that(
            rows | "S" >> ExactDedup("per_source", tmp_dir=spill_dir),
            equal_to([("3\x00a\x00r", (0, "exact_duplicate", "1\x00a\x00r"))]),
            label="PerSource",
        )


def test_near_dedup_transform_links_chains_into_one_cluster(spill_dir):
    # c1 ~ c2 ~ c3 (a chain of small edits) form one cluster whose survivor is the smallest id.
    c1 = "배우들의 연기가 정말 좋았고 음악도 훌륭했어요 다시 보고 싶은 영화입니다"
    c2 = c1 + " 강추"
    c3 = c2 + "합니다"
    meta = [_meta("k3", "s", c3), _meta("k1", "s", c1), _meta("k2", "s", c2), _meta("k9", "s", B)]
    with local_test_pipeline() as p:
        out = p | beam.Create([meta[:1], meta[1:]]) | NearDedup(NEAR, tmp_dir=spill_dir)
        assert_that(
            out["losers"], equal_to([("k2", (1, "near_duplicate", "k1")), ("k3", (1, "near_duplicate", "k1"))])
        )


@pytest.mark.slow
def test_near_dedup_verifies_candidates_keeps_false_pair_and_merges_planted(spill_dir):
    # Planted near-duplicates of real reviews (a few characters edited) must merge; the real pair of
    # different reviews that LSH pairs must both survive.
    base = "이게 뭥미? 이건 머 감동도 없고 재미도 없고 개연성도 없고...1점도 아까운 영화..마이너스 5점 주구 싶다."
    planted = base.replace("5점", "10점")
    texts = {"n1": FALSE_A, "n2": FALSE_B, "n3": base, "n4": planted, "n5": base + "!!"}
    assert all(jaccard(base, t, 5) > 0.8 for t in (planted, base + "!!"))
    meta = [_meta(node + "\x00nsmc\x00r", "nsmc", text) for node, text in sorted(texts.items())]
    with local_test_pipeline() as p:
        out = p | beam.Create([meta[:2], meta[2:]]) | NearDedup(NEAR, tmp_dir=spill_dir)
        assert_that(
            out["losers"],
            equal_to(
                [
                    ("n4\x00nsmc\x00r", (1, "near_duplicate", "n3\x00nsmc\x00r")),
                    ("n5\x00nsmc\x00r", (1, "near_duplicate", "n3\x00nsmc\x00r")),
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


def test_lsh_groups_share_scope_band_and_key():
    from kcorpus.pipeline.corpus.dedup import _scope_codes, lsh_groups

    batch = [(f"{i}\x00{source}\x00r", source, b"", [], b"") for i, source in enumerate(["nsmc", "wiki", "nsmc", "nsmc", "nsmc"])]
    table = {
        "scope": _scope_codes(batch, "per_source"),
        "band": np.array([0, 0, 0, 1, 0], dtype=np.int16),
        "key": np.array([7, 7, 7, 7, -3], dtype=np.int64),
    }
    # rows 0 and 2: same source, band and key; row 1 is another source, row 3 another band
    assert [(band, sorted(g)) for band, g in lsh_groups(table)] == [(0, [0, 2])]
    table["scope"] = _scope_codes(batch, "global")
    assert [(band, sorted(g)) for band, g in lsh_groups(table)] == [(0, [0, 1, 2])]


def test_node_column_reads_back_every_node():
    from kcorpus.pipeline.corpus.dedup import node_column, nodes_of

    nodes = ["petitions-0:12\x00petitions", "위키:문서\x00kowiki", "a\x00b\x00r", "x" * 300 + "\x00nsmc\x00r"]
    column = node_column(nodes)
    assert nodes_of(column) == nodes
    assert nodes_of(column[np.array([3, 1])]) == [nodes[3], nodes[1]]
    assert nodes_of(column[[2, 0]]) == [nodes[2], nodes[0]]


def test_identical_signatures_give_one_same_pair_not_one_per_band():
    from kcorpus.pipeline.corpus.dedup import _band_table, _bucket_pairs

    review = "배우들의 연기가 정말 좋았고 음악도 훌륭했어요"
    meta = [_meta("a\x00s\x00r", "s", review), _meta("b\x00s\x00r", "s", review), _meta("c\x00s\x00r", "s", review + " 강추합니다")]
    _, table = _band_table(meta, "global", 1)
    pairs = list(_bucket_pairs((0, [table])))
    assert pairs.count(("same", "a\x00s\x00r", "b\x00s\x00r")) == 1
    assert all(kind == "candidate" for kind, *_ in pairs if _ != ["a\x00s\x00r", "b\x00s\x00r"])
