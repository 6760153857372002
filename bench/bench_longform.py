"""CPU cost of the `longform` clean() preset against `kcelectra` on the same sentences, in the same run.

    .venv/bin/python bench/bench_longform.py

Texts: the petitions month of the goldens (tests/testdata/golden/inputs.jsonl.gz, the 1,324 titles and
contents after the 50,000 NSMC comments) and the bundled Wikipedia slice (tests/testdata/sample/wiki_00_head),
each split into sentences by the kcorpus splitter, as build-corpus cleans them. Passes alternate between the
presets; times are CPU seconds of this process (time.process_time), medians of 7; prints CPU s/MB and ratios.
"""

from __future__ import annotations

import gzip
import json
import statistics
import time
from pathlib import Path

from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.sentences import make_splitter

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_INPUTS = ROOT / "tests" / "testdata" / "golden" / "inputs.jsonl.gz"
WIKI = ROOT / "tests" / "testdata" / "sample" / "wiki_00_head"
PRESETS = ("kcelectra", "longform")


def corpora() -> dict[str, list[str]]:
    split = make_splitter("kcorpus")
    with gzip.open(GOLDEN_INPUTS, "rt", encoding="utf-8") as f:
        petitions = [json.loads(line) for line in f][50_000:]
    wiki = [line.strip() for line in WIKI.open(encoding="utf-8") if line.strip() and not line.startswith("<")]
    return {
        name: [s for text in texts for line in text.split("\n") if line.strip() for s in split(line.strip())]
        for name, texts in (("petitions", petitions), ("kowiki", wiki))
    }


def main() -> None:
    cleaners = {preset: make_cleaner(preset) for preset in PRESETS}
    for name, sentences in corpora().items():
        mb = sum(len(s.encode("utf-8")) for s in sentences) / 1e6
        times: dict[str, list[float]] = {preset: [] for preset in PRESETS}
        for _ in range(7):
            for preset, cleaner in cleaners.items():
                start = time.process_time()
                for sentence in sentences:
                    cleaner(sentence)
                times[preset].append(time.process_time() - start)
        median = {preset: statistics.median(t) for preset, t in times.items()}
        print(
            f"{name}: {len(sentences):,} sentences, {mb:.2f} MB; CPU s/MB "
            + ", ".join(f"{p} {median[p] / mb:.4f}" for p in PRESETS)
            + f"; longform/kcelectra {median['longform'] / median['kcelectra']:.2f}x"
        )


if __name__ == "__main__":
    main()
