"""The whole long-form profile, build-corpus -> train-vocab -> pack, on 100 MB, 500 MB and 1 GB of Korean Wikipedia.

    python bench/bench_scale.py --data /work/data/kowiki/text --workdir /work/scratch/scale --json scale.json
    python bench/bench_scale.py --data DIR --sizes 100 --workdir /tmp/scale       # one size, a quick look
    python bench/bench_scale.py --data DIR --sizes 10,20 --workdir /tmp/scale     # the bench itself, ~5 min

The data: the public GitHub repository 97danielj/WordEmbedding, folder `text/` (WikiExtractor output of Korean
Wikipedia, CC BY-SA 3.0; `git clone --depth 1 https://github.com/97danielj/WordEmbedding` and pass its
`text/`); never commit it. Its folders AA..AJ hold 100 files `wiki_NN` of ~1 MB each (963 MB in all). The
sizes: 100 = AA (101 MB), 500 = AA..AE (505 MB), 1000 = AA..AJ (963 MB). A folder with AA..AE only gets
its 1 GB as AA..AE twice, the copy's documents given distinct ids (`--repeat-ids` forces that); the profile's
exact dedup then drops the copy, so build-corpus reads 1 GB but train-vocab and pack get the 500 MB corpus
again (what the bench prints beside each size). Any other size is the first `wiki_*` files that reach it.

The profile is the `kowiki` source of configs/mdeberta-kor.yaml with that file's filters, dedup, split and
output sections (read from it, so the bench follows the profile); the vocabulary is a WordPiece of 32,000
(`--vocab-kind`, `--vocab-size`); pack runs at 512 tokens in the profile's `pack.layout` (`full_sentences`). Each stage runs as the command a
user types (`kcorpus build-corpus|train-vocab|pack`), one at a time, its whole process tree measured
(bench/lib/measure.py: wall, CPU of every process, Beam workers included, peak RSS of the tree sampled every 0.2 s)
and the bytes it wrote to disk (the kernel's write_bytes of the tree, temporary files included; folded into
this process's /proc/self/io as the processes are reaped) and its output folder's size.

Prints one table per stage (per size: raw input MB, the stage's own input MB, wall, CPU, CPU s per raw MB, busy
cores and the share of `--interval`s under 1.2 busy cores (a serial part), peak RSS, disk written, output size),
the growth from the smallest to the largest size (ratios, and the marginal CPU s per MB between them: start-up
costs drop out) and `--json` writes all of it.

With `--copies K` each size's files come K times, the copies' documents with ids of their own, and the
profile's dedup is off, so every stage gets K times the text: `--sizes 1000 --copies 5` runs train-vocab and
pack over ~4 GB of corpus, which no distinct Korean text on this machine reaches (its texts repeat 5 times).

With `--speedup R`, each stage then runs R more times on 1 core and R times on 2 (`taskset`: the stage's
workers and threads share those cores), the two alternating and the first to go swapping every round, into
folders of their own; the speedup is the median 1-core wall over the median 2-core wall, and Amdahl's law
projects 16 cores from the parallel share it implies (p = 2 (1 - 1/S2); S16 = 1 / (1 - p + p/16)).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
from pathlib import Path

import yaml
from lib.measure import Figures, run_measured
from lib.run_table import run_header

ROOT = Path(__file__).resolve().parent.parent
KCORPUS = Path(sys.executable).parent / "kcorpus"
PROFILE = ROOT / "configs" / "mdeberta-kor.yaml"
FOLDERS = {100: ["AA"], 500: ["AA", "AB", "AC", "AD", "AE"], 1000: [f"A{c}" for c in "ABCDEFGHIJ"]}
STAGES = ("build-corpus", "train-vocab", "pack")
_DOC_ID = re.compile(rb'<doc id="(\d+)"')


def input_files(data: Path, size: int, work: Path, repeat_ids: bool) -> tuple[list[Path], bool]:
    """The WikiExtractor files of a size, and whether they repeat AA..AE (with distinct ids).

    100, 500 and 1000 are whole folders; any other size is the first files of AA, AB, ... that reach it (a
    quick check of the bench itself: `--sizes 10,20`)."""
    if size not in FOLDERS:
        return first_files(data, size), False
    folders = FOLDERS[size]
    if size == 1000 and (repeat_ids or not all((data / f).is_dir() for f in folders)):
        base = [p for f in FOLDERS[500] for p in sorted((data / f).glob("wiki_*"))]
        return base + repeated_copy(base, work / "repeat"), True
    missing = [f for f in folders if not (data / f).is_dir()]
    if missing:
        raise SystemExit(f"--data {data}: no folder {missing[0]} (see this bench's docstring for the data)")
    return [p for f in folders for p in sorted((data / f).glob("wiki_*"))], False


def first_files(data: Path, size: int) -> list[Path]:
    """The first WikiExtractor files, in folder then name order, that hold at least `size` MB."""
    files, total = [], 0
    for path in sorted(data.glob("A?/wiki_*")):
        if total >= size * 1e6:
            break
        files.append(path)
        total += path.stat().st_size
    if total < size * 1e6:
        raise SystemExit(f"--data {data}: {total / 1e6:.0f} MB of wiki_* files, less than {size} MB")
    return files


def repeated_copy(files: list[Path], out: Path, copy: int = 1) -> list[Path]:
    """A copy of `files` whose documents get distinct ids (the id + copy x 10^9), made once per workdir."""
    out.mkdir(parents=True, exist_ok=True)
    copies = []
    for path in files:
        target = out / f"{path.parent.name}_{path.name}"
        if not target.exists():
            data = _DOC_ID.sub(lambda m: b'<doc id="%d"' % (int(m.group(1)) + copy * 10**9), path.read_bytes())
            target.write_bytes(data)
        copies.append(target)
    return copies


def with_copies(files: list[Path], copies: int, work: Path) -> list[Path]:
    """`files` and `copies - 1` copies of them, each copy's documents with ids of their own."""
    return files + [p for copy in range(1, copies) for p in repeated_copy(files, work / f"copy{copy}", copy)]


def write_profile(files: list[Path], path: Path, dedup: bool = True) -> None:
    """configs/mdeberta-kor.yaml's kowiki source over `files`, with its filters, dedup, split and output.

    `dedup=False` turns exact and near dedup off, so that `--copies` reach train-vocab and pack."""
    profile = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    source = next(s for s in profile["sources"] if s["name"] == "kowiki")
    sections = {"sources": [{**source, "paths": [str(f) for f in files]}]}
    sections.update({key: profile[key] for key in ("filters", "dedup", "split", "output") if key in profile})
    if not dedup:
        sections["dedup"] = {"exact": {"enabled": False}, "near": {"enabled": False}}
    path.write_text(yaml.safe_dump(sections, allow_unicode=True, sort_keys=False), encoding="utf-8")


def written_bytes() -> int:
    """Bytes this process and its reaped descendants caused to be written to storage (Linux /proc/self/io)."""
    with open("/proc/self/io") as f:
        fields = dict(line.split(": ") for line in f.read().splitlines())
    return int(fields["write_bytes"])


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def stage_command(stage: str, work: Path, size: int, args: argparse.Namespace, out: Path | None = None) -> list[str]:
    """The stage's command line; `out` replaces its own output folder (the inputs stay the main run's)."""
    corpus, vocab, pack = (output_of(name, work, size) for name in STAGES)
    if out is not None:
        corpus, vocab, pack = (out if name == stage else path
                               for name, path in zip(STAGES, (corpus, vocab, pack)))
    if stage == "build-corpus":
        return [str(KCORPUS), "build-corpus", "--config", str(work / f"profile-{size}.yaml"), "--out", str(corpus)]
    if stage == "train-vocab":
        return [str(KCORPUS), "train-vocab", "--kind", args.vocab_kind, "--vocab-size", str(args.vocab_size),
                "--input", str(corpus), "--out", str(vocab), "--quiet"]
    return [str(KCORPUS), "pack", "--corpus", str(corpus), "--tokenizer", str(vocab), "--out", str(pack),
            "--max-length", str(args.max_length), "--layout", profile_layout()]


def profile_layout() -> str:
    """The pack layout of configs/mdeberta-kor.yaml (`full_sentences`), else pack's default."""
    profile = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    return (profile.get("pack") or {}).get("layout", "pair")


OUTPUTS = {"build-corpus": "corpus", "train-vocab": "vocab", "pack": "pack"}


def output_of(stage: str, work: Path, size: int) -> Path:
    return work / f"{OUTPUTS[stage]}-{size}"


def stage_input_bytes(stage: str, work: Path, size: int, raw: int) -> int:
    if stage == "build-corpus":
        return raw
    corpus = work / f"corpus-{size}"
    shards = "text" if stage == "train-vocab" and (corpus / "text").is_dir() else "docs"
    return folder_bytes(corpus / shards)


def run_stage(stage: str, work: Path, size: int, raw: int, args: argparse.Namespace) -> dict:
    out = output_of(stage, work, size)
    if out.exists():
        shutil.rmtree(out)
    before = written_bytes()
    figures: Figures = run_measured(stage_command(stage, work, size, args), interval=args.interval)
    written = written_bytes() - before
    row = {
        "stage": stage,
        "size": size,
        "raw_mb": raw / 1e6,
        "input_mb": stage_input_bytes(stage, work, size, raw) / 1e6,
        "wall": figures.wall,
        "cpu": figures.cpu,
        "cpu_per_raw_mb": figures.cpu / (raw / 1e6),
        "peak_rss_mb": figures.peak_rss / 2**20,
        "busy_cores": figures.busy_cores,
        "serial_share": serial_share(figures.busy_per_interval),
        "busy_per_interval": list(figures.busy_per_interval),
        "disk_written_mb": written / 1e6,
        "output_mb": folder_bytes(out) / 1e6,
    }
    print(f"{stage} @ {size}: wall {row['wall']:.0f} s, CPU {row['cpu']:.0f} s, peak RSS {row['peak_rss_mb']:.0f} MB, "
          f"written {row['disk_written_mb']:.0f} MB, output {row['output_mb']:.0f} MB", file=sys.stderr, flush=True)
    return row


# Busy cores under which an interval counts as serial (shared/tools/runmon.py's threshold).
SERIAL_BUSY = 1.2


def serial_share(busy: list[float] | tuple[float, ...]) -> float:
    """The share of the intervals with fewer than `SERIAL_BUSY` cores busy."""
    return sum(b < SERIAL_BUSY for b in busy) / len(busy) if busy else float("nan")


def stage_table(rows: list[dict]) -> str:
    lines = [
        ("| size | raw MB | stage input MB | wall s | CPU s | CPU s/raw MB | busy cores | serial share | peak RSS MB "
        "| disk written MB | output MB |"),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']} | {r['raw_mb']:,.0f} | {r['input_mb']:,.0f} | {r['wall']:,.0f} | {r['cpu']:,.0f} | "
            f"{r['cpu_per_raw_mb']:.3f} | {r['busy_cores']:.2f} | {r['serial_share']:.0%} | {r['peak_rss_mb']:,.0f} | "
            f"{r['disk_written_mb']:,.0f} | {r['output_mb']:,.0f} |"
        )
    return "\n".join(lines)


def amdahl(speedup_2: float, cores: int = 16) -> tuple[float, float]:
    """The parallel share a 1 -> 2 core speedup implies, and the speedup Amdahl's law projects on `cores`."""
    parallel = min(max(2 * (1 - 1 / speedup_2), 0.0), 1.0)
    return parallel, 1 / (1 - parallel + parallel / cores)


def speedup(stage: str, work: Path, size: int, args: argparse.Namespace) -> dict:
    """The stage on 1 core and on 2, `args.speedup` times each, alternating; medians, speedup, Amdahl."""
    cores = sorted(os.sched_getaffinity(0))[:2]
    if len(cores) < 2:
        raise SystemExit("--speedup needs 2 usable cores")
    walls: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float]] = {1: [], 2: []}
    for round_ in range(args.speedup):
        for count in ((1, 2) if round_ % 2 == 0 else (2, 1)):
            out = work / f"{OUTPUTS[stage]}-{size}-cores{count}"
            shutil.rmtree(out, ignore_errors=True)
            pin = ["taskset", "-c", ",".join(str(c) for c in cores[:count])]
            figures = run_measured(pin + stage_command(stage, work, size, args, out), interval=args.interval)
            walls[count].append(figures.wall)
            busy[count].append(figures.busy_cores)
            shutil.rmtree(out, ignore_errors=True)
            print(f"{stage} @ {size} on {count} core(s), round {round_ + 1}: wall {figures.wall:.1f} s, busy "
                  f"{figures.busy_cores:.2f} cores", file=sys.stderr, flush=True)
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    parallel, projected = amdahl(one / two)
    return {"stage": stage, "size": size, "walls": walls, "busy": busy, "wall_1": one, "wall_2": two,
            "speedup_2": one / two, "parallel_share": parallel, "projected_16": projected}


def speedup_table(rows: list[dict]) -> str:
    lines = ["| stage | size | wall 1 core s | wall 2 cores s | speedup 1 -> 2 | parallel share | Amdahl 16 cores |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['stage']} | {r['size']} | {r['wall_1']:,.1f} | {r['wall_2']:,.1f} | {r['speedup_2']:.2f}x | "
                     f"{r['parallel_share']:.0%} | {r['projected_16']:.1f}x |")
    return "\n".join(lines)


def growth(rows: list[dict]) -> dict:
    """Largest over smallest size: input, wall, CPU, CPU s/MB, peak RSS, disk; the marginal CPU s per raw MB."""
    small, large = rows[0], rows[-1]
    ratio = {key: large[key] / small[key] if small[key] else float("nan")
             for key in ("raw_mb", "input_mb", "wall", "cpu", "cpu_per_raw_mb", "peak_rss_mb", "disk_written_mb")}
    extra = large["raw_mb"] - small["raw_mb"]
    ratio["marginal_cpu_per_raw_mb"] = (large["cpu"] - small["cpu"]) / extra if extra > 0 else float("nan")
    ratio["marginal_wall_per_raw_mb"] = (large["wall"] - small["wall"]) / extra if extra > 0 else float("nan")
    ratio["marginal_disk_per_raw_mb"] = (
        (large["disk_written_mb"] - small["disk_written_mb"]) / extra if extra > 0 else float("nan"))
    return ratio


def growth_line(g: dict, small: int, large: int) -> str:
    return (f"growth {small} -> {large}: raw input {g['raw_mb']:.2f}x, stage input {g['input_mb']:.2f}x, "
            f"wall {g['wall']:.2f}x, CPU {g['cpu']:.2f}x, CPU s/MB {g['cpu_per_raw_mb']:.2f}x, "
            f"peak RSS {g['peak_rss_mb']:.2f}x, disk written {g['disk_written_mb']:.2f}x; marginal "
            f"{g['marginal_cpu_per_raw_mb']:.3f} CPU s, {g['marginal_wall_per_raw_mb']:.3f} wall s, "
            f"{g['marginal_disk_per_raw_mb']:.2f} MB written per raw MB")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="the WikiExtractor text/ folder (AA, AB, ...)")
    parser.add_argument("--workdir", required=True, type=Path, help="corpora, vocabularies and packs go here")
    parser.add_argument("--sizes", default="100,500,1000",
                        help="MB, ascending: 100, 500, 1000 (whole folders) or any other (the first files)")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--repeat-ids", action="store_true", help="1 GB as AA..AE twice with distinct ids")
    parser.add_argument("--copies", type=int, default=1, metavar="K",
                        help="each size's files K times (distinct ids) with dedup off: train-vocab and pack at K x")
    parser.add_argument("--vocab-kind", default="wordpiece", choices=("wordpiece", "sentencepiece"))
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--interval", type=float, default=0.5,
                        help="seconds per busy-cores figure (the serial share counts these)")
    parser.add_argument("--speedup", type=int, default=0, metavar="R",
                        help="also run each stage R times on 1 core and R on 2: speedup and Amdahl's 16 cores")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep each size's corpus, vocab and pack")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    stages = args.stages.split(",")
    if unknown := [s for s in sizes if s <= 0] + [s for s in stages if s not in STAGES]:
        raise SystemExit(f"unknown size or stage: {unknown}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(run_header(), file=sys.stderr)
    results: dict = {"sizes": {}, "stages": {stage: [] for stage in stages}}
    for size in sizes:
        files, repeated = input_files(args.data, size, args.workdir, args.repeat_ids)
        files = with_copies(files, args.copies, args.workdir)
        raw = sum(f.stat().st_size for f in files)
        write_profile(files, args.workdir / f"profile-{size}.yaml", dedup=args.copies == 1)
        results["sizes"][size] = {"files": len(files), "raw_mb": raw / 1e6, "repeated_ids": repeated,
                                  "copies": args.copies}
        copies = f" ({args.copies} copies, dedup off)" if args.copies > 1 else ""
        print(f"size {size}: {len(files)} files, {raw / 1e6:.0f} MB{' (AA..AE twice)' if repeated else ''}{copies}",
              file=sys.stderr, flush=True)
        for stage in stages:
            results["stages"][stage].append(run_stage(stage, args.workdir, size, raw, args))
            if args.speedup:
                results.setdefault("speedup", []).append(speedup(stage, args.workdir, size, args))
        if not args.keep:
            for stage in STAGES:
                shutil.rmtree(output_of(stage, args.workdir, size), ignore_errors=True)
    for stage, rows in results["stages"].items():
        print(f"\n### {stage}\n\n{stage_table(rows)}")
        if len(rows) > 1:
            results.setdefault("growth", {})[stage] = growth(rows)
            print(f"\n{growth_line(results['growth'][stage], rows[0]['size'], rows[-1]['size'])}")
    if results.get("speedup"):
        print(f"\n### speedup from 1 to 2 cores (medians of {args.speedup})\n\n{speedup_table(results['speedup'])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
