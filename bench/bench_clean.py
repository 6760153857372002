"""Speed of clean() against the published KcELECTRA clean, on one core, plus the linear-time cases.

    .venv/bin/python bench/bench_clean.py --reference-python /tmp/ref-emoji2/bin/python

Texts: the 50,000 real NSMC comments bundled in tests/testdata/golden/inputs.jsonl.gz. Each repeat times
one pass of clean() in this process, then one pass of the reference (in this process when its emoji
package has `replace_emoji`, else in a fresh `--reference-python` process, which needs only emoji>=2 and
soynlp); passes alternate so that load from other processes hits both alike. Times are CPU seconds of the
one process doing the work (time.process_time), so MB/s is per core and other processes on a busy machine
skew it less than wall time. Prints medians, MB/s and the ratio, and checks that both produced the same
output (sha256 of all outputs).

The linear-time part cleans one 2.5/5/10 MB line of real text and `http://` + 0.25/0.5/1 MB of `a.` (and
more adversarial runs), and prints the time at 1x/2x/4x: a linear cleaner shows ~1x/2x/4x.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
INPUTS = BENCH.parent / "tests" / "testdata" / "golden" / "inputs.jsonl.gz"
NSMC_TEXTS = 50_000
_BAD_URL = "http://" + "a.b_" * 64 + " "


def load_texts(path: Path = INPUTS, count: int = NSMC_TEXTS) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        return [json.loads(line) for _, line in zip(range(count), f)]


def timed_pass(fn: Callable[[str], str], texts: list[str]) -> tuple[float, str]:
    """Seconds for one pass over `texts`, and the sha256 of the outputs."""
    start = time.process_time()
    outputs = [fn(t) for t in texts]
    seconds = time.process_time() - start
    return seconds, hashlib.sha256("\n".join(outputs).encode("utf-8")).hexdigest()


def reference_in_process(variant: str) -> Callable[[str], str] | None:
    from lib.reference_clean import ReferenceUnavailable, load_reference

    try:
        return load_reference(variant)
    except (ImportError, ReferenceUnavailable):
        return None


def reference_pass(python: str, variant: str, count: int) -> tuple[float, str]:
    """One timed pass of the reference in a fresh `python` process (worker mode of this script)."""
    cmd = [python, str(Path(__file__).resolve()), "--worker", variant, "--texts", str(count)]
    out = json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout)
    return out["seconds"], out["sha256"]


def worker(variant: str, count: int) -> int:
    fn = reference_in_process(variant)
    if fn is None:
        raise SystemExit(f"the {variant} reference cannot run with this interpreter's emoji package")
    texts = load_texts(count=count)
    fn(texts[0])  # warm up: first-call imports and regex compilation
    seconds, digest = timed_pass(fn, texts)
    print(json.dumps({"seconds": seconds, "sha256": digest}))
    return 0


def bench_throughput(args: argparse.Namespace) -> None:
    texts = load_texts(count=args.texts)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(
        f"texts: {len(texts):,} NSMC comments, {mb:.2f} MB; {args.repeats} alternating passes, median CPU s\n"
    )
    for preset in ("kcelectra", "kcbert"):
        reference, where = _reference_runner(preset, texts, args.reference_python)
        ours_s, ref_s, same = _alternate(_clean_fn(preset), reference, texts, args.repeats)
        ours = statistics.median(ours_s)
        print(f"clean(preset={preset!r})  {ours:7.3f} s  {mb / ours:6.1f} MB/s")
        if not ref_s:
            print(f"  reference {preset}: not runnable here (emoji version; see --reference-python)\n")
            continue
        theirs = statistics.median(ref_s)
        print(f"reference {preset:<10}   {theirs:7.3f} s  {mb / theirs:6.1f} MB/s  ({where})")
        print(f"  ratio {theirs / ours:.1f}x faster, {'identical output' if same else 'OUTPUT DIFFERS'}\n")


def _clean_fn(preset: str) -> Callable[[str], str]:
    from kcorpus.transforms.text.clean import clean

    def clean_text(text: str) -> str:
        return clean(text, preset=preset)

    return clean_text


def _reference_runner(
    variant: str, texts: list[str], reference_python: str | None
) -> tuple[Callable[[], tuple[float, str]] | None, str]:
    """A function timing one reference pass (in this process or a worker), and where it runs."""
    fn = reference_in_process(variant)
    if fn is not None:
        return (lambda: timed_pass(fn, texts)), "in process"
    if variant == "kcelectra" and reference_python:
        return (lambda: reference_pass(reference_python, variant, len(texts))), f"via {reference_python}"
    return None, ""


def _alternate(
    ours: Callable[[str], str],
    reference: Callable[[], tuple[float, str]] | None,
    texts: list[str],
    repeats: int,
) -> tuple[list[float], list[float], bool]:
    ours(texts[0])
    ours_s, ref_s, same = [], [], True
    for _ in range(repeats):
        seconds, ours_digest = timed_pass(ours, texts)
        ours_s.append(seconds)
        if reference is not None:
            seconds, ref_digest = reference()
            ref_s.append(seconds)
            same = same and ref_digest == ours_digest
    return ours_s, ref_s, same


def bench_linear() -> None:
    from kcorpus.transforms.text.clean import make_cleaner

    text = " ".join(load_texts())
    cases: list[tuple[str, Callable[[str], object], Callable[[float], str]]] = [
        ("10 MB line of NSMC text", make_cleaner("kcelectra"), lambda mb: _repeat_to(text, mb)),
        # Not a cleaner: a plain linear C loop over the same line, to show what the cache hierarchy alone
        # does to the 1 : 2 : 4 of a multi-MB string.
        ("  baseline: str.split() of it", str.split, lambda mb: _repeat_to(text, mb)),
        ("http:// + a.a.a.…", make_cleaner("kcelectra"), lambda mb: "http://" + _repeat_to("a.", mb)),
        # Every "http://" backtracks through 256 host characters and never finds a TLD before a boundary.
        ("(http://(a.b_)x64)… failing URLs", make_cleaner("kcelectra"), lambda mb: _repeat_to(_BAD_URL, mb)),
        ("a.a.a.… all removals on", _all_removals(), lambda mb: _repeat_to("a.", mb) + "@"),
        ("ㅋㅋㅋ… one run", make_cleaner("kcbert"), lambda mb: _repeat_to("ㅋ", mb)),
        # Tidy removals (longform): one URL's trailing `)` run trimmed, URLs in brackets nested, a list of URLs.
        ("longform: http://a.com/))))…", make_cleaner("longform"), lambda mb: "가 http://a.com/" + _repeat_to(")", mb)),
        ("longform: ((((http://a))))…", make_cleaner("longform"),
         lambda mb: "가" + _repeat_to("(", mb / 2) + "http://a.com" + _repeat_to(")", mb / 2) + "나"),
        ("longform: http://a.com, …", make_cleaner("longform"), lambda mb: _repeat_to("http://a.com, ", mb)),
    ]
    print(
        "linear time: CPU seconds at 1x / 2x / 4x the size, best of 5 (linear ~1 : 2 : 4, quadratic 1 : 4 : 16)"
    )
    for name, cleaner, build in cases:
        base_mb = 2.5 if "10 MB" in name or "baseline" in name else 0.25
        times = []
        for factor in (1, 2, 4):
            data = build(base_mb * factor)
            times.append(min(_time_once(cleaner, data) for _ in range(5)))
        ratios = " : ".join(f"{t / times[0]:.1f}" for t in times)
        sizes = f"{base_mb:g}/{2 * base_mb:g}/{4 * base_mb:g} MB"
        print(f"  {name:<32} {sizes:<15} {times[0]:.3f} / {times[1]:.3f} / {times[2]:.3f} s   {ratios}")


def _all_removals() -> Callable[[str], str]:
    from kcorpus.transforms.text.clean import make_cleaner

    return make_cleaner("kcelectra", remove_emails=True, remove_mentions=True, remove_ooo=True)


def _repeat_to(unit: str, mb: float) -> str:
    """`unit` repeated (and cut) to about `mb` MB of UTF-8."""
    chars = int(mb * 1e6 * len(unit) / len(unit.encode("utf-8")))
    return (unit * (chars // len(unit) + 1))[:chars]


def _time_once(fn: Callable[[str], object], data: str) -> float:
    start = time.process_time()
    fn(data)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--texts", type=int, default=NSMC_TEXTS, help="how many NSMC comments (default all)")
    parser.add_argument("--reference-python", help="python of a venv with emoji>=2 and soynlp")
    parser.add_argument("--skip-linear", action="store_true")
    parser.add_argument("--worker", choices=("kcelectra", "kcbert"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.texts)
    bench_throughput(args)
    if not args.skip_linear:
        bench_linear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
