"""`kcorpus run`: run a profile's stages in order, each resumable, skipping those already up to date.

A rerun skips every stage whose manifest matches the current config and inputs; a downstream stage's inputs
are its upstream stages' output digests, so a config change reruns exactly the stages it can affect (and an
upstream rerun with byte-identical output reruns nothing after it). The stages get typed jobs and run them
through `RUNNERS`, the functions the sub-commands call; the cache lives in `cache.py`, the plan in `stages.py`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import logging
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kcorpus import __version__
from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.errors import OutputError, UserError
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.outputs.folders import list_entries
from kcorpus.pipeline.outputs.marker import is_bookkeeping, owned_by, read_marker, write_marker
from kcorpus.pipeline.process import interrupt
from kcorpus.pipeline.profile.schema import Profile
from kcorpus.pipeline.run.cache import (
    PARTIAL_SUFFIX,
    STAGE_MANIFEST,
    canonical_hash,
    commit,
    fingerprint_files,
    read_stage_manifest,
    why_stale,
)
from kcorpus.pipeline.run.errors import RunError, StageFailed
from kcorpus.pipeline.run.stages import (
    RUNNERS,
    STAGE_NAMES,
    Stage,
    StageRunner,
    in_profile_words,
    plan_stages,
)

LOCAL_RUNNERS = ("DirectRunner", "FnApiRunner", "SwitchingDirectRunner", "BundleBasedDirectRunner")


@dataclasses.dataclass(frozen=True)
class StageResult:
    """What happened to one stage in a run: `ran`, `skipped` (up to date) or `not selected`."""

    name: str
    status: str
    reason: str
    seconds: float


def remote_runner(beam_args: Sequence[str]) -> str | None:
    """The runner named in Beam flags when its workers run elsewhere (Dataflow, Flink, Spark, portable)."""
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

    runner = PipelineOptions(list(beam_args)).view_as(StandardOptions).runner
    if runner is None or str(runner).split(".")[-1] in LOCAL_RUNNERS:
        return None
    return str(runner)


def stage_inputs(stage: Stage, manifests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What a stage reads: upstream output digests, and fingerprints of the raw files it reads."""
    inputs: dict[str, Any] = {up: manifests[up]["output_digest"] for up in stage.upstream}
    if stage.inputs:
        inputs["files"] = fingerprint_files(stage.inputs)
    return inputs


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


def _job_record(job: Any) -> Any:
    return dataclasses.asdict(job) if dataclasses.is_dataclass(job) else repr(job)


def execute_stage(
    stage: Stage,
    job: Any,
    runner: StageRunner,
    beam_args: Sequence[str],
    partial: str,
    final: str,
    identity: Mapping[str, Any],
) -> dict[str, Any]:
    """Run one stage's job into `partial`, then commit it (manifest last, rename into place)."""
    started, t0 = _now(), time.perf_counter()
    words = functools.partial(in_profile_words, stage=stage)  # messages name the profile keys, not flags
    try:
        with _logged_in_profile_words(stage), interrupt.activity(f"stage {stage.name}"):
            runner(job, beam_args)
    except UserError as err:
        # A data-loss or user error keeps its exit code; the message says where the stage's output is.
        raise type(err)([*map(words, err.errors), (f"stage {stage.name}: its output is kept in {partial} for "
                         "inspection; the next run starts this stage over")]) from err
    except Exception as err:
        # The stage's own traceback is kept as the cause; the run says which stage and where its output is.
        raise StageFailed(
            f"stage {stage.name} (kcorpus {stage.command}) failed: {type(err).__name__}: {words(str(err))}; its "
            f"partial output is in {partial}, and the next run starts this stage over"
        ) from err
    seconds = time.perf_counter() - t0
    if not fs.list_files(partial):
        raise RunError(f"stage {stage.name} (kcorpus {stage.command}) wrote nothing to {partial}")
    timing = {"started_at": started, "finished_at": _now(), "seconds": round(seconds, 3)}
    return commit(partial, final, {**identity, "job": _job_record(job), **timing})


class _ProfileWords(logging.Filter):
    """Rewrites the flags a stage's warnings name as the profile keys (`in_profile_words`)."""

    def __init__(self, stage: Stage) -> None:
        super().__init__()
        self.stage = stage

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        rewritten = in_profile_words(message, self.stage)
        if rewritten != message:
            record.msg, record.args = rewritten, None
        return True


@contextlib.contextmanager
def _logged_in_profile_words(stage: Stage) -> Iterator[None]:
    handlers = list(logging.getLogger().handlers)
    words = _ProfileWords(stage)
    for handler in handlers:
        handler.addFilter(words)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(words)


def check_out(out: str | Path, beam_args: Sequence[str]) -> str:
    """The run folder as the stages will see it: a remote prefix as given, a local folder made absolute.

    A remote runner's workers cannot write a local folder, so with one the run folder must be remote.
    """
    if fs.is_remote(str(out)):
        missing = fs.missing_filesystem(str(out))
        if missing:
            raise RunError(f"run folder {missing}")
        return str(out).rstrip("/")
    runner = remote_runner(beam_args)
    if runner:
        raise RunError(
            f"--runner {runner}: its workers cannot write the local run folder {out}; give a run folder they "
            "can reach (--out gs://BUCKET/run; docs/dataflow.md)"
        )
    return str(Path(out).resolve())


def run(
    profile: Profile,
    out: str | Path,
    *,
    beam_args: Sequence[str] = (),
    force: bool = False,
    only: Sequence[str] = (),
    runners: Mapping[str, StageRunner] = RUNNERS,
) -> list[StageResult]:
    """Run the profile's stages into `out`, skipping those already complete and up to date."""
    out = check_out(out, beam_args)
    stages = plan_stages(profile)
    names = [s.name for s in stages]
    unknown = sorted(set(only) - set(names))
    if unknown:
        raise RunError(
            f"unknown stage(s) for --only: {', '.join(unknown)}; this profile has {', '.join(names)}"
        )
    selected = set(only or names)
    inputs = [p for stage in stages for p in stage.inputs]
    adopt_legacy_run_folder(out)
    plan = check_output(out, "run", inputs, resume=True)
    check_stage_folders(out, names)
    with claim_output(plan):  # creates a local run folder
        return _run_stages(out, stages, selected, beam_args, force, runners)


def adopt_legacy_run_folder(out: str) -> None:
    """Mark a run folder written before ownership markers as kcorpus's: only stage folders that hold a stage
    manifest and the run's own files, nothing else (any other entry leaves it foreign, and refused)."""
    if read_marker(out) is not None:
        return
    entries = [name for name in list_entries(out) if not is_bookkeeping(name)]
    stages = [n for n in entries if n in STAGE_NAMES and fs.exists(fs.join(out, n, STAGE_MANIFEST))]
    if stages and all(owned_by("run", n) and (n not in STAGE_NAMES or n in stages) for n in entries):
        write_marker(out, "run")


def check_stage_folders(out: str, names: Sequence[str]) -> None:
    """Refuse a stage folder kcorpus run did not write, which committing the stage would replace.

    A finished stage has a `_STAGE.json`; a stage whose commit to a remote folder was cut short still has the
    marker its command wrote (`<stage>.partial/` folders are the run's own in a run folder it owns).
    """
    entries = set(list_entries(out))
    for name in names:
        final = fs.join(out, name)
        ours = fs.exists(fs.join(final, STAGE_MANIFEST)) or read_marker(final) is not None
        if name in entries and not ours:
            raise OutputError(
                f"{final} was not written by kcorpus run (no {STAGE_MANIFEST}); kcorpus never replaces it: "
                "move it away or choose another run folder"
            )


def _run_stages(
    out: str,
    stages: Sequence[Stage],
    selected: set[str],
    beam_args: Sequence[str],
    force: bool,
    runners: Mapping[str, StageRunner],
) -> list[StageResult]:
    manifests: dict[str, dict[str, Any]] = {}
    return [_run_stage(out, stage, selected, beam_args, force, runners, manifests) for stage in stages]


def _run_stage(
    out: str,
    stage: Stage,
    selected: set[str],
    beam_args: Sequence[str],
    force: bool,
    runners: Mapping[str, StageRunner],
    manifests: dict[str, dict[str, Any]],
) -> StageResult:
    """Run one stage if it is selected and stale (or forced), else skip it; its manifest joins `manifests`."""
    final, partial = fs.join(out, stage.name), fs.join(out, stage.name + PARTIAL_SUFFIX)
    missing = [up for up in stage.upstream if up not in manifests]
    manifest = read_stage_manifest(final)
    if missing:
        # Only reachable when an upstream stage was left out with --only and is not usable.
        if stage.name in selected:
            raise RunError(
                f"stage {stage.name} needs {', '.join(missing)}, which is not complete and up "
                f"to date in {out}; run it too (drop --only or add it)"
            )
        return StageResult(stage.name, "not selected", "upstream not up to date", 0.0)
    # The release is part of the identity: a new kcorpus may write different output for the same config.
    config_hash = canonical_hash({"command": stage.command, "config": stage.config, "kcorpus": __version__})
    inputs = stage_inputs(stage, manifests)
    input_hash = canonical_hash(inputs)
    stale = why_stale(manifest, final, config_hash, input_hash)
    if stage.name not in selected or (not stale and not force):
        if not stale:
            assert manifest is not None
            manifests[stage.name] = manifest
        if stage.name not in selected:
            return StageResult(stage.name, "not selected", stale or "up to date", 0.0)
        _log(f"{stage.name}: up to date (finished {manifest.get('finished_at')}), skipped")
        return StageResult(stage.name, "skipped", "up to date", 0.0)
    reason = "forced" if force and not stale else stale
    fs.delete_tree(partial)
    if not fs.is_remote(partial):
        Path(partial).mkdir(parents=True)
    job = stage.make_job({up: fs.join(out, up) for up in stage.upstream}, partial)
    stage_beam_args = list(beam_args) if stage.beam else []
    _log(f"{stage.name}: {reason}; running kcorpus {stage.command}")
    identity = {
        "stage": stage.name,
        "command": stage.command,
        "config": stage.config,
        "config_hash": config_hash,
        "kcorpus_version": __version__,
        "inputs": inputs,
        "input_hash": input_hash,
        "beam_args": stage_beam_args,
    }
    manifests[stage.name] = execute_stage(stage, job, runners[stage.name], stage_beam_args, partial, final, identity)
    seconds = manifests[stage.name]["seconds"]
    _log(f"{stage.name}: done in {seconds:.1f} s -> {final}")
    return StageResult(stage.name, "ran", reason, seconds)
