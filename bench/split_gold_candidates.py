"""The paragraphs the hand-made split gold (tests/testdata/split/gold_*.jsonl) was annotated on, drawn again.

    python bench/split_gold_candidates.py OUT.jsonl [--data-dir ../shared/data] [--kowiki /work/data/kowiki/text]
        [--ud ko_kaist-ud-dev.conllu]

A seeded draw per class (see tests/testdata/split/README.md): NSMC comments of 50+ characters (`comments`),
comments with an emoji, `ㅋㅋ`/`ㅎㅎ`, `^^` or `ㅠㅠ` inside (`emoji_endings`), comments of 40+ characters with no
terminator at all (`unpunctuated`), paragraphs of the shared petitions month (`petitions`) and those with a
quotation that holds a terminator (`nested_quotes`), paragraphs of the full Korean Wikipedia extract with a
citation marker after a terminator (`wiki_citations`), and runs of four consecutive sentences of one UD
Korean-KAIST document (`ud_kaist`: the treebank's own sentences are the gold). Each row carries Kiwi's split as
a first draft; every boundary of the gold was then read and decided by hand. Deterministic for the same inputs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF♡♥]|[ㅋㅎ]{2,}|\^\^|[ㅠㅜ]{2,}")
TERMINATOR = re.compile(r"[.?!…]")
CITATION = re.compile(r"[.?!]\[\d{1,3}\]")
QUOTED_TERMINATOR = re.compile(r"[\"“'‘][^\"”'’\n]{3,200}[.?!][^\"”'’\n]{0,200}[\"”'’]")


def nsmc(data_dir: Path) -> list[str]:
    lines = (data_dir / "nsmc" / "ratings_test.txt").read_text(encoding="utf-8").splitlines()[1:]
    return [fields[1].strip() for fields in (line.split("\t") for line in lines) if len(fields) > 1]


def petition_paragraphs(data_dir: Path) -> list[str]:
    paragraphs = []
    for line in (data_dir / "petitions" / "petitions_2017-08").read_text(encoding="utf-8").splitlines():
        paragraphs.extend(p.strip() for p in json.loads(line)["content"].split("\n") if len(p.strip()) >= 60)
    return paragraphs


def quote_windows(paragraphs: list[str]) -> list[str]:
    """Around each first quotation that holds a terminator: the text from a sentence start ~150 characters
    before it to a sentence end ~150 characters after it (or the paragraph's ends)."""
    windows = []
    for paragraph in paragraphs:
        found = QUOTED_TERMINATOR.search(paragraph)
        if found is None:
            continue
        starts = [m.end() for m in re.finditer(r"[.?!]\s+", paragraph[: max(0, found.start() - 150)])]
        begin = starts[-1] if starts else 0
        end_match = re.compile(r"[.?!](?=\s)").search(paragraph, found.end() + 150)
        windows.append(paragraph[begin : end_match.end() if end_match else len(paragraph)].strip())
    return windows


def wiki_paragraphs(kowiki: Path, folders: str = "ABCDE") -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((kowiki / f"A{folder}").glob("wiki_*")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if CITATION.search(line) and 60 <= len(line) <= 700 and not line.startswith("<"):
                    found.append(line.strip())
    return found


def ud_paragraphs(conllu: Path, size: int = 4) -> list[list[str]]:
    """Runs of `size` consecutive sentences of one document, taken every 40 sentences."""
    sentences: list[tuple[str, str]] = []
    sent_id = ""
    for line in conllu.read_text(encoding="utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sent_id = line.split("= ", 1)[1].rsplit("-s", 1)[0]
        elif line.startswith("# text = "):
            sentences.append((sent_id, line.split("= ", 1)[1].strip()))
    runs = []
    for start in range(0, len(sentences) - size, 40):
        run = sentences[start : start + size]
        if len({doc for doc, _ in run}) == 1:
            runs.append([text for _, text in run])
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--kowiki", type=Path, default=Path("/work/data/kowiki/text"))
    parser.add_argument("--ud", type=Path, required=True, help="ko_kaist-ud-dev.conllu of UD_Korean-Kaist")
    args = parser.parse_args()
    rng = random.Random(30)
    comments = nsmc(args.data_dir)
    petitions = petition_paragraphs(args.data_dir)
    draws = {
        "comments": rng.sample([c for c in comments if len(c) >= 50], 150),
        "emoji_endings": rng.sample([c for c in comments if len(c) >= 25 and EMOJI.search(c[:-3])], 70),
        "unpunctuated": rng.sample([c for c in comments if len(c) >= 40 and not TERMINATOR.search(c)], 70),
        "petitions": rng.sample([p for p in petitions if len(p) <= 500], 36),
        "nested_quotes": rng.sample(quote_windows(petitions), 24),
        "wiki_citations": rng.sample(wiki_paragraphs(args.kowiki), 40),
    }
    from kcorpus.transforms.text.sentences import make_splitter

    kiwi = make_splitter("kiwi")
    with args.out.open("w", encoding="utf-8") as out:
        for name, texts in draws.items():
            for i, text in enumerate(texts):
                row = {"id": f"{name}-{i:03d}", "class": name, "text": text, "kiwi": kiwi(text)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        for i, run in enumerate(ud_paragraphs(args.ud)):
            row = {"id": f"ud_kaist-{i:03d}", "class": "ud_kaist", "text": " ".join(run), "sentences": run}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
