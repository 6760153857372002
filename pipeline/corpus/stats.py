"""stats.json: counts summed from the tagged outputs, reconciled per source, checked against Beam metrics."""

from __future__ import annotations

import collections
import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from kcorpus.pipeline.atomic import AtomicTextFile
from kcorpus.pipeline.corpus.keys import METRICS_NAMESPACE
from kcorpus.transforms import corpus_layout

log = logging.getLogger(__name__)


def summarize(counts: Mapping[tuple[str, str], int], source_names: Iterable[str]) -> dict[str, Any]:
    """stats.json from the `(source, counter) -> n` totals; `reconciled` checks every source's balance."""

    def block(counters: Mapping[str, int]) -> dict[str, Any]:
        dropped_by_reason: collections.Counter[str] = collections.Counter()
        for name, n in counters.items():
            stage, _, rest = name.partition(":")
            if rest.startswith("dropped:") and stage in ("read", "filter", "decontaminate", "dedup"):
                dropped_by_reason[rest.removeprefix("dropped:")] += n
        removed: dict[str, dict[str, int]] = {}
        for name, n in counters.items():
            stage, _, rest = name.partition(":")
            kind, _, rule = rest.partition(":")
            if stage == "filter" and kind in ("sentences_removed", "chars_removed"):
                # A sentence rule: its bare reason, `{sentences, characters}`.
                key = "sentences" if kind == "sentences_removed" else "characters"
                removed.setdefault(rule, {"sentences": 0, "characters": 0})[key] = n
            elif kind in ("spans_removed", "chars_removed"):
                # A span removal: `<stage>:<rule>`, `{spans, characters}`.
                key = "spans" if kind == "spans_removed" else "characters"
                removed.setdefault(f"{stage}:{rule}", {"spans": 0, "characters": 0})[key] = n
        dead = counters.get("read:dead_letter", 0) + counters.get("prepare:dead_letter", 0)
        inputs = (
            counters.get("read:documents", 0)
            + counters.get("read:dead_letter", 0)
            + sum(n for name, n in counters.items() if name.startswith("read:dropped:"))
        )
        kept = counters.get("write:kept", 0)
        dropped = sum(dropped_by_reason.values())
        return {
            "input": inputs,
            "kept": kept,
            "dropped": dropped,
            "dead_lettered": dead,
            "dropped_by_reason": dict(sorted(dropped_by_reason.items())),
            "sentences": counters.get("write:sentences", 0),
            # Sentences the filters removed from the documents they kept, and their characters, per rule; spans
            # the rewrites, boilerplate rules and cleaners took out of them (`clean:url`), and their characters.
            "removed_inside_kept": dict(sorted(removed.items())),
            "reconciled": inputs == kept + dropped + dead,
            "counters": dict(sorted(counters.items())),
        }

    per_source: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in source_names}
    total: collections.Counter[str] = collections.Counter()
    for (source, name), n in counts.items():
        per_source.setdefault(source, collections.Counter())[name] += n
        total[name] += n
    sources = {name: block(c) for name, c in sorted(per_source.items())}
    summary = block(total)
    summary["reconciled"] = summary["reconciled"] and all(s["reconciled"] for s in sources.values())
    return {"total": summary, "sources": sources}


def write_stats(
    counts: list[tuple[tuple[str, str], int]],
    out_dir: str,
    source_names: list[str],
    extra: Mapping[str, Any],
    dead_letters_written: int,
    decontaminate: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Writes stats.json; a dead-letter file that disagrees with the counters un-reconciles the run."""
    stats = summarize(dict(counts), source_names)
    if dead_letters_written != stats["total"]["dead_lettered"]:
        stats["total"]["reconciled"] = False
    stats.update(extra)
    if decontaminate is not None:
        stats["decontaminate"] = dict(decontaminate)
    with AtomicTextFile(f"{out_dir}/{corpus_layout.STATS_FILE}") as f:
        f.write(json.dumps(stats, ensure_ascii=False, indent=2, sort_keys=False) + "\n")
    return stats



def check_metrics(result: Any, stats: Mapping[str, Any]) -> None:
    """Beam metrics are a second opinion only: stats.json is computed from the tagged outputs."""
    try:
        counters = result.metrics().query()["counters"]
    except (AttributeError, NotImplementedError, KeyError):
        return
    metric = collections.Counter()
    for c in counters:
        if c.key.metric.namespace == METRICS_NAMESPACE:
            metric[c.key.metric.name] += c.committed or 0
    if not metric:
        log.info("the runner reported no Beam metrics; stats.json is counted from the outputs")
    elif dict(metric) != stats["total"]["counters"]:
        differ = sorted(
            k
            for k in set(metric) | set(stats["total"]["counters"])
            if metric.get(k) != stats["total"]["counters"].get(k)
        )
        log.warning(
            "Beam metrics disagree with stats.json (counted from the outputs, authoritative): %s", differ
        )
    else:
        log.info("Beam metrics agree with stats.json (%d counters)", len(metric))