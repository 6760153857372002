"""`BuildCorpusJob` and `build_corpus`: one build-corpus run, from `kcorpus build-corpus` or `kcorpus run`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from kcorpus.pipeline.corpus.config import CorpusConfig


@dataclasses.dataclass(frozen=True)
class BuildCorpusJob:
    """Everything one build-corpus run needs besides the Beam options.

    Attributes:
        config: the validated profile sections build-corpus owns.
        out: the output directory (local or `gs://`).
        batch_size: documents per Beam element.
        reshuffle: redistribute documents after reading (one big input file, many workers).
        local_mode: the FnApiRunner mode when no runner is named in the Beam options.
        overwrite: replace an existing corpus in `out`.
        profile_stages: print the per-stage bundle table and write `<out>/stages.json`.
        units_dir: where finished input units are kept between runs (default `<out>/.kcorpus-units`).
        keep_units: keep the units once the build completes, so that a build with more input files reuses
            them (`kcorpus run` does); otherwise they are removed then.
    """

    config: CorpusConfig
    out: str
    batch_size: int = 1000
    reshuffle: bool = False
    local_mode: str = "multi_processing"
    overwrite: bool = False
    profile_stages: bool = False
    units_dir: str | None = None
    keep_units: bool = False


def build_corpus(job: BuildCorpusJob, beam_args: Sequence[str] = ()) -> dict[str, Any]:
    """Run the pipeline to completion and return the parsed stats.json."""
    from kcorpus.pipeline.corpus.build import run_build

    return run_build(
        job.config,
        job.out,
        list(beam_args),
        local_mode=job.local_mode,
        batch_size=job.batch_size,
        reshuffle=job.reshuffle,
        overwrite=job.overwrite,
        profile_stages=job.profile_stages,
        units_dir=job.units_dir,
        keep_units=job.keep_units,
    )
