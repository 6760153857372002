"""Per-document preparation CPU of this checkout against `transforms/prepare.py` of a git ref, in one process.

    python bench/bench_prepare.py --ref 9b998ee --rounds 15

The ref's `prepare.py` is loaded as a module of its own beside this checkout's (both import the same
`kcorpus` rules, cleaner and splitter, so only the preparation code differs). Input: the shared petitions
month (`kcelectra`) and the two Wikipedia files (`none`), with configs/mdeberta-kor.yaml's filters. The two
run alternately, `--rounds` times each over all documents; prints CPU s per MB (median and min) and their
ratio, and the ratio of each round.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kcorpus.transforms import prepare as prepare_new
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.sentences import make_splitter

ROOT = Path(__file__).resolve().parent.parent
DATA = Path("/work/shared/data")
INPUTS = [
    ("petitions", DATA / "petitions" / "petitions_2017-08", "kcelectra"),
    ("wikiextractor", DATA / "kowiki" / "wiki_00", "none"),
    ("wikiextractor", DATA / "kowiki" / "wiki_01", "none"),
]


def prepare_of_ref(ref: str, folder: Path) -> object:
    """`transforms/prepare.py` of git ref `ref`, imported as a module of its own."""
    path = folder / "prepare_ref.py"
    code = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:transforms/prepare.py"], check=True,
                          capture_output=True).stdout
    path.write_bytes(code)
    spec = importlib.util.spec_from_file_location("prepare_ref", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["prepare_ref"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ref", required=True, help="the git ref whose transforms/prepare.py is the baseline")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    filters = FilterConfig(min_chars=10, max_chars=2000, min_hangul_ratio=0.2, min_sentences=2)
    with tempfile.TemporaryDirectory(prefix="bench-prepare-") as tmp:
        old_module = prepare_of_ref(args.ref, Path(tmp))
    jobs = []
    for fmt, path, preset in INPUTS:
        reader = reader_for(fmt)
        docs = [d for d in reader.read(str(path), ReadOptions(), fmt) if isinstance(d, Document)]
        cleaner = make_cleaner(preset) if preset != "none" else prepare_new.identity
        kwargs = {"cleaner": cleaner, "splitter": make_splitter(), "filters": filters,
                  "boilerplate": reader.boilerplate_for}
        jobs.append((docs, old_module.DocumentPreparer(**kwargs), prepare_new.DocumentPreparer(**kwargs)))
    mb = sum(len(d.text.encode()) for docs, _, _ in jobs for d in docs) / 1e6
    times: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name, k in (("old", 1), ("new", 2)):
            start = time.process_time()
            for job in jobs:
                prepare = job[k].prepare
                for doc in job[0]:
                    prepare(doc)
            times[name].append(time.process_time() - start)
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(f"{mb:.2f} MB, {args.rounds} rounds; prepare CPU s/MB median: {args.ref} {old / mb:.3f}, "
          f"this checkout {new / mb:.3f}, ratio {new / old:.3f}; min: {min(times['old']) / mb:.3f}, "
          f"{min(times['new']) / mb:.3f}, ratio {min(times['new']) / min(times['old']):.3f}")
    print("ratio per round:", [round(n / o, 3) for o, n in zip(times["old"], times["new"], strict=True)])


if __name__ == "__main__":
    main()
