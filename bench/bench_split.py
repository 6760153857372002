"""Benchmark kcorpus's sentence splitter against kss on real Korean Wikipedia and petitions text.

Measures, in one run and on the same deterministic sample: throughput (KB/s of UTF-8 input, median of
several runs) of kcorpus, kss's default backend and kss's `fast` backend; and boundary precision,
recall and F1 of kcorpus (and kss-fast) against kss's default backend.

Unit of splitting: a paragraph (a non-empty line of a wiki article, a petition's content line);
newlines are boundaries for every backend, so only boundaries *inside* paragraphs are scored.
Boundary matching: a boundary is the number of non-whitespace characters before it in the
paragraph (offsets in the whitespace-stripped text); a hypothesis boundary is correct iff the
reference has a boundary at the same offset. Paragraphs where kss changed non-whitespace
characters are reported and skipped.

Sample: odd-index documents within each source (the rules were tuned on even-index ones) taken in
order until `--sample-kb` KB per source; `--selection tail` takes documents from the end backwards
instead (a fresh sample once the odd-index one has been looked at). kss default splits are cached under
`--cache-dir` (per paragraph, by hash) so reruns skip the slow reference pass. Throughput is
timed for every backend on the same prefix of the sample (`--timing-kb`): kss's cost grows faster
than linearly with paragraph length (a petition is one long paragraph), so a small prefix keeps the
run short. kss and pecab memoize whole texts; those caches are cleared before every timed run
(otherwise repeated runs measure cache hits, tens of KB/s instead of well under 1 KB/s).

    python bench/bench_split.py                   # ../shared/data: 40 KB wiki + 6 KB petitions scored, 6 KB timed
    python bench/bench_split.py --data-dir /path/to/data --sample-kb 100 --timing-kb 30 --show-errors 20
    python bench/bench_split.py --selection tail --sources petitions --petitions-kb 25 --reference-only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from split_scoring import boundary_counts, f1_score

from kcorpus.transforms.text.sentences import split_sentences

_REPO = Path(__file__).resolve().parents[1]
# ../shared/data next to the checkout (or next to the folder of worktrees).
DEFAULT_DATA = next(
    (p for p in (_REPO.parent / "shared" / "data", _REPO.parents[1] / "shared" / "data") if p.is_dir()),
    _REPO.parent / "shared" / "data",
)


def wiki_documents(data_dir: Path) -> list[list[str]]:
    """Articles of kowiki/wiki_* (WikiExtractor format) as lists of non-empty paragraph lines."""
    documents: list[list[str]] = []
    for path in sorted((data_dir / "kowiki").glob("wiki_*")):
        current: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("<doc "):
                current = []
            elif line == "</doc>":
                documents.append(current)
            elif line.strip():
                current.append(line)
    return documents


def petition_documents(data_dir: Path) -> list[list[str]]:
    """Petitions' `content` fields as lists of non-empty paragraph lines."""
    documents = []
    for path in sorted((data_dir / "petitions").glob("petitions_*")):
        for line in path.read_text(encoding="utf-8").splitlines():
            content = json.loads(line)["content"]
            documents.append([p for p in content.split("\n") if p.strip()])
    return documents


def held_out_sample(documents: list[list[str]], budget_bytes: int, selection: str = "odd") -> list[str]:
    """Paragraphs of held-out documents until `budget_bytes` of UTF-8 text.

    `odd`: odd-index documents from the start (the first held-out sample, since looked at while tuning);
    `tail`: every document from the end of the list backwards (a fresh sample, far from both the
    even-index tuning documents and the odd-index sample used so far).
    """
    indices = range(1, len(documents), 2) if selection == "odd" else range(len(documents) - 1, -1, -1)
    paragraphs: list[str] = []
    size = 0
    for index in indices:
        for paragraph in documents[index]:
            paragraphs.append(paragraph)
            size += len(paragraph.encode("utf-8"))
        if size >= budget_bytes:
            break
    return paragraphs


def clear_kss_caches() -> None:
    """Clear the caches in which kss and pecab memoize whole texts, so repeated runs time real work.

    Per-word dictionary caches (pecab's `create_entries`) stay warm, as they would in a long run.
    """
    from kss._modules.morphemes import analyzers
    from kss._modules.sentences import split_sentences as kss_split

    kss_split._split_sentences.cache_clear()
    for value in vars(analyzers).values():
        pos = vars(value).get("pos") if isinstance(value, type) else None
        if hasattr(pos, "cache_clear"):
            pos.cache_clear()
    try:
        from pecab._pecab import PeCab
    except ImportError:  # kss on mecab does not need pecab
        return
    PeCab._tokenize.cache_clear()


def time_runs(
    split: Callable[[str], list[str]], paragraphs: list[str], repeats: int, *, kss: bool = False
) -> list[float]:
    """Seconds taken by each of `repeats` runs splitting every paragraph."""
    seconds = []
    for _ in range(repeats):
        if kss:
            clear_kss_caches()
        start = time.perf_counter()
        for paragraph in paragraphs:
            split(paragraph)
        seconds.append(time.perf_counter() - start)
    return seconds


def score(reference: list[list[str]], hypothesis: list[list[str]], paragraphs: list[str]) -> dict:
    tp = fp = fn = skipped = 0
    for text, ref, hyp in zip(paragraphs, reference, hypothesis):
        if "".join("".join(ref).split()) != "".join(text.split()):
            skipped += 1
            continue
        a, b, c = boundary_counts(ref, hyp)
        tp, fp, fn = tp + a, fp + b, fn + c
    precision, recall, f1 = f1_score(tp, fp, fn)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "skipped_paragraphs": skipped,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sample-kb", type=int, default=40, help="KB per source scored against kss")
    parser.add_argument(
        "--petitions-kb",
        type=int,
        default=6,
        help="KB of petitions scored (kss needs minutes per long petition); 0: use --sample-kb",
    )
    parser.add_argument("--timing-kb", type=int, default=6, help="KB per source (a prefix) timed for all")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs of kcorpus (median)")
    parser.add_argument("--kss-repeats", type=int, default=3, help="timed runs of each kss backend")
    parser.add_argument(
        "--selection",
        choices=("odd", "tail"),
        default="odd",
        help="held-out documents: odd-index from the start, or all from the end backwards (fresh)",
    )
    parser.add_argument(
        "--sources", default="kowiki,petitions", help="comma-separated sources to run: kowiki, petitions"
    )
    parser.add_argument(
        "--reference-only", action="store_true", help="only compute (and cache) the kss reference"
    )
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/kcorpus-bench-split"))
    parser.add_argument("--show-errors", type=int, default=0, help="print N disagreeing paragraphs")
    args = parser.parse_args(argv)

    loaders = {
        "kowiki": lambda: held_out_sample(wiki_documents(args.data_dir), args.sample_kb * 1000, args.selection),
        "petitions": lambda: held_out_sample(
            petition_documents(args.data_dir), (args.petitions_kb or args.sample_kb) * 1000, args.selection
        ),
    }
    names = [name.strip() for name in args.sources.split(",") if name.strip()]
    unknown = sorted(set(names) - set(loaders))
    if unknown or not names:
        parser.error(f"unknown --sources {', '.join(unknown)}; valid: {', '.join(loaders)}")
    sources = {name: loaders[name]() for name in names}
    for source, paragraphs in sources.items():
        if not paragraphs:
            parser.error(f"no {source} text under {args.data_dir} (see --data-dir)")
    start = time.perf_counter()
    import kss

    print(f"kss import: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    splitters = {
        "kcorpus": split_sentences,
        "kss": lambda p: kss.split_sentences(p, backend="auto", num_workers=1),
        "kss-fast": lambda p: kss.split_sentences(p, backend="fast", num_workers=1),
    }
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    for source, paragraphs in sources.items():
        reference = kss_reference(paragraphs, splitters["kss"], source, args.cache_dir)
        if args.reference_only:
            continue
        outputs = {name: [split(p) for p in paragraphs] for name, split in splitters.items() if name != "kss"}
        entry: dict = {"paragraphs": len(paragraphs), "kb": round(kilobytes(paragraphs), 1)}
        for name, hypothesis in outputs.items():
            entry[f"{name}_vs_kss"] = score(reference, hypothesis, paragraphs)
        timing = prefix(paragraphs, args.timing_kb * 1000)
        entry["timing_kb"] = round(kilobytes(timing), 1)
        for name, split in splitters.items():
            repeats = args.repeats if name == "kcorpus" else args.kss_repeats
            median = statistics.median(time_runs(split, timing, repeats, kss=name != "kcorpus"))
            entry[f"{name}_kb_per_s"] = round(kilobytes(timing) / median, 2)
            print(f"{source:<10} {name:<8} {kilobytes(timing) / median:10.1f} KB/s", file=sys.stderr)
        entry["kcorpus_kb_per_s_full_sample"] = round(
            kilobytes(paragraphs) / statistics.median(time_runs(split_sentences, paragraphs, args.repeats)), 1
        )
        entry["speedup_vs_kss"] = round(entry["kcorpus_kb_per_s"] / entry["kss_kb_per_s"], 1)
        entry["speedup_vs_kss_fast"] = round(entry["kcorpus_kb_per_s"] / entry["kss-fast_kb_per_s"], 1)
        report[source] = entry
        show_errors(source, paragraphs, reference, outputs["kcorpus"], args.show_errors)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


def kilobytes(paragraphs: list[str]) -> float:
    return sum(len(p.encode("utf-8")) for p in paragraphs) / 1000


def prefix(paragraphs: list[str], budget_bytes: int) -> list[str]:
    """The first paragraphs of the sample, up to `budget_bytes` (at least one)."""
    chosen: list[str] = []
    size = 0
    for paragraph in paragraphs:
        if chosen and size + len(paragraph.encode("utf-8")) > budget_bytes:
            break
        chosen.append(paragraph)
        size += len(paragraph.encode("utf-8"))
    return chosen


def kss_reference(
    paragraphs: list[str], split: Callable[[str], list[str]], source: str, cache_dir: Path
) -> list[list[str]]:
    """kss default splits of `paragraphs`, cached per paragraph (by hash) in `cache_dir/SOURCE.jsonl`."""
    cache = cache_dir / f"{source}.kss.jsonl"
    known: dict[str, list[str]] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            known[row["key"]] = row["sentences"]
    start = time.perf_counter()
    missing = 0
    reference = []
    with cache.open("a", encoding="utf-8") as appended:
        for paragraph in paragraphs:
            key = hashlib.blake2b(paragraph.encode("utf-8"), digest_size=12).hexdigest()
            if key not in known:
                missing += 1
                known[key] = split(paragraph)
                appended.write(json.dumps({"key": key, "sentences": known[key]}, ensure_ascii=False) + "\n")
                appended.flush()
            reference.append(known[key])
    if missing:
        print(
            f"{source}: kss reference for {missing} paragraphs in {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
        )
    return reference


def show_errors(source: str, paragraphs: list[str], reference, hypothesis, limit: int) -> None:
    shown = 0
    for ref, hyp in zip(reference, hypothesis):
        if shown >= limit:
            break
        if boundary_counts(ref, hyp)[1:] != (0, 0):
            shown += 1
            print(f"--- {source}\nkss:     {ref}\nkcorpus: {hyp}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
