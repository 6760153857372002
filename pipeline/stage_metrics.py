"""Per-stage bundle instrumentation: elements, bundles, the largest bundle's share and the CPU of each step.

A metered step (`Metered(step, dofn)` or `metered_map(step, fn)`) reports, at the end of every bundle, two Beam
distributions in the `kcorpus.stages` namespace: `<step>:elements` (elements the bundle processed) and
`<step>:cpu_us` (thread CPU microseconds spent in the step's own code, its outputs' downstream work excluded).
A distribution's count is the number of bundles, its sum the total and its max the largest bundle, so the
runner aggregates them across workers and `stage_table(result)` reads them back. The cost is two
`time.thread_time()` calls per element and output, cheap enough to leave on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

NAMESPACE = "kcorpus.stages"
STAGES_FILE = "stages.json"
# The bundle-split check of issue 13: a stage costing at least this share of the metered CPU ...
HEAVY_CPU_SHARE = 0.05
# ... puts no more than this share of its elements in one bundle.
MAX_BUNDLE_SHARE = 1 / 8


class Metered(beam.DoFn):
    """Runs `fn` unchanged (outputs, tags, side inputs) and meters its bundles under `step`."""

    def __init__(self, step: str, fn: beam.DoFn) -> None:
        self.step, self.fn = step, fn
        self._elements, self._cpu = 0, 0.0

    def default_label(self) -> str:
        return self.fn.default_label()

    def setup(self) -> None:
        self.fn.setup()
        self._elements_dist = Metrics.distribution(NAMESPACE, f"{self.step}:elements")
        self._cpu_dist = Metrics.distribution(NAMESPACE, f"{self.step}:cpu_us")

    def start_bundle(self) -> None:
        self._elements, self._cpu = 0, 0.0
        started = time.thread_time()
        self.fn.start_bundle()
        self._cpu += time.thread_time() - started

    # No annotations on process: Beam reads them as type hints of the step's input and side inputs.
    def process(self, element, *args, **kwargs):
        self._elements += 1
        return self._timed(self.fn.process(element, *args, **kwargs))

    def finish_bundle(self) -> Iterator[Any]:
        yield from self._timed(self.fn.finish_bundle())
        if self._elements:
            self._elements_dist.update(self._elements)
            self._cpu_dist.update(int(self._cpu * 1e6))

    def teardown(self) -> None:
        self.fn.teardown()

    def _timed(self, outputs: Iterable[Any] | None) -> Iterator[Any]:
        """Yields `outputs`, adding the CPU spent producing them (not consuming them) to the bundle."""
        if outputs is None:
            return
        started = time.thread_time()
        iterator = iter(outputs)
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                self._cpu += time.thread_time() - started
                return
            self._cpu += time.thread_time() - started
            yield item
            started = time.thread_time()


class _FlatMapFn(beam.DoFn):
    def __init__(self, fn: Callable[..., Iterable[Any]], *args: Any) -> None:
        self.fn, self.args = fn, args

    def process(self, element, *side_inputs):  # unannotated: see Metered.process
        return self.fn(element, *self.args, *side_inputs)


class _MapFn(_FlatMapFn):
    def process(self, element, *side_inputs):  # unannotated: see Metered.process
        yield self.fn(element, *self.args, *side_inputs)


def _split_args(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Plain arguments and side inputs (`AsDict`, `AsList`, ...), which must come last as in `beam.Map`."""
    side = tuple(a for a in args if isinstance(a, beam.pvalue.AsSideInput))
    plain = args[: len(args) - len(side)]
    if any(isinstance(a, beam.pvalue.AsSideInput) for a in plain):
        raise ValueError("side inputs must follow the plain arguments")
    return plain, side


def metered_flat_map(step: str, fn: Callable[..., Iterable[Any]], *args: Any) -> beam.ParDo:
    """`beam.FlatMap(fn, *args)`, metered under `step`."""
    plain, side = _split_args(args)
    return beam.ParDo(Metered(step, _FlatMapFn(fn, *plain)), *side)


def metered_map(step: str, fn: Callable[..., Any], *args: Any) -> beam.ParDo:
    """`beam.Map(fn, *args)`, metered under `step`."""
    plain, side = _split_args(args)
    return beam.ParDo(Metered(step, _MapFn(fn, *plain)), *side)


def stage_table(result: Any) -> list[dict[str, Any]]:
    """Per metered step: elements, bundles, largest bundle share, CPU s and the largest bundle's CPU s.

    Empty when the runner reports no metrics (a runner without distributions, or a failed query).
    """
    try:
        distributions = result.metrics().query()["distributions"]
    except (AttributeError, NotImplementedError, KeyError):
        return []
    merged: dict[tuple[str, str], list[int]] = {}
    for d in distributions:
        if d.key.metric.namespace != NAMESPACE or d.committed is None:
            continue
        step, _, kind = d.key.metric.name.rpartition(":")
        data = d.committed
        acc = merged.setdefault((step, kind), [0, 0, 0])
        acc[0] += data.count
        acc[1] += data.sum
        acc[2] = max(acc[2], data.max or 0)
    rows = []
    for step in sorted({s for s, _ in merged}):
        bundles, elements, largest = merged.get((step, "elements"), [0, 0, 0])
        _, cpu_us, cpu_max_us = merged.get((step, "cpu_us"), [0, 0, 0])
        rows.append(
            {
                "step": step,
                "elements": elements,
                "bundles": bundles,
                "largest_bundle_share": round(largest / elements, 4) if elements else 0.0,
                "cpu_s": round(cpu_us / 1e6, 3),
                "largest_bundle_cpu_s": round(cpu_max_us / 1e6, 3),
            }
        )
    total = sum(r["cpu_s"] for r in rows) or 1.0
    for row in rows:
        row["cpu_share"] = round(row["cpu_s"] / total, 4)
    return rows


def split_failures(
    rows: Sequence[Mapping[str, Any]], heavy: float = HEAVY_CPU_SHARE, max_share: float = MAX_BUNDLE_SHARE
) -> list[str]:
    """The heavy steps (>= `heavy` of the metered CPU) that put more than `max_share` of elements in one bundle."""
    return [
        r["step"] for r in rows if r["cpu_share"] >= heavy and r["largest_bundle_share"] > max_share + 1e-9
    ]


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The stage table as aligned text, heaviest step first, with the bundle-split check at the end."""
    header = (
        f"{'step':<34} {'elements':>9} {'bundles':>7} {'max share':>9} {'CPU s':>8} {'CPU %':>6} "
        f"{'max bundle CPU s':>16}"
    )
    lines = [header]
    for r in sorted(rows, key=lambda r: -r["cpu_s"]):
        lines.append(
            f"{r['step']:<34} {r['elements']:>9} {r['bundles']:>7} {r['largest_bundle_share']:>9.3f} "
            f"{r['cpu_s']:>8.2f} {100 * r['cpu_share']:>6.1f} {r['largest_bundle_cpu_s']:>16.2f}"
        )
    failures = split_failures(rows)
    verdict = "PASS" if not failures else "FAIL: " + ", ".join(failures)
    lines.append(
        f"bundle-split check (every step with >= {HEAVY_CPU_SHARE:.0%} of the CPU has no bundle over "
        f"1/{round(1 / MAX_BUNDLE_SHARE)} of its elements): {verdict}"
    )
    return "\n".join(lines)


def stages_json(rows: Sequence[Mapping[str, Any]], workers: int | None) -> str:
    """The contents of `stages.json`: the table, the worker count and the check's verdict."""
    doc = {"workers": workers, "steps": list(rows), "split_check_failures": split_failures(rows)}
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def report_stages(result: Any, out_dir: str, workers: int | None, write: bool) -> list[dict[str, Any]]:
    """Logs the stage table (INFO) and, when `write`, prints it and writes `<out_dir>/stages.json`."""
    import logging
    import sys

    from kcorpus.pipeline.atomic import AtomicTextFile

    rows = stage_table(result)
    if not rows:
        return rows
    table = format_table(rows)
    logging.getLogger(__name__).debug("stages (%s workers):\n%s", workers, table)
    if write:
        print(f"stages ({workers} workers):\n{table}", file=sys.stderr)
        with AtomicTextFile(f"{out_dir}/{STAGES_FILE}") as f:
            f.write(stages_json(rows, workers))
    return rows
