import os

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, StandardOptions
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.options import make_pipeline, pipeline_options


def test_local_default_is_multiprocessing_one_worker_per_core():
    direct = pipeline_options([]).view_as(DirectOptions)
    assert direct.direct_running_mode == "multi_processing"
    assert direct.direct_num_workers == (os.cpu_count() or 1)


def test_named_runner_passes_through_untouched():
    options = pipeline_options(["--runner", "DataflowRunner", "--project", "p", "--region", "r"])
    assert options.view_as(StandardOptions).runner == "DataflowRunner"
    assert options.view_as(DirectOptions).direct_num_workers == 1


def test_local_pipeline_runs_without_prism():
    with make_pipeline([], local_mode="in_memory") as p:
        out = p | beam.Create(["가", "나"]) | beam.Map(lambda s: s + "!")
        assert_that(out, equal_to(["가!", "나!"]))
