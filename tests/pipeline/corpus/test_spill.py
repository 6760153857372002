"""`BucketTables`: rows grouped by bucket through spill files (local runner) or through the runner itself."""

import os

import apache_beam as beam
import numpy as np
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus import spill
from kcorpus.pipeline.corpus.spill import (
    BucketTables,
    SpillFile,
    bucket_count,
    bucket_table,
    concat,
    read_segments,
    split_by_bucket,
)

WORDS = ["영화", "정말", "재밌어요", "스토리", "배우", "연기", "최고", "별로", "지루해요", "감동"]


def _by_length(batch, buckets):
    lengths = np.array([len(w) for w in batch], dtype=np.int64)
    return lengths % buckets, {"word": list(batch), "length": lengths}


def _grouped(kv):
    bucket, values = kv
    table = bucket_table(values)
    assert list(table["length"]) == [len(w) for w in table["word"]]
    return bucket, sorted(table["word"])


def test_bucket_count_follows_input_size_within_bounds():
    assert bucket_count(None) == spill.MIN_BUCKETS
    assert bucket_count(3 << 20) == spill.MIN_BUCKETS
    assert bucket_count(1 << 30) == 256
    assert bucket_count(1 << 40) == spill.MAX_BUCKETS


def test_split_and_concat_keep_rows_together():
    buckets, table = _by_length(WORDS, 3)
    parts = list(split_by_bucket(buckets, table))
    assert [b for b, _ in parts] == [0, 1, 2]
    assert sorted(concat([t for _, t in parts])["word"]) == sorted(WORDS)
    assert all({len(w) % 3 for w in t["word"]} == {b} for b, t in parts)


def _word_row(word, buckets):
    return len(word) % buckets, (word, len(word))


@pytest.mark.slow
@pytest.mark.parametrize("rows", [False, True])
@pytest.mark.parametrize("spilled", [False, True])
def test_every_row_comes_back_in_its_bucket_from_several_inputs(spilled, rows, tmp_path):
    spill_dir = str(tmp_path / "spill") if spilled else None
    # tables of a batch of words each, or (`rows`) one row per word
    bucketed = (
        BucketTables("Test", _word_row, 3, spill_dir=spill_dir, spill_rows=3, columns=("word", "length"))
        if rows
        else BucketTables("Test", _by_length, 3, spill_dir=spill_dir, spill_rows=3)
    )
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        first = p | "A" >> beam.Create([WORDS[:4], WORDS[4:7]])
        second = p | "B" >> beam.Create([WORDS[7:], WORDS[:2]])
        if rows:
            first = first | "WordsA" >> beam.FlatMap(list)
            second = second | "WordsB" >> beam.FlatMap(list)
        grouped = (
            (first, second)
            | bucketed
            | beam.GroupByKey()
            | beam.Map(_grouped)
        )
        expected: dict[int, list[str]] = {}
        for word in WORDS + WORDS[:2]:
            expected.setdefault(len(word) % 3, []).append(word)
        assert_that(grouped, equal_to([(b, sorted(ws)) for b, ws in expected.items()]))
    files = [f for _, _, fs in os.walk(tmp_path) for f in fs]
    # one file per bundle that had rows (each input's bundle here), appended to at every 3 buffered rows
    assert (1 <= len(files) <= 2) if spilled else not files


def test_a_spill_file_gives_one_element_per_bucket_with_every_flush_in_order(tmp_path):
    spill_file = SpillFile(str(tmp_path / "bundle.pkl"))
    spill_file.append(split_by_bucket(*_by_length(WORDS[:5], 3)))
    spill_file.append(split_by_bucket(*_by_length(WORDS[5:], 3)))
    spill_file.append([])  # a flush with no rows adds no segment
    elements = spill_file.close()
    assert [bucket for bucket, _ in elements] == [0, 1, 2]
    for bucket, segments in elements:
        tables = read_segments(segments)
        words = [w for table in tables for w in table["word"]]
        # a bucket's words in input order: the first flush's segment, then the second's
        assert words == [w for w in WORDS if len(w) % 3 == bucket]
        assert len(tables) == len({i < 5 for i, w in enumerate(WORDS) if len(w) % 3 == bucket})
    assert SpillFile(str(tmp_path / "unused.pkl")).close() == []
    assert not (tmp_path / "unused.pkl").exists()


def loser_table(loser, num_shards):
    """One loser as the one-row table `BucketTables(..., loser_row, columns=LOSER_COLUMNS)` emits unspilled."""
    from kcorpus.pipeline.corpus.write import LOSER_COLUMNS, loser_row

    shard, row = loser_row(loser, num_shards)
    return np.array([shard]), dict(zip(LOSER_COLUMNS, ([value] for value in row), strict=True))


def test_a_shard_gets_its_runs_and_one_reason_per_loser_from_tables_and_segments(tmp_path):
    from kcorpus.pipeline.corpus.write import shard_inputs

    near = ("7\x00nsmc", (1, "near_duplicate", "3\x00nsmc"))
    exact = ("7\x00nsmc", (0, "exact_duplicate", "5\x00nsmc"))
    other = ("9\x00nsmc", (1, "near_duplicate", "3\x00nsmc"))
    spill_file = SpillFile(str(tmp_path / "losers.pkl"))
    spill_file.append(split_by_bucket(*loser_table(exact, 1)))
    [(_, segments)] = spill_file.close()
    values = ["", "runs/b.run", segments, "runs/a.run", loser_table(near, 1)[1], loser_table(other, 1)[1]]
    runs, losers = shard_inputs(iter(values))
    assert runs == ["runs/a.run", "runs/b.run"]
    assert len(losers) == 2
    assert losers.get("7\x00nsmc") == exact[1]
    assert losers.get("9\x00nsmc") == other[1]
    assert losers.get("3\x00nsmc") is None
    assert losers.get("8\x00nsmc") is None
    assert losers.get("") is None
    # the smallest reason wins whatever the order the values come in
    _, reversed_losers = shard_inputs(iter([loser_table(other, 1)[1], loser_table(near, 1)[1], segments]))
    assert reversed_losers.get("7\x00nsmc") == exact[1]
