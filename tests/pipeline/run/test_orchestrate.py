"""`kcorpus run` orchestration: manifests, skipping, invalidation, a stage killed half-way, --only, --force.

The stages here are small fakes with the real stages' command lines and output layouts, so the resume logic is
tested on its own; tests/test_run_e2e.py runs the real stages.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from kcorpus.pipeline.run import orchestrate as run_mod
from kcorpus.pipeline.run.orchestrate import (
    PARTIAL_SUFFIX,
    STAGE_MANIFEST,
    RunError,
    load_profile,
    options_to_argv,
    parse_profile,
)


def run(profile, out, **kwargs):
    """`kcorpus run` with the fake stages below, whose flags the real stage parsers would not know."""
    return run_mod.run(profile, out, check_options=False, **kwargs)


def _parse(argv: Sequence[str], *spec: tuple[str, dict]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(exit_on_error=False)
    for name, kwargs in spec:
        parser.add_argument(name, **kwargs)
    args, _ = parser.parse_known_args(list(argv))
    return args


class FakeStages:
    """Stand-ins for the four stage commands, writing the contract layouts; records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.crash_in: str | None = None

    def __call__(self, command: str, argv: Sequence[str]) -> int:
        self.calls.append((command, list(argv)))
        return getattr(self, command.replace("-", "_"))(list(argv))

    @property
    def commands(self) -> list[str]:
        return [c for c, _ in self.calls]

    def build_corpus(self, argv: list[str]) -> int:
        a = _parse(argv, ("--config", {}), ("--out", {}))
        profile = yaml.safe_load(Path(a.config).read_text(encoding="utf-8"))
        min_len = profile["filters"]["min_length"]
        lines = []
        for source in profile["sources"]:
            for pattern in source["paths"]:
                lines += (Path(a.config).parent / pattern).read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if len(line) >= min_len]
        out = Path(a.out)
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
        return 0

    def train_vocab(self, argv: list[str]) -> int:
        a = _parse(argv, ("--input", {"nargs": "+"}), ("--out", {}), ("--vocab-size", {"type": int}))
        chars = sorted({c for path in a.input for c in Path(path).read_text(encoding="utf-8") if c.strip()})
        out = Path(a.out)
        tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars][: a.vocab_size]
        (out / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
        (out / "manifest.json").write_text(json.dumps({"vocab_size": len(tokens)}), encoding="utf-8")
        return 0

    def vocab_report(self, argv: list[str]) -> int:
        a = _parse(argv, ("a", {}), ("b", {}), ("--out", {}))
        mine = set(Path(a.a, "vocab.txt").read_text(encoding="utf-8").split())
        ref = set(Path(a.b).read_text(encoding="utf-8").split())
        report = {"size_a": len(mine), "size_b": len(ref), "overlap": len(mine & ref)}
        Path(a.out, "report.json").write_text(json.dumps(report), encoding="utf-8")
        return 0

    def pack(self, argv: list[str]) -> int:
        a = _parse(
            argv, ("--corpus", {}), ("--tokenizer", {}), ("--out", {}), ("--max-length", {"type": int})
        )
        out = Path(a.out)
        (out / "train").mkdir()
        text = Path(a.corpus, "text", "part-00000-of-00001.txt").read_text(encoding="utf-8")
        (out / "train" / "data-00000-of-00001.arrow").write_text(text[: a.max_length], encoding="utf-8")
        if self.crash_in == "pack":
            raise RuntimeError("worker lost half-way through pack")
        (out / "manifest.json").write_text(json.dumps({"sequences": 1}), encoding="utf-8")
        return 0


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
        "filters": {"min_length": 5},
        "vocab": {"kind": "wordpiece", "vocab_size": 100, "min_frequency": 1},
        "vocab_report": {"reference": "ref_vocab.txt"},
        "pack": {"max_length": 64, "single_segment_probability": 0.1},
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
    assert profile.out == str(out)
    results = run(profile, out, invoke=fake, beam_args=["--direct_running_mode=in_memory"])

    assert [(r.name, r.status, r.reason) for r in results] == [
        ("corpus", "ran", "not run yet"),
        ("vocab", "ran", "not run yet"),
        ("vocab-report", "ran", "not run yet"),
        ("pack", "ran", "not run yet"),
    ]
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]
    argvs = dict(fake.calls)
    assert argvs["build-corpus"] == [
        "--config", str(project / "profile.yaml"), "--out", str(out / "corpus.partial"),
        "--", "--direct_running_mode=in_memory",
    ]  # fmt: skip
    assert argvs["train-vocab"] == [
        "--kind", "wordpiece", "--vocab-size", "100",
        "--input", str(out / "corpus" / "text" / "part-00000-of-00001.txt"),
        "--out", str(out / "vocab.partial"), "--min-frequency", "1",
    ]  # fmt: skip
    assert argvs["vocab-report"][:2] == [str(out / "vocab"), str(project / "ref_vocab.txt")]
    assert argvs["pack"] == [
        "--corpus", str(out / "corpus"), "--tokenizer", str(out / "vocab"), "--out", str(out / "pack.partial"),
        "--max-length", "64", "--single-segment-probability", "0.1",
        "--", "--direct_running_mode=in_memory",
    ]  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["corpus", "pack", "vocab", "vocab-report"]
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
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    before = {s: manifest(out, s)["finished_at"] for s in ("corpus", "vocab", "vocab-report", "pack")}
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.calls == []
    assert {r.status for r in results} == {"skipped"}
    assert {s: manifest(out, s)["finished_at"] for s in before} == before


def test_stage_killed_half_way_never_looks_complete_and_rerun_finishes_it(project: Path) -> None:
    out = project / "out"
    fake = FakeStages()
    fake.crash_in = "pack"
    with pytest.raises(
        run_mod.StageFailed, match=r"stage pack \(kcorpus pack\) failed: RuntimeError: worker lost"
    ):
        run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert not (out / "pack").exists()
    partial = out / ("pack" + PARTIAL_SUFFIX)
    assert (partial / "train" / "data-00000-of-00001.arrow").exists()
    assert not (partial / STAGE_MANIFEST).exists()
    for done in ("corpus", "vocab", "vocab-report"):
        assert (out / done / STAGE_MANIFEST).exists()

    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.commands == ["pack"]
    assert [r.status for r in results] == ["skipped", "skipped", "skipped", "ran"]
    assert not partial.exists()
    assert (out / "pack" / "manifest.json").exists()


def test_failing_exit_status_is_an_error_and_leaves_no_stage(project: Path) -> None:
    out = project / "out"

    def invoke(command: str, argv: Sequence[str]) -> int:
        return 3 if command == "train-vocab" else FakeStages()(command, argv)

    with pytest.raises(RunError, match=r"stage vocab \(kcorpus train-vocab\) exited with status 3"):
        run(load_profile(project / "profile.yaml"), out, invoke=invoke)
    assert (out / "corpus" / STAGE_MANIFEST).exists()
    assert not (out / "vocab").exists()


def test_vocab_change_reruns_vocab_and_downstream_only(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    write_profile(project, {"vocab": {"vocab_size": 8}})
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.commands == ["train-vocab", "vocab-report", "pack"]
    assert [(r.name, r.reason) for r in results] == [
        ("corpus", "up to date"), ("vocab", "config changed"),
        ("vocab-report", "inputs changed"), ("pack", "inputs changed")]  # fmt: skip
    assert len((out / "vocab" / "vocab.txt").read_text(encoding="utf-8").split()) == 8


def test_corpus_change_with_identical_output_reruns_only_the_corpus(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    # min_length 5 -> 4 keeps the same lines ("별로" has 2 characters): same output digest downstream.
    write_profile(project, {"filters": {"min_length": 4}})
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.commands == ["build-corpus"]
    write_profile(project, {"filters": {"min_length": 2}})
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]


def test_changed_raw_input_reruns_the_corpus(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    raw = project / "data" / "comments.txt"
    raw.write_text(raw.read_text(encoding="utf-8") + "새로 추가된 아주 긴 댓글입니다\n", encoding="utf-8")
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert results[0].reason == "inputs changed"
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]


def test_deleted_output_file_reruns_that_stage(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    (out / "vocab" / "cache-1234.arrow").write_text("a datasets cache file", encoding="utf-8")
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert fake.calls == []
    (out / "vocab" / "manifest.json").unlink()
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake)
    assert results[1].reason == "output files changed since it ran"
    # The rebuilt vocab is byte-identical, so nothing downstream runs again.
    assert fake.commands == ["train-vocab"]


def test_force_and_only(project: Path) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    fake = FakeStages()
    run(load_profile(project / "profile.yaml"), out, invoke=fake, force=True)
    assert fake.commands == ["build-corpus", "train-vocab", "vocab-report", "pack"]
    fake = FakeStages()
    results = run(load_profile(project / "profile.yaml"), out, invoke=fake, force=True, only=["pack"])
    assert fake.commands == ["pack"]
    assert [r.status for r in results] == ["not selected"] * 3 + ["ran"]


def test_only_refuses_a_stage_whose_upstream_is_missing_or_stale(project: Path) -> None:
    out = project / "out"
    with pytest.raises(RunError, match="stage pack needs corpus, vocab, which is not complete"):
        run(load_profile(project / "profile.yaml"), out, invoke=FakeStages(), only=["pack"])
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages(), only=["corpus"])
    assert sorted(p.name for p in out.iterdir()) == ["corpus"]
    write_profile(project, {"filters": {"min_length": 2}})
    with pytest.raises(RunError, match="stage vocab needs corpus"):
        run(load_profile(project / "profile.yaml"), out, invoke=FakeStages(), only=["vocab"])
    with pytest.raises(RunError, match=r"unknown stage\(s\) for --only: tokenize"):
        run(load_profile(project / "profile.yaml"), out, invoke=FakeStages(), only=["tokenize"])


def test_profile_without_reference_has_no_vocab_report_stage(project: Path) -> None:
    raw = yaml.safe_load((project / "profile.yaml").read_text(encoding="utf-8"))
    del raw["vocab_report"]
    fake = FakeStages()
    run(parse_profile(raw, project / "profile.yaml"), project / "out", invoke=fake)
    assert fake.commands == ["build-corpus", "train-vocab", "pack"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"vocab": {"kind": "bpe-ish"}}, "vocab.kind must be one of wordpiece, sentencepiece, got 'bpe-ish'"),
        ({"vocab": {"vocab_size": -5}}, "vocab.vocab_size must be a positive integer, got -5"),
        ({"pack": {"max_length": "512"}}, "pack.max_length must be a positive integer, got '512'"),
        ({"run": {"workdir": "x"}}, "unknown key.*under run: workdir; valid: out"),
        ({"vocab_report": {"reference": None, "top": 5}}, "vocab_report needs a `reference:`"),
        ({"pack": ["max_length", 512]}, "profile key 'pack' must be a mapping, got list"),
    ],
)
def test_bad_profiles_fail_with_a_clear_message(project: Path, changes: dict, message: str) -> None:
    raw = yaml.safe_load((project / "profile.yaml").read_text(encoding="utf-8"))
    raw.update({k: ({**raw.get(k, {}), **v} if isinstance(v, dict) else v) for k, v in changes.items()})
    with pytest.raises(RunError, match=message):
        parse_profile(raw, project / "profile.yaml")


def test_options_to_argv() -> None:
    assert options_to_argv({"min_frequency": 2, "special_tokens": ["[A]", "[B]"], "byte_fallback": True,
                            "lowercase": False, "seed": None}) == [
        "--byte-fallback", "--min-frequency", "2", "--special-tokens", "[A]", "[B]"]  # fmt: skip
    with pytest.raises(RunError, match="nested mappings"):
        options_to_argv({"trainer": {"a": 1}})


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
        "only": ["corpus", "vocab"],
    }
    assert cli.main(["run", str(project / "missing.yaml")]) == 1
    assert "missing.yaml" in capsys.readouterr().err


def test_manifest_is_written_before_the_rename(project: Path, monkeypatch) -> None:
    """The only moment a stage folder appears under its final name, it already holds its manifest."""
    seen: list[bool] = []
    real_replace = os.replace

    def spy(src, dst):
        if not str(dst).endswith((".old", STAGE_MANIFEST)) and Path(src).is_dir():
            seen.append((Path(src) / STAGE_MANIFEST).exists())
        return real_replace(src, dst)

    monkeypatch.setattr(run_mod.os, "replace", spy)
    run(load_profile(project / "profile.yaml"), project / "out", invoke=FakeStages())
    assert seen == [True, True, True, True]


def test_stage_options_are_checked_by_the_stages_own_parsers_before_anything_runs(project: Path) -> None:
    write_profile(project, {"pack": {"single_segment_probability": 0.1}})
    fake = FakeStages()
    with pytest.raises(
        RunError,
        match=r"profile section pack gives kcorpus pack options it rejects: .*"
        r"unrecognized arguments: --single-segment-probability",
    ):
        run_mod.run(load_profile(project / "profile.yaml"), project / "out", invoke=fake, only=["pack"])
    assert fake.calls == []
    write_profile(project, {"pack": {"single_segment_probability": None, "single_segment_prob": "often"}})
    with pytest.raises(RunError, match="invalid float value: 'often'"):
        run_mod.run(load_profile(project / "profile.yaml"), project / "out", invoke=fake, only=["pack"])
    write_profile(project, {"pack": {"single_segment_probability": None, "single_segment_prob": 0.1}})
    profile = load_profile(project / "profile.yaml")
    run_mod.check_stage_options(run_mod.plan_stages(profile)[1:], profile)


def test_remote_run_folder_is_refused_with_a_pointer(project: Path) -> None:
    with pytest.raises(
        RunError, match=r"run folder gs://b/run: kcorpus run keeps its stage manifests in a local"
    ):
        run(load_profile(project / "profile.yaml"), "gs://b/run", invoke=FakeStages())


def test_unlistable_remote_input_is_a_clear_error(project: Path) -> None:
    write_profile(
        project, {"sources": [{"name": "x", "format": "text", "paths": ["nosuchfs://bucket/*.txt"]}]}
    )
    with pytest.raises(RunError, match=r"cannot list nosuchfs://bucket/\*\.txt"):
        run(load_profile(project / "profile.yaml"), project / "out", invoke=FakeStages())


def test_broken_yaml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("vocab: {kind: wordpiece\n", encoding="utf-8")
    with pytest.raises(RunError, match=r"bad.yaml: not valid YAML"):
        load_profile(tmp_path / "bad.yaml")


def test_a_new_kcorpus_release_reruns_everything(project: Path, monkeypatch) -> None:
    out = project / "out"
    run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    assert manifest(out, "corpus")["kcorpus_version"] == run_mod.__version__
    monkeypatch.setattr(run_mod, "__version__", "99.0.0")
    results = run(load_profile(project / "profile.yaml"), out, invoke=FakeStages())
    assert [r.reason for r in results] == ["config changed"] + ["config changed"] * 3
