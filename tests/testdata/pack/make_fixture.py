"""Rebuild the pack fixture corpus from the real data slices (run by hand, never by the tests).

Writes `corpus/docs/part-0000N-of-00002.jsonl` in the build-corpus layout: one JSON per document with
`id, text, source, metadata`, `text` being one sentence per line. Petitions and Wikipedia articles are one
document each; NSMC comments are single-comment documents (NSMC has no threads).
Usage: python make_fixture.py /work/shared/data
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
BUDGET = {"petitions": 125_000, "wiki": 125_000, "nsmc": 50_000}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def petitions(data: Path):
    for line in (data / "petitions" / "petitions_2017-08").open(encoding="utf-8"):
        obj = json.loads(line)
        sents = [obj["title"].strip()] + sentences(obj["content"])
        yield f"petitions:{obj['petition_idx']}", [s for s in sents if s]


def wiki(data: Path):
    doc_id, lines = None, []
    for line in (data / "kowiki" / "wiki_00").open(encoding="utf-8"):
        line = line.strip()
        if line.startswith("<doc "):
            doc_id, lines = re.search(r'id="(\d+)"', line).group(1), []
        elif line == "</doc>":
            sents = [s for para in lines[1:] for s in sentences(para)]
            if sents:
                yield f"kowiki:{doc_id}", sents
        elif line:
            lines.append(line)


def nsmc(data: Path):
    with (data / "nsmc" / "ratings_test.txt").open(encoding="utf-8") as f:
        next(f)
        for line in f:
            rid, text, _ = line.rstrip("\n").split("\t")
            if text.strip():
                yield f"nsmc:{rid}", sentences(text)


def main(data: Path) -> None:
    docs = []
    for source, reader in (("petitions", petitions), ("wiki", wiki), ("nsmc", nsmc)):
        used = 0
        for doc_id, sents in reader(data):
            text = "\n".join(sents)
            used += len(text.encode("utf-8"))
            if used > BUDGET[source]:
                break
            docs.append({"id": doc_id, "text": text, "source": source, "metadata": {}})
    out = Path(__file__).parent / "corpus" / "docs"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(2):
        with (out / f"part-{i:05d}-of-00002.jsonl").open("w", encoding="utf-8") as f:
            for doc in docs[i::2]:
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(len(docs), "documents")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
