"""`kcorpus run PROFILE --out fakegs://bucket/run`: the whole chain against a remote filesystem, no network.

`fakegs://` (tests/fake_remote.py) is a Beam `FileSystem` over a temp folder with gs:// semantics: no folders,
objects renamed one by one. The raw inputs are remote too; the Beam stages run on the in-memory local runner
and write through `FileSystems`; train-vocab and vocab-report run on the launcher from copies of the shards;
manifests, the `.partial` move and the report go through `kcorpus.pipeline.filesystems`. The same profile
run into a local folder gives the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fake_remote import PREFIX, local_files, use_root
from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.run import orchestrate as run_mod
from kcorpus.pipeline.run.cache import STAGE_MANIFEST
from run_fixtures import IN_MEMORY, SAMPLE, write_slice

RUN = f"{PREFIX}bucket/run"
STAGES = ["corpus", "vocab", "vocab-report", "pack"]


def write_profile(root: Path, data_prefix: str, vocab_size: int = 2400) -> Path:
    profile = {
        "sources": [
            {"name": "nsmc", "format": "nsmc", "paths": [f"{data_prefix}/nsmc.txt"], "preset": "kcelectra"},
            {"name": "petitions", "format": "petitions", "paths": [f"{data_prefix}/petitions"],
             "preset": "kcelectra", "split_sentences": True},
            {"name": "kowiki", "format": "wikiextractor", "paths": [f"{data_prefix}/wiki_00"],
             "preset": "kcelectra", "split_sentences": True},
        ],
        "filters": {"min_chars": 10},
        "split": {"backend": "kcorpus"},
        "output": {"num_shards": 2},
        "vocab": {"kind": "wordpiece", "vocab_size": vocab_size, "min_frequency": 2, "quiet": True},
        "vocab_report": {"reference": str(SAMPLE.parent / "vocabs" / "kcbert" / "vocab.txt"),
                         "max_sentences": 500},
        "pack": {"max_length": 128, "layout": "cross_document", "validation_fraction": 0.1},
    }  # fmt: skip
    path = root / "profile.yaml"
    path.write_text(yaml.safe_dump(profile, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def cli_run(profile: Path, out: str, *extra: str) -> int:
    from kcorpus.pipeline import cli

    return cli.main(["run", str(profile), "--out", out, *extra, "--", *IN_MEMORY])


def remote_json(path: str) -> dict:
    return json.loads(fs.read_bytes(path))


@pytest.fixture(scope="module")
def remote_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("remote")
    store = root / "store"
    use_root(store)
    write_slice(root)
    fs.upload_tree(str(root / "data"), f"{PREFIX}bucket/raw")
    profile = write_profile(root, f"{PREFIX}bucket/raw")
    rc = cli_run(profile, RUN)
    first = local_files(store)
    rerun_rc = cli_run(profile, RUN)
    local_profile = write_profile(root / "data", str(root / "data"))
    local_results = run_mod.run(load_profile(local_profile), root / "local", beam_args=IN_MEMORY)
    return {"root": root, "store": store, "profile": profile, "rc": rc, "first": first, "rerun_rc": rerun_rc,
            "local": root / "local", "local_results": local_results}  # fmt: skip


@pytest.mark.slow
def test_every_stage_and_the_report_are_written_remotely(remote_run: dict) -> None:
    assert remote_run["rc"] == 0
    run_files = [f.removeprefix("bucket/run/") for f in remote_run["first"] if f.startswith("bucket/run/")]
    for stage in STAGES:
        assert f"{stage}/{STAGE_MANIFEST}" in run_files
    assert {"report.html", "report.md", "report.json"} <= set(run_files)
    assert {"corpus/stats.json", "corpus/docs/part-00000-of-00002.jsonl.zst", "vocab/vocab.txt",
            "vocab/manifest.json", "vocab-report/report.json", "pack/manifest.json",
            "pack/train/state.json", "pack/validation/dataset_info.json"} <= set(run_files)  # fmt: skip
    assert not [f for f in run_files if ".partial/" in f or ".tmp" in f]
    assert not (remote_run["root"] / "bucket").exists()  # nothing went to a local folder named after the run


def test_rerun_skips_every_stage(remote_run: dict, capsys) -> None:
    assert remote_run["rerun_rc"] == 0
    assert local_files(remote_run["store"]) == remote_run["first"]
    for stage in STAGES:
        manifest = remote_json(f"{RUN}/{stage}/{STAGE_MANIFEST}")
        assert manifest["stage"] == stage and manifest["outputs"]


def test_remote_outputs_are_byte_identical_to_a_local_run(remote_run: dict) -> None:
    assert [r.status for r in remote_run["local_results"]] == ["ran"] * 4
    local = remote_run["local"]
    for rel in ("vocab/vocab.txt", "vocab/tokenizer.json", "corpus/docs/part-00000-of-00002.jsonl.zst",
                "corpus/docs/part-00001-of-00002.jsonl.zst", "pack/train/state.json"):  # fmt: skip
        assert fs.read_bytes(f"{RUN}/{rel}") == (local / rel).read_bytes(), rel
    remote_pack = remote_json(f"{RUN}/pack/manifest.json")
    local_pack = json.loads((local / "pack" / "manifest.json").read_text(encoding="utf-8"))
    assert [s["sha256"] for s in remote_pack["shards"]] == [s["sha256"] for s in local_pack["shards"]]
    stats = remote_json(f"{RUN}/corpus/stats.json")["total"]
    assert (stats["input"], stats["kept"], stats["dropped"], stats["dead_lettered"]) == (318, 284, 34, 0)


def test_launcher_stages_record_the_remote_paths_they_read(remote_run: dict) -> None:
    vocab = remote_json(f"{RUN}/vocab/manifest.json")
    # The build wrote no text/ (the default): train-vocab read the sentences from docs/.
    shards = [f"{RUN}/corpus/docs/part-0000{i}-of-00002.jsonl.zst" for i in (0, 1)]
    assert [f["path"] for f in vocab["input"]["files"]] == shards
    stage = remote_json(f"{RUN}/vocab/{STAGE_MANIFEST}")
    assert stage["job"]["inputs"] == shards
    assert stage["job"]["out"] == f"{RUN}/vocab.partial"
    report = fs.read_bytes(f"{RUN}/vocab-report/report.json").decode("utf-8")
    assert "kcorpus-launcher-" not in report and "kcorpus-launcher-" not in json.dumps(vocab)


def test_report_reads_the_remote_run(remote_run: dict) -> None:
    md = fs.read_bytes(f"{RUN}/report.md").decode("utf-8")
    assert f"# kcorpus run report: {RUN}" in md
    assert "| 318 | 284 | 34 | 0 | yes |" in md
    for stage in STAGES:
        assert f"| {stage} | complete |" in md


@pytest.mark.slow
def test_a_commit_cut_short_leaves_the_stage_incomplete_and_the_rerun_redoes_it(
    remote_run: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gs:// has no folder rename: the files move one by one, the manifest last; a stop in between is seen."""
    real_rename = fs.FileSystems.rename

    def stop_before_the_manifest(sources, destinations):
        if any(s.endswith(STAGE_MANIFEST) for s in sources):
            raise KeyboardInterrupt("simulated kill before the manifest moved")
        return real_rename(sources, destinations)

    profile = write_profile(remote_run["root"], f"{PREFIX}bucket/raw", vocab_size=2100)
    monkeypatch.setattr(fs.FileSystems, "rename", stop_before_the_manifest)
    with pytest.raises(KeyboardInterrupt):
        run_mod.run(load_profile(profile), RUN, beam_args=IN_MEMORY, only=["vocab"])
    monkeypatch.undo()
    assert fs.exists(f"{RUN}/vocab/vocab.txt") and not fs.exists(f"{RUN}/vocab/{STAGE_MANIFEST}")
    assert len(fs.read_bytes(f"{RUN}/vocab/vocab.txt").decode("utf-8").splitlines()) == 2100
    results = run_mod.run(load_profile(profile), RUN, beam_args=IN_MEMORY)
    assert [(r.name, r.status, r.reason) for r in results] == [
        ("corpus", "skipped", "up to date"), ("vocab", "ran", "not run yet"),
        ("vocab-report", "ran", "inputs changed"), ("pack", "ran", "inputs changed")]  # fmt: skip
    assert fs.exists(f"{RUN}/vocab/{STAGE_MANIFEST}")
    assert not fs.folder_exists(f"{RUN}/vocab.partial")
