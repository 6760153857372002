"""Where the serial tail is: the per-stage bundle table of build-corpus and pack, and the bundle-split check.

    python bench/bench_bundles.py --mb 40 --workers 16 --data /work/shared/data

Scales the sample to `--mb` (bench_corpus's `scale_sample`), runs `kcorpus build-corpus --profile-stages`
(exact dedup; `--near` adds near dedup) and `kcorpus pack --profile-stages` over its output, each in its own
process with `--direct_num_workers=<workers>`, and prints for each: wall, CPU of the process tree, peak RSS,
the stage table (elements, bundles, the largest bundle's share of elements, CPU s per step) and the check of
issue 13: every step costing >= 5% of the metered CPU puts no more than 1/8 of its elements in one bundle.
Exits 1 when the check fails. On a machine with fewer cores than workers the wall and busy-core figures say
little; the bundle shares do not depend on the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import bench_corpus
import bench_pack
from lib import measure

ROOT = Path(__file__).resolve().parent.parent
KCORPUS = Path(sys.executable).parent / "kcorpus"


def run_measured(cmd: list[str]) -> dict:
    """Runs `cmd`; wall time, CPU of its process tree (user + system), peak tree RSS (bench/lib/measure.py)."""
    return measure.run_measured(cmd).as_dict()


def report(name: str, figures: dict, stages_file: Path, mb: float) -> list[str]:
    """Prints the run's figures and stage table; returns the steps failing the check."""
    from kcorpus.pipeline.stage_metrics import format_table

    doc = json.loads(stages_file.read_text(encoding="utf-8"))
    print(
        f"\n== {name}: {doc['workers']} workers, wall {figures['wall']:.1f} s, CPU {figures['cpu']:.1f} s "
        f"({figures['cpu'] / mb:.2f} CPU s/MB), busy cores {figures['cpu'] / figures['wall']:.1f}, "
        f"peak RSS {figures['peak_rss'] / 2**20:.0f} MB"
    )
    print(format_table(doc["steps"]))
    return doc["split_check_failures"]


def set_num_shards(profile: Path, num_shards: int) -> None:
    import yaml

    config = yaml.safe_load(profile.read_text(encoding="utf-8"))
    config["output"]["num_shards"] = num_shards
    profile.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0, help="input size to scale the sample to (MB)")
    parser.add_argument("--workers", type=int, default=16, help="--direct_num_workers")
    parser.add_argument("--near", action="store_true", help="near dedup on as well")
    parser.add_argument("--layout", default="pair", help="pack's --layout (pair, single, cross_document)")
    parser.add_argument("--num-shards", type=int, help="build-corpus's output.num_shards (default: the sample's 4)")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"), help="for the KcBERT vocab")
    parser.add_argument("--workdir", help="where the input and outputs go (default: a temp dir, removed)")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-bundles-"))
    sources = bench_corpus.scale_sample(work / "input", args.mb)
    size = sum(os.path.getsize(p) for ps in sources.values() for p in ps) / 1e6
    bench_corpus.write_config(work / "profile.yaml", sources, near=args.near)
    if args.num_shards:
        set_num_shards(work / "profile.yaml", args.num_shards)
    tok = work / "tok"
    shutil.rmtree(tok, ignore_errors=True)
    bench_pack.kcbert_tokenizer(args.data, tok)
    print(f"input: {size:.1f} MB; cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
    beam = ["--", f"--direct_num_workers={args.workers}"]
    corpus, packed = work / "corpus", work / "pack"
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(packed, ignore_errors=True)
    build = run_measured(
        [str(KCORPUS), "build-corpus", "--config", str(work / "profile.yaml"), "--out", str(corpus),
         "--profile-stages", *beam]
    )
    failures = report("build-corpus", build, corpus / "stages.json", size)
    pack = run_measured(
        [str(KCORPUS), "pack", "--corpus", str(corpus), "--tokenizer", str(tok), "--out", str(packed),
         "--layout", args.layout, "--profile-stages", *beam]
    )
    corpus_mb = sum(p.stat().st_size for p in (corpus / "docs").glob("*.jsonl")) / 1e6
    failures += report(f"pack ({args.layout})", pack, packed / "stages.json", corpus_mb)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    print("\nbundle-split check over both runs:", "PASS" if not failures else f"FAIL ({', '.join(failures)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
