"""The run report on fixture stage outputs shaped like the contracts (tests/testdata/run_report/)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kcorpus.pipeline.report.render import svg_hbars
from kcorpus.pipeline.run.report import (
    Histogram,
    load_vocab_tokens,
    scan_documents,
    vocab_summary,
    write_report,
)


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
    assert "| jaccard | 0.0003 |" in md
    assert "| total |  | 21.5 |  |  |" in md

    page = html_path.read_text(encoding="utf-8")
    assert page.count("<svg") == 10
    # Readable offline: nothing fetched, nothing executed.
    assert not re.search(r"<script|<link|<img|src=|@import|url\(", page)
    assert set(re.findall(r"https?://[^\"' ]+", page)) == {"http://www.w3.org/2000/svg"}


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
    }
    stats_path.write_text(json.dumps(stats), encoding="utf-8")
    _, md_path = map(Path, write_report(run_dir))
    md = md_path.read_text(encoding="utf-8")
    # Shares of the source's 36 characters out (the fixture's one kept petition).
    assert "| petitions | empty | 2 | 18 | 50.00% |" in md
    assert "| petitions | low_hangul | 1 | 9 | 25.00% |" in md
    assert 'written to rejected/ with "level": "sentence"' in md
