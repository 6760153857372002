import json
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from corpus_files import rows

from kcorpus.pipeline.commands.build_corpus import run
from kcorpus.pipeline.corpus.build import run_build
from kcorpus.pipeline.corpus.decontaminate import BuildEvalIndex
from kcorpus.pipeline.profile.load import load_config
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig
from testdata_paths import TESTDATA

FIXTURE = TESTDATA / "decontaminate"
# Every planted evaluation comment (tests/testdata/decontaminate/README.md), and the one it copies.
PLANTED = {
    "comments:99000001": ("eval:6825595", "whole text"),
    "comments:99000002": ("eval:9504429", "30 letters"),
    "comments:99000003": ("eval:6825595", "whole text"),
    "petitions:990001": ("eval:6900881", "13 eojeol"),
    "petitions:990002": ("eval:9933994", "30 letters"),
    "petitions:990003": ("eval:8425305", "whole text"),
    "petitions:990004": ("eval:9305768", "13 eojeol"),
    "petitions:990005": ("eval:6829990", "30 letters"),
}


def profile(tmp_path: Path, action: str = "drop", eval_paths: str = "nsmc_test_eval.txt") -> Path:
    cfg = tmp_path / "decontaminate.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: comments, format: nsmc, paths: ["{FIXTURE}/comments.txt"]}}
  - {{name: petitions, format: petitions, paths: ["{FIXTURE}/petitions.jsonl"], split_sentences: true}}
dedup:
  decontaminate: {{paths: ["{FIXTURE}/{eval_paths}"], format: nsmc, action: {action}}}
output: {{num_shards: 2}}
""",
        encoding="utf-8",
    )
    return cfg


def jsonl(out: Path, pattern: str) -> list[dict]:
    return rows(out, pattern)


@pytest.fixture(scope="module")
def decontaminated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("decontaminate")
    out = tmp / "out"
    assert run(["--config", str(profile(tmp)), "--out", str(out), "--local-mode", "in_memory"]) == 0
    return out


@pytest.mark.slow
def test_planted_eval_comments_are_dropped_as_contaminated_and_nothing_else(decontaminated):
    rejected = [r for r in jsonl(decontaminated, "rejected/dropped-*.jsonl") if r["reason"] == "contaminated"]
    assert {r["id"]: (r["contaminated_by"]["id"], r["contaminated_by"]["match"]) for r in rejected} == PLANTED
    assert all(r["stage"] == "decontaminate" for r in rejected)
    kept = {d["id"] for d in jsonl(decontaminated, "docs/*.jsonl")}
    assert not kept & set(PLANTED)
    assert "petitions:990006" in kept  # a short eval text inside a longer sentence is not contamination
    # A 13-letter evaluation review is under `min_chars` (15): texts that short are shared stock phrases.
    assert "comments:99000004" in kept


def test_rejected_records_quote_the_matching_lines(decontaminated):
    by_id = {r["id"]: r for r in jsonl(decontaminated, "rejected/dropped-*.jsonl")}
    assert (
        by_id["petitions:990003"]["contaminated_by"]["text"]
        == "한국독립영화의 한계 그렇게 아버지가 된다와 비교됨"
    )
    assert by_id["comments:99000003"]["text"] == "지루하지는않은데 완전 막장임. 돈주고 보기에는…"


def test_counts_reconcile_per_source(decontaminated):
    stats = json.loads((decontaminated / "stats.json").read_text(encoding="utf-8"))
    assert stats["total"]["reconciled"]
    for name, contaminated in (("comments", 3), ("petitions", 5)):
        block = stats["sources"][name]
        assert block["dropped_by_reason"]["contaminated"] == contaminated
        assert block["counters"]["decontaminate:dropped:contaminated"] == contaminated
        assert block["counters"]["decontaminate:checked"] == block["counters"]["filter:kept"]
        assert block["input"] == block["kept"] + block["dropped"] + block["dead_lettered"]
    assert stats["decontaminate"] == {
        "paths": [str(FIXTURE / "nsmc_test_eval.txt")],
        "format": "nsmc",
        "action": "drop",
        "eval_texts": 400,
        "eval_dead_lettered": 0,
        "eval_texts_by_match": {"eojeol": 62, "chars": 41, "whole": 160, "too_short": 137},
    }


def test_without_decontamination_only_planted_documents_come_back(tmp_path, decontaminated):
    config = load_config(str(profile(tmp_path)), ["dedup.decontaminate.paths=[]"])
    out = tmp_path / "out"
    stats = run_build(config, str(out), local_mode="in_memory")
    assert "contaminated" not in stats["total"]["dropped_by_reason"]
    assert "decontaminate" not in stats
    without = {d["id"] for d in jsonl(out, "docs/*.jsonl")}
    with_check = {d["id"] for d in jsonl(decontaminated, "docs/*.jsonl")}
    assert with_check < without
    # Planted copies that dedup does not remove anyway (the others are near duplicates of their petition).
    assert without - with_check == {
        "comments:99000001",
        "comments:99000002",
        "comments:99000003",
        "petitions:990001",
        "petitions:990002",
    }


def test_redact_removes_the_matching_lines_and_keeps_the_rest(tmp_path):
    out = tmp_path / "out"
    # Without dedup: a redacted petition is a near duplicate of the petition it was built from.
    config = load_config(str(profile(tmp_path, "redact")), ["dedup.near.enabled=false"])
    stats = run_build(config, str(out), local_mode="in_memory")
    docs = {d["id"]: d["text"] for d in jsonl(out, "docs/*.jsonl")}
    assert "한국독립영화의 한계 그렇게 아버지가 된다와 비교됨" not in docs["petitions:990003"].split("\n")
    assert docs["petitions:990003"].startswith("DDT농가에 대한 배려\n")
    counters = stats["total"]["counters"]
    assert counters["decontaminate:redacted"] == 5  # the petitions; each comment is one line: dropped
    assert stats["total"]["dropped_by_reason"]["contaminated"] == 3
    assert stats["total"]["reconciled"]


def test_missing_eval_files_fail_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["--config", str(profile(tmp_path, eval_paths="no-such-eval-*.txt")), "--out", str(out)]
    assert run([*args, "--local-mode", "in_memory"]) == 2
    assert not out.exists()
    pattern = str(FIXTURE / "no-such-eval-*.txt")
    assert capsys.readouterr().err == (
        f"kcorpus build-corpus: error: dedup.decontaminate.paths: no file matches {pattern!r}\n"
    )


def test_eval_files_that_give_no_text_fail_the_run(tmp_path):
    empty = tmp_path / "header_only.txt"
    empty.write_text("id\tdocument\tlabel\n", encoding="utf-8")
    config = load_config(str(profile(tmp_path)), [f"dedup.decontaminate.paths=[{empty}]"])
    with pytest.raises(Exception, match="dedup.decontaminate: no evaluation text was read from"):
        run_build(config, str(tmp_path / "out"), local_mode="in_memory")


def test_build_eval_index_reads_with_the_corpus_readers():
    config = DecontaminateConfig(paths=(str(FIXTURE / "nsmc_test_eval.txt"),), format="nsmc")
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        built = p | BuildEvalIndex(config)
        ids = built["index"] | beam.Map(lambda index: (len(index.ids), index.ids[0], dict(index.counts)))
        assert_that(
            ids,
            equal_to([(400, "eval:10017929", {"eojeol": 62, "chars": 41, "whole": 160, "too_short": 137})]),
        )


def test_build_corpus_leaves_examples_of_every_rule(decontaminated):
    rows = jsonl(decontaminated, "examples/examples.jsonl")
    rules = {(r["kind"], r["rule"]) for r in rows}
    assert {("document_drop", "contaminated"), ("document_drop", "too_short"), ("rewrite", "clean")} <= rules
    contaminated = [r for r in rows if r["rule"] == "contaminated"]
    assert len(contaminated) == 8 and {r["id"] for r in contaminated} == set(PLANTED)
    assert all(sum(1 for r in rows if (r["kind"], r["rule"]) == rule) <= 10 for rule in rules)
    assert rows == sorted(rows, key=lambda r: (r["kind"], r["rule"])) and len(rows) == len(
        {(r["kind"], r["rule"], r["id"], r["before"]) for r in rows}
    )
    md = (decontaminated / "examples" / "examples.md").read_text(encoding="utf-8")
    assert (
        "| petitions:990003 | 한국독립영화의 한계 그렇게 아버지가 된다와 비교됨 | eval:8425305 (whole text) |"
        in md
    )


def test_kcorpus_run_reruns_the_corpus_when_the_eval_files_change():
    from kcorpus.pipeline.profile.validate import profile_from_dict
    from kcorpus.pipeline.run.stages import plan_stages

    raw = {
        "sources": [{"name": "c", "format": "nsmc", "paths": ["corpus.txt"]}],
        "dedup": {"decontaminate": {"paths": ["eval/test.txt"], "format": "nsmc"}},
        "vocab": {"kind": "wordpiece", "vocab_size": 1000},
    }
    corpus = plan_stages(profile_from_dict(raw, base_dir="/data"))[0]
    assert corpus.name == "corpus" and corpus.inputs == ("/data/corpus.txt", "/data/eval/test.txt")
