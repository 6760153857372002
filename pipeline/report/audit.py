"""The pages of `kcorpus audit`: sampled kept documents with their word diffs, sampled drops per rule.

Markdown marks removed words `[-so-]` and added words `{+so+}` (wdiff's notation, readable as plain text);
the HTML page strikes them through and underlines them. Tables and the page shell are the shared renderer's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kcorpus.pipeline.report.examples import one_line
from kcorpus.pipeline.report.render import Block, Page, Section, escape, fmt_number, lang_attr
from kcorpus.transforms.audit import DELETE, EQUAL, INSERT

# Characters of a dropped record's text shown in its table cell.
DROP_TEXT_CHARS = 400
TITLE = "kcorpus audit"
LEGEND = (
    "Kept documents are compared with the record their reader gives for the same id, word by word (line breaks "
    "aside): removed words are struck through and added ones underlined ([-like this-] and {+like this+} in "
    "Markdown); long unchanged stretches are cut to … . Dropped records are those rejected/ holds (all of them, "
    "a sample or none: output.dropped)."
)
_DETAIL_KEYS = ("duplicate_of", "contaminated_by", "document_id", "level")


def audit_sections(audit: Mapping[str, Any]) -> list[Section]:
    """The summary, one section per source's kept sample (tables only: the diffs are added per format), one
    per drop rule."""
    sources = Section("Sources", notes=[LEGEND, *audit["input_notes"]])
    rows = []
    for name, block in audit["sources"].items():
        reasons = sorted((block.get("dropped_by_reason") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
        top = ", ".join(f"{r} {fmt_number(n)}" for r, n in reasons[:4])
        rows.append([name, *(fmt_number(block.get(k) or 0) for k in ("input", "kept", "dropped")), top])
    sources.tables.append((["source", "input", "kept", "dropped", "most frequent drop reasons"], rows))
    sources.notes.append(
        f"Seed {audit['seed']}: {audit['per_source']} kept documents per source and {audit['per_rule']} "
        f"dropped records per rule; rejected/ holds {audit['output'].get('dropped', 'all')} of the drops."
    )
    return [sources, *(_drop_section(rule, records, audit) for rule, records in audit["dropped"].items())]


def _drop_section(rule: str, records: Sequence[Mapping[str, Any]], audit: Mapping[str, Any]) -> Section:
    written = audit["dropped_written"].get(rule, 0)
    section = Section(f"Dropped: {rule} ({len(records)} of {fmt_number(written)} in rejected/)")
    rows = []
    for r in records:
        text = one_line(str(r.get("text") or r.get("raw") or ""))
        if len(text) > DROP_TEXT_CHARS:
            text = text[:DROP_TEXT_CHARS] + "…"
        details = "; ".join(f"{k}: {_detail(r[k])}" for k in _DETAIL_KEYS if k in r)
        rows.append([r.get("id") or r.get("path", ""), r.get("source", ""), text, details])
    section.tables.append((["id", "source", "text", "details"], rows))
    return section


def _detail(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={one_line(str(v))}" for k, v in value.items())
    return str(value)


def _summary(row: Mapping[str, Any]) -> str:
    if row.get("diff") is None:
        return f"{fmt_number(row['kept_chars'])} characters kept; input not found, no diff"
    c = row["counts"]
    return (
        f"input {fmt_number(row['input_chars'])} → kept {fmt_number(row['kept_chars'])} characters; "
        f"{fmt_number(c['removed_words'])} words removed ({fmt_number(c['removed_chars'])} characters), "
        f"{fmt_number(c['added_words'])} added, {fmt_number(c['kept_words'])} unchanged"
    )


def _metadata(row: Mapping[str, Any]) -> str:
    meta = row.get("metadata") or {}
    return ", ".join(f"{k}: {v}" for k, v in meta.items() if not isinstance(v, (dict, list)))[:200]


def _diff_markdown(runs: Sequence[Sequence[str]]) -> str:
    marks = {EQUAL: "{}", DELETE: "[-{}-]", INSERT: "{{+{}+}}"}
    return " ".join(marks[op].format(text) for op, text in runs)


def _diff_html(runs: Sequence[Sequence[str]]) -> str:
    tags = {
        EQUAL: "{}",
        DELETE: '<del style="background:#fdd">{}</del>',
        INSERT: '<ins style="background:#dfd">{}</ins>',
    }
    return " ".join(tags[op].format(escape(text)) for op, text in runs)


def audit_page(audit: Mapping[str, Any]) -> Page:
    """The audit's page: the summary, each source's kept sample with its diffs, the drops per rule."""
    sections = audit_sections(audit)
    kept = [_kept_block(source, rows, audit) for source, rows in audit["kept"].items()]
    return Page(f"{TITLE}: {audit['corpus']}", [*sections[:1], *kept, *sections[1:], Block([""])])


def _kept_block(source: str, rows: Sequence[Mapping[str, Any]], audit: Mapping[str, Any]) -> Block:
    """One source's kept documents: a heading, then each document's summary line and its text or diff."""
    title = f"Kept: {source} ({len(rows)} of {fmt_number(audit['kept_totals'].get(source, 0))})"
    block = Block([f"## {title}", ""], [f"<h2>{escape(title)}</h2>"])
    for row in rows:
        meta = _metadata(row)
        block.markdown += [f"### {row['id']}", "", f"*{_summary(row)}*" + (f" — {meta}" if meta else "")]
        body = row["text"] if row.get("diff") is None else _diff_markdown(row["diff"])
        block.markdown += ["", *(f"> {line}" for line in body.split("\n")), ""]
        block.html.append(
            f"<h3>{escape(row['id'])}</h3><p><em>{escape(_summary(row))}</em>"
            + (f" — <span{lang_attr(meta)}>{escape(meta)}</span>" if meta else "")
            + "</p>"
        )
        text = escape(row["text"]) if row.get("diff") is None else _diff_html(row["diff"])
        block.html.append(f'<p style="white-space:pre-wrap;line-height:1.6"{lang_attr(text)}>{text}</p>')
    return block
