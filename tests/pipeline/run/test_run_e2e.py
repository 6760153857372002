"""`kcorpus run` end to end with the real stages on a slice of the bundled sample (in-memory Beam runner).

One module-scoped run is shared: a first run killed half-way through pack, then the rerun that finishes it,
then a vocab change that reruns exactly the stages after build-corpus.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from report_checks import korean_without_lang, literal_markdown

from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.run import orchestrate as run_mod
from kcorpus.pipeline.run.cache import STAGE_MANIFEST
from kcorpus.pipeline.run.errors import StageFailed
from run_fixtures import IN_MEMORY, SAMPLE, write_slice


def write_profile(root: Path, vocab_size: int) -> Path:
    profile = {
        "sources": [
            {"name": "nsmc", "format": "nsmc", "paths": ["data/nsmc.txt"], "preset": "kcelectra"},
            {
                "name": "petitions",
                "format": "petitions",
                "paths": ["data/petitions"],
                "preset": "kcelectra",
                "split_sentences": True,
            },
            {
                "name": "kowiki",
                "format": "wikiextractor",
                "paths": ["data/wiki_00"],
                "preset": "kcelectra",
                "split_sentences": True,
                "remove_patterns": [r"formula_\d+"],
            },
        ],
        "filters": {"min_chars": 10},
        "split": {"backend": "kcorpus"},
        "output": {"num_shards": 2},
        "vocab": {"kind": "wordpiece", "vocab_size": vocab_size, "min_frequency": 2, "quiet": True},
        "vocab_report": {
            "reference": str(SAMPLE.parent / "vocabs" / "kcbert" / "vocab.txt"),
            "max_sentences": 500,
        },
        "pack": {"max_length": 128, "layout": "cross_document", "validation_fraction": 0.1},
    }
    path = root / "profile.yaml"
    path.write_text(yaml.safe_dump(profile, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def interrupted_then_finished(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("e2e")
    write_slice(root)
    out = root / "out"
    profile = load_profile(write_profile(root, 2400))

    from kcorpus.pipeline.pack import build as pack

    real_write_metadata = pack.write_metadata

    def die_before_metadata(*args, **kwargs):
        raise RuntimeError("simulated kill after the shards, before the manifest")

    pack.write_metadata = die_before_metadata
    try:
        with pytest.raises(StageFailed, match="stage pack .* failed: RuntimeError: simulated kill"):
            run_mod.run(profile, out, beam_args=IN_MEMORY)
    finally:
        pack.write_metadata = real_write_metadata
    killed = {
        "dirs": sorted(p.name for p in out.iterdir() if not p.name.startswith(".")),
        "partial_files": sorted(
            p.relative_to(out).as_posix() for p in (out / "pack.partial").rglob("*") if p.is_file()
        ),
    }
    finished = run_mod.run(profile, out, beam_args=IN_MEMORY)
    return {"root": root, "out": out, "killed": killed, "finished": finished}


@pytest.mark.slow
def test_killed_stage_leaves_only_a_partial_folder(interrupted_then_finished: dict) -> None:
    killed = interrupted_then_finished["killed"]
    assert killed["dirs"] == ["corpus", "pack.partial", "vocab", "vocab-report"]
    assert any(f.endswith(".arrow") for f in killed["partial_files"])
    assert not any(f.endswith(("manifest.json", STAGE_MANIFEST)) for f in killed["partial_files"])


def test_rerun_finishes_only_the_killed_stage(interrupted_then_finished: dict) -> None:
    results = interrupted_then_finished["finished"]
    assert [(r.name, r.status) for r in results] == [
        ("corpus", "skipped"), ("vocab", "skipped"), ("vocab-report", "skipped"), ("pack", "ran")]  # fmt: skip
    out = interrupted_then_finished["out"]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["corpus", "pack", "vocab", "vocab-report"]


def test_outputs_reconcile_and_load(interrupted_then_finished: dict) -> None:
    import datasets

    out = interrupted_then_finished["out"]
    stats = json.loads((out / "corpus" / "stats.json").read_text(encoding="utf-8"))
    total = stats["total"]
    assert total["reconciled"] is True
    # Every record of the slice is counted in: 300 NSMC rows, 12 petitions, 6 Wikipedia articles.
    assert {name: src["input"] for name, src in stats["sources"].items()} == {
        "nsmc": 300,
        "petitions": 12,
        "kowiki": 6,
    }
    assert (total["input"], total["kept"], total["dropped"], total["dead_lettered"]) == (318, 284, 34, 0)
    manifest = json.loads((out / "pack" / "manifest.json").read_text(encoding="utf-8"))
    counts = manifest["counts"]
    assert counts["documents"] == total["kept"]
    assert counts["dropped_tokens"] == 0
    for shard in manifest["shards"]:
        assert sha256(out / "pack" / shard["file"]) == shard["sha256"]
    train = datasets.load_from_disk(str(out / "pack" / "train"))
    validation = datasets.load_from_disk(str(out / "pack" / "validation"))
    assert len(train) + len(validation) == counts["sequences"]
    assert max(len(ids) for ids in train["input_ids"]) == 128
    stage = json.loads((out / "pack" / STAGE_MANIFEST).read_text(encoding="utf-8"))
    assert stage["inputs"] == {
        "corpus": json.loads((out / "corpus" / STAGE_MANIFEST).read_text(encoding="utf-8"))["output_digest"],
        "vocab": json.loads((out / "vocab" / STAGE_MANIFEST).read_text(encoding="utf-8"))["output_digest"],
    }
    assert (stage["command"], stage["job"]["corpus"]) == ("pack", str(out / "corpus"))


def test_report_on_the_real_run(interrupted_then_finished: dict) -> None:
    from kcorpus.pipeline.run.report import write_report

    out = interrupted_then_finished["out"]
    html_path, md_path = map(Path, write_report(out))
    md = md_path.read_text(encoding="utf-8")
    stats = json.loads((out / "corpus" / "stats.json").read_text(encoding="utf-8"))["total"]
    assert f"| {stats['input']} | {stats['kept']} | {stats['dropped']} | 0 | yes |" in md
    assert "| dropped_tokens | 0 |" in md
    assert "| size_b | 30000 |" in md
    page = html_path.read_text(encoding="utf-8")
    assert page.count("<svg") >= 10
    # The vocabulary's example tokens are code, not backticks; the Korean on the page is marked as such.
    assert "tokens only in A, most used on the corpus: <code>" in page
    assert literal_markdown(page) == [] and korean_without_lang(page) == []
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert sum(data["corpus"]["scan"]["documents"].values()) == stats["kept"]


def test_a_cached_rerun_ends_naming_both_report_files(
    interrupted_then_finished: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    from kcorpus.pipeline.cli import main as cli

    root, out = interrupted_then_finished["root"], interrupted_then_finished["out"].resolve()
    capsys.readouterr()
    assert cli(["run", str(root / "profile.yaml"), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [f"{name:<13} skipped: up to date" for name in ("corpus", "vocab", "vocab-report", "pack")]
    # Every stage was up to date, and still the closing block names both report files, one labelled line each.
    assert lines[-3:] == [
        f"report:  {out / 'report.html'}  (charts and tables: open in a browser)",
        f"report:  {out / 'report.md'}  (the same tables, Markdown)",
        f"dataset: {out / 'pack'}  (datasets.load_from_disk: a DatasetDict of train and validation)",
    ]


def test_vocab_change_reruns_the_stages_after_the_corpus(interrupted_then_finished: dict) -> None:
    root, out = interrupted_then_finished["root"], interrupted_then_finished["out"]
    corpus_digest = json.loads((out / "corpus" / STAGE_MANIFEST).read_text(encoding="utf-8"))["output_digest"]
    results = run_mod.run(load_profile(write_profile(root, 2100)), out, beam_args=IN_MEMORY)
    assert [(r.name, r.status, r.reason) for r in results] == [
        ("corpus", "skipped", "up to date"), ("vocab", "ran", "config changed"),
        ("vocab-report", "ran", "inputs changed"), ("pack", "ran", "inputs changed")]  # fmt: skip
    assert (
        json.loads((out / "corpus" / STAGE_MANIFEST).read_text(encoding="utf-8"))["output_digest"]
        == corpus_digest
    )
    assert len((out / "vocab" / "vocab.txt").read_text(encoding="utf-8").splitlines()) == 2100
    assert not [p for p in out.iterdir() if p.name.endswith((".partial", ".old"))]
    shutil.rmtree(root)
