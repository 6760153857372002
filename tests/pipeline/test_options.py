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


def test_workers_follow_the_input_size_up_to_the_cores():
    from kcorpus.pipeline.options import workers_for

    mb = 1 << 20
    assert workers_for(None, 8 * mb, cores=16) == 16
    assert workers_for(0, 8 * mb, cores=16) == 1
    assert workers_for(100_000, 8 * mb, cores=16) == 1
    assert workers_for(8 * mb + 1, 8 * mb, cores=16) == 2
    assert workers_for(40 * mb, 8 * mb, cores=16) == 5
    assert workers_for(10_000 * mb, 8 * mb, cores=16) == 16


def test_a_tiny_input_runs_one_worker_in_process():
    direct = pipeline_options([], input_bytes=1000).view_as(DirectOptions)
    assert direct.direct_num_workers == 1
    assert direct.direct_running_mode == "in_memory"


def test_given_worker_count_and_mode_win_over_the_input_size():
    direct = pipeline_options(["--direct_num_workers=16"], input_bytes=1000).view_as(DirectOptions)
    assert (direct.direct_num_workers, direct.direct_running_mode) == (16, "multi_processing")
    direct = pipeline_options(["--direct_running_mode=multi_processing"], input_bytes=1000).view_as(DirectOptions)
    assert (direct.direct_num_workers, direct.direct_running_mode) == (1, "multi_processing")
    direct = pipeline_options([], local_mode="multi_threading", input_bytes=1000).view_as(DirectOptions)
    assert (direct.direct_num_workers, direct.direct_running_mode) == (1, "multi_threading")


def test_local_options_make_each_view_once_and_views_share_the_values():
    from apache_beam.options.pipeline_options import TypeOptions

    from kcorpus.pipeline.options import LocalPipelineOptions

    options = pipeline_options(["--direct_num_workers=3", "--unknown_flag=x"])
    assert isinstance(options, LocalPipelineOptions)
    assert options.view_as(TypeOptions) is options.view_as(TypeOptions)
    options.view_as(DirectOptions).direct_num_workers = 5
    assert options.view_as(DirectOptions).direct_num_workers == 5
    assert options.get_all_options()["direct_num_workers"] == 5
    plain = beam.options.pipeline_options.PipelineOptions(["--direct_num_workers=3", "--unknown_flag=x"])
    plain.view_as(DirectOptions).direct_num_workers = 5
    plain.view_as(DirectOptions).direct_running_mode = options.view_as(DirectOptions).direct_running_mode
    every = {"retain_unknown_options": True}
    assert options.get_all_options(**every) == plain.get_all_options(**every)


def test_a_copy_of_local_options_has_its_own_values_and_no_views():
    import copy
    import pickle

    options = pipeline_options([])
    workers = options.view_as(DirectOptions).direct_num_workers
    for twin in (copy.deepcopy(options), pickle.loads(pickle.dumps(options))):
        assert "_views" not in twin.__dict__
        twin.view_as(DirectOptions).direct_num_workers = workers + 7
        assert twin.view_as(DirectOptions).direct_num_workers == workers + 7
        assert options.view_as(DirectOptions).direct_num_workers == workers


def test_a_pipeline_keeps_local_options_and_a_named_runner_gets_beams_own():
    from apache_beam.options.pipeline_options import PipelineOptions

    from kcorpus.pipeline.options import LocalPipelineOptions

    pipeline = make_pipeline([], local_mode="in_memory")
    assert isinstance(pipeline.options, LocalPipelineOptions)
    assert pipeline.options.view_as(StandardOptions).runner is None
    assert type(pipeline_options(["--runner", "DataflowRunner"])) is PipelineOptions
