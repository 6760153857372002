"""How much of each kept petition's Hangul a build lost between input and output (issue 24's fidelity measure).

    kcorpus build-corpus --config P.yaml --out /tmp/md   # P: configs/mdeberta-kor.yaml's petitions source
                                                         # (paths: the shared month), filters and dedup
    python bench/hangul_loss.py /tmp/md /work/shared/data/petitions/petitions_2017-08 [--source petitions]

For every kept document of the source in CORPUS/docs/*.jsonl, the Hangul syllables of its input (title and
content, NFC, as the petitions reader joins them) against those of its kept text. Prints the kept documents,
the share that lose any Hangul and the share that lose more than 0.5% (goal <= 5%), and the worst ten. Site
notices the boilerplate rules remove, PII masks and cleaning all count as losses here.
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from pathlib import Path

HANGUL = re.compile(r"[가-힣]")


def petition_inputs(path: Path, source: str) -> dict[str, str]:
    """`{document id: input text}` as the petitions reader builds them."""
    inputs = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            text = "\n".join(p.strip() for p in (obj["title"], obj["content"]) if p.strip())
            inputs[f"{source}:{obj['petition_idx']}"] = unicodedata.normalize("NFC", text)
    return inputs


def losses(corpus: Path, inputs: dict[str, str], source: str) -> list[tuple[float, str]]:
    """`(share of Hangul lost, id)` of every kept document of `source`, worst first."""
    out = []
    for path in sorted((corpus / "docs").glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                if doc["source"] != source:
                    continue
                before = len(HANGUL.findall(inputs[doc["id"]]))
                after = len(HANGUL.findall(doc["text"]))
                out.append(((before - after) / before if before else 0.0, doc["id"]))
    return sorted(out, reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="a build-corpus output folder")
    parser.add_argument("input", type=Path, help="the petitions JSON Lines file it was built from")
    parser.add_argument("--source", default="petitions", help="the source's name in the profile")
    args = parser.parse_args()
    found = losses(args.corpus, petition_inputs(args.input, args.source), args.source)
    n = len(found)
    some = sum(loss > 0 for loss, _ in found)
    big = sum(loss > 0.005 for loss, _ in found)
    print(f"kept {n}; lose some Hangul: {some} ({some / max(n, 1):.1%}); lose > 0.5%: {big} ({big / max(n, 1):.1%})")
    print("worst:", ", ".join(f"{doc_id} {loss:.1%}" for loss, doc_id in found[:10]))


if __name__ == "__main__":
    main()
