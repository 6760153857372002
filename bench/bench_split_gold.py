"""Score kcorpus's sentence splitter, Kiwi and kss against the hand-made gold (tests/testdata/split/gold_*.jsonl),
per class and pooled, and time kcorpus in CPU seconds per MB on the shared NSMC, petitions and Wikipedia.

Score: strict boundary precision, recall and F1 (`split_scoring.boundary_counts`): a boundary is the number of
non-whitespace characters before it in its paragraph and counts iff the gold has one at the same offset;
whitespace is ignored, newlines never occur inside a gold paragraph. Pooled: the counts of every class summed.
Splitters: `kcorpus` (`split_sentences`), `kiwi` (kiwipiepy's `Kiwi.split_into_sents`, one thread), `kss`
(kss's `split_sentences`, backend `auto`: mecab where installed, else pecab; the backend is printed). kss's and
Kiwi's splits are cached per paragraph under `--cache-dir` (kss takes minutes).

Speed: CPU seconds (`time.process_time`, this one-threaded process) of `split_sentences` over every paragraph of
each shared source (NSMC: one comment a paragraph; petitions and Wikipedia: every non-empty line), the median of
`--repeats` runs, per MB of UTF-8 input; `--baseline REV` times the splitter of an earlier revision in the same
runs, interleaved, and gives the ratio.

    python bench/bench_split_gold.py                          # dev and test, all three splitters, speed
    python bench/bench_split_gold.py --parts dev --splitters kcorpus --baseline main   # speed against main
    python bench/bench_split_gold.py --parts dev --splitters kcorpus --show-errors 30 --no-speed
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_split import DEFAULT_DATA, nsmc_documents, petition_documents, wiki_documents

# The scorer lives with the splitter tests that use it (tests/split_scoring.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from split_scoring import boundary_counts, boundary_offsets, f1_score

from kcorpus.transforms.text.split import make_splitter, split_sentences

GOLD_DIR = Path(__file__).resolve().parents[1] / "tests" / "testdata" / "split"


def load_gold(part: str) -> list[dict]:
    path = GOLD_DIR / f"gold_{part}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def kss_splitter() -> tuple[Callable[[str], list[str]], str]:
    """kss's default splitter of one paragraph, and the morpheme backend `auto` picks here."""
    import kss
    from kss._modules.morphemes.utils import (
        _get_mecab,  # kss 6.x: `auto` takes mecab where it loads, else pecab
    )

    backend = "mecab" if _get_mecab()[1] else "pecab"
    return (lambda text: kss.split_sentences(text, backend="auto", num_workers=1)), backend


def cached(rows: list[dict], split: Callable[[str], list[str]], name: str, cache_dir: Path) -> list[list[str]]:
    """`split(row["text"])` per row, cached per paragraph in `cache_dir/NAME.jsonl`."""
    cache = cache_dir / f"{name}.jsonl"
    known: dict[str, list[str]] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            known[entry["key"]] = entry["sentences"]
    out = []
    with cache.open("a", encoding="utf-8") as appended:
        for row in rows:
            key = hashlib.blake2b(row["text"].encode("utf-8"), digest_size=12).hexdigest()
            if key not in known:
                known[key] = [s.strip() for s in split(row["text"]) if s.strip()]
                appended.write(json.dumps({"key": key, "sentences": known[key]}, ensure_ascii=False) + "\n")
            out.append(known[key])
    return out


def scores(rows: list[dict], splits: list[list[str]]) -> dict[str, dict]:
    """F1/P/R per class and pooled (`all`), with the gold boundary count."""
    counts: dict[str, list[int]] = {}
    for row, split in zip(rows, splits):
        tp, fp, fn = boundary_counts(row["sentences"], split)
        for key in (row["class"], "all"):
            total = counts.setdefault(key, [0, 0, 0])
            total[0], total[1], total[2] = total[0] + tp, total[1] + fp, total[2] + fn
    table = {}
    for key, (tp, fp, fn) in counts.items():
        precision, recall, f1 = f1_score(tp, fp, fn)
        table[key] = {"f1": round(f1, 4), "p": round(precision, 4), "r": round(recall, 4), "gold": tp + fn}
    return table


def baseline_splitter(revision: str, scratch: Path) -> Callable[[str], list[str]]:
    """`split_sentences` of `transforms/text/` at git `revision`: every file of that folder and its subfolders copied
    into a package of its own under `scratch` (its imports of its siblings rewritten to it), so a revision whose
    splitter was laid out in other modules (flat in `text/` before the `split/` package) loads whole."""
    repo = GOLD_DIR.parents[2]
    package = f"text_{revision.replace('/', '_').replace('-', '_')}"
    folder = scratch / package
    names = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", revision, "transforms/text/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    for name in names:
        source = subprocess.run(["git", "-C", str(repo), "show", f"{revision}:{name}"], check=True, capture_output=True).stdout
        if name.endswith(".py"):
            source = source.replace(b"kcorpus.transforms.text.", f"{package}.".encode())
        target = folder / Path(name).relative_to("transforms/text")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source)
    (folder / "__init__.py").touch()
    sys.path.insert(0, str(scratch))
    try:
        entry = f"{package}.split" if (folder / "split" / "__init__.py").exists() else f"{package}.sentences"
        return importlib.import_module(entry).split_sentences
    finally:
        sys.path.remove(str(scratch))


def speed(data_dir: Path, repeats: int, baselines: dict[str, Callable[[str], list[str]]]) -> dict[str, dict]:
    """CPU s/MB of `split_sentences` over each shared source (median of `repeats` runs), and of each baseline's,
    the runs interleaved (baseline, current, baseline, ...), with the ratio current / baseline."""
    sources = {
        "nsmc": nsmc_documents(data_dir),
        "petitions": petition_documents(data_dir),
        "kowiki": wiki_documents(data_dir),
    }
    splitters = {**baselines, "current": split_sentences}
    out = {}
    for name, documents in sources.items():
        paragraphs = [p.strip() for document in documents for p in document if p.strip()]
        mb = sum(len(p.encode("utf-8")) for p in paragraphs) / 1e6
        runs: dict[str, list[float]] = {key: [] for key in splitters}
        for _ in range(repeats):
            for key, split in splitters.items():
                start = time.process_time()
                for paragraph in paragraphs:
                    split(paragraph)
                runs[key].append(time.process_time() - start)
        medians = {key: statistics.median(values) / mb for key, values in runs.items()}
        out[name] = {"mb": round(mb, 2), "cpu_s_per_mb": round(medians["current"], 3)}
        for key in baselines:
            out[name][key] = {"cpu_s_per_mb": round(medians[key], 3), "ratio": round(medians["current"] / medians[key], 2)}
    return out


def show_errors(rows: list[dict], splits: list[list[str]], limit: int) -> None:
    shown = 0
    for row, split in zip(rows, splits):
        if shown >= limit:
            return
        gold, hyp = boundary_offsets(row["sentences"]), boundary_offsets(split)
        if gold != hyp:
            shown += 1
            print(f"--- {row['id']}\ngold:    {' ‖ '.join(row['sentences'])}\nkcorpus: {' ‖ '.join(split)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="dev,test", help="gold parts: dev, test, test2 (gold_PART.jsonl)")
    parser.add_argument("--splitters", default="kcorpus,kiwi,kss")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/kcorpus-bench-split-gold"))
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per source (median)")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument(
        "--baseline", action="append", default=[], metavar="REV",
        help="also time the splitter of transforms/text/ at this git revision, interleaved (repeatable)",
    )
    parser.add_argument("--show-errors", type=int, default=0, help="print N paragraphs kcorpus splits wrongly")
    args = parser.parse_args(argv)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    splitters: dict[str, Callable[[str], list[str]]] = {}
    report: dict = {}
    for name in args.splitters.split(","):
        if name == "kcorpus":
            splitters[name] = split_sentences
        elif name == "kiwi":
            splitters[name] = make_splitter("kiwi")
        elif name == "kss":
            splitters[name], report["kss_backend"] = kss_splitter()
        else:
            parser.error(f"unknown splitter {name}")
    for part in args.parts.split(","):
        rows = load_gold(part)
        report[part] = {}
        for name, split in splitters.items():
            if name == "kcorpus":
                splits = [split(row["text"]) for row in rows]
                show_errors(rows, splits, args.show_errors)
            else:
                splits = cached(rows, split, f"{name}-{report.get('kss_backend', '')}" if name == "kss" else name,
                                args.cache_dir)
            report[part][name] = scores(rows, splits)
    if not args.no_speed:
        with tempfile.TemporaryDirectory() as scratch:
            baselines = {f"at {rev}": baseline_splitter(rev, Path(scratch)) for rev in args.baseline}
            report["kcorpus_speed"] = speed(args.data_dir, args.repeats, baselines)
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
