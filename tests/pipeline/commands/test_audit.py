"""`kcorpus audit` on a small corpus built from real slices: kept documents diffed with their inputs, drops
sampled per rule, the same pages for the same seed, one line and exit 2 for a folder that is no corpus."""

import json
import shutil
from pathlib import Path

import pytest
from report_checks import korean_without_lang

from kcorpus.pipeline.cli import main as kcorpus
from kcorpus.pipeline.commands.build_corpus import run as build
from kcorpus.pipeline.corpus.audit import AuditJob, run_audit
from kcorpus.transforms.audit import DELETE, EQUAL
from testdata_paths import TESTDATA

# NSMC row 9283532's three idioms as the file writes them (CJK compatibility ideographs among them).
IDIOMS = next(
    line.split("\t")[1].rsplit(" ", 2)[0]
    for line in (TESTDATA / "quality" / "nsmc_scripts.tsv").read_text(encoding="utf-8").splitlines()
    if line.startswith("9283532\t")
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("audit")
    cfg = tmp / "audit.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: kowiki, format: wikiextractor, paths: ["{TESTDATA}/dedup/kowiki_stubs"], split_sentences: true,
      options: {{keep_stubs: true}}}}
  - {{name: nsmc, format: nsmc, paths: ["{TESTDATA}/quality/nsmc_scripts.tsv"]}}
  - {{name: petitions, format: petitions, paths: ["{TESTDATA}/quality/petitions_short_docs.jsonl"],
      split_sentences: true}}
output: {{num_shards: 2, dropped: all}}
""",
        encoding="utf-8",
    )
    out = tmp / "corpus"
    assert build(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    return out


def audit_of(corpus: Path, out: Path, **kwargs) -> dict:
    run_audit(AuditJob(corpus=str(corpus), out=str(out), **kwargs))
    return json.loads((out / "audit.json").read_text(encoding="utf-8"))


def test_kept_documents_come_with_their_diff_against_the_input(corpus, tmp_path):
    audit = audit_of(corpus, tmp_path / "a", per_source=10, per_rule=5)
    assert audit["input_notes"] == []
    kept = {row["id"]: row for rows in audit["kept"].values() for row in rows}
    assert set(kept) == {"kowiki:373", "kowiki:398", "kowiki:42", "nsmc:9283532", "petitions:1003"}
    assert all(row["diff"] is not None for row in kept.values())
    # The title line, under the 10-character floor, stays a line of the kept article: it arrives whole.
    assert [op for op, _ in kept["kowiki:42"]["diff"]] == [EQUAL]
    assert kept["kowiki:42"]["counts"]["removed_words"] == 0
    # The KcELECTRA whitelist removes the Hanja idioms and keeps the Korean that follows.
    assert kept["nsmc:9283532"]["diff"] == [[DELETE, IDIOMS], [EQUAL, "키리시마는 맥거핀~"]]
    assert kept["nsmc:9283532"]["counts"]["removed_words"] == 3


def test_drops_are_sampled_per_rule_with_their_evidence(corpus, tmp_path):
    audit = audit_of(corpus, tmp_path / "a", per_source=10, per_rule=1)
    assert audit["dropped_written"] == {
        "dedup:near_duplicate": 4,
        "filter:low_hangul (sentence)": 2,  # sentences removed inside kept documents, a group of their own
        "filter:script:han": 3,
        "filter:title_repeat": 1,
        "filter:too_short": 1,
    }
    assert all(len(records) == 1 for records in audit["dropped"].values())
    [repeat] = audit["dropped"]["filter:title_repeat"]
    assert repeat["id"] == "petitions:1172"
    [dup] = audit["dropped"]["dedup:near_duplicate"]
    assert dup["duplicate_of"]["id"] in {"kowiki:373", "kowiki:398"}
    md = (tmp_path / "a" / "audit.md").read_text(encoding="utf-8")
    assert f"[-{IDIOMS}-] 키리시마는 맥거핀~" in md
    assert "## Dropped: filter:title_repeat (1 of 1 in rejected/)" in md
    html = (tmp_path / "a" / "audit.html").read_text(encoding="utf-8")
    assert f'<del style="background:#fdd">{IDIOMS}</del>' in html
    assert korean_without_lang(html) == []


def test_the_same_seed_gives_the_same_pages(corpus, tmp_path):
    audit_of(corpus, tmp_path / "one", per_source=1, per_rule=1, seed=7)
    audit_of(corpus, tmp_path / "two", per_source=1, per_rule=1, seed=7)
    for name in ("audit.json", "audit.md", "audit.html"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_corpus_that_does_not_record_its_inputs_is_audited_without_diffs(corpus, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(corpus, old)
    stats = json.loads((old / "stats.json").read_text(encoding="utf-8"))
    del stats["inputs"]
    (old / "stats.json").write_text(json.dumps(stats), encoding="utf-8")
    audit = audit_of(old, tmp_path / "a", per_source=2)
    assert audit["input_notes"] == [
        "stats.json records no inputs (a corpus built by an older kcorpus): no diffs; rebuild it"
    ]
    assert all(row["diff"] is None and row["text"] for rows in audit["kept"].values() for row in rows)


def test_a_folder_that_is_no_corpus_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    assert kcorpus(["audit", str(tmp_path / "notes"), "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    expected = (
        f"kcorpus audit: error: {tmp_path / 'notes'} is not a build-corpus output (it has no stats.json and "
        "docs/); give the folder `kcorpus build-corpus --out` wrote"
    )
    assert err == [expected]
    assert not (tmp_path / "a").exists()


def test_the_audit_never_writes_into_the_corpus(corpus, tmp_path, capsys):
    before = sorted(p.relative_to(corpus) for p in corpus.rglob("*"))
    assert kcorpus(["audit", str(corpus), "--out", str(corpus / "audit")]) == 2
    assert "inside the input folder" in capsys.readouterr().err
    assert kcorpus(["audit", str(corpus), "--out", str(tmp_path / "a"), "--per-source", "1"]) == 0
    assert sorted(p.relative_to(corpus) for p in corpus.rglob("*")) == before
