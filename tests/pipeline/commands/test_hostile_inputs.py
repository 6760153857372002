"""Issue 26: the mistakes and hostile inputs a new user hits end in one line and a known exit status.

Each case runs the real command on a slice of the bundled real data (tests/testdata/sample/) with the hostile
part added at test time, and checks that nothing is lost or left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

from kcorpus.pipeline.cli import main
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
# A JSON value nested 100,000 brackets deep: the stdlib decoder raises RecursionError, not JSONDecodeError.
DEEP_JSON = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n"


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def petitions_with_a_deep_line(tmp_path: Path) -> Path:
    """The first 4 real petitions with the deep line third: 5 records, 4 documents, 1 dead letter."""
    lines = (SAMPLE / "petitions_2017-08_head").read_text(encoding="utf-8").splitlines(keepends=True)[:4]
    path = tmp_path / "petitions_2017-08"
    path.write_text("".join(lines[:2]) + DEEP_JSON + "".join(lines[2:]), encoding="utf-8")
    return path


# --- 1. one record nested too deep -----------------------------------------------------------------------


def test_read_dead_letters_a_too_deep_json_line_and_reads_the_rest(tmp_path, capsys):
    path = petitions_with_a_deep_line(tmp_path)
    out = tmp_path / "p.jsonl"
    for fmt in ("petitions", "jsonl"):
        code = main(["read", "--format", fmt, str(path), "--out", str(out), "--option", "text_field=content",
                     "--max-dead-letter-fraction", "0.5"] if fmt == "jsonl" else
                    ["read", "--format", fmt, str(path), "--out", str(out), "--max-dead-letter-fraction", "0.5"])
        assert code == 0, fmt
        assert len(jsonl(out)) == 4
        (dead,) = jsonl(tmp_path / "p.jsonl.rejected.jsonl")
        assert (dead["path"], dead["line"], dead["reason"]) == (
            str(path), 3, "invalid_json: nested deeper than 1000 levels")
        assert dead["raw"].startswith('{"text": [[[')
    assert "invalid_json 1" in capsys.readouterr().out


def test_build_corpus_dead_letters_a_too_deep_json_line(tmp_path):
    path = petitions_with_a_deep_line(tmp_path)
    cfg = tmp_path / "p.yaml"
    cfg.write_text(f"sources:\n  - {{name: petitions, format: petitions, paths: ['{path}']}}\n"
                   "output: {num_shards: 1, max_dead_letter_fraction: 0.5}\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    stats = json.loads((out / "stats.json").read_text())["sources"]["petitions"]
    assert (stats["input"], stats["dead_lettered"]) == (5, 1)
    (dead,) = [r for f in sorted((out / "rejected").iterdir()) for r in jsonl(f) if r["reason"].startswith("invalid")]
    assert (dead["path"], dead["reason"]) == (str(path), "invalid_json: nested deeper than 1000 levels")
