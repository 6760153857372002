"""How much of each kept Wikipedia article's Hangul a build keeps, per `filters.placeholders` mode (issue 30 item 4).

    python bench/wiki_hangul_kept.py --out /work/scratch/debris/hangul /work/data/kowiki/text/AA/wiki_04 ...

Builds the files with configs/mdeberta-kor.yaml's `kowiki` source and filters (longform, split into sentences)
once per mode (`drop`, the old rule: a sentence holding `formula_N` goes; `remove`; `replace`, the default), in
process, into OUT/<mode>. Per kept article, the Hangul syllables of its text as the reader gives it (title line
and body) against those of its kept text. Prints, per mode: kept articles, those that lose more than 5% of
their Hangul (the issue's measure: the goal is none, every kept article keeping >= 95%), the articles holding a
placeholder among them, the Hangul kept over all kept articles, the worst five; then every article the last
mode still loses more than 5% of, with the rules that took it (read them: site notices and boilerplate count
as losses here).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

from kcorpus.pipeline.commands.build_corpus import run
from kcorpus.transforms.readers import read_files
from kcorpus.transforms.record import Document

HANGUL = re.compile(r"[가-힣]")
PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9_])(?:formula|codice)_\d+")
MODES = ("drop", "remove", "replace")
TOKENS = re.compile(r"\[수식\]|\[코드\]")  # filters.formula_token and code_token's defaults
PROFILE = """
sources:
  - {{name: kowiki, format: wikiextractor, paths: {paths}, preset: longform, split_sentences: true}}
filters:
  min_chars: 10
  max_chars: 2000
  min_hangul_ratio: 0.2
  max_repeated_token_ratio: 0.8
  repetition_min_words: 300
  max_punctuation_run: 3
  masks: keep
  min_sentences: 2
  placeholders: {mode}
dedup: {{exact: {{enabled: true}}, near: {{enabled: true, bands: 20, rows: 10}}}}
output: {{num_shards: 4, dropped: all}}
"""


def build(paths: list[str], mode: str, out: Path) -> Path:
    profile = out / f"{mode}.yaml"
    profile.write_text(PROFILE.format(paths=json.dumps(paths), mode=mode), encoding="utf-8")
    corpus = out / mode
    code = run(["--config", str(profile), "--out", str(corpus), "--local-mode", "in_memory", "--overwrite"])
    if code:
        raise SystemExit(f"build-corpus exited {code} for {mode}")
    return corpus


def kept_texts(corpus: Path) -> dict[str, str]:
    """The kept text of every article, without the tokens `replace` put in (their Hangul is not the input's)."""
    return {
        d["id"]: TOKENS.sub("", d["text"])
        for path in sorted((corpus / "docs").glob("*.jsonl"))
        for d in map(json.loads, path.open(encoding="utf-8"))
    }


def losses(inputs: dict[str, str], kept: dict[str, str]) -> list[tuple[float, str]]:
    """`(share of Hangul lost, id)` per kept article, worst first."""
    out = []
    for doc_id, text in kept.items():
        before = len(HANGUL.findall(inputs[doc_id]))
        out.append(((before - len(HANGUL.findall(text))) / before if before else 0.0, doc_id))
    return sorted(out, reverse=True)


def span_rules(corpus: Path, doc_id: str) -> list[str]:
    """The sentence and span rules that took something of a document (`rejected/`, `dropped: all`)."""
    rules = []
    for path in sorted((corpus / "rejected").glob("dropped-*.jsonl")):
        for record in map(json.loads, path.open(encoding="utf-8")):
            if record["id"] == doc_id and record.get("level"):
                rules.append(f"{record['stage']}:{record['reason']} ({len(HANGUL.findall(record['text']))})")
    return rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="WikiExtractor files (not the test fixtures')")
    parser.add_argument("--out", type=Path, required=True, help="a scratch folder for the builds")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    inputs = {
        r.id: r.text for r in read_files("wikiextractor", args.paths, source="kowiki") if isinstance(r, Document)
    }
    holding = {doc_id for doc_id, text in inputs.items() if PLACEHOLDER.search(text)}
    print(f"{len(inputs)} articles read, {len(holding)} with a formula_N/codice_N placeholder")
    print("| placeholders | kept | lose > 5% Hangul | of them with a placeholder | Hangul kept (all kept) | "
          "median kept | worst five |")
    print("|---|---|---|---|---|---|---|")
    for mode in MODES:
        corpus = build(args.paths, mode, args.out)
        kept = kept_texts(corpus)
        found = losses(inputs, kept)
        big = [(loss, doc_id) for loss, doc_id in found if loss > 0.05]
        before = sum(len(HANGUL.findall(inputs[i])) for i in kept)
        after = sum(len(HANGUL.findall(t)) for t in kept.values())
        median = statistics.median(1 - loss for loss, _ in found) if found else 1.0
        worst = ", ".join(f"{doc_id} {loss:.1%}" for loss, doc_id in found[:5])
        print(f"| {mode} | {len(kept)} | {len(big)} ({len(big) / max(len(kept), 1):.1%}) | "
              f"{sum(doc_id in holding for _, doc_id in big)} | {after / max(before, 1):.2%} | {median:.2%} | "
              f"{worst} |")
    for loss, doc_id in big:
        print(f"{mode}: {doc_id} loses {loss:.1%}: {', '.join(span_rules(corpus, doc_id)) or 'no rule recorded'}")


if __name__ == "__main__":
    main()
