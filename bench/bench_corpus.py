"""Benchmark `kcorpus build-corpus` against a Hugging Face `datasets` baseline doing the same work, at several sizes.

    python bench/bench_corpus.py --sizes 100,400 --workdir /tmp/bench-corpus     # marginal cost and RSS growth
    python bench/bench_corpus.py --sizes 100,1000 --systems beam,beam+near --workdir /tmp/bench-corpus
    python bench/bench_corpus.py --data /work/shared/data                        # the real mix, 1/4 and whole
    python bench/bench_corpus.py --sizes 3,12 --repeat 1                         # a quick check

Inputs. With `--sizes`, the bundled sample (NSMC comments, petitions, Korean Wikipedia; ~3 MB) is scaled to
each size by repetition with perturbation: each copy replaces about half of the words with words drawn from
the sample's vocabulary (so copies are neither exact nor near duplicates), except 5% verbatim copies (exact
duplicates) and 5% with one word changed (near duplicates). A scaled input is made once per `--workdir` and
reused. With `--data DIR` (the layout of /work/shared/data: nsmc/ratings_test.txt, petitions/petitions_2017-08,
kowiki/wiki_00 and wiki_01), the real files unperturbed are the large input and the first quarter of each
(cut at a record boundary) the small one.

Systems, each run in its own subprocess whose whole process tree is measured (bench/lib/measure.py):
- `beam`: build-corpus on the local FnApiRunner, multi-processing, `--workers` passed as
  `--direct_num_workers` (`auto`: kcorpus's own choice); near dedup off (the baseline has none);
  `beam+near`: the same with near dedup on.
- `hf`: `datasets` reading the same records (`Dataset.from_generator` over the same readers), `map` of the
  same per-document preparation (NFC, normalization, split, clean, filters) with `num_proc` = workers,
  `filter`, exact dedup by a blake2b hash with a set, and writing JSONL and text.

Each system first runs once, unmeasured, over 32 KB of each file (`--no-warmup` skips it), so that no
measured run pays the cold start alone. Prints, per system and size (medians of `--repeat` runs): cores,
workers, wall, CPU, CPU s per MB, peak RSS, busy cores and the ratios to `hf` on the same input; then, between the smallest and the largest input, the
marginal CPU s per MB of each system (goal for beam <= 0.35; near dedup's extra over beam <= 0.15) and the
growth of peak RSS (goal <= 1.5x), each PASS or FAIL. `--json FILE` writes every run, the rows and the summary.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from lib.corpus_inputs import (  # noqa: F401 (scale_sample: other benches take it from here)
    cached_scaled_input,
    input_megabytes,
    real_mix,
    scale_sample,
    warmup_input,
)
from lib.measure import Figures, run_measured, usable_cores
from lib.run_table import (
    Check,
    Row,
    format_intervals,
    format_rows,
    marginal_cpu_per_mb,
    median_figures,
    rss_growth,
    run_header,
)

ROOT = Path(__file__).resolve().parent.parent


def write_config(path: Path, sources: dict[str, list[str]], near: bool) -> None:
    import yaml

    sample = yaml.safe_load((ROOT / "configs" / "sample.yaml").read_text(encoding="utf-8"))
    for src in sample["sources"]:
        src["paths"] = sources[src["name"]]
    sample["dedup"]["near"]["enabled"] = near
    sample["output"]["dropped"] = "sample"
    path.write_text(yaml.safe_dump(sample, allow_unicode=True), encoding="utf-8")


def run_beam(config: str, out: str, workers: str) -> dict:
    from kcorpus.pipeline.corpus.build import run_build
    from kcorpus.pipeline.profile.load import load_config

    beam_args = [] if workers == "auto" else [f"--direct_num_workers={workers}"]
    stats = run_build(load_config(config), out, beam_args, local_mode="multi_processing", overwrite=True)
    return {"input": stats["total"]["input"], "kept": stats["total"]["kept"]}


def _prepare_batch(batch: dict, sources: dict) -> dict:
    """One `datasets.map` call: the same DocumentPreparer the pipeline uses, per source."""
    from kcorpus.transforms.dedup import dedup_text, digest
    from kcorpus.transforms.record import Document

    global _PREPARERS
    if "_PREPARERS" not in globals():
        from kcorpus.pipeline.corpus.prepare import PrepareBatchFn
        from kcorpus.pipeline.profile.load import load_config

        fn = PrepareBatchFn(load_config(sources["config"]), "")
        fn.setup()
        _PREPARERS = fn.preparers
    texts, keys, reasons = [], [], []
    for doc_id, text, source in zip(batch["id"], batch["text"], batch["source"], strict=True):
        prepared = _PREPARERS[source].prepare(Document(doc_id, text, source))
        kept = prepared.document.text if prepared.document else ""
        texts.append(kept)
        reasons.append(prepared.reason or "")
        keys.append(digest(dedup_text(kept)).hex() if prepared.document else "")
    return {"clean": texts, "reason": reasons, "key": keys}


def run_hf(config: str, out: str, workers: str) -> dict:
    import datasets

    from kcorpus.pipeline.profile.load import load_config
    from kcorpus.transforms.readers import read_file
    from kcorpus.transforms.record import Document

    datasets.disable_progress_bars()
    cfg = load_config(config)
    cores = usable_cores() if workers == "auto" else int(workers)

    def records():
        for src in cfg.sources:
            for path in src.paths:
                for rec in read_file(src.format, path, None, src.name):
                    if isinstance(rec, Document):
                        yield {"id": rec.id, "text": rec.text, "source": rec.source}

    cache = Path(out) / "hf-cache"
    ds = datasets.Dataset.from_generator(records, cache_dir=str(cache))
    n_input = len(ds)
    ds = ds.map(
        _prepare_batch,
        batched=True,
        batch_size=1000,
        num_proc=cores,
        fn_kwargs={"sources": {"config": config}},
    )
    ds = ds.filter(lambda r: [x == "" for x in r], input_columns="reason", batched=True, num_proc=cores)
    seen: set[str] = set()

    def first_of_hash(keys):
        keep = []
        for k in keys:
            keep.append(k not in seen)
            seen.add(k)
        return keep

    ds = ds.sort("id").filter(first_of_hash, input_columns="key", batched=True)  # smallest id survives
    ds.select_columns(["id", "clean", "source"]).to_json(str(Path(out) / "docs.jsonl"), force_ascii=False)
    with open(Path(out) / "text.txt", "w", encoding="utf-8") as f:
        f.writelines(
            "".join(t + "\n\n" for t in batch["clean"])
            for batch in ds.select_columns(["clean"]).iter(batch_size=10000)
        )
    return {"input": n_input, "kept": len(ds)}


def measure_system(system: str, config: Path, out: Path, workers: str, interval: float) -> Figures:
    """Runs one system in a subprocess over one input; its output folder is removed afterwards (disk)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    cmd = [sys.executable, __file__, "--worker", system.split("+")[0], "--config", str(config), "--out", str(out),
           "--workers", workers]
    try:
        return run_measured(cmd, workers=workers if workers == "auto" else int(workers), interval=interval)
    finally:
        shutil.rmtree(out, ignore_errors=True)


GOALS = {"cpu_per_mb": 0.35, "near_extra_cpu_per_mb": 0.15, "rss_growth": 1.5}  # issue 13


def summary_checks(rows: list[Row]) -> list[Check]:
    """Marginal CPU s per MB and peak-RSS growth between the smallest and largest input of each system."""
    by_system: dict[str, list[Row]] = {}
    for row in rows:
        by_system.setdefault(row.system, []).append(row)
    checks, marginal = [], {}
    for system, runs in by_system.items():
        small, large = min(runs, key=lambda r: r.megabytes), max(runs, key=lambda r: r.megabytes)
        if large.megabytes <= small.megabytes:
            continue
        span = f"{small.megabytes:.1f} -> {large.megabytes:.1f} MB"
        marginal[system] = marginal_cpu_per_mb(small, large)
        goal = GOALS["cpu_per_mb"] if system == "beam" else None
        checks.append(Check(f"{system}: marginal CPU s/MB, {span}", marginal[system], goal))
        if system == "beam+near" and "beam" in marginal:
            extra = marginal[system] - marginal["beam"]
            checks.append(Check(f"beam+near: near dedup's extra CPU s/MB over beam, {span}", extra,
                                GOALS["near_extra_cpu_per_mb"]))
        goal = GOALS["rss_growth"] if system != "hf" else None
        checks.append(Check(f"{system}: peak RSS growth, {span}", rss_growth(small, large), goal, "x"))
    return checks


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,400", help="comma-separated input sizes to scale the sample to (MB)")
    parser.add_argument("--mb", type=float, help="one input size (MB); the same as --sizes MB")
    parser.add_argument("--data", type=Path, help="the real mix from this folder instead of the scaled sample")
    parser.add_argument("--repeat", type=int, default=1, help="runs per system and size; medians are reported")
    parser.add_argument("--systems", default="beam,beam+near,hf", help="comma-separated subset of beam, beam+near, hf")
    parser.add_argument("--workers", default=str(usable_cores()),
                        help="--direct_num_workers for beam and num_proc for hf (default: the cores); "
                        "auto: kcorpus's own choice")
    parser.add_argument("--workdir", type=Path, help="where inputs (kept, reused) and outputs go (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="write every run, the rows and the summary to this file")
    parser.add_argument("--intervals", action="store_true", help="print busy cores per --interval seconds")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds per busy-core figure (default 5)")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false",
                        help="skip the unmeasured run of each system over 32 KB of each input file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = set(args.systems.split(",")) - {"beam", "beam+near", "hf"}
    if unknown:
        parser.error(f"unknown systems: {', '.join(sorted(unknown))}")
    if args.workers != "auto" and not (args.workers.isdigit() and int(args.workers) > 0):
        parser.error(f"--workers must be a positive number or auto, not {args.workers!r}")
    return args


def make_inputs(args: argparse.Namespace, work: Path) -> dict[str, dict[str, list[str]]]:
    """The inputs by size label, smallest first."""
    if args.data:
        return real_mix(args.data, work)
    sizes = [args.mb] if args.mb else sorted(float(x) for x in args.sizes.split(","))
    return {f"{mb:g}": cached_scaled_input(work, mb) for mb in sizes}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker:
        result = (run_hf if args.worker == "hf" else run_beam)(args.config, args.out, args.workers)
        print(json.dumps(result))
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-corpus-"))
    work.mkdir(parents=True, exist_ok=True)
    print(run_header())
    inputs = make_inputs(args, work)
    systems = args.systems.split(",")
    megabytes = {size: input_megabytes(sources) for size, sources in inputs.items()}
    for size, sources in inputs.items():
        write_config(work / f"exact-{size}.yaml", sources, near=False)
        write_config(work / f"near-{size}.yaml", sources, near=True)
        print(f"input {size}: {megabytes[size]:.1f} MB in {sum(len(p) for p in sources.values())} files")
    if args.warmup:
        warmup = warmup_input(next(iter(inputs.values())), work / "input-warmup")
        write_config(work / "exact-warmup.yaml", warmup, near=False)
        write_config(work / "near-warmup.yaml", warmup, near=True)
        for system in systems:
            config = work / f"{'near' if system == 'beam+near' else 'exact'}-warmup.yaml"
            measure_system(system, config, work / f"out-{system}", args.workers, args.interval)
        print(f"warm-up runs of {', '.join(systems)} done (not measured)")
    runs: dict[tuple[str, str], list[Figures]] = {}
    results: dict[tuple[str, str], dict] = {}
    for _ in range(args.repeat):
        for size in inputs:
            for system in systems:
                config = work / f"{'near' if system == 'beam+near' else 'exact'}-{size}.yaml"
                figures = measure_system(system, config, work / f"out-{system}", args.workers, args.interval)
                runs.setdefault((system, size), []).append(figures)
                results[(system, size)] = json.loads(figures.stdout.strip().splitlines()[-1])
                print(f"  {system} @ {size}: wall {figures.wall:.1f} s, CPU {figures.cpu:.1f} s", flush=True)
    medians = {key: median_figures(figs) for key, figs in runs.items()}
    rows = [
        Row(system, size, megabytes[size], medians[(system, size)], medians.get(("hf", size)))
        for size in inputs
        for system in systems
    ]
    print(format_rows(rows, "hf"))
    print("records in / kept: " + "; ".join(
        f"{system} @ {size}: {r['input']:,} / {r['kept']:,}" for (system, size), r in results.items()))
    if args.intervals:
        print(format_intervals(rows, args.interval))
    checks = summary_checks(rows)
    if checks:
        print("\nmarginal cost and memory growth, smallest -> largest input:")
        print("\n".join(check.line() for check in checks))
    if args.json:
        args.json.write_text(json.dumps({
            "header": run_header(),
            "inputs": {size: {"mb": megabytes[size], "sources": sources} for size, sources in inputs.items()},
            "runs": [{"system": s, "size": z, "mb": megabytes[z], **f.as_dict()} for (s, z), fs in runs.items()
                     for f in fs],
            "rows": [row.as_dict() for row in rows],
            "records": [{"system": s, "size": z, **r} for (s, z), r in results.items()],
            "summary": [check.as_dict() for check in checks],
        }, indent=1, ensure_ascii=False), encoding="utf-8")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
