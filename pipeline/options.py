"""Beam pipeline construction with a local default that never downloads anything.

`--runner=DirectRunner` in Beam 2.7x first tries the Prism runner, which downloads a binary. Unless the user
names a runner, kcorpus runs on the FnApiRunner (what DirectRunner falls back to) in multi-processing mode
with one worker per core. Any Beam option passes through untouched (`--runner DataflowRunner --project ...`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

LOCAL_MODES = ("multi_processing", "in_memory", "multi_threading")


def pipeline_options(beam_args: Sequence[str] = (), *, local_mode: str = "multi_processing") -> PipelineOptions:
    """Parse pass-through Beam flags, filling in the local defaults when no runner is named."""
    options = PipelineOptions(list(beam_args))
    direct = options.view_as(DirectOptions)
    if options.view_as(StandardOptions).runner is None:
        if local_mode not in LOCAL_MODES:
            raise ValueError(f"unknown local mode {local_mode!r}; valid: {', '.join(LOCAL_MODES)}")
        given = " ".join(beam_args)
        if "--direct_running_mode" not in given:
            direct.direct_running_mode = local_mode
        if "--direct_num_workers" not in given:
            direct.direct_num_workers = os.cpu_count() or 1
    return options


def make_pipeline(beam_args: Sequence[str] = (), *, local_mode: str = "multi_processing") -> beam.Pipeline:
    """A `beam.Pipeline` on the named runner, or on the download-free local FnApiRunner by default."""
    options = pipeline_options(beam_args, local_mode=local_mode)
    if options.view_as(StandardOptions).runner is not None:
        return beam.Pipeline(options=options)
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    return beam.Pipeline(runner=FnApiRunner(), options=options)
