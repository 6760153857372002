"""Which whole-text matches decontamination makes between two halves of NSMC test, by the letters of the
evaluation text: where stock phrases end and reposts begin (the `min_chars` default).

    python bench/decontaminate_min_chars.py [MIN_CHARS ...]     # default: 10 15

Even rows of NSMC `ratings_test.txt` are the evaluation set, odd rows the corpus; the petitions month is
matched too. Prints the matches per kind, whole-text matches per 5 letters, and every whole-text match.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig, build_index, canonical, find_matches

DATA = Path("/work/shared/data")


def documents(fmt: str, path: Path) -> list[Document]:
    return [d for d in reader_for(fmt).read(str(path), ReadOptions(), fmt) if isinstance(d, Document)]


def main(floors: list[int]) -> None:
    nsmc = documents("nsmc", DATA / "nsmc" / "ratings_test.txt")
    evals, corpus = nsmc[::2], nsmc[1::2]
    petitions = documents("petitions", DATA / "petitions" / "petitions_2017-08")
    eval_text = {d.id: d.text for d in evals}
    for floor in floors:
        config = DecontaminateConfig(paths=("nsmc",), format="nsmc", min_chars=floor)
        index = build_index([(d.id, d.text) for d in evals], config)
        for name, docs in (("nsmc odd rows", corpus), ("petitions", petitions)):
            matches = find_matches([d.text for d in docs], index, config)
            kinds = collections.Counter(m.kind for m in matches if m)
            whole = [(d, m) for d, m in zip(docs, matches, strict=True) if m and m.kind == "whole"]
            letters = [len(canonical(eval_text[m.eval_id]).replace(" ", "")) for _, m in whole]
            by_five = sorted(collections.Counter(n // 5 * 5 for n in letters).items())
            print(f"min_chars {floor}, {name}: {sum(kinds.values())} matched {dict(kinds)}; whole by letters {by_five}")
            for n, (doc, match) in sorted(zip(letters, whole, strict=True), key=lambda x: x[0]):
                print(f"    {n:3d} {eval_text[match.eval_id]!r} ~ {doc.text!r}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 15])
