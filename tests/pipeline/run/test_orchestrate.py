"""`kcorpus run` orchestration: manifests, skipping, invalidation, a stage killed half-way, --only, --force.

The stages here are small fakes that take the real stages' typed jobs and write their output layouts, so the
resume logic is tested on its own; tests/pipeline/run/test_run_e2e.py runs the real stages.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from kcorpus.pipeline.corpus.job import BuildCorpusJob
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.profile.validate import ProfileError, profile_from_dict
from kcorpus.pipeline.run import cache, stages
from kcorpus.pipeline.run import orchestrate as run_mod
from kcorpus.pipeline.run.cache import PARTIAL_SUFFIX, STAGE_MANIFEST
from kcorpus.pipeline.run.errors import RunError, StageFailed
from kcorpus.pipeline.vocab.report import VocabReportJob
from kcorpus.pipeline.vocab.train import TrainVocabJob
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.vocab.checks import VocabCheckError
from kcorpus.transforms.vocab.train import WordPieceConfig

COMMANDS = {"corpus": "build-corpus", "vocab": "train-vocab", "vocab-report": "vocab-report", "pack": "pack"}


class FakeStages:
    """Stand-ins for the four stage functions, taking their typed jobs and writing the contract layouts."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, list[str]]] = []
        self.crash_in: str | None = None

    @property
    def runners(self) -> dict[str, Any]:
        return {name: self._runner(name) for name in COMMANDS}

    def _runner(self, name: str) -> Any:
        def runner(job: Any, beam_args: Sequence[str]) -> None:
            self.calls.append((name, job, list(beam_args)))
            getattr(self, name.replace("-", "_"))(job)

        return runner

    @property
    def commands(self) -> list[str]:
        return [COMMANDS[name] for name, _, _ in self.calls]

    def jobs(self) -> dict[str, Any]:
        return {name: job for name, job, _ in self.calls}

    def corpus(self, job: BuildCorpusJob) -> None:
        min_len = job.config.filters.min_chars
        lines = []
        for source in job.config.sources:
            for path in source.paths:
                lines += Path(path).read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if len(line) >= min_len]
        out = Path(job.out)
        (out / "text").mkdir(parents=True)
        (out / "text" / "part-00000-of-00001.txt").write_text("\n\n".join(kept) + "\n", encoding="utf-8")
        stats = {
            "total": {
                "input": len(lines),
                "kept": len(kept),
                "dropped": len(lines) - len(kept),
                "dead_lettered": 0,
                "dropped_by_reason": {"too_short": len(lines) - len(kept)},
            }
        }
        (out / "stats.json").write_text(json.dumps(stats), encoding="utf-8")

    def vocab(self, job: TrainVocabJob) -> None:
        chars = sorted(
            {c for path in job.inputs for c in Path(path).read_text(encoding="utf-8") if c.strip()}
        )
        out = Path(job.out)
        tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars][: job.config.vocab_size]
        (out / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
        (out / "manifest.json").write_text(json.dumps({"vocab_size": len(tokens)}), encoding="utf-8")

    def vocab_report(self, job: VocabReportJob) -> None:
        mine = set(Path(job.a, "vocab.txt").read_text(encoding="utf-8").split())
        ref = set(Path(job.b).read_text(encoding="utf-8").split())
        report = {"size_a": len(mine), "size_b": len(ref), "overlap": len(mine & ref)}
        Path(job.out, "report.json").write_text(json.dumps(report), encoding="utf-8")

    def pack(self, job: PackJob) -> None:
        out = Path(job.out)
        (out / "train").mkdir()
        text = Path(job.corpus, "text", "part-00000-of-00001.txt").read_text(encoding="utf-8")
        (out / "train" / "data-00000-of-00001.arrow").write_text(
            text[: job.pack.max_length], encoding="utf-8"
        )
        if self.crash_in == "pack":
            raise RuntimeError("worker lost half-way through pack")
        (out / "manifest.json").write_text(json.dumps({"sequences": 1}), encoding="utf-8")


def run(profile, out, fake: FakeStages | None = None, **kwargs):
    """`kcorpus run` with the fake stages."""
    return run_mod.run(profile, out, runners=(fake or FakeStages()).runners, **kwargs)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "comments.txt").write_text(
        "영화 정말 재밌어요 강추합니다\n별로\n배우들 연기가 좋았고 음악도 좋았다\n", encoding="utf-8"
    )
    (tmp_path / "ref_vocab.txt").write_text("[PAD]\n[UNK]\n영\n화\n나\n", encoding="utf-8")
    write_profile(tmp_path, {})
    return tmp_path


def write_profile(root: Path, changes: dict) -> Path:
    profile = {
        "sources": [
            {"name": "nsmc", "format": "text", "paths": ["data/comments.txt"], "preset": "kcelectra"}
        ],
        "filters": {"min_chars": 5},
        "vocab": {"kind": "wordpiece", "vocab_size": 100, "min_frequency": 1},
        "vocab_report": {"reference": "ref_vocab.txt"},
        "pack": {"max_length": 64, "single_segment_prob": 0.1},
        "run": {"out": "runs/sample"},
    }
    for key, value in changes.items():
        profile[key] = {**profile.get(key, {}), **value} if isinstance(value, dict) else value
    path = root / "profile.yaml"
    path.write_text(yaml.safe_dump(profile, allow_unicode=True), encoding="utf-8")
    return path


def manifest(out: Path, stage: str) -> dict:
    return json.loads((out / stage / STAGE_MANIFEST).read_text(encoding="utf-8"))


def test_full_run_chains_the_stages_and_writes_manifests(project: Path) -> None:
    fake = FakeStages()
    profile = load_profile(project / "profile.yaml")
    out = project / "runs" / "sample"
    assert profile.run.out == str(out)
    results = run(profile, out, fake, beam_args=["--direct_running_mode=in_memory"])

    assert [(r.name, r.status, r.reason) for r in results] == [
        ("corpus", "ran", "not run yet"),
        ("vocab", "ran", "not run yet"),
        ("vocab-report", "ran", "not run yet"),
        ("pack", "ran", "not run yet"),
    ]
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]
    jobs = fake.jobs()
    units = str(out / ".kcorpus-units" / "corpus")  # kept between runs: a new input file reuses the others'
    assert jobs["corpus"] == BuildCorpusJob(
        profile.corpus, str(out / "corpus.partial"), units_dir=units, keep_units=True
    )
    text_file = str(out / "corpus" / "text" / "part-00000-of-00001.txt")
    assert jobs["vocab"] == TrainVocabJob(
        inputs=(text_file,),
        out=str(out / "vocab.partial"),
        config=WordPieceConfig(vocab_size=100, min_frequency=1),
    )
    assert jobs["vocab-report"] == VocabReportJob(
        a=str(out / "vocab"), b=str(project / "ref_vocab.txt"), out=str(out / "vocab-report.partial"),
        corpus=(text_file,),
    )  # fmt: skip
    assert jobs["pack"] == PackJob(
        corpus=str(out / "corpus"), tokenizer=str(out / "vocab"), out=str(out / "pack.partial"),
        pack=PackConfig(max_length=64, single_segment_prob=0.1),
        units_dir=str(out / ".kcorpus-units" / "pack"),  # beside the stage folders, removed when it completes
    )  # fmt: skip
    assert [beam_args for _, _, beam_args in fake.calls] == [["--direct_running_mode=in_memory"], [], [], [
        "--direct_running_mode=in_memory"]]  # fmt: skip
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "corpus",
        "pack",
        "vocab",
        "vocab-report",
    ]
    corpus = manifest(out, "corpus")
    assert corpus["outputs"] == {
        "stats.json": len((out / "corpus/stats.json").read_bytes()),
        "text/part-00000-of-00001.txt": 94,
    }
    assert [f.get("path") for f in corpus["inputs"]["files"]] == [None, str(project / "data/comments.txt")]
    assert manifest(out, "pack")["inputs"] == {
        "corpus": corpus["output_digest"],
        "vocab": manifest(out, "vocab")["output_digest"],
    }
    assert manifest(out, "pack")["beam_args"] == ["--direct_running_mode=in_memory"]
    assert manifest(out, "vocab")["beam_args"] == []


def test_rerun_skips_everything_up_to_date(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    before = {s: manifest(out, s)["finished_at"] for s in ("corpus", "vocab", "vocab-report", "pack")}
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.calls == []
    assert {r.status for r in results} == {"skipped"}
    assert {s: manifest(out, s)["finished_at"] for s in before} == before


def test_stage_killed_half_way_never_looks_complete_and_rerun_finishes_it(project: Path) -> None:
    out = project / "out"
    fake = FakeStages()
    fake.crash_in = "pack"
    with pytest.raises(StageFailed, match=r"stage pack \(kcorpus pack\) failed: RuntimeError: worker lost"):
        run(load_profile(project / "profile.yaml"), out, fake)
    assert not (out / "pack").exists()
    partial = out / ("pack" + PARTIAL_SUFFIX)
    assert (partial / "train" / "data-00000-of-00001.arrow").exists()
    assert not (partial / STAGE_MANIFEST).exists()
    for done in ("corpus", "vocab", "vocab-report"):
        assert (out / done / STAGE_MANIFEST).exists()

    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.commands == ["pack"]
    assert [r.status for r in results] == ["skipped", "skipped", "skipped", "ran"]
    assert not partial.exists()
    assert (out / "pack" / "manifest.json").exists()


def test_failing_stage_is_an_error_and_leaves_no_stage(project: Path) -> None:
    out = project / "out"
    fake = FakeStages()

    def failing_vocab(job: TrainVocabJob) -> None:
        raise VocabCheckError("3 tokens are conjoining jamo")

    fake.vocab = failing_vocab
    with pytest.raises(
        StageFailed,
        match=r"stage vocab \(kcorpus train-vocab\) failed: VocabCheckError: 3 tokens are conjoining",
    ):
        run(load_profile(project / "profile.yaml"), out, fake)
    assert (out / "corpus" / STAGE_MANIFEST).exists()
    assert not (out / "vocab").exists()


def test_vocab_change_reruns_vocab_and_downstream_only(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    write_profile(project, {"vocab": {"vocab_size": 8}})
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.commands == ["train-vocab", "vocab-report", "pack"]
    assert [(r.name, r.reason) for r in results] == [
        ("corpus", "up to date"), ("vocab", "config changed"),
        ("vocab-report", "inputs changed"), ("pack", "inputs changed")]  # fmt: skip
    assert len((out / "vocab" / "vocab.txt").read_text(encoding="utf-8").split()) == 8


def test_corpus_change_with_identical_output_reruns_only_the_corpus(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    # min_chars 5 -> 4 keeps the same lines ("별로" has 2 characters): same output digest downstream.
    write_profile(project, {"filters": {"min_chars": 4}})
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.commands == ["build-corpus"]
    write_profile(project, {"filters": {"min_chars": 2}})
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]


def test_changed_raw_input_reruns_the_corpus(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    raw = project / "data" / "comments.txt"
    raw.write_text(raw.read_text(encoding="utf-8") + "새로 추가된 아주 긴 댓글입니다\n", encoding="utf-8")
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake)
    assert results[0].reason == "inputs changed"
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]


def test_deleted_output_file_reruns_that_stage(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    (out / "vocab" / "cache-1234.arrow").write_text("a datasets cache file", encoding="utf-8")
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, fake)
    assert fake.calls == []
    (out / "vocab" / "manifest.json").unlink()
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake)
    assert results[1].reason == "output files changed since it ran"
    # The rebuilt vocab is byte-identical, so nothing downstream runs again.
    assert fake.commands == ["train-vocab"]


def test_force_and_only(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, fake, force=True)
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, fake, force=True, only=["pack"])
    assert fake.commands == ["pack"]
    assert [r.status for r in results] == ["not selected"] * 3 + ["ran"]


def test_only_refuses_a_stage_whose_upstream_is_missing_or_stale(project: Path) -> None:
    out = project / "out"
    with pytest.raises(RunError, match="stage pack needs corpus, vocab, which is not complete"):
        run(load_profile(project / "profile.yaml"), out, only=["pack"])
    run(load_profile(project / "profile.yaml"), out, only=["corpus"])
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["corpus"]
    write_profile(project, {"filters": {"min_chars": 2}})
    with pytest.raises(RunError, match="stage vocab needs corpus"):
        run(load_profile(project / "profile.yaml"), out, only=["vocab"])
    with pytest.raises(RunError, match=r"unknown stage\(s\) for --only: tokenize"):
        run(load_profile(project / "profile.yaml"), out, only=["tokenize"])


def test_profile_without_reference_has_no_vocab_report_stage(project: Path) -> None:
    raw = yaml.safe_load((project / "profile.yaml").read_text(encoding="utf-8"))
    del raw["vocab_report"]
    fake = FakeStages()
    run(profile_from_dict(raw, str(project)), project / "out", fake)
    assert fake.commands == ["build-corpus", "train-vocab", "pack"]


def test_a_profile_without_vocab_cannot_run(project: Path) -> None:
    raw = yaml.safe_load((project / "profile.yaml").read_text(encoding="utf-8"))
    del raw["vocab"]
    fake = FakeStages()
    with pytest.raises(ProfileError, match="vocab: required by kcorpus run"):
        run(profile_from_dict(raw, str(project)), project / "out", fake)
    assert fake.calls == []


def test_cli_splits_beam_args_and_reports_errors(project: Path, monkeypatch, capsys) -> None:
    from kcorpus.pipeline import cli

    seen = {}

    def fake_run(profile, out, *, beam_args, force, only):
        seen.update(out=out, beam_args=beam_args, force=force, only=only)
        return []

    monkeypatch.setattr("kcorpus.pipeline.commands.run.run", fake_run)
    rc = cli.main(
        [
            "run",
            str(project / "profile.yaml"),
            "--only",
            "corpus",
            "vocab",
            "--force",
            "--no-report",
            "--",
            "--runner",
            "DataflowRunner",
            "--project",
            "p",
        ]
    )
    assert rc == 0
    assert seen == {
        "out": str(project / "runs/sample"),
        "beam_args": ["--runner", "DataflowRunner", "--project", "p"],
        "force": True,
        "only": ("corpus", "vocab"),
    }
    assert cli.main(["run", str(project / "missing.yaml")]) == 2
    assert "missing.yaml" in capsys.readouterr().err


def test_manifest_is_written_before_the_rename(project: Path, monkeypatch) -> None:
    """The only moment a stage folder appears under its final name, it already holds its manifest."""
    seen: list[bool] = []
    real_replace = os.replace

    def spy(src, dst):
        if not str(dst).endswith((".old", STAGE_MANIFEST)) and Path(src).is_dir():
            seen.append((Path(src) / STAGE_MANIFEST).exists())
        return real_replace(src, dst)

    monkeypatch.setattr(cache.os, "replace", spy)
    run(load_profile(project / "profile.yaml"), project / "out")
    assert seen == [True, True, True, True]


def test_bad_stage_settings_fail_before_anything_runs(project: Path, capsys) -> None:
    from kcorpus.pipeline import cli

    write_profile(project, {"pack": {"single_segment_probability": 0.1, "layout": "pairs"}})
    assert cli.main(["run", str(project / "profile.yaml")]) == 2
    err = capsys.readouterr().err
    assert "pack.single_segment_probability: unknown key; valid keys: input_format" in err
    assert (
        "pack.layout: expected 'pair', 'single', 'cross_document', 'full_sentences' or 'nsp', got 'pairs'"
        in err
    )
    assert not (project / "runs").exists()


def test_kcorpus_run_calls_the_stage_functions_with_typed_jobs(project: Path, monkeypatch, capsys) -> None:
    """The command line runs the same stage functions, no argv in between."""
    from kcorpus.pipeline import cli

    fake = FakeStages()
    for name, runner in fake.runners.items():
        monkeypatch.setitem(stages.RUNNERS, name, runner)
    assert cli.main(["run", str(project / "profile.yaml"), "--no-report"]) == 0
    assert [type(job) for job in fake.jobs().values()] == [
        BuildCorpusJob,
        TrainVocabJob,
        VocabReportJob,
        PackJob,
    ]
    assert not hasattr(run_mod, "options_to_argv") and not hasattr(run_mod, "stage_argv")
    assert "pack          ran" in capsys.readouterr().out


def test_unreachable_remote_run_folder_is_refused_before_any_stage(project: Path) -> None:
    """A remote run folder is fine (tests/pipeline/run/test_run_remote.py); one Beam cannot reach is not."""
    with pytest.raises(
        RunError, match=r"run folder nosuchfs://b/run: Beam has no filesystem for nosuchfs://"
    ):
        run(load_profile(project / "profile.yaml"), "nosuchfs://b/run")
    assert not (project / "runs").exists()


def test_unlistable_remote_input_is_a_clear_error(project: Path) -> None:
    write_profile(
        project, {"sources": [{"name": "x", "format": "text", "paths": ["nosuchfs://bucket/*.txt"]}]}
    )
    with pytest.raises(RunError, match=r"cannot list nosuchfs://bucket/\*\.txt"):
        run(load_profile(project / "profile.yaml"), project / "out")


def test_broken_yaml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("vocab: {kind: wordpiece\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"bad.yaml:2: not valid YAML"):
        load_profile(tmp_path / "bad.yaml")


def test_a_new_kcorpus_release_reruns_everything(project: Path, monkeypatch) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out)
    assert manifest(out, "corpus")["kcorpus_version"] == run_mod.__version__
    monkeypatch.setattr(run_mod, "__version__", "99.0.0")
    results = run(load_profile(project / "profile.yaml"), out)
    assert [r.reason for r in results] == ["config changed"] + ["config changed"] * 3
