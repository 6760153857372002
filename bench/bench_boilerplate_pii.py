"""Boilerplate sets and PII masking on real data: what they match (for hand-checking) and what they cost.

    python bench/bench_boilerplate_pii.py --data /work/shared/data            # counts and CPU cost
    python bench/bench_boilerplate_pii.py --data /work/shared/data --matches  # every match, in context

Sources: the petitions month (`petitions`, sentence split, kcelectra), NSMC test (`nsmc`, lines, kcelectra)
and Korean Wikipedia (`wikiextractor`, sentence split, preset none), each with its format's default sets.
Cost: CPU seconds per MB of input text for `DocumentPreparer.prepare` with the sets and `pii: mask`
against the same preparer with no sets and `pii: keep`, runs interleaved, median of `--repeats`.
"""

from __future__ import annotations

import argparse
import collections
import re
import statistics
import time
from pathlib import Path

from kcorpus.transforms.prepare import DocumentPreparer, identity, normalize_text
from kcorpus.transforms.readers import read_file
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.boilerplate import BoilerplateRemover
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.rules.pii import TOKENS, mask_pii
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.split import make_splitter

SOURCES = (  # name, format, path under --data, preset, split
    ("petitions", "petitions", "petitions/petitions_2017-08", "kcelectra", True),
    ("nsmc", "nsmc", "nsmc/ratings_test.txt", "kcelectra", False),
    ("kowiki", "wikiextractor", "kowiki", "none", True),
)


def documents(data: Path, fmt: str, path: str) -> list[Document]:
    files = sorted((data / path).glob("wiki_*")) if (data / path).is_dir() else [data / path]
    return [d for f in files for d in read_file(fmt, str(f)) if isinstance(d, Document)]


def preparer(fmt: str, preset: str, split: bool, on: bool) -> DocumentPreparer:
    return DocumentPreparer(
        cleaner=identity if preset == "none" else make_cleaner(preset),
        splitter=make_splitter("kcorpus") if split else None,
        filters=FilterConfig(pii="mask" if on else "keep"),
        boilerplate=reader_for(fmt).boilerplate_for if on else (),
    )


def cpu_seconds(prep: DocumentPreparer, docs: list[Document]) -> float:
    start = time.process_time()
    for doc in docs:
        prep.prepare(doc)
    return time.process_time() - start


def show_matches(name: str, fmt: str, docs: list[Document]) -> None:
    """Every boilerplate match and every PII token, with 30 characters of context either side."""
    for doc in docs:
        text = normalize_text(doc.text)
        sets = reader_for(fmt).boilerplate_for(doc.metadata or {})
        for key, pattern, _, _ in BoilerplateRemover(sets).rules:
            for m in pattern.finditer(text):
                print(
                    f"{name}\t{key}\t{doc.id}\t{text[max(0, m.start() - 30) : m.end() + 30]!r}\t{m.group()!r}"
                )
        masked = mask_pii(text).text
        for m in re.finditer("|".join(re.escape(t) for t in set(TOKENS.values())), masked):
            context = masked[max(0, m.start() - 30) : m.end() + 30]
            print(f"{name}\tpii:{m.group()}\t{doc.id}\t{context!r}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--matches", action="store_true")
    args = parser.parse_args()
    for name, fmt, path, preset, split in SOURCES:
        docs = documents(args.data, fmt, path)
        if args.matches:
            show_matches(name, fmt, docs)
            continue
        mb = sum(len(d.text.encode()) for d in docs) / 1e6
        on, off = preparer(fmt, preset, split, True), preparer(fmt, preset, split, False)
        counts: collections.Counter[str] = collections.Counter()
        reasons: collections.Counter[str] = collections.Counter()
        for doc in docs:
            out = on.prepare(doc)
            counts.update(out.rewrites)
            reasons[out.reason or "kept"] += 1
        times: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(args.repeats):
            times["off"].append(cpu_seconds(off, docs))
            times["on"].append(cpu_seconds(on, docs))
        before, after = (statistics.median(times[k]) / mb for k in ("off", "on"))
        print(
            f"{name}: {len(docs)} documents, {mb:.2f} MB; CPU s/MB without {before:.3f}, with {after:.3f}"
            f" (x{after / before:.2f})"
        )
        print(f"  outcomes: {dict(sorted(reasons.items()))}")
        print(f"  rewrites: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
