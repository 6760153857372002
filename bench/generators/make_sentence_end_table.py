"""Regenerate transforms/text/split/end_odds.tsv: how likely a sentence ends after a word, learned from punctuated text.

Self-supervised: in text whose writers end their sentences with `.`, `?` or `!`, every space between two words is
labelled by whether a terminator ends the word before it (`재밌었다. 배우들` 1, `재밌었고 배우들` 0); with the
terminator stripped, each becomes an example of a boundary *without* punctuation. A logistic regression over
cheap keys of the boundary (`odds.boundary_keys`: the last 1-3 syllables of the word and the word itself,
the first 1-3 syllables of the next word and the next word itself, the next word's character class, the last
syllable of the word before, whether the next word is the paragraph's last, the pair of last and next syllable)
gives each key a weight; the splitter sums the weights of a boundary's keys (`odds.end_log_odds`).

Training text (never the hand-made gold): the informal register the splitter needs this for, NSMC raw reviews
(`raw/*.json` of github.com/e9t/nsmc @ cc0670e, CC0 1.0) without the 50,000 reviews of `ratings_test.txt` (the
gold's comments come from those) and petitions of other months than the gold's (`petitions_2019-04`, `-05`, `-07`,
`-08` of github.com/lovit/petitions_archive @ 03dc3f3, CC0 1.0; `petitions_2019-06` is held out for reading the
long-form output by hand, the one month on hand that is neither read before nor used here), and of those only paragraphs
that end with a terminator (their writers punctuate) and that are not a paragraph of the gold. The fit is
full-batch Adam with an L2 penalty, a fixed number of steps from zero weights: the same inputs give the same
table. Keys seen fewer than `--min-count` times are not learned; weights under `--min-weight` are dropped.

    .venv/bin/python bench/generators/make_sentence_end_table.py --nsmc-raw ~/nsmc/raw \
        --exclude-ids ../shared/data/nsmc/ratings_test.txt --petitions ~/petitions_archive/petitions_2019-0[4578] --min-count 100 --min-weight 0.1

(~6 minutes and ~2 GB here.)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kcorpus.transforms.text.split.odds import boundary_keys

_REPO = Path(__file__).resolve().parents[2]
TARGET = _REPO / "transforms" / "text" / "split" / "end_odds.tsv"
GOLD = sorted((_REPO / "tests" / "testdata" / "split").glob("gold_*.jsonl"))
# A word ended by a terminator after a syllable: one period, or question and exclamation marks (an ellipsis, which
# comments also use inside a sentence, and closing quotes or brackets make it no example).
_TERMINATED = re.compile(r"^(.*?[가-힣])(?:\.|[?!]+)$")


def _flat(text: str) -> str:
    return "".join(text.split())


def nsmc_reviews(raw_dir: Path, exclude_ids: set[str]) -> Iterator[str]:
    """Each review of `raw_dir/*.json` once, but those whose id is in `exclude_ids`."""
    seen: set[str] = set()
    for path in sorted(raw_dir.glob("*.json")):
        for review in json.loads(path.read_text(encoding="utf-8")):
            if review["review_id"] not in exclude_ids and review["review_id"] not in seen:
                seen.add(review["review_id"])
                yield " ".join(review["review"].split())


def petition_texts(paths: list[Path]) -> Iterator[str]:
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            for paragraph in json.loads(line)["content"].splitlines():
                if paragraph.strip():
                    yield " ".join(paragraph.split())


def examples(paragraphs: Iterator[str], gold: set[str], stats: Counter) -> Iterator[tuple[int, list[str]]]:
    """(label, keys) of every space between two words of each punctuating paragraph."""
    for paragraph in paragraphs:
        words = paragraph.split()
        if len(words) < 2 or not _TERMINATED.match(words[-1]):
            continue
        if _flat(paragraph) in gold:
            stats["gold_paragraphs_skipped"] += 1
            continue
        stats["paragraphs"] += 1
        for i in range(len(words) - 1):
            terminated = _TERMINATED.match(words[i])
            word = terminated.group(1) if terminated else words[i]
            keys = boundary_keys(word, words[i + 1], words[i - 1] if i else "", i + 2 == len(words))
            if keys is not None:
                yield int(terminated is not None), keys


def fit(data: list[tuple[int, list[str]]], min_count: int, l2: float, steps: int, rate: float) -> tuple[float, dict[str, float]]:
    """Logistic regression over the keys seen `min_count` times or more: (bias, weight per key)."""
    counts = Counter(key for _, keys in data for key in keys)
    names = sorted(key for key, n in counts.items() if n >= min_count)
    index = {key: i + 1 for i, key in enumerate(names)}  # 0: the bias
    rows: list[int] = []
    cols: list[int] = []
    for row, (_, keys) in enumerate(data):
        found = [0] + [index[key] for key in keys if key in index]
        rows.extend([row] * len(found))
        cols.extend(found)
    rows_a, cols_a = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
    labels = np.array([label for label, _ in data], dtype=np.float64)
    n, d = len(labels), len(names) + 1
    weights, first, second = np.zeros(d), np.zeros(d), np.zeros(d)
    penalty = np.full(d, l2 / n)
    penalty[0] = 0.0
    for step in range(1, steps + 1):
        z = np.bincount(rows_a, weights=weights[cols_a], minlength=n)
        p = 1.0 / (1.0 + np.exp(-z))
        grad = np.bincount(cols_a, weights=(p - labels)[rows_a], minlength=d) / n + penalty * weights
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        weights -= rate * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
        if step % 50 == 0 or step == steps:
            loss = -np.mean(labels * np.log(p + 1e-12) + (1 - labels) * np.log(1 - p + 1e-12))
            print(f"step {step}: log loss {loss:.5f}", file=sys.stderr)
    return float(weights[0]), {key: float(weights[index[key]]) for key in names}


def render(bias: float, weights: dict[str, float], provenance: str) -> str:
    """The table as package data (read by `kcorpus.transforms.package_data.read_rows`): `#` lines say what it is and
    where it comes from, then one `key<TAB>weight` row per key, the bias first under the key `BIAS`."""
    header = (
        "Log-odds that a sentence ends at a space without punctuation, per key of the boundary "
        "(`odds.boundary_keys`).\n\nGenerated by bench/generators/make_sentence_end_table.py; do not edit.\n\n"
        + provenance
        + "\nBIAS is the intercept; every other row is a key and its weight.\n"
    )
    comments = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    rows = "".join(f"{key}\t{value:g}\n" for key, value in sorted(weights.items()))
    return comments + f"BIAS\t{bias}\n" + rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nsmc-raw", type=Path, required=True, help="the raw/ folder of github.com/e9t/nsmc")
    parser.add_argument("--exclude-ids", type=Path, required=True, help="NSMC ratings_test.txt: its reviews are left out")
    parser.add_argument("--petitions", type=Path, nargs="+", required=True, help="petitions_YYYY-MM files")
    parser.add_argument("--min-count", type=int, default=50)
    parser.add_argument("--min-weight", type=float, default=0.05)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--out", type=Path, default=TARGET)
    args = parser.parse_args(argv)
    for path in [args.nsmc_raw, args.exclude_ids, *args.petitions]:
        if not path.exists():
            parser.error(f"no such file or folder: {path}")
    exclude = {line.split("\t", 1)[0] for line in args.exclude_ids.read_text(encoding="utf-8").splitlines()[1:]}
    gold = {_flat(json.loads(line)["text"]) for path in GOLD for line in path.read_text(encoding="utf-8").splitlines()}
    stats: Counter = Counter()
    data = list(examples(nsmc_reviews(args.nsmc_raw, exclude), gold, stats))
    stats["nsmc_examples"] = len(data)
    data += examples(petition_texts(args.petitions), gold, stats)
    stats["examples"] = len(data)
    stats["ends"] = sum(label for label, _ in data)
    print(dict(stats), file=sys.stderr)
    bias, weights = fit(data, args.min_count, args.l2, args.steps, args.rate)
    kept = {key: round(value, 2) for key, value in weights.items() if abs(value) >= args.min_weight}
    provenance = (
        f"Learned from {stats['paragraphs']:,} punctuating paragraphs ({stats['examples']:,} spaces, {stats['ends']:,} of "
        "them after a\nterminator): NSMC raw reviews (github.com/e9t/nsmc @ cc0670e, raw/*.json, CC0 1.0) without the "
        f"{len(exclude):,}\nreviews of ratings_test.txt, and the petition files {', '.join(p.name for p in args.petitions)}\n"
        "(github.com/lovit/petitions_archive @ 03dc3f3, CC0 1.0); no paragraph of the split gold "
        f"({stats['gold_paragraphs_skipped']} skipped).\n"
        f"Keys seen >= {args.min_count} times, L2 {args.l2}, {args.steps} Adam steps at {args.rate}; "
        f"{len(kept):,} of {len(weights):,} weights kept (|w| >= {args.min_weight}).\n"
    )
    args.out.write_text(render(round(bias, 2), kept, provenance), encoding="utf-8")
    print(f"{args.out}: {len(kept)} weights, bias {bias:.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
