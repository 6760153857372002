"""Issue 24's fidelity figures of a build-corpus output of the shared petitions month and Korean Wikipedia files.

    python bench/checks/corpus_fidelity.py OUT [DATA]     # DATA: the shared data folder (default /work/shared/data)

OUT is a corpus built from DATA/petitions/petitions_2017-08 and DATA/kowiki/wiki_* (ids `petitions:<idx>`,
`kowiki:<doc id>`). Prints, over kept documents: petitions losing any / more than 0.5% of their Hangul
syllables against their input `content`; Hanja and curly quotes kept; HTML entities, bracket or quote debris
candidates (a broad pattern that also matches WikiExtractor's italics quotes: read the matches before counting
them as debris) and templated date stubs in Wikipedia; lines that start with closing or terminal punctuation;
removal debris (issue 30 item 3): kept documents whose text holds more empty or unclosed brackets, brackets
before a particle or doubled spaces than their input, URLs in their input and the URL, moderator notice and
other span removals stats.json counts inside kept documents, and how many spans went to rejected/.
"""

from __future__ import annotations

import argparse
import glob
import html
import json
import re
import unicodedata

HANGUL = re.compile(r"[가-힣]")
HANJA = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff]")
QUOTES = re.compile(r"[“”‘’「」『』]")
ENTITY = re.compile(r"&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")
# Broad on purpose: it lists candidates (WikiExtractor's italics quotes `""a"` match too); read them.
DEBRIS = re.compile(r"\(\s*[,;/·]*\s*\)|\(\s*[,;]\s*[^)]*\)|\([^)]*[,;]\s*\)|‘’|“”|''|\"\"")
DATE_STUB = re.compile(r"\d+월 \d+일은 그레고리력으로")
BAD_START = set(".,?!)]}~”’」』》〉:;…")
# What a removal can leave behind: an emptied pair, a pair opened twice, a bracket left before a particle,
# a doubled space.
REMOVAL_DEBRIS = re.compile(r"\(\s*\)|\[\s*\]|「\s*」|『\s*』|\(\s*\(|\((?=[을를에의로와과는은이가도만]\b)|  ")
URL = re.compile(r"https?://")


def jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def wiki_inputs(data: str) -> dict[str, str]:
    wiki = {}
    for path in sorted(glob.glob(f"{data}/kowiki/wiki_*")):
        with open(path, encoding="utf-8") as f:
            for m in re.finditer(r'<doc id="(\d+)"[^>]*>\n(.*?)</doc>', f.read(), re.DOTALL):
                wiki["kowiki:" + m.group(1)] = html.unescape(m.group(2))
    return wiki


def count(pattern: re.Pattern[str], text: str) -> int:
    return len(pattern.findall(text))


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / max(whole, 1):.1%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the build-corpus output folder")
    parser.add_argument("data", nargs="?", default="/work/shared/data", help="the shared data folder")
    args = parser.parse_args()
    docs = {d["id"]: d for path in glob.glob(f"{args.out}/docs/*.jsonl") for d in jsonl(path)}
    petitions = {"petitions:" + d["petition_idx"]: d["content"]
                 for d in jsonl(f"{args.data}/petitions/petitions_2017-08")}
    wiki = wiki_inputs(args.data)

    kept = [(petitions[i], d["text"]) for i, d in docs.items() if i in petitions]
    lose_any = lose_half_percent = 0
    for source, text in kept:
        before, after = count(HANGUL, unicodedata.normalize("NFC", source)), count(HANGUL, text)
        lose_any += before > after
        lose_half_percent += bool(before) and (before - after) / before > 0.005
    print(f"petitions kept {len(kept)}: lose any Hangul {share(lose_any, len(kept))}, "
          f"lose >0.5% Hangul {share(lose_half_percent, len(kept))}")
    print(f"petitions Hanja kept {share(sum(count(HANJA, t) for _, t in kept), sum(count(HANJA, s) for s, _ in kept))}; "
          f"quotes kept {share(sum(count(QUOTES, t) for _, t in kept), sum(count(QUOTES, s) for s, _ in kept))}")

    articles = [(wiki.get(i, ""), d["text"]) for i, d in docs.items() if i.startswith("kowiki:")]
    print(f"kowiki kept {len(articles)}: Hanja kept "
          f"{share(sum(count(HANJA, t) for _, t in articles), sum(count(HANJA, s) for s, _ in articles))}; "
          f"HTML entities {sum(count(ENTITY, t) for _, t in articles)}; "
          f"bracket/quote debris candidates {sum(count(DEBRIS, t) for _, t in articles)}; "
          f"date stubs kept {sum(bool(DATE_STUB.search(t)) for _, t in articles)}")

    inputs = {**petitions, **wiki}
    kept_inputs = [(inputs[i], d["text"]) for i, d in docs.items() if i in inputs]
    debris = sum(count(REMOVAL_DEBRIS, t) > count(REMOVAL_DEBRIS, unicodedata.normalize("NFC", s))
                 for s, t in kept_inputs)
    with open(f"{args.out}/stats.json", encoding="utf-8") as f:
        stats = json.load(f)["total"]
    spans = {rule: f["spans"] for rule, f in stats.get("removed_inside_kept", {}).items() if "spans" in f}
    written = sum(1 for path in glob.glob(f"{args.out}/rejected/dropped-*.jsonl") for r in jsonl(path)
                  if r.get("level") == "span")
    print(f"removal debris: {share(debris, len(kept_inputs))} kept documents hold more than their input; "
          f"URLs in kept inputs {sum(count(URL, s) for s, _ in kept_inputs)}, left {sum(count(URL, t) for _, t in kept_inputs)}; "
          f"spans counted {sum(spans.values())} ({', '.join(f'{r} {n}' for r, n in sorted(spans.items()) if not r.startswith('boilerplate:wikiextractor'))}); "
          f"spans taking Hangul in rejected/ {written}")

    lines = [line for d in docs.values() for line in d["text"].split("\n")]
    bad = sum(1 for line in lines if line and line[0] in BAD_START)
    print(f"lines {len(lines)}: starting with closing or terminal punctuation {bad} ({bad / max(len(lines), 1):.3%})")


if __name__ == "__main__":
    main()
