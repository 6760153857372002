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

Sample: held-out documents (odd index within each source; the rules were tuned on even-index
ones) taken in order until `--sample-kb` KB per source. kss default splits are cached under
`--cache-dir` (keyed by the sample's hash) so reruns skip the slow reference pass.

    python bench/bench_split.py                   # ../shared/data, 40 KB per source scored, 12 KB timed
    python bench/bench_split.py --data-dir /path/to/data --sample-kb 100 --timing-kb 30 --show-errors 20
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

from kcorpus.transforms.sentences import boundary_counts, f1_score, split_sentences

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


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


def held_out_sample(documents: list[list[str]], budget_bytes: int) -> list[str]:
    """Paragraphs of odd-index documents, in order, until `budget_bytes` of UTF-8 text."""
    paragraphs: list[str] = []
    size = 0
    for index in range(1, len(documents), 2):
        for paragraph in documents[index]:
            paragraphs.append(paragraph)
            size += len(paragraph.encode("utf-8"))
        if size >= budget_bytes:
            break
    return paragraphs


def clear_kss_caches() -> None:
    """kss memoizes splits per paragraph (lru_cache); clear it so repeated runs time real work."""
    from kss._modules.sentences import split_sentences as kss_module

    for name in dir(kss_module):
        cache_clear = getattr(getattr(kss_module, name), "cache_clear", None)
        if cache_clear is not None:
            cache_clear()


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
    parser.add_argument("--timing-kb", type=int, default=12, help="KB per source (a prefix) timed for all")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs of kcorpus (median)")
    parser.add_argument("--kss-repeats", type=int, default=3, help="timed runs of each kss backend")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/kcorpus-bench-split"))
    parser.add_argument("--show-errors", type=int, default=0, help="print N disagreeing paragraphs")
    args = parser.parse_args(argv)

    sources = {
        "kowiki": held_out_sample(wiki_documents(args.data_dir), args.sample_kb * 1000),
        "petitions": held_out_sample(petition_documents(args.data_dir), args.sample_kb * 1000),
    }
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
    """kss default splits of `paragraphs`, cached in `cache_dir` by the sample's hash."""
    digest = hashlib.blake2b("\n".join(paragraphs).encode(), digest_size=8).hexdigest()
    cache = cache_dir / f"{source}-{digest}.kss.json"
    if cache.exists():
        return json.loads(cache.read_text(encoding="utf-8"))
    start = time.perf_counter()
    reference = [split(p) for p in paragraphs]
    print(f"{source}: kss reference in {time.perf_counter() - start:.0f} s -> {cache}", file=sys.stderr)
    cache.write_text(json.dumps(reference, ensure_ascii=False), encoding="utf-8")
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
