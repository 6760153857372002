import filecmp
import json
import shutil
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from corpus_files import read_shard, rows

from kcorpus.pipeline.commands.build_corpus import run
from kcorpus.pipeline.corpus.build import run_build
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.marker import is_bookkeeping, write_marker
from kcorpus.pipeline.profile.load import load_config
from testdata_paths import ROOT, TESTDATA


def local_test_pipeline() -> TestPipeline:
    return TestPipeline(runner=FnApiRunner(), options=PipelineOptions([]))


def read_tree(out: Path) -> dict[str, bytes]:
    """Every output file's bytes, but kcorpus's ownership marker (which records when it was written)."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not is_bookkeeping(p.name)
    }


def docs_of(out: Path) -> list[dict]:
    return rows(out, "docs/*.jsonl")


def rejected_of(out: Path, prefix: str) -> list[dict]:
    return rows(out, f"rejected/{prefix}*.jsonl")


def planted_config(tmp_path: Path) -> Path:
    cfg = tmp_path / "planted.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: a, format: jsonl, paths: ["{TESTDATA}/planted/a.jsonl"], preset: kcelectra}}
  - {{name: b, format: jsonl, paths: ["{TESTDATA}/planted/b.jsonl"], preset: kcelectra}}
output: {{num_shards: 2}}
""",
        encoding="utf-8",
    )
    return cfg


def test_planted_exact_and_near_duplicates_keep_one_per_cluster(tmp_path):
    out = tmp_path / "out"
    assert (
        run(["--config", str(planted_config(tmp_path)), "--out", str(out), "--local-mode", "in_memory"]) == 0
    )
    kept = sorted(d["id"] for d in docs_of(out))
    assert kept == ["a:01", "a:04", "a:06", "a:07", "b:02", "b:04"]
    dups = {d["id"]: (d["reason"], d["duplicate_of"]["id"]) for d in rejected_of(out, "duplicates")}
    assert dups == {
        "a:02": ("near_duplicate", "a:01"),
        "a:03": ("near_duplicate", "a:01"),
        "a:05": ("exact_duplicate", "a:04"),
        "b:01": ("exact_duplicate", "a:04"),
        "b:03": ("near_duplicate", "b:02"),
    }
    assert [(d["id"], d["reason"]) for d in rejected_of(out, "dropped")] == [("a:08", "too_short")]
    stats = json.loads((out / "stats.json").read_text())
    assert stats["total"]["input"] == 12 and stats["total"]["reconciled"]
    assert stats["total"]["dropped_by_reason"] == {"exact_duplicate": 2, "near_duplicate": 3, "too_short": 1}


def test_per_source_scope_keeps_cross_source_copies(tmp_path):
    out = tmp_path / "out"
    config = load_config(
        str(planted_config(tmp_path)), ["dedup.exact.scope=per_source", "dedup.near.enabled=false"]
    )
    stats = run_build(config, str(out), local_mode="in_memory")
    assert stats["total"]["dropped_by_reason"] == {"exact_duplicate": 1, "too_short": 1}
    assert "b:01" in {d["id"] for d in docs_of(out)}


def test_renamed_copies_of_the_input_are_dropped_and_reused_ids_flagged(tmp_path, capsys):
    """A file delivered again under another name (a new month that repeats the old one) holds the same ids:
    dedup compares records, not ids, so the copies are dropped and the kept documents are those of one copy.
    A record that reuses an id with another text is kept, and the summary says so."""
    copies = tmp_path / "next-month"
    copies.mkdir()
    for name in ("a", "b"):
        shutil.copy(TESTDATA / "planted" / f"{name}.jsonl", copies / f"{name}-copy.jsonl")
    revised = {"id": "07", "text": "극장에서 놓쳤던 영화를 드디어 봤는데 기대 이상으로 좋아서 두 번 봤어요"}
    (copies / "a-revised.jsonl").write_text(json.dumps(revised, ensure_ascii=False) + "\n", encoding="utf-8")
    cfg = tmp_path / "twice.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: a, format: jsonl, paths: ["{TESTDATA}/planted/a.jsonl", "{copies}/a-*.jsonl"], preset: kcelectra}}
  - {{name: b, format: jsonl, paths: ["{TESTDATA}/planted/b.jsonl", "{copies}/b-copy.jsonl"], preset: kcelectra}}
output: {{num_shards: 2}}
""",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    kept = sorted((d["id"], d["text"]) for d in docs_of(out))
    once = [("a:01",), ("a:04",), ("a:06",), ("a:07",), ("b:02",), ("b:04",)]
    assert [(doc_id,) for doc_id, _ in kept] == sorted([*once, ("a:07",)])
    assert ("a:07", revised["text"]) in kept
    stats = json.loads((out / "stats.json").read_text())
    assert stats["total"]["input"] == 25 and stats["total"]["reconciled"]
    # Each kept document's copy is an exact duplicate of it; each dropped record's copy is dropped alike.
    assert stats["total"]["dropped_by_reason"] == {"exact_duplicate": 10, "near_duplicate": 6, "too_short": 2}
    copies_of_kept = [d for d in rejected_of(out, "duplicates") if d["duplicate_of"]["id"] == d["id"]]
    assert sorted(d["id"] for d in copies_of_kept) == [doc_id for (doc_id,) in once]
    assert stats["sources"]["a"]["counters"]["write:kept_shared_id"] == 1
    assert "warning: source 'a': 1 kept documents reuse the id of another kept document" in capsys.readouterr().out


def test_existing_output_needs_overwrite(tmp_path):
    out = tmp_path / "out"
    config = load_config(str(planted_config(tmp_path)), ["dedup.near.enabled=false"])
    (out / "text").mkdir(parents=True)
    (out / "text" / "part-00000-of-00009.txt.zst").write_text("stale")
    write_marker(str(out), "build-corpus")  # a previous build-corpus output
    with pytest.raises(OutputError, match="--overwrite"):
        run_build(config, str(out), local_mode="in_memory")
    run_build(config, str(out), local_mode="in_memory", overwrite=True)
    # The stale shard was the build's own kind of file: it goes, and this build writes no text/ (the default).
    assert not (out / "text").exists()
    assert sorted(p.name for p in (out / "docs").iterdir()) == [
        "part-00000-of-00002.jsonl.zst",
        "part-00001-of-00002.jsonl.zst",
    ]
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp")]


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample") / "out"
    code = run(
        ["--config", str(ROOT / "configs" / "sample.yaml"), "--out", str(out), "--local-mode", "in_memory", "--text"]
    )
    assert code == 0
    return out


@pytest.mark.slow
def test_sample_end_to_end_exact_counts(sample_run):
    stats = json.loads((sample_run / "stats.json").read_text())
    total = stats["total"]
    assert total["reconciled"]
    assert total["input"] == total["kept"] + total["dropped"] + total["dead_lettered"]
    assert {k: v for k, v in total.items() if k not in ("counters", "reconciled")} == EXPECTED_TOTAL
    assert {name: s["input"] for name, s in stats["sources"].items()} == EXPECTED_INPUTS
    assert {name: s["kept"] for name, s in stats["sources"].items()} == EXPECTED_KEPT
    near_pairs = {k: v for k, v in total["counters"].items() if k.startswith("dedup:near_")}
    assert near_pairs == EXPECTED_NEAR_PAIRS
    out = sample_run
    assert sorted(p.name for p in (out / "text").iterdir()) == [
        f"part-0000{i}-of-00004.txt.zst" for i in range(4)
    ]
    assert sorted(p.name for p in (out / "docs").iterdir()) == [
        f"part-0000{i}-of-00004.jsonl.zst" for i in range(4)
    ]
    docs = docs_of(out)
    assert len(docs) == total["kept"]
    assert all(set(d) == {"id", "text", "source", "metadata"} for d in docs)
    # Sorted by id inside each shard; one sentence per line, one blank line between documents.
    for i in range(4):
        ids = [(d["id"], d["source"]) for d in rows(out, f"docs/part-0000{i}-of-00004.jsonl")]
        assert ids == sorted(ids)
    text = read_shard(out, "text/part-00000-of-00004.txt")
    first_docs = [d["text"] for d in rows(out, "docs/part-00000-of-00004.jsonl")]
    assert text == "\n".join(t + "\n" for t in first_docs)
    assert sum(len(t.split("\n")) for t in (d["text"] for d in docs)) == total["sentences"]
    dropped = rejected_of(out, "dropped") + rejected_of(out, "duplicates")
    # Sentences removed from kept documents are written too (`dropped: all`), with their level, and so are the
    # spans a removal took from one when they hold Hangul (petitions' moderator notices).
    removed = [r for r in dropped if r.get("level") == "sentence"]
    spans = [r for r in dropped if r.get("level") == "span"]
    assert len(dropped) - len(removed) - len(spans) == total["dropped"]
    assert len(removed) == sum(f.get("sentences", 0) for f in total["removed_inside_kept"].values())
    assert sorted({(r["stage"], r["reason"]) for r in spans}) == [("boilerplate", "petitions:admin_notice")]
    assert len(spans) == total["removed_inside_kept"]["boilerplate:petitions:admin_notice"]["spans"]
    # The floor is each comment's; in the split sources it is the document's (a title line may be shorter).
    assert all(len(t) >= 10 for d in docs if d["source"] == "nsmc" for t in d["text"].split("\n"))
    assert all(max(map(len, d["text"].split("\n"))) >= 10 for d in docs)


@pytest.mark.slow
def test_a_corpus_without_text_trains_the_same_vocabulary(sample_run, tmp_path):
    # text/ is optional (output.text): train-vocab then reads the same sentences from docs/.
    from kcorpus.pipeline.cli import main as cli

    docs_only = tmp_path / "docs_only"
    shutil.copytree(sample_run, docs_only, ignore=shutil.ignore_patterns("text"))
    vocabs = {}
    for name, corpus in (("text", sample_run), ("docs", docs_only)):
        out = tmp_path / f"vocab-{name}"
        argv = ["train-vocab", "--kind", "wordpiece", "--vocab-size", "6000", "--input", str(corpus), "--out", str(out)]
        assert cli(argv) == 0
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        vocabs[name] = ((out / "vocab.txt").read_bytes(), manifest["input"]["sentences"], manifest["input"]["files"])
    assert vocabs["docs"][:2] == vocabs["text"][:2]
    assert [Path(f["path"]).parent.name for f in vocabs["docs"][2]] == ["docs"] * 4
    assert [Path(f["path"]).parent.name for f in vocabs["text"][2]] == ["text"] * 4


@pytest.mark.slow
def test_runs_and_modes_give_byte_identical_output(sample_run, tmp_path):
    # A second run, multi-processing with two workers and other batch sizes: other bundling, same bytes.
    multi = tmp_path / "multi"
    assert (
        run(
            [
                "--config",
                str(ROOT / "configs" / "sample.yaml"),
                "--out",
                str(multi),
                "--local-mode",
                "multi_processing",
                "--batch-size",
                "250",
                "--text",
                "--",
                "--direct_num_workers=2",
            ]
        )
        == 0
    )
    reference = read_tree(sample_run)
    assert len(reference) == 4 + 4 + 9 + 1 + 2  # text, docs, rejected, stats.json, examples (.jsonl, .md)
    assert read_tree(multi) == reference
    assert filecmp.cmp(sample_run / "stats.json", multi / "stats.json", shallow=False)


EXPECTED_TOTAL = {
    "input": 10812,
    "kept": 9702,
    "dropped": 1110,
    "dead_lettered": 0,
    "dropped_by_reason": {
        # Date and year pages, and a disambiguation page, that WikiExtractor left without their lists.
        "calendar_stub": 4,
        "empty_disambiguation": 1,
        # Gopher's document repetition rules: petitions pasted two or three times over. The n-gram rules
        # start at 300 eojeol.
        "dup_line_chars": 1,
        "dup_lines": 3,
        "empty": 15,
        "exact_duplicate": 25,
        "low_hangul": 48,  # measured over letters: punctuation runs no longer doom a line
        "near_duplicate": 13,
        "ooo_only": 2,
        "repetitive": 18,  # true spam only: parallel constructions are kept
        "script:kana": 1,  # Japanese spam, `low_hangul` before
        # a one-sentence article under a title of 10+ characters (kowiki:149): a title is no sentence
        "too_few_sentences": 1,
        # punctuation runs squeezed: "아휴 진짜......" is 8 characters, not 38; in the split sources a short
        # sentence joins its neighbour (petition 859, a period after every word, is kept whole)
        "too_short": 978,
    },
    # Split sources keep their short sentences, joined to a neighbour, and titles and headings as lines;
    # sentences that hold a WikiExtractor formula_N placeholder are kept with `[수식]` in its place (451 sentences
    # were dropped as `placeholder` before: 22,153 lines then), and 9 Korean sentences full of Latin names no
    # longer fall to `low_hangul`.
    # and Kiwi-like splits (issue 24 item 5); 22592 before the gold-tuned splitter (issue 30 items 1-2); 22595 before
    # its glued endings, mixed quotes, `- ` list items and ellipsis rules and the fidelity read's fixes (the connective
    # -다(가), list items glued by periods, a title is no sentence)
    "sentences": 22606,
    "removed_inside_kept": {
        # Sentences the filters took out of kept documents.
        "empty": {"sentences": 1, "characters": 72},  # a URL
        "low_hangul": {"sentences": 14, "characters": 493},  # signatures (`kakao-…`), Latin headings, LaTeX
        # Spans taken out of (or replaced in) kept documents, per rule: petitions' moderator notices, what
        # WikiExtractor left (links, tags, emptied brackets), the URLs, invisible characters and repeats the
        # cleaners took, what the kcelectra whitelist made spaces in NSMC comments, the formula_N placeholders
        # replaced (808) or cut with the bracket that held them alone or the line they were alone on (33), and
        # punctuation runs squeezed.
        "boilerplate:petitions:admin_notice": {"spans": 5, "characters": 351},
        "boilerplate:wikiextractor:bracket_separators": {"spans": 39, "characters": 97},
        "boilerplate:wikiextractor:bracket_trailing_separators": {"spans": 61, "characters": 132},
        "boilerplate:wikiextractor:empty_brackets": {"spans": 100, "characters": 209},
        "boilerplate:wikiextractor:empty_quotes": {"spans": 2, "characters": 6},
        "boilerplate:wikiextractor:html_tag": {"spans": 1, "characters": 7},
        "boilerplate:wikiextractor:ref_tag": {"spans": 1, "characters": 107},
        "boilerplate:wikiextractor:wikilink": {"spans": 89, "characters": 1133},
        "clean:invisible": {"spans": 3, "characters": 3},
        "clean:repeats": {"spans": 191, "characters": 859},
        "clean:url": {"spans": 26, "characters": 1114},
        "clean:whitelist": {"spans": 130, "characters": 167},
        "prepare:placeholders": {"spans": 841, "characters": 4837},
        "prepare:punctuation_runs": {"spans": 689, "characters": 2509},
    },
}
EXPECTED_INPUTS = {"kowiki": 124, "nsmc": 10352, "petitions": 336}
EXPECTED_KEPT = {"kowiki": 107, "nsmc": 9294, "petitions": 301}
# LSH candidate pairs (distinct, identical signatures included) vs those verified by estimated Jaccard;
# the 4 rejected are 2 NSMC and 2 petition pairs at exact 5-gram Jaccard 0.44-0.70.
EXPECTED_NEAR_PAIRS = {"dedup:near_candidates": 43, "dedup:near_rejected": 4, "dedup:near_verified": 39}


def test_bad_input_is_dead_lettered_with_location_and_counts_reconcile(tmp_path):
    cfg = tmp_path / "faults.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: nsmc, format: nsmc, paths: ["{TESTDATA}/readers/faults/nsmc_faults.txt"]}}
  - {{name: missing, format: jsonl, paths: ["{tmp_path}/no_such_dir/*.jsonl"], allow_missing: true}}
output: {{num_shards: 1}}
""",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    # 6 of 9 nsmc records dead-lettered is data loss (exit 1); `missing` may read nothing (allow_missing).
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 1
    stats = json.loads((out / "stats.json").read_text())
    total = stats["total"]
    assert (total["input"], total["kept"], total["dropped"], total["dead_lettered"]) == (9, 0, 2, 7)
    assert stats["sources"]["missing"]["dead_lettered"] == 1
    dead = rejected_of(out, "dead_letter")
    assert len(dead) == 7
    assert all(d["path"] and d["reason"] and d["stage"] == "read" for d in dead)
    assert {d["offset"] for d in dead if d["source"] == "nsmc"} == {35, 60, 73, 97, 109, 138}
    assert [(d["id"], d["stage"], d["reason"]) for d in rejected_of(out, "dropped")] == [
        ("nsmc:1001", "filter", "too_short"),
        ("nsmc:1007", "read", "empty"),
    ]


def test_documents_are_prepared_in_the_step_that_reads_them():
    # The local runner pickles and buffers every input of a multi-input Flatten or shuffle: no Flatten or
    # shuffle may sit between reading the documents and preparing them. Line files and WikiExtractor files
    # are all read in input units (byte ranges, pipeline/corpus/units.py) by the one step that prepares them,
    # the units spread over the workers first, so one large file does not run in one bundle either.
    from kcorpus.pipeline.corpus.build import BuildCorpus

    config = load_config(str(ROOT / "configs" / "sample.yaml"))
    pipeline = beam.Pipeline()
    _ = pipeline | "BuildCorpus" >> BuildCorpus(config, "/unused", "/unused/tmp")
    components = pipeline.to_runner_api().components
    producer = {
        pcoll: t for t in components.transforms.values() if not t.subtransforms for pcoll in t.outputs.values()
    }
    prepares = {t.unique_name: t for t in producer.values() if "/PrepareDocuments/" in t.unique_name}
    assert sorted(prepares) == ["BuildCorpus/ReadAndPrepare/PrepareDocuments/PrepareUnits/ParDo(PrepareUnitFn)"]
    inputs = [producer[next(iter(t.inputs.values()))].unique_name for _, t in sorted(prepares.items())]
    assert inputs == ["BuildCorpus/ReadAndPrepare/Read[nsmc,petitions,kowiki]/SpreadUnits/RemoveRandomKeys"]


@pytest.mark.slow
@pytest.mark.parametrize("batch_size,workers", [(100, 4), (250, 3), (1000, 8)])
def test_multi_threading_loses_no_document(sample_run, tmp_path, batch_size, workers):
    # The document loss seen once in multi_threading mode: worker threads share one process, so per-bundle
    # DoFn state (spill buffers, run file names) or shared module state would show here as a missing or
    # changed shard. Several bundlings and thread counts, each byte-identical to the in-memory run.
    out = tmp_path / "threads"
    argv = ["--config", str(ROOT / "configs" / "sample.yaml"), "--out", str(out), "--local-mode", "multi_threading",
            "--batch-size", str(batch_size), "--text", "--", f"--direct_num_workers={workers}"]
    assert run(argv) == 0
    assert read_tree(out) == read_tree(sample_run)
    assert filecmp.cmp(sample_run / "stats.json", out / "stats.json", shallow=False)
