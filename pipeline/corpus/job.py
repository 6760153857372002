"""`BuildCorpusJob` and `build_corpus`: one build-corpus run, from `kcorpus build-corpus` or `kcorpus run`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from kcorpus.pipeline.corpus.config import CorpusConfig
from kcorpus.pipeline.profile.defaults import LOCAL_MODES

# Field metadata: set by code or by a profile, not by a `kcorpus build-corpus` flag.
NO_FLAG = {"flag": False}


@dataclasses.dataclass(frozen=True)
class BuildCorpusJob:
    """Everything one build-corpus run needs besides the Beam options.

    A field's `metadata` holds the help and choices of its `kcorpus build-corpus` flag
    (pipeline/profile/flags.py), or says it has none (`NO_FLAG`).

    Attributes:
        config: the validated profile sections build-corpus owns.
        out: the output directory (local or `gs://`); the command's `--out` also overrides `output.dir`.
        units_dir: where finished input units are kept between runs (default `<out>/.kcorpus-units`).
        keep_units: `kcorpus run` sets it, so that a build with more input files reuses the units;
            otherwise they are removed when the build completes.
    """

    config: CorpusConfig = dataclasses.field(metadata=NO_FLAG)
    out: str = dataclasses.field(metadata=NO_FLAG)
    batch_size: int = dataclasses.field(
        default=1000, metadata={"help": "documents per Beam element (%(default)s)"}
    )
    local_mode: str = dataclasses.field(
        default="multi_processing",
        metadata={"choices": LOCAL_MODES, "help": "FnApiRunner mode when no --runner is given after --"},
    )
    overwrite: bool = dataclasses.field(default=False, metadata={"help": (
        "replace a previous corpus in --out (only the files build-corpus writes are removed)"
    )})  # fmt: skip
    profile_stages: bool = dataclasses.field(default=False, metadata={"help": (
        "print per-stage elements, bundles, largest bundle share and CPU; write <out>/stages.json"
    )})  # fmt: skip
    units_dir: str | None = dataclasses.field(default=None, metadata=NO_FLAG)
    keep_units: bool = dataclasses.field(default=False, metadata={"help": (
        "keep the finished input units in <out>/.kcorpus-units when the build completes, so that a rebuild "
        "with new input files prepares only those (a killed build always resumes from them)"
    )})  # fmt: skip


def build_corpus(job: BuildCorpusJob, beam_args: Sequence[str] = ()) -> dict[str, Any]:
    """Run the pipeline to completion and return the parsed stats.json."""
    from kcorpus.pipeline.corpus.build import run_build

    return run_build(
        job.config,
        job.out,
        list(beam_args),
        local_mode=job.local_mode,
        batch_size=job.batch_size,
        overwrite=job.overwrite,
        profile_stages=job.profile_stages,
        units_dir=job.units_dir,
        keep_units=job.keep_units,
    )
