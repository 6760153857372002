"""`kcorpus run`: build-corpus -> train-vocab -> vocab-report -> pack, each stage resumable.

Each stage writes into `<out>/<stage>.partial/`; when the stage's command returns, its `_STAGE.json` (config
hash, input fingerprints, output listing and digest, timings) is written last and the folder is renamed to
`<out>/<stage>/` in one `os.replace`. A stage killed half-way therefore leaves only a `.partial` folder, which
the next run deletes and redoes. A rerun skips every stage whose manifest matches the current config and
inputs; a downstream stage's inputs are its upstream stages' output digests, so a config change reruns
exactly the stages it can affect (and an upstream rerun with byte-identical output reruns nothing after it).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import glob
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from kcorpus import __version__
from kcorpus.transforms import corpus_layout

STAGE_MANIFEST = "_STAGE.json"
PARTIAL_SUFFIX = ".partial"
# Top-level profile keys that belong to `kcorpus run`; build-corpus ignores them.
RESERVED_KEYS = ("vocab", "vocab_report", "pack", "run")
VOCAB_KINDS = ("wordpiece", "sentencepiece")
STAGE_NAMES = ("corpus", "vocab", "vocab-report", "pack")

Invoke = Callable[[str, Sequence[str]], int]


class RunError(Exception):
    """A run that cannot proceed: a bad profile, a failed stage, a missing upstream stage."""


class StageFailed(RunError):
    """A stage raised or exited non-zero; its output stays in `<stage>.partial/` and never looks complete."""


@dataclasses.dataclass(frozen=True)
class VocabConfig:
    """The `vocab:` section: `kcorpus train-vocab --kind K --vocab-size N` plus any of its flags."""

    kind: str
    vocab_size: int
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class VocabReportConfig:
    """The `vocab_report:` section: the reference vocabulary to compare against, plus vocab-report flags."""

    reference: str
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class PackConfig:
    """The `pack:` section: `kcorpus pack --max-length N` plus any of its flags."""

    max_length: int = 512
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class RunProfile:
    """A YAML profile as `kcorpus run` reads it; `corpus` is everything build-corpus owns."""

    path: str
    corpus: Mapping[str, Any]
    vocab: VocabConfig
    pack: PackConfig
    vocab_report: VocabReportConfig | None = None
    out: str | None = None


@dataclasses.dataclass(frozen=True)
class Stage:
    """One step of the run: a `kcorpus` sub-command writing into `<out>/<name>/`."""

    name: str
    command: str
    upstream: tuple[str, ...]
    config: Mapping[str, Any]
    beam: bool = False


def _section(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, Mapping):
        raise RunError(f"profile key {key!r} must be a mapping, got {type(value).__name__}")
    return dict(value)


def _positive_int(section: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise RunError(f"{section}.{key} must be a positive integer, got {value!r}")
    return value


def resolve_path(base: str | Path, path: str) -> str:
    """A config path resolved against the config file's directory (URLs and absolute paths kept)."""
    if "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(str(base), path))


def parse_profile(raw: Mapping[str, Any], path: str | Path) -> RunProfile:
    """Check and type the sections of a profile that `kcorpus run` owns."""
    base = Path(path).resolve().parent
    vocab = _section(raw, "vocab")
    kind = vocab.pop("kind", "wordpiece")
    if kind not in VOCAB_KINDS:
        raise RunError(f"vocab.kind must be one of {', '.join(VOCAB_KINDS)}, got {kind!r}")
    if "vocab_size" not in vocab:
        raise RunError("vocab.vocab_size is required (e.g. 32000)")
    vocab_size = _positive_int("vocab", "vocab_size", vocab.pop("vocab_size"))
    pack = _section(raw, "pack")
    max_length = _positive_int("pack", "max_length", pack.pop("max_length", 512))
    report = _section(raw, "vocab_report")
    reference = report.pop("reference", None)
    if report and reference is None:
        raise RunError("vocab_report needs a `reference:` vocabulary path")
    run = _section(raw, "run")
    unknown_run = sorted(set(run) - {"out"})
    if unknown_run:
        raise RunError(f"unknown key(s) under run: {', '.join(unknown_run)}; valid: out")
    return RunProfile(
        path=str(Path(path).resolve()),
        corpus={k: v for k, v in raw.items() if k not in RESERVED_KEYS},
        vocab=VocabConfig(kind=kind, vocab_size=vocab_size, options=vocab),
        pack=PackConfig(max_length=max_length, options=pack),
        vocab_report=(
            VocabReportConfig(reference=resolve_path(base, str(reference)), options=report)
            if reference is not None
            else None
        ),
        out=resolve_path(base, str(run["out"])) if run.get("out") else None,
    )


def load_profile(path: str | Path) -> RunProfile:
    """Read a YAML profile from disk."""
    with open(path, encoding="utf-8") as f:
        try:
            raw = yaml.safe_load(f) or {}
        except yaml.YAMLError as err:
            raise RunError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(raw, Mapping):
        raise RunError(f"{path}: a profile must be a YAML mapping")
    return parse_profile(raw, path)


def plan_stages(profile: RunProfile) -> list[Stage]:
    """The stages of a profile in the order they run; vocab-report only when a reference is named."""
    stages = [
        Stage("corpus", "build-corpus", (), {"profile": profile.corpus}, beam=True),
        Stage("vocab", "train-vocab", ("corpus",), dataclasses.asdict(profile.vocab)),
    ]
    if profile.vocab_report is not None:
        stages.append(
            Stage(
                "vocab-report", "vocab-report", ("corpus", "vocab"), dataclasses.asdict(profile.vocab_report)
            )
        )
    stages.append(Stage("pack", "pack", ("corpus", "vocab"), dataclasses.asdict(profile.pack), beam=True))
    return stages


def options_to_argv(options: Mapping[str, Any]) -> list[str]:
    """`{min_frequency: 2, special: [a, b], fast: true}` -> `--min-frequency 2 --special a b --fast`.

    `false` and `null` leave the flag out, so a profile can switch off a flag without deleting the line.
    """
    argv: list[str] = []
    for key in sorted(options):
        value = options[key]
        flag = "--" + str(key).replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, *(str(v) for v in value)]
        elif isinstance(value, Mapping):
            raise RunError(f"option {key!r}: nested mappings cannot become command-line flags")
        else:
            argv += [flag, str(value)]
    return argv


def corpus_text_files(corpus_dir: str | Path) -> list[str]:
    """The sentence-per-line shards of a build-corpus output, in shard order."""
    files = sorted(glob.glob(os.path.join(str(corpus_dir), corpus_layout.TEXT_GLOB)))
    if not files:
        raise RunError(f"{corpus_dir}: no text/*.txt shards; is it a build-corpus output?")
    return files


def stage_argv(
    stage: Stage,
    profile: RunProfile,
    dirs: Mapping[str, str],
    out: str,
    text_files: Sequence[str] | None = None,
) -> list[str]:
    """The command line of a stage: its flags from the profile, upstream folders as inputs, `out`.

    `text_files` stands in for the corpus's text shards when they do not exist yet (option checking).
    """
    if stage.name == "corpus":
        return ["--config", profile.path, "--out", out]
    if stage.name == "vocab":
        v = profile.vocab
        return [
            "--kind", v.kind, "--vocab-size", str(v.vocab_size),
            "--input", *(text_files or corpus_text_files(dirs["corpus"])),
            "--out", out, *options_to_argv(v.options),
        ]  # fmt: skip
    if stage.name == "vocab-report":
        r = profile.vocab_report
        assert r is not None
        return [
            dirs["vocab"], r.reference, "--corpus", *(text_files or corpus_text_files(dirs["corpus"])),
            "--out", out, *options_to_argv(r.options),
        ]  # fmt: skip
    if stage.name == "pack":
        p = profile.pack
        return [
            "--corpus", dirs["corpus"], "--tokenizer", dirs["vocab"], "--out", out,
            "--max-length", str(p.max_length), *options_to_argv(p.options),
        ]  # fmt: skip
    raise RunError(f"unknown stage {stage.name!r}")


LOCAL_RUNNERS = ("DirectRunner", "FnApiRunner", "SwitchingDirectRunner", "BundleBasedDirectRunner")


def remote_runner(beam_args: Sequence[str]) -> str | None:
    """The runner named in Beam flags when its workers run elsewhere (Dataflow, Flink, Spark, portable)."""
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

    runner = PipelineOptions(list(beam_args)).view_as(StandardOptions).runner
    if runner is None or str(runner).split(".")[-1] in LOCAL_RUNNERS:
        return None
    return str(runner)


def check_stage_options(stages: Sequence[Stage], profile: RunProfile) -> None:
    """Parse every stage's command line with the stage's own parser before anything runs.

    A typo in `pack:` then fails in a second, not after an hour of build-corpus.
    """
    import argparse
    import contextlib
    import importlib
    import io

    from kcorpus.pipeline import cli

    dirs = {name: f"<{name}>" for name in STAGE_NAMES}
    for stage in stages:
        module = importlib.import_module(cli.COMMANDS[stage.command][0])
        parser = argparse.ArgumentParser(prog=f"kcorpus {stage.command}", exit_on_error=False)
        module.add_arguments(parser)
        argv = stage_argv(stage, profile, dirs, f"<{stage.name}>", text_files=["<corpus>/text/part.txt"])
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors):
                parser.parse_args(argv)
        except (SystemExit, argparse.ArgumentError) as err:
            message = str(err) if isinstance(err, argparse.ArgumentError) else errors.getvalue().strip()
            section = {"corpus": "the build-corpus keys", "vocab-report": "vocab_report"}.get(
                stage.name, stage.name
            )
            raise RunError(
                f"profile section {section} gives kcorpus {stage.command} options it rejects: "
                f"{message.splitlines()[-1] if message else err}"
            ) from None


def canonical_hash(obj: Any) -> str:
    """sha256 of an object's canonical JSON (sorted keys), so equal configs hash equal."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def list_outputs(stage_dir: Path) -> dict[str, int]:
    """Every file of a stage folder (but its manifest) as relative path -> size in bytes."""
    return {
        p.relative_to(stage_dir).as_posix(): p.stat().st_size
        for p in sorted(stage_dir.rglob("*"))
        if p.is_file() and p.name != STAGE_MANIFEST
    }


def output_digest(stage_dir: Path, listing: Mapping[str, int]) -> str:
    """sha256 over every output file's path and content: what downstream stages depend on."""
    return canonical_hash([[rel, size, _file_sha256(stage_dir / rel)] for rel, size in listing.items()])


def source_patterns(profile: RunProfile) -> list[str]:
    """The input globs of build-corpus's `sources:`, resolved against the profile's folder."""
    base = Path(profile.path).parent
    patterns: list[str] = []
    for source in profile.corpus.get("sources") or []:
        paths = source.get("paths") or [] if isinstance(source, Mapping) else []
        patterns += [resolve_path(base, str(p)) for p in ([paths] if isinstance(paths, str) else paths)]
    return patterns


def fingerprint_files(patterns: Sequence[str]) -> list[dict[str, Any]]:
    """Path, size and mtime of every file a pattern matches, local or on a Beam filesystem (gs://).

    Size and mtime, not content hashes: raw inputs run to tens of GB, and rsync/make judge change the same way.
    """
    prints: list[dict[str, Any]] = []
    for pattern in patterns:
        if "://" in pattern:
            prints += _fingerprint_remote(pattern)
            continue
        matches = sorted(glob.glob(pattern, recursive=True))
        prints.append({"pattern": pattern, "matched": len(matches)})
        for path in matches:
            st = os.stat(path)
            prints.append({"path": path, "bytes": st.st_size, "mtime_ns": st.st_mtime_ns})
    return prints


def _fingerprint_remote(pattern: str) -> list[dict[str, Any]]:
    """Path, size and last-update time of every object a gs:// (or other Beam filesystem) pattern matches."""
    from apache_beam.io.filesystems import FileSystems

    try:
        metadata = sorted(FileSystems.match([pattern])[0].metadata_list, key=lambda m: m.path)
    except Exception as err:  # Beam raises BeamIOError or ValueError (unknown scheme, missing extras)
        raise RunError(f"cannot list {pattern}: {err}") from err
    return [{"pattern": pattern, "matched": len(metadata)}] + [
        {"path": m.path, "bytes": m.size_in_bytes, "mtime": m.last_updated_in_seconds} for m in metadata
    ]


def read_manifest(stage_dir: Path) -> dict[str, Any] | None:
    """A stage's `_STAGE.json`, or None when the stage never completed."""
    try:
        with open(stage_dir / STAGE_MANIFEST, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as err:
        print(f"[run] ignoring unreadable {stage_dir / STAGE_MANIFEST}: {err}", file=sys.stderr)
        return None


def stage_inputs(stage: Stage, profile: RunProfile, manifests: Mapping[str, Mapping[str, Any]]) -> dict:
    """What a stage reads: raw file fingerprints for build-corpus, upstream output digests otherwise."""
    inputs: dict[str, Any] = {up: manifests[up]["output_digest"] for up in stage.upstream}
    if stage.name == "corpus":
        inputs["files"] = fingerprint_files(source_patterns(profile))
    if stage.name == "vocab-report" and profile.vocab_report is not None:
        inputs["reference"] = fingerprint_files([profile.vocab_report.reference])
    return inputs


def why_stale(manifest: Mapping[str, Any] | None, stage_dir: Path, config_hash: str, input_hash: str) -> str:
    """Why a stage must run again, or "" when its manifest matches and its outputs are all there."""
    if manifest is None:
        return "not run yet"
    if manifest.get("config_hash") != config_hash:
        return "config changed"
    if manifest.get("input_hash") != input_hash:
        return "inputs changed"
    # Files added later (a `datasets` map cache next to the shards) do not matter; missing or resized ones do.
    for rel, size in (manifest.get("outputs") or {}).items():
        path = stage_dir / rel
        if not path.is_file() or path.stat().st_size != size:
            return "output files changed since it ran"
    return ""


def default_invoke(command: str, argv: Sequence[str]) -> int:
    """Run a `kcorpus` sub-command in this process, as the command line would."""
    from kcorpus.pipeline import cli

    return cli.main([command, *argv])


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


def execute_stage(
    stage: Stage,
    argv: Sequence[str],
    partial: Path,
    final: Path,
    identity: Mapping[str, Any],
    invoke: Invoke,
) -> dict[str, Any]:
    """Run one stage into `partial`, write its manifest last, and rename it into place."""
    started, t0 = _now(), time.perf_counter()
    try:
        rc = invoke(stage.command, argv)
    except Exception as err:
        # The stage's own traceback is kept as the cause; the run says which stage and where its output is.
        raise StageFailed(
            f"stage {stage.name} (kcorpus {stage.command}) failed: {type(err).__name__}: {err}; its partial "
            f"output is in {partial}, and the next run starts this stage over"
        ) from err
    seconds = time.perf_counter() - t0
    if rc != 0:
        raise StageFailed(
            f"stage {stage.name} (kcorpus {stage.command}) exited with status {rc}; "
            f"its partial output is in {partial}"
        )
    if not partial.is_dir():
        raise RunError(f"stage {stage.name} (kcorpus {stage.command}) wrote nothing to {partial}")
    listing = list_outputs(partial)
    manifest = {
        **identity,
        "argv": [stage.command, *argv],
        "outputs": listing,
        "output_bytes": sum(listing.values()),
        "output_digest": output_digest(partial, listing),
        "started_at": started,
        "finished_at": _now(),
        "seconds": round(seconds, 3),
    }
    tmp = partial / (STAGE_MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, partial / STAGE_MANIFEST)
    if final.exists():
        # Move the old output aside first: only the rename below makes the new stage visible.
        old = final.with_name(final.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
        os.replace(partial, final)
        shutil.rmtree(old)
    else:
        os.replace(partial, final)
    return manifest


@dataclasses.dataclass(frozen=True)
class StageResult:
    """What happened to one stage in a run: `ran`, `skipped` (up to date) or `not selected`."""

    name: str
    status: str
    reason: str
    seconds: float


def run(
    profile: RunProfile,
    out: str | Path,
    *,
    beam_args: Sequence[str] = (),
    force: bool = False,
    only: Sequence[str] = (),
    invoke: Invoke = default_invoke,
    check_options: bool = True,
) -> list[StageResult]:
    """Run the profile's stages into `out`, skipping those already complete and up to date.

    `check_options` parses every selected stage's command line with its own parser first.
    """
    if "://" in str(out):
        raise RunError(
            f"run folder {out}: kcorpus run keeps its stage manifests in a local folder; on Dataflow, run the "
            "stages one by one with gs:// outputs (README, 'Running on Dataflow')"
        )
    runner = remote_runner(beam_args)
    if runner:
        raise RunError(
            f"--runner {runner}: its workers cannot write the local run folder {out}; run build-corpus and pack "
            "one by one with gs:// outputs (README, 'Running on Dataflow')"
        )
    out = Path(out).resolve()
    stages = plan_stages(profile)
    names = [s.name for s in stages]
    unknown = sorted(set(only) - set(names))
    if unknown:
        raise RunError(
            f"unknown stage(s) for --only: {', '.join(unknown)}; this profile has {', '.join(names)}"
        )
    selected = set(only or names)
    if check_options:
        check_stage_options([s for s in stages if s.name in selected], profile)
    out.mkdir(parents=True, exist_ok=True)
    manifests: dict[str, dict[str, Any]] = {}
    results: list[StageResult] = []
    for stage in stages:
        final, partial = out / stage.name, out / (stage.name + PARTIAL_SUFFIX)
        missing = [up for up in stage.upstream if up not in manifests]
        manifest = read_manifest(final)
        if missing:
            # Only reachable when an upstream stage was left out with --only and is not usable.
            if stage.name in selected:
                raise RunError(
                    f"stage {stage.name} needs {', '.join(missing)}, which is not complete and up "
                    f"to date in {out}; run it too (drop --only or add it)"
                )
            results.append(StageResult(stage.name, "not selected", "upstream not up to date", 0.0))
            continue
        # The release is part of the identity: a new kcorpus may write different output for the same config.
        config_hash = canonical_hash(
            {"command": stage.command, "config": stage.config, "kcorpus": __version__}
        )
        inputs = stage_inputs(stage, profile, manifests)
        input_hash = canonical_hash(inputs)
        stale = why_stale(manifest, final, config_hash, input_hash)
        if stage.name not in selected:
            if stale:
                results.append(StageResult(stage.name, "not selected", stale, 0.0))
            else:
                assert manifest is not None
                manifests[stage.name] = manifest
                results.append(StageResult(stage.name, "not selected", "up to date", 0.0))
            continue
        if not stale and not force:
            assert manifest is not None
            manifests[stage.name] = manifest
            _log(f"{stage.name}: up to date (finished {manifest.get('finished_at')}), skipped")
            results.append(StageResult(stage.name, "skipped", "up to date", 0.0))
            continue
        reason = "forced" if force and not stale else stale
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        dirs = {up: str(out / up) for up in stage.upstream}
        argv = stage_argv(stage, profile, dirs, str(partial))
        if stage.beam and beam_args:
            argv += ["--", *beam_args]
        _log(f"{stage.name}: {reason}; running kcorpus {stage.command}")
        identity = {
            "stage": stage.name,
            "command": stage.command,
            "profile": profile.path,
            "config": stage.config,
            "config_hash": config_hash,
            "kcorpus_version": __version__,
            "inputs": inputs,
            "input_hash": input_hash,
            "beam_args": list(beam_args) if stage.beam else [],
        }
        manifests[stage.name] = execute_stage(stage, argv, partial, final, identity, invoke)
        seconds = manifests[stage.name]["seconds"]
        _log(f"{stage.name}: done in {seconds:.1f} s -> {final}")
        results.append(StageResult(stage.name, "ran", reason, seconds))
    return results
