"""Near dedup sees through numbers where a source's format says so: templated Wikipedia stubs filled with
other dates survive once, NSMC comments that differ only by their score all stay."""

from pathlib import Path

from corpus_files import shard_rows

from kcorpus.pipeline.commands.build_corpus import run
from testdata_paths import TESTDATA

FIXTURE = TESTDATA / "dedup"


# The stubs are kept (`keep_stubs`; the wiki readers drop them as `calendar_stub` by default) so that what
# near dedup does with them shows.
def build(tmp_path: Path, name: str, wiki: str = "", nsmc: str = "") -> tuple[set[str], dict[str, str]]:
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(
        f"""
sources:
  - {{name: kowiki, format: wikiextractor, paths: ["{FIXTURE}/kowiki_stubs"], split_sentences: true,
      options: {{keep_stubs: true}}{wiki}}}
  - {{name: nsmc, format: nsmc, paths: ["{FIXTURE}/nsmc_scores.tsv"]{nsmc}}}
filters: {{min_chars: 5}}
output: {{num_shards: 1, dropped: all}}
""",
        encoding="utf-8",
    )
    out = tmp_path / name
    assert run(["--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    kept = {d["id"] for d in shard_rows(out, "docs/part-00000-of-00001.jsonl")}
    rows = shard_rows(out, "rejected/duplicates-00000-of-00001.jsonl")
    return kept, {r["id"]: r["duplicate_of"]["id"] for r in rows if r["reason"] == "near_duplicate"}


def test_format_defaults_merge_wiki_templates_and_keep_every_score(tmp_path):
    kept, merged = build(tmp_path, "defaults")
    assert {k: v for k, v in merged.items() if k.startswith("kowiki:")} == {
        "kowiki:40": "kowiki:398",  # 12월 19일은 그레고리력으로 353번째 ... = 8월 16일은 ... 228번째 ...
        "kowiki:405": "kowiki:398",
        "kowiki:41": "kowiki:398",
        "kowiki:377": "kowiki:373",  # 1913년은 수요일로 시작하는 평년이다. = 2003년은 ...
    }
    assert "kowiki:42" in kept  # `6월의 마지막 날이다`: more than the template
    # Comments are not folded: the one merge is a pair that differs by one digit in 13 characters, which
    # near dedup merges without folding too; `종합 평점은 3점/4점/9점 드립니다.` all stay.
    assert {k: v for k, v in merged.items() if k.startswith("nsmc:")} == {"nsmc:8374538": "nsmc:8315243"}
    assert {"nsmc:10077049", "nsmc:9882716", "nsmc:9963919", "nsmc:4241454", "nsmc:3034145"} <= kept


def test_per_source_fold_digits_overrides_the_format(tmp_path):
    _, merged = build(tmp_path, "overrides", wiki=", fold_digits: false", nsmc=", fold_digits: true")
    assert not any(i.startswith("kowiki:") for i in merged)
    # What folding would do to comments: different scores, one survivor.
    assert merged["nsmc:9963919"] == merged["nsmc:9882716"] == "nsmc:10077049"  # 종합 평점은 9점/4점/3점
