"""The examples of a build (`examples/examples.jsonl`) as report sections and as the Markdown file beside them.

Shared by `build-corpus` (which writes `examples/examples.md`) and the run report (its "Examples" section).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kcorpus.pipeline.report.render import Section, sections_markdown
from kcorpus.transforms.examples import DOCUMENT_DROP, EXAMPLES_PER_RULE, REWRITE, SENTENCE_DROP, by_rule

KIND_TITLES = {
    REWRITE: "rewrite (text changed, kept)",
    SENTENCE_DROP: "sentence dropped",
    DOCUMENT_DROP: "document dropped",
}
INTRO = (
    f"A deterministic sample (the same on every run) of up to {EXAMPLES_PER_RULE} texts per rule, to judge the "
    "rules by reading: ⏎ marks a line break, … a cut around the first change."
)


def one_line(text: str) -> str:
    """A text for one table cell: line breaks shown as ⏎."""
    return text.replace("\n", " ⏎ ")


def examples_section(rows: Sequence[Mapping[str, Any]], *, intro: bool = True) -> Section:
    """One table per (kind, rule): id, before, after (rewrites) or id, text, note (drops)."""
    section = Section("Examples: what each rule did", intro=[INTRO] if intro else [])
    for (kind, rule), group in by_rule(rows):
        title = f"{KIND_TITLES.get(kind, kind)}: {rule}"
        if kind == REWRITE:
            header = [title, "before", "after"]
            cells = [[r["id"], one_line(r["before"]), one_line(r["after"])] for r in group]
        elif any(r.get("note") for r in group):
            header = [title, "text", "note"]
            cells = [[r["id"], one_line(r["before"]), r.get("note", "")] for r in group]
        else:
            header, cells = [title, "text"], [[r["id"], one_line(r["before"])] for r in group]
        section.tables.append((header, cells))
    if not rows:
        section.notes.append("No rule changed or dropped anything (or the corpus has no examples/ folder).")
    return section


def examples_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """`examples/examples.md`: the examples section as a Markdown page."""
    header = ["# kcorpus build-corpus: examples", "", INTRO, ""]
    return "\n".join([*header, *sections_markdown([examples_section(rows, intro=False)])])
