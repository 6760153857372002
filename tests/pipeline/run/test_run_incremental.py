"""`kcorpus run` after a new file lands in a source's folder: the corpus stage is stale (its inputs changed),
reuses the input units of the files it built before (kept in `<run>/.kcorpus-units/corpus`), and writes the
corpus a run from scratch writes."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from kcorpus.pipeline.corpus.units import DONE_SUFFIX, UNITS_DIR
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.run import orchestrate as run_mod
from run_fixtures import IN_MEMORY, SAMPLE


def write_inputs(root: Path, files: int) -> None:
    data = root / "data"
    data.mkdir(exist_ok=True)
    lines = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    for i in range(files):
        path = data / f"nsmc_{i:02d}.txt"
        if not path.exists():
            path.write_text("".join(lines[1 + 150 * i : 1 + 150 * (i + 1)]), encoding="utf-8")


def write_profile(root: Path) -> Path:
    profile = {
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": ["data/nsmc_*.txt"], "preset": "kcelectra"}],
        "filters": {"min_chars": 10},
        "output": {"num_shards": 2},
        "vocab": {"kind": "wordpiece", "vocab_size": 600, "min_frequency": 2, "quiet": True},
        "pack": {"max_length": 64},
    }
    path = root / "profile.yaml"
    path.write_text(yaml.safe_dump(profile, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def corpus_files(corpus: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(corpus)): p.read_bytes()
        for p in sorted(corpus.rglob("*"))
        if p.is_file() and (p.parent != corpus or p.name == "stats.json")
    }


def test_a_new_file_in_a_source_folder_reuses_the_built_units(tmp_path, capsys):
    root = tmp_path / "project"
    root.mkdir()
    write_inputs(root, 2)
    profile = load_profile(write_profile(root))
    out = tmp_path / "run"
    run_mod.run(profile, out, beam_args=IN_MEMORY, only=["corpus"])
    units = out / UNITS_DIR / "corpus"
    assert len(list(units.glob(f"*{DONE_SUFFIX}"))) == 2
    write_inputs(root, 3)  # next month's file
    capsys.readouterr()
    results = run_mod.run(profile, out, beam_args=IN_MEMORY, only=["corpus"])
    assert [(r.name, r.status, r.reason) for r in results if r.name == "corpus"] == [
        ("corpus", "ran", "inputs changed")
    ]
    assert re.search(r"reused 2 of 3 input units \(\d+% of input bytes\)", capsys.readouterr().err)
    assert len(list(units.glob(f"*{DONE_SUFFIX}"))) == 3
    scratch = tmp_path / "scratch"
    run_mod.run(profile, scratch, beam_args=IN_MEMORY, only=["corpus"])
    assert corpus_files(out / "corpus") == corpus_files(scratch / "corpus")
