"""The run report on fixture stage outputs shaped like the contracts (tests/testdata/run_report/)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from corpus_files import shard_rows
from report_checks import korean_without_lang, literal_markdown

from kcorpus.pipeline.report.render import svg_hbars
from kcorpus.pipeline.run.report import (
    Histogram,
    load_vocab_tokens,
    scan_documents,
    vocab_summary,
    write_report,
)
from run_fixtures import IN_MEMORY
from testdata_paths import TESTDATA


@pytest.fixture
def run_dir(testdata: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(testdata / "run_report", out)
    return out


def test_report_figures_on_fixture_outputs(run_dir: Path) -> None:
    html_path, md_path = map(Path, write_report(run_dir))
    data = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))

    assert {k: v["status"] for k, v in data["stages"].items()} == dict.fromkeys(
        ("corpus", "vocab", "vocab-report", "pack"), "complete"
    )
    scan = data["corpus"]["scan"]
    assert scan["documents"] == {"nsmc": 2, "kowiki": 1, "petitions": 1}
    assert scan["characters"] == {"nsmc": 35, "kowiki": 73, "petitions": 36}
    assert scan["sentences"] == {"nsmc": 2, "kowiki": 3, "petitions": 2}
    assert scan["sentence_chars"]["counts"] == [0, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0]
    assert scan["sentences_per_doc"] == {
        "labels": ["1", "2", "3", "4-5", "6-10", "11-20", "21-50", "51-100", "101+"],
        "counts": [2, 1, 1, 0, 0, 0, 0, 0, 0],
    }
    assert scan["doc_chars"]["counts"][:2] == [3, 1]
    assert data["corpus"]["dedup"] == [["exact_duplicate", 2, 0.2], ["near_duplicate", 1, 0.1]]
    assert data["vocab"]["summary"] == {
        "size": 14,
        "special_tokens": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
        "unused_slots": 1,
        "continuation_pieces": 3,
        "word_start_pieces": 0,
        "hangul_pieces": 5,
        "single_hangul_syllables": 3,
        "latin_pieces": 2,
        "mean_piece_chars": 1.5,
    }
    assert data["pack"]["lengths"]["counts"] == [0, 0, 0, 1, 1, 0, 0, 1, 0]

    md = md_path.read_text(encoding="utf-8")
    assert "| 10 | 4 | 5 | 1 | yes |" in md
    assert "| nsmc | 6 |  | 2 | 35 | 2 | 3 | 1 |" in md
    assert "| exact_duplicate | 2 | 20.00% |" in md
    assert "| padding_fraction | 41.67% |" in md
    assert "padding is 41.7% of the 8-token positions (layout " in md
    assert "| jaccard | 0.0003 |" in md
    assert "| total |  | 21.5 |  |  |" in md

    page = html_path.read_text(encoding="utf-8")
    assert page.count("<svg") == 11
    # Readable offline: nothing fetched, nothing executed.
    assert not re.search(r"<script|<link|<img|src=|@import|url\(", page)
    assert set(re.findall(r"https?://[^\"' ]+", page)) == {"http://www.w3.org/2000/svg"}


def test_results_come_first_and_settings_last_folded(run_dir: Path) -> None:
    html_path, md_path = map(Path, write_report(run_dir, profile="/somewhere/p.yaml"))
    md = md_path.read_text(encoding="utf-8")
    assert re.findall(r"^## (.*)$", md, re.MULTILINE) == [
        "Summary", "Corpus: documents in and out", "Drops per rule", "Sentence and length histograms",
        "Vocabulary", "Packed sequences", "Stages", "Examples: what each rule did",
        "Settings: the profile and thresholds used",
    ]  # fmt: skip
    assert md.split("## Summary\n\n", 1)[1].split("\n\n", 1)[0].splitlines() == [
        "| what | result |",
        "|---|---|",
        "| stages | 4 of 4 complete (21.5 s) |",
        "| documents | 10 in, 4 kept (40.00%), 5 dropped, 1 dead-lettered |",
        "| corpus out | 4 documents, 7 sentences, 144 characters |",
        "| vocabulary | wordpiece, 14 tokens; 1.80 tokens per eojeol, [UNK] 0.20% |",
        "| packed | 3 sequences of up to 8 tokens, 14 tokens, padding 41.67%, 0 tokens dropped |",
    ]
    page = html_path.read_text(encoding="utf-8")
    headings = re.findall(r"<h2 id=\"([a-z-]+)\"", page)
    assert headings[0] == "summary" and headings[-1] == "settings"
    # The settings are folded, the last section of the page.
    details = page.index('<details><summary><h2 id="settings">')
    assert page.count("<details>") == 1 and page.rindex("<h2") == details + len("<details><summary>")


def test_report_on_an_interrupted_run(run_dir: Path) -> None:
    shutil.rmtree(run_dir / "pack")
    (run_dir / "pack.partial").mkdir()
    shutil.rmtree(run_dir / "vocab-report")
    _, md_path = map(Path, write_report(run_dir))
    md = md_path.read_text(encoding="utf-8")
    assert "| pack | incomplete (killed or failed) |" in md
    assert "| vocab-report | not run |" in md
    assert "> pack has not completed." in md
    assert "> No reference vocabulary in the profile: no overlap report." in md


def test_scan_budget_reads_whole_shards_and_says_so(run_dir: Path) -> None:
    docs = run_dir / "corpus" / "docs"
    shard = docs / "part-00000-of-00001.jsonl"
    shard.rename(docs / "part-00000-of-00002.jsonl")
    (docs / "part-00001-of-00002.jsonl").write_text(
        json.dumps({"id": "x", "text": "다른 조각의 문장입니다", "source": "nsmc", "metadata": {}}) + "\n",
        encoding="utf-8",
    )
    assert scan_documents(run_dir / "corpus").documents["nsmc"] == 3
    partial = scan_documents(run_dir / "corpus", max_bytes=1)
    assert (partial.shards_read, partial.shards_total, partial.documents["nsmc"]) == (1, 2, 2)
    _, md_path = map(Path, write_report(run_dir, max_scan_bytes=1))
    assert "come from the first 1 of 2 docs shards" in md_path.read_text(encoding="utf-8")


def test_sentencepiece_tokenizer_json_vocab(tmp_path: Path) -> None:
    tok = {
        "model": {
            "type": "Unigram",
            "vocab": [["[PAD]", 0.0], ["[UNK]", 0.0], ["\u2581한국", -3.1], ["어", -4.2]],
        },
        "added_tokens": [{"id": 0, "content": "[PAD]"}, {"id": 4, "content": "[MASK]"}],
    }
    (tmp_path / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    tokens = load_vocab_tokens(tmp_path)
    assert tokens == ["[PAD]", "[UNK]", "\u2581한국", "어", "[MASK]"]
    summary = vocab_summary(tokens)
    assert (summary["word_start_pieces"], summary["hangul_pieces"], summary["single_hangul_syllables"]) == (
        1,
        2,
        1,
    )


def test_histogram_bins_and_chart_escaping() -> None:
    hist = Histogram.empty((0, 10, 20))
    for value in (0, 9, 10, 19, 20, 1000):
        hist.add(value)
    assert (hist.labels(), hist.counts) == (["0-9", "10-19", "20+"], [2, 2, 2])
    svg = svg_hbars("drops <by> reason", ["a&b"], [3])
    assert "drops &lt;by&gt; reason" in svg and "a&amp;b" in svg
    assert svg_hbars("empty", [], []) == ""


def test_report_has_an_examples_section_from_the_build(run_dir: Path) -> None:
    rows = [
        {"kind": "document_drop", "rule": "contaminated", "id": "nsmc:99000001", "source": "nsmc",
         "before": "지루하지는 않은데 완전 막장임... 돈주고 보기에는....", "after": "", "note": "eval:6825595 (whole text)"},
        {"kind": "rewrite", "rule": "clean", "id": "petitions:511", "source": "petitions",
         "before": "★주무관 이규현\n생산관리과장", "after": "주무관 이규현\n생산관리과장", "note": ""},
    ]  # fmt: skip
    (run_dir / "corpus" / "examples").mkdir()
    (run_dir / "corpus" / "examples" / "examples.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    html_path, md_path = write_report(run_dir)
    md = Path(md_path).read_text(encoding="utf-8")
    assert "## Examples: what each rule did" in md
    assert "| document dropped: contaminated | text | note |" in md
    assert (
        "| nsmc:99000001 | 지루하지는 않은데 완전 막장임... 돈주고 보기에는.... | eval:6825595 (whole text) |"
        in md
    )
    assert "| petitions:511 | ★주무관 이규현 ⏎ 생산관리과장 | 주무관 이규현 ⏎ 생산관리과장 |" in md
    assert "<th>rewrite (text changed, kept): clean</th>" in Path(html_path).read_text(encoding="utf-8")


def test_a_corpus_without_examples_says_so(run_dir: Path) -> None:
    _, md_path = write_report(run_dir)
    assert "No rule changed or dropped anything (or the corpus has no examples/ folder)." in Path(
        md_path
    ).read_text(encoding="utf-8")


def test_report_shows_what_left_kept_documents_per_source_and_rule(run_dir: Path) -> None:
    stats_path = run_dir / "corpus" / "stats.json"
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    stats["sources"]["petitions"]["removed_inside_kept"] = {
        "empty": {"sentences": 2, "characters": 18},
        "low_hangul": {"sentences": 1, "characters": 9},
        "clean:url": {"spans": 3, "characters": 9},
    }
    stats_path.write_text(json.dumps(stats), encoding="utf-8")
    _, md_path = map(Path, write_report(run_dir))
    md = md_path.read_text(encoding="utf-8")
    # Shares of the source's 36 characters out (the fixture's one kept petition); sentences or spans per rule.
    assert "| petitions | empty | 2 |  | 18 | 50.00% |" in md
    assert "| petitions | low_hangul | 1 |  | 9 | 25.00% |" in md
    assert "| petitions | clean:url |  | 3 | 9 | 25.00% |" in md
    assert 'written to rejected/ with "level": "sentence"' in md and '"level": "span"' in md

# ---- on a real build: chars in, the settings used, a near-duplicate pair, each source's share ---------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`kcorpus run --only corpus` on real rows of the bundled sample: 100 NSMC comments and petitions 40-95 of
    August 2017, which hold near-duplicate pairs (petitions:560 of 559, 606 of 605, 600 of 568)."""
    from kcorpus.pipeline.profile.load import load_profile
    from kcorpus.pipeline.run.orchestrate import run

    root = tmp_path_factory.mktemp("real")
    sample = TESTDATA / "sample"
    with open(sample / "nsmc_ratings_test_head.txt", encoding="utf-8") as f:
        (root / "nsmc.txt").write_text("".join(next(f) for _ in range(101)), encoding="utf-8")
    petitions = (sample / "petitions_2017-08_head").read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "petitions").write_text("".join(petitions[39:95]), encoding="utf-8")
    (root / "p.yaml").write_text(
        """
sources:
  - {name: nsmc, format: nsmc, paths: [nsmc.txt], filters: {min_sentences: 1}}
  - {name: petitions, format: petitions, paths: [petitions], split_sentences: true}
filters: {min_chars: 10, min_sentences: 2}
split: {backend: kcorpus}
output: {num_shards: 1}
vocab: {kind: wordpiece, vocab_size: 2000}
""",
        encoding="utf-8",
    )
    out = root / "run"
    run(load_profile(root / "p.yaml"), out, beam_args=IN_MEMORY, only=["corpus"])
    return out


def test_chars_in_are_the_characters_read(real_run: Path) -> None:
    from reader_fixtures import docs, read

    _, md_path = write_report(real_run)
    md = Path(md_path).read_text(encoding="utf-8")
    root = real_run.parent
    for source, fmt, path in (("nsmc", "nsmc", root / "nsmc.txt"), ("petitions", "petitions", root / "petitions")):
        read_docs = docs(read(fmt, path, source))
        chars_in = sum(len(d.text) for d in read_docs)
        assert chars_in > 0
        # the files and bytes its pattern matched, then documents and characters in
        row = next(line for line in md.splitlines() if line.startswith(f"| {source} | 1 | {path.stat().st_size:,} | "))
        assert row.split(" | ")[3:5] == [f"{len(read_docs):,}", f"{chars_in:,}"], row


def test_report_shows_the_settings_used(real_run: Path) -> None:
    html_path, md_path = write_report(real_run, profile="/somewhere/p.yaml")
    md = Path(md_path).read_text(encoding="utf-8")
    assert "## Settings: the profile and thresholds used" in md
    assert "\nProfile: /somewhere/p.yaml\n" in md
    assert "| corpus | filters.min_chars | 10 |" in md
    assert "| corpus | sources.petitions.split_sentences | True |" in md
    assert "| corpus | dedup.near.bands | 16 |" in md
    assert "| corpus | sources.nsmc.filters.min_sentences | 1 |" in md
    assert md.rindex("\n## ") == md.index("\n## Settings: the profile and thresholds used")
    # In the HTML, every setting is inside the folded last section.
    page = Path(html_path).read_text(encoding="utf-8")
    details = page.index('<details><summary><h2 id="settings">')
    assert details < page.index("<td>filters.min_chars</td>") < page.index("</details>")


def test_korean_text_is_marked_and_left_aligned(real_run: Path) -> None:
    html_path, _ = write_report(real_run)
    page = Path(html_path).read_text(encoding="utf-8")
    cells = re.findall(r"<td([^>]*)>([^<]*)</td>", page)
    korean = [attrs for attrs, text in cells if re.search("[가-힣]", text)]
    # The sampled examples and the near-duplicate pairs: every Korean cell says so, none is right-aligned.
    assert len(korean) > 20 and set(korean) == {' lang="ko"'}
    assert korean_without_lang(page) == []
    assert literal_markdown(page) == []


def test_report_shows_the_filters_each_source_ran_with(real_run: Path) -> None:
    _, md_path = write_report(real_run)
    md = Path(md_path).read_text(encoding="utf-8")
    assert "| filter | nsmc | petitions |" in md
    assert "| min_sentences | 1 (source) | 2 |" in md
    assert "| min_chars | 10 | 10 |" in md
    assert "| top_ngram_char_fractions | 0.2, 0.18, 0.16 | 0.2, 0.18, 0.16 |" in md
    assert "a source's own `filters:` keys over them (marked `(source)`)" in md


def test_report_shows_a_kept_near_duplicate_beside_the_dropped_one(real_run: Path) -> None:
    _, md_path = write_report(real_run)
    md = Path(md_path).read_text(encoding="utf-8")
    kept = next(d for d in shard_rows(real_run / "corpus", "docs/part-00000-of-00001.jsonl") if d["id"] == "petitions:559")
    assert "| near duplicate (sampled pair) |  | text |" in md
    assert "| petitions:560 | dropped | 문재인 대통령님께 드리는 편지 및 이상적인 제안.(수정안..) ⏎ " in md
    assert f"| petitions:559 | kept | {kept['text'][:200].replace(chr(10), ' ⏎ ')}" in md
    assert "| petitions:605 | kept | 통합진보당 강제해산의 진상을 규명하고" in md
    data = json.loads((real_run / "report.json").read_text(encoding="utf-8"))
    pairs = [(p["dropped_id"], p["kept_id"]) for p in data["corpus"]["near_duplicate_pairs"]]
    assert pairs == [("petitions:560", "petitions:559"), ("petitions:606", "petitions:605"),
                     ("petitions:600", "petitions:568")]  # fmt: skip


def test_source_shares_fall_back_to_corpus_characters(run_dir: Path) -> None:
    _, md_path = write_report(run_dir)
    md = Path(md_path).read_text(encoding="utf-8")
    assert "| source | documents out | characters out | share of characters |" in md
    assert "| kowiki | 1 | 73 | 50.69% |" in md  # 73 of 35 + 73 + 36 characters
    assert "the shares are of the corpus's characters out" in md


def test_source_shares_of_packed_tokens_from_the_manifest(run_dir: Path) -> None:
    manifest_path = run_dir / "pack" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["counts"]["sources"] = {
        "nsmc": {"documents": 2, "sequences": 1, "tokens": 5},
        "petitions": {"documents": 1, "sequences": 1, "tokens": 3},
        "kowiki": {"documents": 1, "sequences": 1, "tokens": 6},
    }
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    html_path, md_path = write_report(run_dir)
    md = Path(md_path).read_text(encoding="utf-8")
    assert "| source | documents | sequences | tokens | share of tokens |" in md
    assert "| kowiki | 1 | 1 | 6 | 42.86% |" in md and "| nsmc | 2 | 1 | 5 | 35.71% |" in md
    assert "characters out, a proxy" not in md
    assert "Share of the tokens per source" in Path(html_path).read_text(encoding="utf-8")


def test_pack_counts_show_the_nsp_labels() -> None:
    from kcorpus.pipeline.report.run import pack_counts

    manifest = {"counts": {"sequences": 893, "splits": {}, "nsp": {
        "rule": "balanced", "is_next": 448, "random_next": 445, "random_next_share": 0.49832,
        "left_out_documents": 16, "left_out_tokens": 334}}}  # fmt: skip
    assert pack_counts(manifest) == {
        "sequences": 893, "nsp is_next": 448, "nsp random_next": 445, "nsp random_next_share": 0.49832,
        "nsp left_out_documents": 16, "nsp left_out_tokens": 334,
    }
