"""Beam pipeline construction with a local default that never downloads anything.

`--runner=DirectRunner` in Beam 2.7x first tries the Prism runner, which downloads a binary. Unless the user
names a runner, kcorpus runs on the FnApiRunner (what DirectRunner falls back to) in multi-processing mode
with one worker per core, or fewer for a small input (`workers_for`): every worker process costs a Beam
import and a bundle of every stage, which a tiny input never pays back. One worker runs in-process. Any Beam
option passes through untouched (`--runner DataflowRunner --project ...`).

Two memos cut Beam's own construction cost on the local runner: `LocalPipelineOptions` makes each options view
once, and `signature_cache` inspects each DoFn method's signature once (in the launcher and in its workers).
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from collections.abc import Sequence
from typing import TypeVar

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from kcorpus.pipeline.profile.defaults import LOCAL_MODES

T = TypeVar("T", bound=PipelineOptions)

# The worker command FnApiRunner starts in multi_processing mode, and kcorpus's quiet one in its place. Beam
# runs it through `sh -c`: `trap '' INT` has the worker ignore the terminal's Ctrl-C from its first instruction
# (an ignored signal stays ignored through exec, and Python keeps it so), and `exec` makes it the launcher's
# own child, which the launcher stops on Ctrl-C or SIGTERM (pipeline/process/interrupt.py).
BEAM_WORKER_COMMAND = f"{sys.executable} -m apache_beam.runners.worker.sdk_worker_main"
QUIET_WORKER_COMMAND = f"trap '' INT; exec {shlex.quote(sys.executable)} -m kcorpus.pipeline.beam_worker"
# Input bytes that pay for one more local worker (its start-up and per-stage bundles, ~2 CPU s): build-corpus
# spends ~0.5-1 CPU s per MB, pack ~5x less.
BUILD_BYTES_PER_WORKER = 8 << 20
PACK_BYTES_PER_WORKER = 32 << 20


class LocalPipelineOptions(PipelineOptions):
    """The options of a pipeline on kcorpus's local runner: `view_as` makes each view once.

    Beam asks the pipeline's options for a view (`view_as(TypeOptions)`, ...) several times per applied
    transform, and every view builds an argparse parser of its class's flags and parses the flags again:
    ~550 views, ~0.3 CPU s, for one tiny build-corpus. A view holds no state of its own (its attributes read
    and write the options' shared `_all_options`), so the same view serves every later call while the
    options keep the same flags and values dict. The memo is no part of the state: a copy or an unpickled
    object starts without it.
    """

    def view_as(self, cls: type[T]) -> T:
        views = self.__dict__.get("_views")
        if views is None:
            views = {}
            object.__setattr__(self, "_views", views)  # PipelineOptions' __setattr__ takes only option names
        view = views.get(cls)
        if view is None or view._all_options is not self._all_options or view._flags is not self._flags:
            view = views[cls] = super().view_as(cls)
        return view

    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())
        state.pop("_views", None)
        return state


def workers_for(input_bytes: int | None, bytes_per_worker: int, cores: int | None = None) -> int:
    """Local workers for an input: one per `bytes_per_worker` started, at most one per core."""
    cores = cores or os.cpu_count() or 1
    if input_bytes is None:
        return cores
    return max(1, min(cores, math.ceil(input_bytes / bytes_per_worker)))


def is_local(options: PipelineOptions | None) -> bool:
    """Whether a pipeline runs on kcorpus's default local runner (no `--runner` named)."""
    return options is not None and options.view_as(StandardOptions).runner is None


def pipeline_options(
    beam_args: Sequence[str] = (),
    *,
    local_mode: str = "multi_processing",
    input_bytes: int | None = None,
    bytes_per_worker: int = BUILD_BYTES_PER_WORKER,
) -> PipelineOptions:
    """Parse pass-through Beam flags, filling in the local defaults when no runner is named.

    With `input_bytes`, the default worker count follows the input size (`workers_for`), and a single
    multi-processing worker runs in-process (`in_memory`: the same runner without a worker process to start).
    """
    options = PipelineOptions(list(beam_args))
    if options.view_as(StandardOptions).runner is None:
        options = LocalPipelineOptions(list(beam_args))
        direct = options.view_as(DirectOptions)
        if local_mode not in LOCAL_MODES:
            raise ValueError(f"unknown local mode {local_mode!r}; valid: {', '.join(LOCAL_MODES)}")
        given = " ".join(beam_args)
        if "--direct_num_workers" not in given:
            direct.direct_num_workers = workers_for(input_bytes, bytes_per_worker)
        if "--direct_running_mode" not in given:
            one = direct.direct_num_workers == 1 and local_mode == "multi_processing"
            direct.direct_running_mode = "in_memory" if one else local_mode
    return options


def make_pipeline(
    beam_args: Sequence[str] = (),
    *,
    local_mode: str = "multi_processing",
    input_bytes: int | None = None,
    bytes_per_worker: int = BUILD_BYTES_PER_WORKER,
) -> beam.Pipeline:
    """A `beam.Pipeline` on the named runner, or on the download-free local FnApiRunner by default."""
    from kcorpus.pipeline import signature_cache

    signature_cache.install()
    options = pipeline_options(
        beam_args, local_mode=local_mode, input_bytes=input_bytes, bytes_per_worker=bytes_per_worker
    )
    if options.view_as(StandardOptions).runner is not None:
        return beam.Pipeline(options=options)
    return beam.Pipeline(runner=quiet_fn_api_runner(), options=options)


def quiet_fn_api_runner() -> beam.runners.runner.PipelineRunner:
    """A FnApiRunner whose worker subprocesses start through `kcorpus.pipeline.beam_worker` (quiet logs)."""
    from apache_beam.portability import python_urns
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    class QuietFnApiRunner(FnApiRunner):
        def run_via_runner_api(self, pipeline_proto, options):  # type: ignore[no-untyped-def]
            for env in pipeline_proto.components.environments.values():
                if env.urn == python_urns.SUBPROCESS_SDK and env.payload == BEAM_WORKER_COMMAND.encode():
                    env.payload = QUIET_WORKER_COMMAND.encode()
            return super().run_via_runner_api(pipeline_proto, options)

    return QuietFnApiRunner()
