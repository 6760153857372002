"""Cost of decontamination: index build, and matching against preparation, CPU seconds per MB.

    .venv/bin/python bench/bench_decontaminate.py --data /work/shared/data --repeat 3

Evaluation set: NSMC `ratings_test.txt` (50,000 comments), read with the `nsmc` reader. Corpora, each read with
its reader and prepared as build-corpus does (NFC, kcorpus sentence split for petitions and Wikipedia, the
kcelectra `clean()`, the default filters): petitions 2017-08, Korean Wikipedia `wiki_00` + `wiki_01`, and
the NSMC test comments themselves (the worst case: almost every document matches). For each corpus, one
repeat times `DocumentPreparer.prepare` over every document (the baseline) and then `find_matches` over the
prepared texts in batches of 1,000, as `PrepareBatchFn` calls it; both in CPU seconds of this process
(`time.process_time`), medians over `--repeat`. The ratio is matching / preparation: what decontamination
adds to the prepare stage. Also prints the index build time, its size in memory and the matches found.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kcorpus.transforms.prepare import DocumentPreparer
from kcorpus.transforms.readers import read_file
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig, build_index, find_matches
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.split import make_splitter

BATCH = 1000


def documents(fmt: str, paths: list[Path]) -> list[Document]:
    return [r for p in paths for r in read_file(fmt, str(p)) if isinstance(r, Document)]


def cpu(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = args.data
    config = DecontaminateConfig(paths=("nsmc",), format="nsmc")
    evals = documents("nsmc", [data / "nsmc" / "ratings_test.txt"])
    records = [(d.id, d.text) for d in evals]
    builds = []
    for _ in range(args.repeat):
        seconds, index = cpu(lambda: build_index(records, config))
        builds.append(seconds)
    nbytes = sum(a.nbytes for a in (*index.hashes.values(), *index.owners.values()))
    print(f"index: {len(records):,} eval texts {dict(index.counts)}, build {statistics.median(builds):.2f} s CPU, "
          f"{nbytes / 1e6:.1f} MB of arrays")  # fmt: skip

    splitter = make_splitter("kcorpus")
    cleaner = make_cleaner("kcelectra")
    corpora = {
        "petitions": ("petitions", [data / "petitions" / "petitions_2017-08"], True),
        "kowiki": ("wikiextractor", [data / "kowiki" / "wiki_00", data / "kowiki" / "wiki_01"], True),
        "nsmc test (itself)": ("nsmc", [data / "nsmc" / "ratings_test.txt"], False),
    }
    print("| corpus | MB | documents | prepare s/MB | match s/MB | ratio | contaminated |")
    print("|---|---|---|---|---|---|---|")
    for name, (fmt, paths, split) in corpora.items():
        docs = documents(fmt, paths)
        mb = sum(len(d.text.encode("utf-8")) for d in docs) / 1e6
        preparer = DocumentPreparer(
            cleaner=cleaner, splitter=splitter if split else None, filters=FilterConfig()
        )
        prep_times, match_times = [], []
        for _ in range(args.repeat):
            seconds, prepared = cpu(lambda p=preparer, ds=docs: [p.prepare(d).document for d in ds])
            prep_times.append(seconds)
            texts = [d.text for d in prepared if d is not None]

            def match(texts: list[str] = texts) -> list:
                return [
                    m
                    for i in range(0, len(texts), BATCH)
                    for m in find_matches(texts[i : i + BATCH], index, config)
                ]

            seconds, matches = cpu(match)
            match_times.append(seconds)
        prep, matching = statistics.median(prep_times), statistics.median(match_times)
        hits = sum(m is not None for m in matches)
        print(f"| {name} | {mb:.1f} | {len(docs):,} | {prep / mb:.3f} | {matching / mb:.3f} | "
              f"{matching / prep:.2f} | {hits:,} of {len(texts):,} |")  # fmt: skip


if __name__ == "__main__":
    main()
