"""`BucketRecords`: records grouped by bucket through files (local runner) or through the runner itself."""

import os

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus import spill
from kcorpus.pipeline.corpus.spill import BucketRecords, bucket_count, bucket_records

WORDS = ["영화", "정말", "재밌어요", "스토리", "배우", "연기", "최고", "별로", "지루해요", "감동"]


def _by_length(batch, buckets):
    for word in batch:
        yield len(word) % buckets, word


def _grouped(kv):
    bucket, values = kv
    return bucket, sorted(bucket_records(values))


def test_bucket_count_follows_input_size_within_bounds():
    assert bucket_count(None) == spill.MIN_BUCKETS
    assert bucket_count(3 << 20) == spill.MIN_BUCKETS
    assert bucket_count(1 << 30) == 256
    assert bucket_count(1 << 40) == spill.MAX_BUCKETS


@pytest.mark.parametrize("spilled", [False, True])
def test_every_record_comes_back_in_its_bucket_from_several_inputs(spilled, tmp_path, monkeypatch):
    monkeypatch.setattr(spill, "SPILL_RECORDS", 3)  # several files per bundle
    spill_dir = str(tmp_path / "spill") if spilled else None
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        first = p | "A" >> beam.Create([WORDS[:4], WORDS[4:7]])
        second = p | "B" >> beam.Create([WORDS[7:], WORDS[:2]])
        grouped = (
            (first, second)
            | BucketRecords("Test", _by_length, 3, spill_dir=spill_dir)
            | beam.GroupByKey()
            | beam.Map(_grouped)
        )
        expected: dict[int, list[str]] = {}
        for word in WORDS + WORDS[:2]:
            expected.setdefault(len(word) % 3, []).append(word)
        assert_that(grouped, equal_to([(b, sorted(ws)) for b, ws in expected.items()]))
    files = [f for _, _, fs in os.walk(tmp_path) for f in fs]
    assert (len(files) >= 3) if spilled else not files
