"""The paragraphs the hand-made split gold (tests/testdata/split/gold_*.jsonl) was annotated on, drawn again.

    python bench/generators/split_gold_candidates.py OUT.jsonl [--data-dir ../shared/data] [--kowiki /work/data/kowiki/text]
        [--ud ko_kaist-ud-dev.conllu]

The third part (`gold_test2.jsonl`, drawn so that nobody tuning the splitter has seen it): another seed, fewer
paragraphs, Wikipedia from `text/AF..AJ` only, no UD rows, and nothing the first parts hold:

    python bench/generators/split_gold_candidates.py OUT.jsonl --seed 3002 --wiki-folders FGHIJ \
        --sizes comments=34,emoji_endings=20,unpunctuated=32,petitions=10,nested_quotes=6,wiki_citations=20 \
        --exclude tests/testdata/split/gold_dev.jsonl --exclude tests/testdata/split/gold_test.jsonl

A seeded draw per class (see tests/testdata/split/README.md): NSMC comments of 50+ characters (`comments`),
comments with an emoji, `ㅋㅋ`/`ㅎㅎ`, `^^` or `ㅠㅠ` inside (`emoji_endings`), comments of 40+ characters with no
terminator at all (`unpunctuated`), paragraphs of the shared petitions month (`petitions`) and those with a
quotation that holds a terminator (`nested_quotes`), paragraphs of the full Korean Wikipedia extract with a
citation marker after a terminator (`wiki_citations`), and runs of four consecutive sentences of one UD
Korean-KAIST document (`ud_kaist`: the treebank's own sentences are the gold). Each row carries Kiwi's split as
a first draft; every boundary of the gold was then read and decided by hand. Deterministic for the same inputs.

`--exclude FILE` (repeatable, rows with a `text`): a candidate whose text (whitespace removed) holds or lies inside
one of those texts is not drawn, nor one drawn already for an earlier class of the same run. Without it, the
default seed and sizes draw the first parts' paragraphs again.
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
    """Paragraphs of `text/A{folder}` (each letter of `folders`) with a citation marker after a terminator."""
    found = []
    for folder in folders:
        for path in sorted((kowiki / f"A{folder}").glob("wiki_*")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if CITATION.search(line) and 60 <= len(line) <= 700 and not line.startswith("<"):
                    found.append(line.strip())
    return found


DEFAULT_SIZES = {
    "comments": 150, "emoji_endings": 70, "unpunctuated": 70, "petitions": 36, "nested_quotes": 24, "wiki_citations": 40,
}


def squeezed(text: str) -> str:
    return "".join(text.split())


class Excluded:
    """Texts not to draw again: a candidate is out if it holds one of them or lies inside one."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = [squeezed(t) for t in texts]
        self.exact = set(self.texts)

    def add(self, text: str) -> None:
        self.texts.append(squeezed(text))
        self.exact.add(self.texts[-1])

    def __contains__(self, text: str) -> bool:
        flat = squeezed(text)
        return flat in self.exact or any(flat in t or t in flat for t in self.texts)


def parse_sizes(value: str) -> dict[str, int]:
    sizes = {}
    for item in value.split(","):
        name, _, size = item.partition("=")
        if name not in DEFAULT_SIZES or not size.isdigit():
            raise argparse.ArgumentTypeError(f"--sizes: want CLASS=N,... with CLASS one of {sorted(DEFAULT_SIZES)}, got {item!r}")
        sizes[name] = int(size)
    return sizes


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
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    parser.add_argument("--kowiki", type=Path, default=Path("/work/data/kowiki/text"))
    parser.add_argument("--ud", type=Path, help="ko_kaist-ud-dev.conllu of UD_Korean-Kaist (no ud_kaist rows without)")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--wiki-folders", default="ABCDE", help="letters X of the kowiki folders text/AX to draw from")
    parser.add_argument("--sizes", type=parse_sizes, default={}, help="paragraphs per class: CLASS=N,... (others: the defaults)")
    parser.add_argument("--exclude", type=Path, action="append", default=[], help="a gold file whose texts are not drawn")
    args = parser.parse_args()
    for path in [*args.exclude, *([args.ud] if args.ud else []), args.data_dir, args.kowiki]:
        if not path.exists():
            parser.error(f"no such file or folder: {path}")
    sizes = {**DEFAULT_SIZES, **args.sizes}
    excluded = None
    if args.exclude:
        excluded = Excluded([json.loads(line)["text"] for path in args.exclude
                             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()])
    rng = random.Random(args.seed)
    comments = nsmc(args.data_dir)
    petitions = petition_paragraphs(args.data_dir)
    populations = {
        "comments": lambda: [c for c in comments if len(c) >= 50],
        "emoji_endings": lambda: [c for c in comments if len(c) >= 25 and EMOJI.search(c[:-3])],
        "unpunctuated": lambda: [c for c in comments if len(c) >= 40 and not TERMINATOR.search(c)],
        "petitions": lambda: [p for p in petitions if len(p) <= 500],
        "nested_quotes": lambda: quote_windows(petitions),
        "wiki_citations": lambda: wiki_paragraphs(args.kowiki, args.wiki_folders),
    }
    draws = {}
    for name, population in populations.items():
        candidates = population()
        if excluded is not None:
            candidates = [c for c in dict.fromkeys(candidates) if c not in excluded]
        draws[name] = rng.sample(candidates, sizes[name])
        if excluded is not None:
            for text in draws[name]:
                excluded.add(text)
    from kcorpus.transforms.text.split import make_splitter

    kiwi = make_splitter("kiwi")
    with args.out.open("w", encoding="utf-8") as out:
        for name, texts in draws.items():
            for i, text in enumerate(texts):
                row = {"id": f"{name}-{i:03d}", "class": name, "text": text, "kiwi": kiwi(text)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        for i, run in enumerate(ud_paragraphs(args.ud) if args.ud else []):
            row = {"id": f"ud_kaist-{i:03d}", "class": "ud_kaist", "text": " ".join(run), "sentences": run}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
