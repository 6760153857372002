"""One renderer for every kcorpus report: Markdown tables, HTML tables, inline SVG charts, the page shell.

A report is a list of `Section`s (a title, tables, charts, notes). `sections_markdown` and `html_page` turn
them into Markdown (tables and notes; charts live only in the HTML) and into one self-contained HTML page:
no script, no stylesheet link, no image file, so it opens from disk with no server and no network.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping, Sequence
from typing import Any

PALETTE = ("#3b6ea8", "#d9822b", "#5a9e4b", "#b44b4b", "#7d5ba6", "#8c6d31")
SVG_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{label}">'
CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:.6em 0 1em}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right;font-size:13px}td:first-child,th:first-child{text-align:left}th{background:#f2f2f2}"
    "svg{font-family:system-ui,sans-serif;font-size:12px;margin:.4em 1.5em .8em 0;vertical-align:top}"
    ".note{color:#8a5a00}"
)

Table = tuple[Sequence[Any], Sequence[Sequence[Any]]]


@dataclasses.dataclass
class Section:
    """One report section: a title, tables (header + rows), charts (SVG strings) and notes."""

    title: str
    tables: list[Table] = dataclasses.field(default_factory=list)
    charts: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


def escape(value: Any) -> str:
    """Any value as HTML/XML text."""
    return html.escape(str(value))


def fmt_number(value: float) -> str:
    """A count with thousands separators; a fraction with three significant digits, one decimal from 10."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3g}" if value < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def pct(fraction: float) -> str:
    """A fraction as a percentage with two decimals."""
    return f"{100 * fraction:.2f}%"


# ---- Markdown ----------------------------------------------------------------------------------------------


def md_cell(value: Any) -> str:
    """A value as a Markdown table cell (a `|` inside it is escaped)."""
    return str(value).replace("|", "\\|")


def md_table(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown table as lines: the header, the `|---|` rule, one line per row."""
    lines = ["| " + " | ".join(map(md_cell, header)) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(map(md_cell, row)) + " |" for row in rows]


def sections_markdown(sections: Sequence[Section]) -> list[str]:
    """Sections as Markdown lines: `## title`, the tables, the notes as quotes."""
    lines: list[str] = []
    for section in sections:
        lines += [f"## {section.title}", ""]
        for header, rows in section.tables:
            lines += [*md_table(header, rows), ""]
        lines += [f"> {note}" for note in section.notes]
        if section.notes:
            lines.append("")
    return lines


# ---- HTML --------------------------------------------------------------------------------------------------


def html_table(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table, one `<tr>` per line."""
    lines = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"]
    lines += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows]
    lines.append("</table>")
    return "\n".join(lines)


def sections_html(sections: Sequence[Section]) -> list[str]:
    """Sections as HTML fragments: `<h2>`, tables, charts, notes."""
    body: list[str] = []
    for section in sections:
        body.append(f"<h2>{escape(section.title)}</h2>")
        body += [html_table(header, rows) for header, rows in section.tables]
        body += [chart for chart in section.charts if chart]
        body += [f'<p class="note">{escape(note)}</p>' for note in section.notes]
    return body


def html_page(title: str, body: Sequence[str]) -> str:
    """One self-contained HTML page: `<h1>title</h1>` then the body fragments, with the shared CSS inline."""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>\n<h1>{escape(title)}</h1>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


# ---- SVG charts --------------------------------------------------------------------------------------------


def _svg_open(title: str, width: float, height: float) -> list[str]:
    return [
        SVG_OPEN.format(width=width, height=height, label=escape(title)),
        f'<text x="0" y="16" font-weight="bold">{escape(title)}</text>',
    ]


def svg_hbars(title: str, labels: Sequence[Any], values: Sequence[float], unit: str = "") -> str:
    """A horizontal bar chart, one bar per label, value printed at the bar's end; "" when there is no bar."""
    if not labels:
        return ""
    row, left, width = 22, 170, 420
    top = max(values) or 1
    parts = _svg_open(title, left + width + 110, 30 + row * len(labels))
    for i, (label, value) in enumerate(zip(labels, values)):
        y = 26 + i * row
        w = max(1.0, width * value / top) if value else 0
        parts += [
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{escape(label)}</text>',
            f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" fill="{PALETTE[i % len(PALETTE)]}"/>',
            f'<text x="{left + w + 4:.1f}" y="{y + 14}">{fmt_number(value)}{escape(unit)}</text>',
        ]
    return "".join([*parts, "</svg>"])


def svg_grouped_hbars(
    title: str, categories: Sequence[str], series: Mapping[str, Sequence[float]], *, fmt: str = "{:g}"
) -> str:
    """Grouped horizontal bars: one group per category, one bar per series (coloured, with a legend)."""
    bar_h, gap, left, plot_w = 14, 10, 170, 390
    n = len(series)
    height = 40 + len(categories) * (n * bar_h + gap) + 20 * n
    peak = max((v for values in series.values() for v in values), default=0) or 1
    parts = _svg_open(title, left + plot_w + 80, height)
    y = 30
    for i, category in enumerate(categories):
        parts.append(f'<text x="4" y="{y + n * bar_h / 2 + 4}">{escape(category)}</text>')
        for j, (name, values) in enumerate(series.items()):
            w = plot_w * values[i] / peak
            label = escape(fmt.format(values[i]))
            parts += [
                (
                    f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{PALETTE[j % len(PALETTE)]}">'
                    f"<title>{escape(name)}: {label}</title></rect>"
                ),
                f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 4}" font-size="11">{label}</text>',
            ]
            y += bar_h
        y += gap
    for j, name in enumerate(series):
        parts.append(
            f'<rect x="4" y="{y + 20 * j}" width="12" height="12" fill="{PALETTE[j % len(PALETTE)]}"/>'
            f'<text x="22" y="{y + 20 * j + 11}">{escape(name)}</text>'
        )
    return "".join([*parts, "</svg>"])


def svg_stacked_bar(title: str, parts: Sequence[tuple[str, float]], width: int = 640) -> str:
    """One bar split into coloured parts (e.g. only in A | both | only in B), each labelled under the bar."""
    total = sum(value for _, value in parts) or 1
    svg = _svg_open(title, width, 70)
    x = 4.0
    for j, (name, value) in enumerate(parts):
        w = (width - 8) * value / total
        svg += [
            (
                f'<rect x="{x:.1f}" y="24" width="{w:.1f}" height="22" fill="{PALETTE[j % len(PALETTE)]}">'
                f"<title>{escape(name)}: {escape(value)}</title></rect>"
            ),
            f'<text x="{x + 3:.1f}" y="62" font-size="11">{escape(name)} {escape(value)}</text>',
        ]
        x += w
    return "".join([*svg, "</svg>"])


def svg_histogram(title: str, labels: Sequence[str], counts: Sequence[int], x_label: str) -> str:
    """A vertical-bar histogram with bin labels under the bars; "" when every count is 0."""
    if not sum(counts):
        return ""
    bar, gap, height, base = 44, 6, 160, 190
    width = 60 + (bar + gap) * len(counts)
    top = max(counts) or 1
    parts = _svg_open(title, width, base + 44)
    for i, (label, count) in enumerate(zip(labels, counts)):
        x = 40 + i * (bar + gap)
        h = height * count / top
        parts += [
            f'<rect x="{x}" y="{base - h:.1f}" width="{bar}" height="{h:.1f}" fill="{PALETTE[0]}"/>',
            (
                f'<text x="{x + bar / 2}" y="{base - h - 3:.1f}" text-anchor="middle" font-size="10">'
                f"{fmt_number(count)}</text>"
            ),
            f'<text x="{x + bar / 2}" y="{base + 14}" text-anchor="middle" font-size="10">{escape(label)}</text>',
        ]
    parts.append(
        f'<text x="{width / 2}" y="{base + 36}" text-anchor="middle" font-size="11">{escape(x_label)}</text>'
    )
    return "".join([*parts, "</svg>"])
