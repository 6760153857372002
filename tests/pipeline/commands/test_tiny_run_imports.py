"""What a tiny build-corpus and pack import: each runs in a fresh interpreter (`kcorpus` as a user starts it),
which then lists the heavy modules it loaded. A run must not pay for a library its code path does not use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from packing_fixtures import kcbert_tokenizer_dir
from testdata_paths import TESTDATA

# Libraries no tiny build-corpus or pack uses with the profile below (kss is only for split.backend: kss).
NEVER = ("kss", "datasets", "torch", "transformers", "sentencepiece")

RUN_AND_LIST = """
import json, sys
from apache_beam.transforms import core
from kcorpus.pipeline.cli import main
status = main(sys.argv[2:])
tops = {name.split(".")[0] for name in sys.modules}
loaded = sorted(tops | {name for name in sys.modules if name.startswith("kcorpus.")})
memo = hasattr(core.get_function_args_defaults, "__wrapped_helper__")
with open(sys.argv[1], "w") as f:
    json.dump({"status": status, "modules": loaded, "signature_memo": memo}, f)
"""


def run_fresh(tmp_path: Path, *argv: str) -> dict:
    report = tmp_path / f"{argv[0]}.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(report), *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(report.read_text(encoding="utf-8"))


def tiny_profile(tmp_path: Path) -> Path:
    sample = TESTDATA / "sample"
    profile = tmp_path / "tiny.yaml"
    profile.write_text(
        f"""
sources:
  - {{name: nsmc, format: nsmc, paths: ["{sample}/nsmc_ratings_test_head.txt"], preset: kcelectra}}
  - {{name: kowiki, format: wikiextractor, paths: ["{sample}/wiki_00_head"], split_sentences: true}}
dedup: {{near: {{enabled: true}}}}
output: {{num_shards: 2}}
""",
        encoding="utf-8",
    )
    return profile


@pytest.mark.slow
def test_a_tiny_build_corpus_and_pack_import_only_what_they_use(tmp_path):
    corpus, packed = tmp_path / "corpus", tmp_path / "packed"
    build = run_fresh(tmp_path, "build-corpus", "--config", str(tiny_profile(tmp_path)), "--out", str(corpus))
    assert build["status"] == 0
    assert [m for m in NEVER + ("tokenizers",) if m in build["modules"]] == []
    assert "kcorpus.pipeline.pack.build" not in build["modules"]
    assert build["signature_memo"]

    tokenizer = kcbert_tokenizer_dir(tmp_path / "tok")
    pack = run_fresh(
        tmp_path, "pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(packed)
    )
    assert pack["status"] == 0
    assert [m for m in NEVER + ("pydantic",) if m in pack["modules"]] == []
    assert "kcorpus.pipeline.profile.schema" not in pack["modules"]
    assert "kcorpus.pipeline.corpus.build" not in pack["modules"]
    assert pack["signature_memo"]


ANSWER_AND_LIST = """
import json, sys
from kcorpus.pipeline.cli import main
try:
    status = main(sys.argv[2:])
except SystemExit as exit:
    status = exit.code
with open(sys.argv[1], "w") as f:
    json.dump({"status": status, "beam": "apache_beam" in sys.modules}, f)
"""


@pytest.mark.slow
def test_help_and_input_errors_answer_before_beam_is_imported(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources: []\nfilters: {min_chars: ten}\n", encoding="utf-8")
    cases = {
        "build-help": (["build-corpus", "--help"], 0),
        "pack-help": (["pack", "--help"], 0),
        "bad-profile": (["build-corpus", "--config", str(bad), "--out", str(tmp_path / "o")], 2),
        "no-corpus": (["pack", "--corpus", str(tmp_path / "none"), "--tokenizer", str(bad), "--out", "p"], 2),
    }
    for name, (argv, status) in cases.items():
        report = tmp_path / f"{name}.json"
        done = subprocess.run(
            [sys.executable, "-c", ANSWER_AND_LIST, str(report), *argv],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        answer = json.loads(report.read_text(encoding="utf-8"))
        assert answer == {"status": status, "beam": False}, (name, done.stderr[-2000:])
        if status == 2:
            assert "error:" in done.stderr
