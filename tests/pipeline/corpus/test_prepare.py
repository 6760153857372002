import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus.keys import split_node
from kcorpus.pipeline.corpus.prepare import PrepareBatchFn
from kcorpus.pipeline.profile.validate import config_from_dict
from kcorpus.transforms.record import DeadLetter, Document, Dropped


def local_test_pipeline() -> TestPipeline:
    return TestPipeline(runner=FnApiRunner(), options=PipelineOptions([]))


def test_prepare_batch_fn_tags_every_outcome(tmp_path):
    cfg = config_from_dict(
        {
            "sources": [{"name": "c", "format": "jsonl", "paths": ["x"], "preset": "none"}],
            "dedup": {"near": {"enabled": False}},
        }
    )
    batch = [
        ("c", Document("c:1", "이 영화 정말 재미있었어요 최고", "c")),
        ("c", Document("c:2", "짧다", "c")),
        ("c", Document("c:3", None, "c")),  # type: ignore[arg-type]  -- makes preparation raise
        ("c", Document("c:5", "메타데이터가 JSON으로 안 되는 문서", "c", {"when": object()})),
        ("c", DeadLetter("x.jsonl", "invalid_json", line=3)),
        ("c", Dropped("c:4", "c", "read", "empty")),
    ]
    with local_test_pipeline() as p:
        out = (
            p
            | beam.Create([batch])
            | beam.ParDo(PrepareBatchFn(cfg, str(tmp_path))).with_outputs(
                "meta", "run", "dead_letter", main="counts"
            )
        )
        assert_that(
            out.counts,
            equal_to(
                [
                    (("c", "filter:dropped:too_short"), 1),
                    (("c", "filter:kept"), 1),
                    (("c", "filter:sentences_dropped:too_short"), 1),
                    (("c", "filter:sentences_in"), 2),
                    (("c", "filter:sentences_kept"), 1),
                    (("c", "prepare:dead_letter"), 2),
                    (("c", "read:characters"), len("이 영화 정말 재미있었어요 최고") + len("짧다")),
                    (("c", "read:dead_letter"), 1),
                    (("c", "read:documents"), 4),
                    (("c", "read:dropped:empty"), 1),
                ]
            ),
            label="Counts",
        )
        assert_that(
            out.meta | beam.FlatMap(lambda batch: [(split_node(m[0]), m[1], len(m[2]), m[3]) for m in batch]),
            equal_to([(("c:1", "c"), "c", 16, [])]),
            label="Meta",
        )
        assert_that(
            out.dead_letter | beam.MapTuple(lambda s, d: (s, d.stage, d.reason.split(":")[0])),
            equal_to(
                [
                    ("c", "read", "invalid_json"),
                    ("c", "prepare", "document c"),
                    ("c", "prepare", "document c"),
                ]
            ),
            label="Dead",
        )
        assert_that(
            out.run | beam.MapTuple(lambda kind, shard, path: kind) | beam.Distinct(),
            equal_to(["docs", "dropped"]),
            label="Runs",
        )
