import json
from pathlib import Path

from corpus_files import rows

from kcorpus.pipeline.commands.build_corpus import run
from testdata_paths import TESTDATA


def build(tmp_path: Path, dropped: str, rate: float = 0.01) -> Path:
    cfg = tmp_path / f"whole_{dropped}.yaml"
    cfg.write_text(
        f"""
sources:
  - name: petitions
    format: petitions
    paths: ["{TESTDATA}/whole_docs/petitions_2017-08_lines"]
    preset: kcelectra
    split_sentences: true
filters: {{min_chars: 10, max_chars: 1000, min_sentences: 2}}
output: {{num_shards: 2, dropped: {dropped}, dropped_sample_rate: {rate}}}
""",
        encoding="utf-8",
    )
    out = tmp_path / dropped
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    return out


def records(out: Path, folder: str) -> list[dict]:
    return rows(out, f"{folder}/*.jsonl")


def test_sentences_removed_from_kept_documents_are_written_and_their_characters_reconcile(tmp_path):
    out = build(tmp_path, "all")
    kept = {d["id"]: d["text"].split("\n") for d in records(out, "docs")}
    assert len(kept) == 9
    assert "제가 다니는 학교가 이상하다고요? 아닙니다." in kept["petitions:696"]
    removed = [r for r in records(out, "rejected") if r.get("level") == "sentence"]
    assert sorted((r["id"], r["reason"], r["text"]) for r in removed) == [
        ("petitions:672", "low_hangul", "NO KID ZONE??!!!"),
        ("petitions:672", "low_hangul", "NO KID ZONE???"),
        ("petitions:677", "empty", "ㆍ" * 22),  # the sentence as it was before cleaning emptied it
        ("petitions:862", "empty", "http://blog.naver.com/PostView.nhn?blogId=yitoday3391&logNo=221053494355"),
        ("petitions:869", "repetitive", "제발 제발 제발..."),
    ]
    assert all(r["source"] == "petitions" and r["stage"] == "filter" and r["id"] in kept for r in removed)
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    by_rule: dict[str, dict[str, int]] = {}
    for r in removed:
        figures = by_rule.setdefault(r["reason"], {"sentences": 0, "characters": 0})
        figures["sentences"] += 1
        figures["characters"] += len(r["text"])
    inside = stats["total"]["removed_inside_kept"]
    assert stats["sources"]["petitions"]["removed_inside_kept"] == inside
    assert {rule: f for rule, f in inside.items() if ":" not in rule} == by_rule
    counters = stats["total"]["counters"]
    assert {k: v for k, v in counters.items() if k.startswith("filter:chars_removed:")} == {
        f"filter:chars_removed:{rule}": f["characters"] for rule, f in by_rule.items()
    }
    # Spans taken out of kept documents, per rule: the moderator's notice (written to rejected/: it is Korean),
    # what the kcelectra whitelist made spaces (Hanja, curly quotes, ①), punctuation runs squeezed.
    assert {rule: f for rule, f in inside.items() if ":" in rule} == {
        "boilerplate:petitions:admin_notice": {"spans": 1, "characters": 70},
        "clean:whitelist": {"spans": 16, "characters": 16},
        "prepare:punctuation_runs": {"spans": 9, "characters": 14},
    }
    spans = [r for r in records(out, "rejected") if r.get("level") == "span"]
    assert [(r["id"], r["stage"], r["reason"], r["text"]) for r in spans] == [(
        "petitions:669", "boilerplate", "petitions:admin_notice",
        "(본문의 내용중 타인의 명의 등 개인정보가 무분별하게 노출되어 해당 내용은 홈페이지 관리자에 의해 '숨김' 처리 되었습니다.)",
    )]  # fmt: skip
    assert stats["total"]["reconciled"] and stats["total"]["kept"] + stats["total"]["dropped"] == 9


def test_sentence_records_are_sampled_with_their_document_and_always_counted(tmp_path):
    # Sample keys (blake2b of the node) of the documents that lose a sentence: 672 0.41, 677 0.13, 862 0.35,
    # 869 0.25; a rate of 0.3 keeps the records of 677 and 869 only, every one of a document or none.
    out = build(tmp_path, "sample", 0.3)
    removed = [r for r in records(out, "rejected") if r.get("level") == "sentence"]
    assert sorted((r["id"], r["reason"]) for r in removed) == [
        ("petitions:677", "empty"),
        ("petitions:869", "repetitive"),
    ]
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert stats["total"]["removed_inside_kept"]["low_hangul"] == {"sentences": 2, "characters": 30}
