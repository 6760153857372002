"""Work redone after `kill -9` of build-corpus or pack at a share of its run, and what a rebuild with one more file
reuses.

    python bench/bench_resume.py --config /tmp/wiki300.yaml --workdir /tmp/bench-resume --kills 0.5,0.9
    python bench/bench_resume.py --config /tmp/wiki300.yaml --workdir /tmp/bench-resume --kills 0.5 --new-file
    python bench/bench_resume.py --config C --workdir W --units 318 --kills 0.5 --reference-cpu 160  # by units
    python bench/bench_resume.py --pack CORPUS --tokenizer TOK --workdir W --units 0 --kills 0.5,0.9  # pack

With `--pack`, the command is `kcorpus pack --corpus CORPUS --tokenizer TOK` (and `--pack-flags`); `--units 0`
counts its input units (pipeline/pack/units.py) and kills at shares of them.

First an uninterrupted build (the reference: wall, CPU seconds of its process tree). Then, for each share f of
`--kills`, a build killed with SIGKILL (its whole process group: launcher and workers) at f times the
reference's wall time, whose tree's CPU seconds are sampled from /proc until the kill, and the same command
again, measured; its output must be byte-identical to the reference's. Work redone = CPU(killed) +
CPU(rerun) - CPU(reference): what the kill cost beyond the work itself. The units finished at the kill and
the rerun's reuse line are printed too. With `--new-file`, the last matched file of the first source is left
out of a `--keep-units` build, then put back and the build run again (the reuse line and its CPU against the
reference's). Machine load matters: run with `nice`, and say how loaded the machine was.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lib.measure import children_cpu, machine_description, read_proc_table, run_measured, sample_tree

KCORPUS = [sys.executable, "-m", "kcorpus.pipeline.cli", "--no-progress"]


def build(config: Path, out: Path, *extra: str) -> list[str]:
    return [*KCORPUS, "build-corpus", "--config", str(config), "--out", str(out), *extra]


def pack(corpus: Path, tokenizer: Path, flags: str) -> Callable[[Path], list[str]]:
    return lambda out: [*KCORPUS, "pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(out),
                        *shlex.split(flags)]  # fmt: skip


def pack_units(corpus: Path) -> int:
    """How many input units a pack of `corpus` has (the same for any settings)."""
    from kcorpus.pipeline.pack.read import resolve_corpus
    from kcorpus.pipeline.pack.units import plan_units

    return len(plan_units(resolve_corpus(str(corpus)), ""))


def killed_run(cmd: list[str], after: float, out: Path, units: int = 0) -> float:
    """Runs `cmd` in its own process group, kills the group after `after` s (or, with `units`, once that many
    input units are finished in `out`); its CPU seconds until then."""
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start, cpu = time.monotonic(), 0.0
    while proc.poll() is None and (units_done(out) < units if units else time.monotonic() - start < after):
        cpu = max(cpu, sample_tree(read_proc_table(), proc.pid, time.monotonic()).cpu)
        time.sleep(0.2)
    if proc.poll() is not None:
        raise SystemExit(f"the build ended before the kill at {after:.0f} s: choose a smaller share")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return cpu


def output_files(out: Path) -> list[Path]:
    """Every file of a corpus but kcorpus's bookkeeping (the marker, the lock, the units folder)."""
    return sorted(
        p.relative_to(out)
        for p in out.rglob("*")
        if p.is_file() and not any(part.startswith(".kcorpus") for part in p.relative_to(out).parts)
    )


def same_output(a: Path, b: Path) -> bool:
    files = output_files(a)
    return files == output_files(b) and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files)


def units_done(out: Path) -> int:
    return len(list((out / ".kcorpus-units").glob("*.done")))


def reuse_line(stderr: str) -> str:
    found = re.search(r"reused .*?\)", stderr)
    return found.group(0) if found else "reused nothing"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="build-corpus's profile")
    parser.add_argument("--pack", type=Path, help="a corpus: kcorpus pack instead of build-corpus")
    parser.add_argument("--tokenizer", type=Path, help="with --pack")
    parser.add_argument("--pack-flags", default="", help="with --pack: more flags, e.g. '--layout pair'")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--kills", default="0.5,0.9", help="shares of the reference's wall time ('' for none)")
    parser.add_argument("--units", type=int, default=0, help="with it, --kills are shares of this many units")
    parser.add_argument("--reference-cpu", type=float, help="CPU s of an uninterrupted build (none is run)")
    parser.add_argument("--new-file", action="store_true", help="also a rebuild with one more file")
    args = parser.parse_args()
    if (args.config is None) == (args.pack is None):
        parser.error("give --config (build-corpus) or --pack (pack)")
    command = pack(args.pack, args.tokenizer, args.pack_flags) if args.pack else (lambda out: build(args.config, out))
    if args.pack and not args.units:
        args.units = pack_units(args.pack)
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine_description()}", flush=True)
    reference = args.workdir / "reference"
    if args.reference_cpu is None:
        ref = run_measured(command(reference))
        ref_cpu, ref_wall = ref.cpu, ref.wall
        print(f"uninterrupted: wall {ref.wall:.0f} s, CPU {ref.cpu:.0f} s", flush=True)
    else:
        ref_cpu, ref_wall = args.reference_cpu, 0.0
    for share in (float(s) for s in args.kills.split(",") if s):
        out = args.workdir / f"killed-{share:g}"
        at = f"{share:.0%} of {args.units} units" if args.units else f"{share:.0%} of the wall"
        killed = killed_run(command(out), share * ref_wall, out, round(share * args.units))
        done = units_done(out)
        again = run_measured(command(out))
        redone = killed + again.cpu - ref_cpu
        print(
            f"kill at {at}: {done} units finished; killed run CPU {killed:.0f} s; rerun wall "
            f"{again.wall:.0f} s, CPU {again.cpu:.0f} s; work redone {redone:.0f} CPU s ({redone / ref_cpu:.1%} "
            f"of the build); identical: {same_output(reference, out)}",
            flush=True,
        )
    if args.new_file and args.config:
        new_file(args.config, args.workdir, reference, ref_cpu)


def new_file(config: Path, workdir: Path, reference: Path, reference_cpu: float) -> None:
    """A build without the last file of the first source's first pattern, then with it (`--keep-units`)."""
    import glob

    import yaml

    profile = yaml.safe_load(config.read_text(encoding="utf-8"))
    files = sorted(glob.glob(profile["sources"][0]["paths"][0]))
    last = Path(files[-1])
    profile["sources"][0]["paths"] = [*files[:-1], *profile["sources"][0]["paths"][1:]]
    fewer = workdir / "fewer.yaml"
    fewer.write_text(yaml.safe_dump(profile, allow_unicode=True), encoding="utf-8")
    out = workdir / "incremental"
    run_measured(build(fewer, out, "--keep-units"))
    cpu, start = children_cpu(), time.monotonic()
    done = subprocess.run(
        build(config, out, "--keep-units", "--overwrite"), check=True, capture_output=True, text=True
    )
    wall, cpu = time.monotonic() - start, children_cpu() - cpu
    print(
        f"one more file ({last.name}): rebuild wall {wall:.0f} s, CPU {cpu:.0f} s "
        f"({cpu / reference_cpu:.0%} of the build from scratch); {reuse_line(done.stderr)}; identical to "
        f"the build from scratch: {same_output(reference, out)}",
        flush=True,
    )


if __name__ == "__main__":
    main()
