"""Benchmark kcorpus's sentence splitter against Kiwi (or kss) on real Korean petitions, Wikipedia and comments.

Measures, in one run and on the same text: boundary precision, recall and F1 of kcorpus against a reference
splitter, Kiwi (kiwipiepy's `Kiwi.split_into_sents`, the default) or kss's default backend; the share of
kcorpus's and the reference's sentences that start with punctuation or a bare ending; and throughput (KB/s of
UTF-8 input per CPU second, median of several runs, the two backends' runs interleaved) of kcorpus and the
reference on the same prefix of the sample.

Unit of splitting: a paragraph (a non-empty line of a wiki article or a petition, one NSMC comment); newlines
are boundaries for every backend, so only boundaries *inside* paragraphs are scored. A boundary is the number
of non-whitespace characters before it in the paragraph; a hypothesis boundary is correct iff the reference
has one at the same offset (strict), or at the same offset once both are moved past the punctuation, symbols
and jamo that follow them (tolerant: `했습니다. ‖ - 입점` and `했습니다. - ‖ 입점` agree). Paragraphs whose
non-whitespace characters the reference changed are counted and skipped.

Sample: `--selection all` every paragraph of every source; `odd` odd-index documents (the rules were first
tuned on even-index ones against kss) until `--sample-kb` KB per source; `tail` documents from the end
backwards. Reference splits are cached per paragraph (by hash) under `--cache-dir`; kss and pecab memoize
whole texts, and those caches are cleared before every timed kss run.

    python bench/bench_split.py --selection all --timing-kb 300             # Kiwi, every paragraph (~3 min)
    python bench/bench_split.py --reference kss --sources kowiki,petitions  # the kss comparison (minutes)
    python bench/bench_split.py --selection all --sources petitions --show-errors 20
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The scorer lives with the splitter tests that use it (tests/split_scoring.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from split_scoring import boundary_counts, f1_score

from kcorpus.transforms.text.split import make_splitter, split_sentences

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


def nsmc_documents(data_dir: Path) -> list[list[str]]:
    """NSMC comments (`nsmc/ratings_test.txt`, tab-separated, never parsed as CSV), one paragraph each."""
    lines = (data_dir / "nsmc" / "ratings_test.txt").read_text(encoding="utf-8").splitlines()[1:]
    return [[fields[1]] for fields in (line.split("\t") for line in lines) if len(fields) > 1 and fields[1].strip()]


def held_out_sample(documents: list[list[str]], budget_bytes: int, selection: str = "odd") -> list[str]:
    """Paragraphs of the selected documents until `budget_bytes` of UTF-8 text (`all`: every paragraph).

    `odd`: odd-index documents from the start (the first held-out sample of the kss tuning);
    `tail`: every document from the end of the list backwards (far from the even-index tuning documents).
    """
    if selection == "all":
        return [p.strip() for document in documents for p in document if p.strip()]
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
    split: Callable[[str], list[str]],
    paragraphs: list[str],
    repeats: int,
    *,
    clear: Callable[[], None] | None = None,
) -> list[float]:
    """CPU seconds taken by each of `repeats` runs splitting every paragraph (`clear` called before each).

    CPU time of this one-threaded process (Kiwi runs with one thread), not wall time: on a shared machine
    the wall clock also counts the time other processes held the core.
    """
    seconds = []
    for _ in range(repeats):
        if clear:
            clear()
        start = time.process_time()
        for paragraph in paragraphs:
            split(paragraph)
        seconds.append(time.process_time() - start)
    return seconds


def interleaved_medians(
    paragraphs: list[str], runs: dict[str, tuple[Callable[[str], list[str]], Callable[[], None] | None, int]]
) -> dict[str, float]:
    """Median CPU seconds of each splitter `(split, clear, repeats)` over `paragraphs`, its runs interleaved
    with the others' (one run of each per round) so that a change in the machine's load falls on all alike."""
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(max(repeats for _, _, repeats in runs.values())):
        for name, (split, clear, repeats) in runs.items():
            if round_ < repeats:
                seconds[name].extend(time_runs(split, paragraphs, 1, clear=clear))
    return {name: statistics.median(values) for name, values in seconds.items()}


def score(reference: list[list[str]], hypothesis: list[list[str]], paragraphs: list[str], tolerant: bool) -> dict:
    tp = fp = fn = skipped = 0
    for text, ref, hyp in zip(paragraphs, reference, hypothesis):
        if "".join("".join(ref).split()) != "".join(text.split()):
            skipped += 1
            continue
        a, b, c = boundary_counts(ref, hyp, tolerant)
        tp, fp, fn = tp + a, fp + b, fn + c
    precision, recall, f1 = f1_score(tp, fp, fn)
    return {
        "f1": round(f1, 4),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "skipped_paragraphs": skipped,
    }


# A sentence that no sentence should start with: punctuation, or an ending or quotative that continues the one
# before (`였습니다`, `입니다`, `라는`). The first sentence of a paragraph is not counted.
_BAD_START = re.compile(r"[.,?!~;:)\]}»”’…·]|(?:였|이었|입니[다까]|습니[다까]|이다[\s.]|라고|라는|라며)")


def bad_starts(splits: list[list[str]]) -> dict:
    """How many sentences after the first of a paragraph start with punctuation or a bare ending."""
    sentences = bad = 0
    for split in splits:
        sentences += len(split) - 1
        bad += sum(1 for sentence in split[1:] if _BAD_START.match(sentence))
    return {"sentences": sentences, "bad_starts": bad, "share": round(bad / sentences, 5) if sentences else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--reference", choices=("kiwi", "kss"), default="kiwi", help="the reference splitter")
    parser.add_argument("--sample-kb", type=int, default=40, help="KB per source scored (not with --selection all)")
    parser.add_argument(
        "--petitions-kb",
        type=int,
        default=0,
        help="KB of petitions scored (kss needs minutes per long petition); 0: use --sample-kb",
    )
    parser.add_argument("--timing-kb", type=int, default=100, help="KB per source (a prefix) timed for both")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs of kcorpus (median)")
    parser.add_argument("--reference-repeats", type=int, default=3, help="timed runs of the reference (median)")
    parser.add_argument(
        "--selection",
        choices=("all", "odd", "tail"),
        default="odd",
        help="every paragraph, odd-index documents from the start, or documents from the end backwards",
    )
    parser.add_argument(
        "--sources", default="petitions,kowiki,nsmc", help="comma-separated sources: petitions, kowiki, nsmc"
    )
    parser.add_argument("--reference-only", action="store_true", help="only compute (and cache) the reference")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/kcorpus-bench-split"))
    parser.add_argument("--show-errors", type=int, default=0, help="print N disagreeing paragraphs")
    args = parser.parse_args(argv)

    readers = {"petitions": petition_documents, "kowiki": wiki_documents, "nsmc": nsmc_documents}
    names = [name.strip() for name in args.sources.split(",") if name.strip()]
    unknown = sorted(set(names) - set(readers))
    if unknown or not names:
        parser.error(f"unknown --sources {', '.join(unknown)}; valid: {', '.join(readers)}")
    sources = {}
    for name in names:
        budget = (args.petitions_kb if name == "petitions" and args.petitions_kb else args.sample_kb) * 1000
        try:
            sources[name] = held_out_sample(readers[name](args.data_dir), budget, args.selection)
        except FileNotFoundError:
            sources[name] = []
        if not sources[name]:
            parser.error(f"no {name} text under {args.data_dir} (see --data-dir)")
    start = time.perf_counter()
    reference_split, clear_caches = load_reference(args.reference)
    print(f"{args.reference} load: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    for source, paragraphs in sources.items():
        reference = cached_reference(paragraphs, reference_split, f"{source}.{args.reference}", args.cache_dir)
        if args.reference_only:
            continue
        hypothesis = [split_sentences(p) for p in paragraphs]
        timing = prefix(paragraphs, args.timing_kb * 1000)
        medians = interleaved_medians(
            timing,
            {
                "kcorpus": (split_sentences, None, args.repeats),
                "reference": (reference_split, clear_caches, args.reference_repeats),
            },
        )
        kcorpus_s, reference_s = medians["kcorpus"], medians["reference"]
        report[source] = {
            "paragraphs": len(paragraphs),
            "kb": round(kilobytes(paragraphs), 1),
            f"kcorpus_vs_{args.reference}": score(reference, hypothesis, paragraphs, tolerant=False),
            f"kcorpus_vs_{args.reference}_tolerant": score(reference, hypothesis, paragraphs, tolerant=True),
            "kcorpus_bad_starts": bad_starts(hypothesis),
            f"{args.reference}_bad_starts": bad_starts(reference),
            "timing_kb": round(kilobytes(timing), 1),
            "kcorpus_kb_per_s": round(kilobytes(timing) / kcorpus_s, 1),
            f"{args.reference}_kb_per_s": round(kilobytes(timing) / reference_s, 2),
            f"speedup_vs_{args.reference}": round(reference_s / kcorpus_s, 1),
            "kcorpus_kb_per_s_full_sample": round(
                kilobytes(paragraphs) / statistics.median(time_runs(split_sentences, paragraphs, args.repeats)), 1
            ),
        }
        show_errors(source, args.reference, reference, hypothesis, args.show_errors)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


def load_reference(name: str) -> tuple[Callable[[str], list[str]], Callable[[], None] | None]:
    """The reference splitter of one paragraph, and what clears its whole-text caches before a timed run."""
    if name == "kiwi":
        return make_splitter("kiwi"), None  # Kiwi.split_into_sents, its model loaded now
    import kss

    return (lambda p: kss.split_sentences(p, backend="auto", num_workers=1)), clear_kss_caches


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


def cached_reference(
    paragraphs: list[str], split: Callable[[str], list[str]], name: str, cache_dir: Path
) -> list[list[str]]:
    """Reference splits of `paragraphs`, cached per paragraph (by hash) in `cache_dir/NAME.jsonl`."""
    cache = cache_dir / f"{name}.jsonl"
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
            f"{name}: reference for {missing} paragraphs in {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
        )
    return reference


def show_errors(source: str, name: str, reference, hypothesis, limit: int) -> None:
    shown = 0
    for ref, hyp in zip(reference, hypothesis):
        if shown >= limit:
            break
        if boundary_counts(ref, hyp)[1:] != (0, 0):
            shown += 1
            print(f"--- {source}\n{name + ':':<9}{ref}\nkcorpus: {hyp}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
