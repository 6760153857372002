"""What digit folding in near dedup merges: near-duplicate losers per source with and without it.

    python bench/fold_digits.py                      # NSMC test, petitions 2017-08, kowiki wiki_00 + wiki_01

Each source is prepared as in configs/sample.yaml (kcelectra for comments and petitions, no whitelist for
Wikipedia, default filters), exact duplicates are removed, then near dedup (the sample's 16 x 8 and the
mDeBERTa profile's 20 x 10 bands) runs in memory on the kept texts as they are and with `fold_digits`.
Prints the losers each way and every pair folding adds (the loser, then its survivor).
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

from kcorpus.transforms.dedup import (
    NearDedupConfig,
    band_hashes,
    compact_signatures,
    connected_components,
    dedup_text,
    estimated_jaccard,
    fold_digits,
    minhash_signatures,
)
from kcorpus.transforms.prepare import DocumentPreparer
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.sentences import make_splitter

DATA = Path("/work/shared/data")
SOURCES = {
    "nsmc": ("nsmc", [DATA / "nsmc/ratings_test.txt"], "kcelectra", False),
    "petitions": ("petitions", [DATA / "petitions/petitions_2017-08"], "kcelectra", True),
    "kowiki": ("wikiextractor", [DATA / "kowiki/wiki_00", DATA / "kowiki/wiki_01"], None, True),
}
CONFIGS = {"16x8": NearDedupConfig(), "20x10": NearDedupConfig(bands=20, rows=10)}


def kept_texts(name: str) -> list[tuple[str, str]]:
    """(id, text) of every kept document, exact duplicates removed (the first one read stays)."""
    fmt, paths, preset, split = SOURCES[name]
    reader = reader_for(fmt)
    preparer = DocumentPreparer(
        cleaner=make_cleaner(preset) if preset else (lambda t: t),
        splitter=make_splitter("kcorpus") if split else None,
        filters=FilterConfig(),
        boilerplate=reader.boilerplate_for,
        title_line=reader.title_line(ReadOptions()),
    )
    unique: dict[str, str] = {}
    for path in paths:
        for doc in reader.read(str(path), ReadOptions(), name):
            if isinstance(doc, Document) and (prepared := preparer.prepare(doc)).document:
                unique.setdefault(dedup_text(prepared.document.text), doc.id)
    return [(doc_id, text) for text, doc_id in unique.items()]


def near_losers(docs: list[tuple[str, str]], config: NearDedupConfig, fold: bool) -> dict[str, str]:
    """`{loser: survivor}` of near dedup in memory: LSH buckets, pairs verified, connected components."""
    texts = [fold_digits(t) if fold else t for _, t in docs]
    signatures = minhash_signatures(texts, config)
    bands, compact = band_hashes(signatures, config), compact_signatures(signatures)
    edges = set()
    for band in range(config.bands):
        buckets = collections.defaultdict(list)
        for i, key in enumerate(bands[:, band].tolist()):
            buckets[key].append(i)
        for members in buckets.values():
            for x, a in enumerate(members):
                for b in members[x + 1 :]:
                    if estimated_jaccard(compact[a], compact[b]) >= config.min_jaccard:
                        edges.add(tuple(sorted((docs[a][0], docs[b][0]))))
    return connected_components(edges)


def main(names: list[str]) -> None:
    for name in names or list(SOURCES):
        docs = kept_texts(name)
        text = dict(docs)
        for label, config in CONFIGS.items():
            plain, folded = near_losers(docs, config, False), near_losers(docs, config, True)
            added = sorted(set(folded) - set(plain))
            print(f"{name} {label}: {len(docs)} unique kept; near losers {len(plain)} -> {len(folded)} with "
                  f"fold_digits (+{len(added)}, -{len(set(plain) - set(folded))})")
            for loser in added:
                print(f"    {text[loser][:80]!r}  =>  {text[folded[loser]][:80]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
