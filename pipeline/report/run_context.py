"""The run report's context sections: the settings each stage ran with, each source's share of the packed
tokens, and near duplicates shown as pairs (the dropped text next to the kept one it duplicates).

Plain functions over the data `pipeline/run/report.py` collects; `run.build_sections` adds their sections.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kcorpus.pipeline.report.examples import one_line
from kcorpus.pipeline.report.render import Section, Table, fmt_number, pct, svg_hbars
from kcorpus.transforms.dedup import NEAR
from kcorpus.transforms.examples import DOCUMENT_DROP, excerpt, parse_duplicate_note

PAIRS_SHOWN = 3


# ---- settings ----------------------------------------------------------------------------------------------


def flatten(config: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted key, value) for every setting; a list of named items (sources) is keyed by their names."""
    if isinstance(config, Mapping):
        for key, value in config.items():
            yield from flatten(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(config, list) and config and all(isinstance(v, Mapping) and "name" in v for v in config):
        for item in config:
            rest = {k: v for k, v in item.items() if k != "name"}
            yield from flatten(rest, f"{prefix}.{item['name']}")
    elif isinstance(config, list):
        yield prefix, ", ".join(map(str, config))
    else:
        yield prefix, "" if config is None else str(config)


def settings_section(profile: str | None, stages: Mapping[str, Mapping[str, Any]]) -> Section:
    """Every setting each completed stage ran with (from its `_STAGE.json`, so a stage run by an older
    profile shows what it really used), and the profile of this run."""
    section = Section("Settings: the profile and thresholds used", folded=True)
    if profile:
        section.intro.append(f"Profile: {profile}")
    rows = [
        [stage, key, value]
        for stage, info in stages.items()
        for key, value in flatten(info.get("config") or {})
    ]
    if rows:
        section.tables.append((["stage", "setting", "value"], rows))
    else:
        section.notes.append("No completed stage recorded its settings.")
    return section


def filters_table(
    filters: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Mapping[str, Any]]
) -> Table | None:
    """Every filter key (rows) with the value each source ran with (columns), a source's own value marked
    `(source)`; None for a corpus whose stats.json predates per-source filters."""
    if not filters:
        return None
    names = list(filters)
    keys = list(dict.fromkeys(k for n in names for k in filters[n]))
    rows = [
        [key, *(_setting(filters[n].get(key)) + (" (source)" if key in (overrides.get(n) or {}) else "")
                for n in names)]
        for key in keys
    ]  # fmt: skip
    return ["filter", *names], rows


def _setting(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


# ---- packed tokens per source ------------------------------------------------------------------------------


def pack_sources(
    manifest: Mapping[str, Any], corpus_characters: Mapping[str, int], corpus_documents: Mapping[str, int]
) -> tuple[Table | None, str, str]:
    """Each source's share of the packed tokens (the manifest's `counts.sources`) as a table and a chart;
    without them, each source's share of the corpus characters, and a note that says so."""
    counts = manifest.get("counts")
    sources = counts.get("sources") if isinstance(counts, Mapping) else None
    if isinstance(sources, Mapping) and sources:
        names = sorted(sources)
        tokens = [int(sources[n].get("tokens", 0)) for n in names]
        shares = [t / (sum(tokens) or 1) for t in tokens]
        rows = [
            [n, fmt_number(sources[n].get("documents", 0)), fmt_number(sources[n].get("sequences", 0)),
             fmt_number(t), pct(share)]
            for n, t, share in zip(names, tokens, shares)
        ]  # fmt: skip
        header, what, note = ["source", "documents", "sequences", "tokens", "share of tokens"], "tokens", ""
    elif corpus_characters:
        names = sorted(corpus_characters)
        chars = [corpus_characters[n] for n in names]
        shares = [c / (sum(chars) or 1) for c in chars]
        rows = [
            [n, fmt_number(corpus_documents.get(n, 0)), fmt_number(c), pct(share)]
            for n, c, share in zip(names, chars, shares)
        ]
        header, what = ["source", "documents out", "characters out", "share of characters"], "corpus characters"
        note = (
            "The pack manifest has no per-source counts (counts.sources): the shares are of the corpus's "
            "characters out, a proxy for the shares of the packed tokens."
        )
    else:
        return None, "", ""
    chart = svg_hbars(f"Share of the {what} per source", names, [100 * s for s in shares], "%")
    return (header, rows), chart, note


# ---- near-duplicate pairs ----------------------------------------------------------------------------------


def near_duplicate_survivors(examples: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(id, source) of the kept documents that the sampled near-duplicate drops duplicate, in sample order."""
    found = []
    for row in examples:
        if row.get("kind") == DOCUMENT_DROP and row.get("rule") == NEAR:
            survivor = parse_duplicate_note(row.get("note", ""))
            if survivor is not None and survivor not in found:
                found.append(survivor)
    return found


def near_duplicate_pairs(
    examples: Sequence[Mapping[str, Any]], kept_texts: Mapping[tuple[str, str], str]
) -> list[dict[str, str]]:
    """Up to `PAIRS_SHOWN` sampled near duplicates with the text of the document each one duplicates."""
    pairs = []
    for row in examples:
        if row.get("kind") != DOCUMENT_DROP or row.get("rule") != NEAR:
            continue
        survivor = parse_duplicate_note(row.get("note", ""))
        if survivor is None or survivor not in kept_texts:
            continue
        pairs.append({
            "dropped_id": row["id"], "dropped_text": row["before"],
            "kept_id": survivor[0], "kept_text": excerpt(kept_texts[survivor], "")[0],
        })  # fmt: skip
        if len(pairs) == PAIRS_SHOWN:
            break
    return pairs


def near_duplicate_table(pairs: Sequence[Mapping[str, str]]) -> tuple[list[str], list[list[str]]]:
    """Two rows per pair: the dropped document, then the kept one it duplicates."""
    rows = []
    for pair in pairs:
        rows.append([pair["dropped_id"], "dropped", one_line(pair["dropped_text"])])
        rows.append([pair["kept_id"], "kept", one_line(pair["kept_text"])])
    return ["near duplicate (sampled pair)", "", "text"], rows
