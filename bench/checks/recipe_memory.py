"""Memory of docs/training.md's recipes at their published sizes (`tiny = False`), estimated on CPU.

    python bench/checks/training_checks.py --sample runs/sample --out OUT --only recipes   # the packs, once
    python bench/checks/recipe_memory.py --root OUT/recipes [--batches 1 2]

For each recipe, its code with `tiny = False` (every row padded to the full length, the worst case; a
`--vocab-size` vocabulary, 32,000 by default, instead of the sample's 8,000) runs 2 training steps at each
batch size of `--batches` in a fresh process. The peak resident memory during those steps above the memory
just before them (the model's fp32 weights are resident then; the steps add gradients, AdamW's two moments and
the activations) is fitted as a + b * batch and extrapolated to the recipe's published batch size; the
weights are added. Prints parameters, the fit and the estimate in GiB.

This is a CPU measurement (fp32, torch's CPU kernels), not a GPU one: a GPU adds its CUDA context (~0.5 GiB)
and allocator slack, its attention kernels may keep less, and bf16 autocast roughly halves the activations.
Read the figures as the order of magnitude a GPU needs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from training_checks import DOC, RECIPES, recipe  # bench/ is not a package

GIB = 1 << 30


def _status(key: str) -> int:
    """A /proc/self/status figure in bytes (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def published(code: str) -> int:
    return int(re.search(r"batch_size=8 if tiny else (\d+)", code).group(1))


def child(heading: str, batch: int, vocab_size: int) -> None:
    """Run the recipe at its published sizes for 2 steps at `batch`; print a JSON line of the figures."""
    _, code = recipe(heading)
    code = code.replace("\ntiny = True", "\ntiny = False", 1)
    assert "vocab_size=train.vocab_size" in code
    code = code.replace("vocab_size=train.vocab_size", f"vocab_size={vocab_size}")
    code = re.sub(r"batch_size=8 if tiny else \d+", f"batch_size={batch}", code)
    # every row at full length: the worst case, and the same width at every batch size (a linear fit)
    code = code.replace('pad_to="longest"', 'pad_to="max_length"')
    code = re.sub(r"epochs, steps = \(1, 6\) if tiny else \(10, None\)", "epochs, steps = 1, 2", code)
    code = code.replace("\nlosses = []\n", "\n__mark()\nlosses = []\n", 1)
    marks: dict[str, int] = {}

    def mark() -> None:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM, the peak resident memory
        marks["before"] = _status("VmRSS")

    namespace: dict = {"__name__": "recipe", "__mark": mark}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102  (the docs recipe)
    models = [namespace[k] for k in ("model", "generator", "discriminator") if k in namespace]
    params = {id(p): p.numel() for m in models for p in m.parameters()}
    print(json.dumps({"params": sum(params.values()), "before": marks["before"], "peak": _status("VmHWM")}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="the recipes folder of training_checks.py (runs/*/pack)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--only", nargs="+", choices=[h[4:] for h in RECIPES])
    parser.add_argument("--vocab-size", type=int, default=32000,
                        help="the models' vocabulary (the sample's is 8,000; KcBERT's 30,000)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    os.chdir(args.root)
    for heading in RECIPES:
        if args.only and heading[4:] not in args.only:
            continue
        runs = []
        for batch in args.batches:
            command = [sys.executable, __file__, "--child", heading, str(batch), str(args.vocab_size)]
            done = subprocess.run(command, check=True, capture_output=True, text=True)
            runs.append((batch, json.loads(done.stdout.strip().splitlines()[-1])))
        (b1, r1), (b2, r2) = runs[0], runs[-1]
        d1, d2 = r1["peak"] - r1["before"], r2["peak"] - r2["before"]
        slope = (d2 - d1) / (b2 - b1)
        target = published(recipe(heading)[1])
        estimate = 4 * r1["params"] + d1 + slope * (target - b1)
        print(f"{heading[4:]}: {r1['params'] / 1e6:.0f} M parameters (vocabulary {args.vocab_size:,}); "
              f"steps add {d1 / GIB:.2f} GiB at batch {b1}, "
              f"{d2 / GIB:.2f} GiB at batch {b2} ({slope / GIB:.2f} GiB a row); at batch {target}: "
              f"{estimate / GIB:.1f} GiB with the fp32 weights", flush=True)


if __name__ == "__main__":
    main()
