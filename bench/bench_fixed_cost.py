"""Fixed cost of a run: build-corpus and pack of a tiny input, the default worker count against another.

    python bench/bench_fixed_cost.py --repeat 5
    python bench/bench_fixed_cost.py --repeat 3 --baseline="--direct_num_workers=16"
    python bench/bench_fixed_cost.py --repeat 7 --baseline "" --compare /work/main/.venv/bin/kcorpus

The tiny input is the head of the bundled sample (200 NSMC comments, 5 petitions, 3 Wikipedia articles,
~60 KB), so a run's wall time is its overhead: process start, imports, worker start-up, one bundle per
stage and worker, metadata. Each configuration runs `--repeat` times, interleaved (the machine is noisy);
medians of wall and tree CPU are printed, with the ratio to the baseline. The baseline defaults to the old
default, one multi-processing worker per core; `--compare` adds another checkout's `kcorpus` with the default
options (the same input and commands), to measure a change against the code before it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import bench_bundles
import bench_corpus
import bench_pack

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "testdata" / "sample"


def tiny_input(work: Path) -> Path:
    """Heads of the sample's three sources and a profile over them; returns the profile path."""
    work.mkdir(parents=True, exist_ok=True)
    nsmc = SAMPLE / "nsmc_ratings_test_head.txt"
    (work / "nsmc.txt").write_text("".join(nsmc.open(encoding="utf-8").readlines()[:201]), encoding="utf-8")
    petitions = (SAMPLE / "petitions_2017-08_head").open(encoding="utf-8").readlines()[:5]
    (work / "petitions.jsonl").write_text("".join(petitions), encoding="utf-8")
    wiki = (SAMPLE / "wiki_00_head").read_text(encoding="utf-8").split("</doc>\n")[:3]
    (work / "wiki.txt").write_text("".join(a + "</doc>\n" for a in wiki), encoding="utf-8")
    bench_corpus.write_config(
        work / "profile.yaml",
        {"nsmc": [str(work / "nsmc.txt")], "petitions": [str(work / "petitions.jsonl")],
         "kowiki": [str(work / "wiki.txt")]},
        near=True,
    )
    return work / "profile.yaml"


def configurations(args: argparse.Namespace) -> dict[str, tuple[str, list[str]]]:
    """Name -> (kcorpus executable, Beam options) of every configuration the run compares."""
    kc = str(bench_bundles.KCORPUS)
    configs = {"default": (kc, [])}
    if args.compare:
        configs["compare"] = (args.compare, [])
    if args.baseline:
        configs["baseline"] = (kc, args.baseline.split())
        if args.compare:
            configs["compare+baseline"] = (args.compare, args.baseline.split())
    return configs


def print_ratios(runs: dict[tuple[str, str], list[dict]], names: list[str]) -> None:
    """Median wall and CPU of the default over each other configuration, per command."""
    for command in ("build-corpus", "pack"):
        new = {k: statistics.median(r[k] for r in runs[(command, "default")]) for k in ("wall", "cpu")}
        for name in names:
            old = {k: statistics.median(r[k] for r in runs[(command, name)]) for k in ("wall", "cpu")}
            print(
                f"{command}: default / {name}: wall {new['wall'] / old['wall']:.2f} ({new['wall']:.2f} s vs "
                f"{old['wall']:.2f} s), CPU {new['cpu'] / old['cpu']:.2f} ({new['cpu']:.2f} s vs "
                f"{old['cpu']:.2f} s)"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--baseline",
        default=f"--direct_num_workers={os.cpu_count()} --direct_running_mode=multi_processing",
        help="Beam options of the configuration to compare the default with (the old default); '' for none",
    )
    parser.add_argument(
        "--compare",
        metavar="KCORPUS",
        help="another checkout's kcorpus executable (e.g. /work/main/.venv/bin/kcorpus), run with the "
        "default options as configuration 'compare' (and with the baseline's as 'compare+baseline')",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-fixed-"))
    profile = tiny_input(work / "input")
    size = sum(p.stat().st_size for p in (work / "input").iterdir() if p.suffix != ".yaml")
    bench_pack.kcbert_tokenizer(ROOT / "tests" / "testdata", work / "tok")
    configs = configurations(args)
    runs: dict[tuple[str, str], list[dict]] = {}
    print(f"tiny input: {size / 1e3:.0f} KB; cores: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}")
    for _ in range(args.repeat):
        for name, (kc, beam) in configs.items():
            corpus, packed = work / f"corpus-{name}", work / f"pack-{name}"
            shutil.rmtree(corpus, ignore_errors=True)
            shutil.rmtree(packed, ignore_errors=True)
            tail = ["--", *beam] if beam else []
            build = [kc, "build-corpus", "--config", str(profile), "--out", str(corpus), *tail]
            runs.setdefault(("build-corpus", name), []).append(bench_bundles.run_measured(build))
            pack = [kc, "pack", "--corpus", str(corpus), "--tokenizer", str(work / "tok"), "--out", str(packed),
                    *tail]
            runs.setdefault(("pack", name), []).append(bench_bundles.run_measured(pack))
    header = f"{'median wall s':>13} {'median CPU s':>12} {'walls':>30} {'CPUs':>30}"
    print(f"{'command':<13} {'config':<16} {header}")
    for (command, name), results in runs.items():
        walls, cpus = [r["wall"] for r in results], [r["cpu"] for r in results]
        print(
            f"{command:<13} {name:<16} {statistics.median(walls):13.2f} {statistics.median(cpus):12.2f} "
            f"{' '.join(f'{w:.1f}' for w in walls):>30} {' '.join(f'{c:.1f}' for c in cpus):>30}"
        )
    print_ratios(runs, [name for name in configs if name != "default"])
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
