"""build-corpus end to end with the preparation rewrites and repetition rules: what reaches text/, and the
counters that say what each rule did."""

import json

from corpus_files import read_shard

from kcorpus.pipeline.commands.build_corpus import run
from testdata_paths import TESTDATA


def test_rewrites_and_repetition_rules_end_to_end(tmp_path):
    cfg = tmp_path / "quality.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: q, format: jsonl, paths: ["{TESTDATA}/quality/prepare_rules.jsonl"]}}
filters: {{masks: replace}}
dedup: {{near: {{enabled: false}}}}
output: {{num_shards: 1, text: true}}
""",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    stats = json.loads((out / "stats.json").read_text())["total"]
    assert stats["reconciled"]
    assert stats["dropped_by_reason"] == {"repetitive": 1, "dup_paragraphs": 1}
    rewritten = {k: v for k, v in stats["counters"].items() if k.startswith("prepare:rewritten:")}
    assert rewritten == {
        "prepare:rewritten:control_chars": 1,
        "prepare:rewritten:masks": 1,
        "prepare:rewritten:punctuation_runs": 1,
    }
    text = read_shard(out, "text/part-00000-of-00001.txt")
    assert sorted(line for line in text.split("\n") if line) == [
        "JSON에서 온 NUL 문자와 색깔 코드가 섞인 댓글입니다",
        "OOO 같은 소리 하고 있네 진짜로 평가과 OOO씨에게",
        "뭘 했길래... 입술이...",
        "완벽한 스토리, 완벽한 연기",
    ]
