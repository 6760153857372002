"""The end of a build-corpus run: a one-screen table of what became of each source, and the loss check.

A source that yields no document at all (nothing read, every record dropped or dead-lettered), or dead-letters
more than `output.max_dead_letter_fraction` of its records, is data the user expected and did not get: the run
ends with exit 1 and these counts, naming the rule that dropped the most.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kcorpus.pipeline.corpus.keys import SHARED_ID

COLUMNS = ("source", "files", "bytes", "in", "kept", "dropped", "dead-lettered")
WIDTHS = (7, 10, 15, 15, 15, 15)
# The profile key behind each drop reason a typo can make universal (the rest name themselves).
REASON_KEYS = {
    "too_short": "filters.min_chars",
    "too_long": "filters.max_chars",
    "low_hangul": "filters.min_hangul_ratio",
    "repetitive": "filters.max_repeated_token_ratio",
    "ooo_only": "filters.drop_ooo_only",
    "too_few_sentences": "filters.min_sentences",
}


def summary_table(stats: Mapping[str, Any], out_dir: str) -> str:
    """Per source (and in total): the files and bytes its patterns matched, records in, kept, dropped,
    dead-lettered; a line for each pattern that matched nothing; then where the corpus is."""
    inputs = stats.get("inputs") or {}
    rows = [(name, *_matched(inputs.get(name)), b["input"], b["kept"], b["dropped"], b["dead_lettered"])
            for name, b in stats["sources"].items()]
    total = stats["total"]
    files = [r[1] for r in rows if r[1] != ""]
    matched = (sum(files), sum(r[2] for r in rows if r[2] != "")) if files else ("", "")
    rows.append(("total", *matched, total["input"], total["kept"], total["dropped"], total["dead_lettered"]))
    width = max(len(COLUMNS[0]), *(len(r[0]) for r in rows))
    lines = [f"{COLUMNS[0]:<{width}}" + "".join(f"{c:>{w}}" for c, w in zip(COLUMNS[1:], WIDTHS, strict=True))]
    for r in rows:
        cells = (_count(r[1]), size_text(r[2]), *(_count(n) for n in r[3:]))
        lines.append(f"{r[0]:<{width}}" + "".join(f"{c:>{w}}" for c, w in zip(cells, WIDTHS, strict=True)))
    for name in stats["sources"]:
        for item in (inputs.get(name) or {}).get("matched") or []:
            if item.get("files") == 0:
                why = f"cannot be listed: {item['error']}" if item.get("error") else "matched no file"
                lines.append(f"source {name!r}: {item['pattern']} {why}")
    lines.extend(shared_id_warnings(stats))
    folders = "text/, docs/" if stats.get("output", {}).get("text") else "docs/"
    lines.append(f"corpus: {out_dir}  ({folders}, rejected/, stats.json)")
    return "\n".join(lines)


def shared_id_warnings(stats: Mapping[str, Any]) -> list[str]:
    """A line per source whose kept documents reuse ids: records that differ under one id are all kept."""
    lines = []
    for name, block in stats["sources"].items():
        n = (block.get("counters") or {}).get(SHARED_ID, 0)
        if n:
            lines.append(
                f"warning: source {name!r}: {n:,} kept documents reuse the id of another kept document with a "
                "different text (ids are not unique in this source; every document is kept)"
            )
    return lines


def size_text(n: int | str) -> str:
    """Bytes as `0 B`, `512 B`, `1.2 MB`, `963.4 MB`, `1.3 GB` (powers of 1000); "" stays ""."""
    if n == "":
        return ""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            break
        n /= 1000
    return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"


def _matched(block: Mapping[str, Any] | None) -> tuple[int | str, int | str]:
    """A source's matched files and bytes from stats.json's `inputs`, or blanks (a corpus built before them)."""
    if not block or "files" not in block:
        return "", ""
    return block["files"], block["bytes"]


def _count(n: int | str) -> str:
    return n if isinstance(n, str) else f"{n:,}"


def loss_problems(
    stats: Mapping[str, Any], max_dead_letter_fraction: float, may_be_empty: Mapping[str, int] | None = None
) -> list[str]:
    """One line per source that lost all its documents or dead-lettered more than the allowed share.

    `may_be_empty`: the sources with `allow_missing` and their number of paths; such a source may read
    nothing at all (each path that matched no file is one `no file matches` dead letter, and no loss).
    """
    may_be_empty = may_be_empty or {}
    own_filters = stats.get("filter_overrides") or {}
    problems = []
    for name, block in stats["sources"].items():
        records, dead, kept = block["input"], block["dead_lettered"], block["kept"]
        counts = f"{records} records in, {kept} kept, {block['dropped']} dropped, {dead} dead-lettered"
        if name in may_be_empty and records == dead <= may_be_empty[name]:
            continue
        if records == 0:
            problems.append(f"source {name!r} read no records at all ({counts}); check its paths and format")
        elif dead == records:
            problems.append(f"source {name!r}: every record was dead-lettered ({counts}); see rejected/")
        elif kept == 0:
            problems.append(
                f"source {name!r}: no document kept ({counts}); {_top_reason(block, name, own_filters.get(name))}"
            )
        elif dead > max_dead_letter_fraction * records:
            problems.append(
                f"source {name!r}: {dead / records:.1%} of its records dead-lettered ({counts}), more than "
                f"output.max_dead_letter_fraction={max_dead_letter_fraction}; see rejected/"
            )
    return problems


def _top_reason(block: Mapping[str, Any], source: str = "", own_filters: Mapping[str, Any] | None = None) -> str:
    """`too_short (filters.min_chars) dropped 10,346`: the drop reason that took the most documents; the key is
    the source's own (`sources[nsmc].filters.min_chars`) when it sets it."""
    reasons = block.get("dropped_by_reason") or {}
    if not reasons:
        return "see rejected/"
    reason, n = max(reasons.items(), key=lambda kv: (kv[1], kv[0]))
    key = ""
    if reason in REASON_KEYS:
        name = REASON_KEYS[reason].removeprefix("filters.")
        key = f" (sources[{source}].filters.{name})" if name in (own_filters or {}) else f" ({REASON_KEYS[reason]})"
    return f"rule {reason}{key} dropped {n:,}; see rejected/"
