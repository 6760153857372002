"""The living benchmarks: what each measures, how long it runs, how to run it; `make bench` prints this list.

    python bench/catalog.py            # the list (what `make bench` runs)
    python bench/catalog.py --smoke    # every benchmark's --help, then the quick run of the fast ones

Layout of bench/: `bench_*.py` are the living benchmarks (figures in bench/RESULTS.md, one section per topic);
`lib/` the helpers they share (measuring a process tree, the row tables, scaled inputs, the published cleaner);
`checks/` checks of an output or of the docs that need real data, a model or hours (not tests);
`generators/` the scripts that make package data, test fixtures or bench inputs. The split scorer that the
splitter's tests use lives with them (tests/split_scoring.py). One-off investigations are deleted once their
figures are in RESULTS.md; git keeps them (RESULTS.md names the commit).

Run times are on the 2-core development machine, idle, with the default or quoted arguments. `DATA` is the
shared data folder (NSMC `ratings_test.txt`, `petitions_2017-08`, WikiExtractor `kowiki/wiki_00`, `wiki_01`).
A quick run that needs DATA is skipped where it is absent.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DATA = Path("/work/shared/data")


@dataclass(frozen=True)
class Bench:
    run_time: str
    quick: tuple[str, ...] = ()  # arguments of a quick run (under ~2 minutes), empty: only --help
    needs_data: bool = False  # the quick run reads DATA (passed as --data)


BENCHES = {
    "bench_boilerplate_pii.py": Bench("~1 min", ("--repeats", "1"), needs_data=True),
    "bench_build_cpu_pair.py": Bench("~3 min (5 rounds, 3 profiles); needs two installed checkouts"),
    "bench_bundles.py": Bench("~5 min (16 workers on 2 cores)"),
    "bench_clean.py": Bench(
        "~2 min; the reference needs a throwaway venv", ("--repeats", "1", "--texts", "2000")
    ),
    "bench_collate.py": Bench(
        "~2 min", ("--comments", "2000", "--repeats", "1", "--batches", "2"), needs_data=True
    ),
    "bench_corpus.py": Bench(
        "~10 min (--sizes 100,400); ~40 min with 1000",
        ("--sizes", "1,3", "--repeat", "1", "--systems", "beam", "--no-warmup"),
    ),
    "bench_decontaminate.py": Bench("~1 min", ("--repeat", "1"), needs_data=True),
    "bench_fixed_cost.py": Bench("~2 min (--repeat 5)", ("--repeat", "1")),
    "bench_gpu_prefetch.py": Bench("~5 min on a GPU", ("--device", "cpu", "--tiny")),
    "bench_pack.py": Bench(
        "~15 min (--copies 8 --repeats 3)", ("--copies", "1", "--repeats", "1"), needs_data=True
    ),
    "bench_pack_memory.py": Bench("hours (0.2-4 GB corpora from generators/scale_corpus.py)"),
    "bench_readers.py": Bench("~1 min", ("--repeat", "1", "--beam-copies", "1"), needs_data=True),
    "bench_resume.py": Bench(
        "~30 min idle at 300 MB of Wikipedia (a build, two killed builds and their reruns)"
    ),
    "bench_run.py": Bench("~3 min (--repeat 3)"),
    "bench_scale.py": Bench("~35 min (100 MB to 1 GB of Wikipedia); ~5 min with --sizes 10,20"),
    "bench_split.py": Bench("~3 min with Kiwi's splits cached, ~10 min without"),
    "bench_split_gold.py": Bench(
        "~1 min without kss", ("--parts", "dev", "--splitters", "kcorpus", "--no-speed")
    ),
    "bench_tests.py": Bench("~15-40 min (the suite, --repeat 3)"),
    "bench_vocab.py": Bench("~20 min (--mb 100)"),
    "bench_vocab_coverage.py": Bench(
        "~10 min on 100 MB of Wikipedia per setting, loaded; ~1 min on comments"
    ),
    "bench_vocab_library.py": Bench("~1 h on 1 GB of Wikipedia (--rounds 3)"),
}


def summary_and_command(path: Path) -> tuple[str, str]:
    """The first line of the script's docstring, and the first command line it shows."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    lines = [line.strip() for line in doc.splitlines()]
    command = next((line for line in lines if line.startswith(("python ", ".venv/bin/python "))), "")
    return lines[0] if lines else "", command.split("  #")[0].strip()


def print_list() -> None:
    print("Living benchmarks (bench/bench_*.py; figures in bench/RESULTS.md; `--help` of each says more):\n")
    for name, bench in BENCHES.items():
        summary, command = summary_and_command(BENCH / name)
        print(f"{name}  [{bench.run_time}]\n    {summary}\n    {command or f'python bench/{name}'}")
    print(
        "\nQuick runs of the fast ones and every --help: python bench/catalog.py --smoke (make bench-smoke)"
    )


def smoke() -> int:
    """Every benchmark's --help, then the quick runs; prints one line each, exits 1 if any failed."""
    failed = 0
    runs = [(name, ("--help",)) for name in BENCHES]
    runs += [
        (name, (*(("--data", str(DATA)) if b.needs_data else ()), *b.quick))
        for name, b in BENCHES.items()
        if b.quick and (DATA.is_dir() or not b.needs_data)
    ]
    for name, args in runs:
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(BENCH / name), *args], check=False, capture_output=True, text=True
        )
        seconds = time.monotonic() - start
        ok = done.returncode == 0
        failed += not ok
        print(
            f"{'ok  ' if ok else 'FAIL'} {seconds:6.1f} s  python bench/{name} {' '.join(args)}", flush=True
        )
        if not ok:
            print("    " + "\n    ".join((done.stdout + done.stderr).strip().splitlines()[-15:]))
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="run every --help and the quick runs")
    if parser.parse_args().smoke:
        return smoke()
    print_list()
    return 0


if __name__ == "__main__":
    sys.exit(main())
