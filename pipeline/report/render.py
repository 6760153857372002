"""One renderer for every kcorpus report: Markdown tables, HTML tables, inline SVG charts, the page shell.

A report is a `Page`: a title, then `Section`s (a title, tables, charts, notes) and `Block`s (what a report
writes its own way, given as Markdown lines and HTML fragments). `render_markdown` and `render_html`, the one
pair every report (the run report, vocab-report, the audit) is written with, turn a page into Markdown (tables
and notes; charts live only in the HTML) and into one self-contained HTML page: no script, no stylesheet link,
no image file, so it opens from disk with no server and no network.

Notes are written once, in Markdown's inline syntax (`code` spans); the HTML renders them (`inline_html`), so
no Markdown shows literally on the page. Text is left-aligned and numbers right-aligned; an element that
holds Hangul says `lang="ko"`, so browsers pick Korean glyphs and break lines between words. Chart layouts
make room for their labels (`text_width`, an upper estimate of a label's rendered width), so none overlap.
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from kcorpus.transforms.korean import CONJOINING_JAMO_CLASS, HANGUL_LETTER_CLASS

PALETTE = ("#3b6ea8", "#d9822b", "#5a9e4b", "#b44b4b", "#7d5ba6", "#8c6d31")
SVG_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{label}">'
CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:.6em 0 1em}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:left;vertical-align:top;font-size:13px;line-height:1.5}th{background:#f2f2f2}"
    ".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    ":lang(ko){word-break:keep-all;overflow-wrap:anywhere}"
    "svg{font-family:system-ui,sans-serif;font-size:12px;margin:.4em 1.5em .8em 0;vertical-align:top}"
    ".note{color:#8a5a00}code{background:#f2f2f2;padding:0 .2em;border-radius:3px}"
    "th:first-child{white-space:nowrap}summary{cursor:pointer}summary h2{display:inline}nav{margin:0 0 1em}nav a{margin-right:1em}"
)
# Hangul syllables and jamo: text holding any is Korean for `lang`.
KOREAN = re.compile(f"[{HANGUL_LETTER_CLASS}{CONJOINING_JAMO_CLASS}]")
# A formatted number: 12, 9,703, -0.5, 0.14%, 6.53 s (right-aligned in tables).
NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?(?:%| s)?")
# A Markdown code span: a run of backticks, the code, the same run again (CommonMark).
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)

Table = tuple[Sequence[Any], Sequence[Sequence[Any]]]


@dataclasses.dataclass
class Section:
    """One report section: a title, an intro, tables (header + rows), charts (SVG strings) and notes.

    `intro`: paragraphs before the tables (what the section shows); `notes`: remarks after them.
    `folded`: the HTML shows only the title until opened (`<details>`), for reference material.
    """

    title: str
    tables: list[Table] = dataclasses.field(default_factory=list)
    charts: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    folded: bool = False
    intro: list[str] = dataclasses.field(default_factory=list)

    @property
    def anchor(self) -> str:
        """The section's HTML id: its title's first words in lower case, joined by `-`."""
        return "-".join(re.findall(r"[a-z0-9]+", self.title.split(":")[0].lower())) or "section"


@dataclasses.dataclass
class Block:
    """A part of a page written its own way: its Markdown lines and its HTML fragments, as given."""

    markdown: list[str] = dataclasses.field(default_factory=list)
    html: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Page:
    """A whole report: `# title`, then its parts in order."""

    title: str
    parts: list[Section | Block] = dataclasses.field(default_factory=list)


def render_markdown(page: Page) -> str:
    """A page as Markdown: `# title`, a blank line, then each part (a section by `sections_markdown`)."""
    lines = [f"# {page.title}", ""]
    for part in page.parts:
        lines += part.markdown if isinstance(part, Block) else sections_markdown([part])
    return "\n".join(lines)


def render_html(page: Page) -> str:
    """A page as one self-contained HTML page (a section by `sections_html`)."""
    body: list[str] = []
    for part in page.parts:
        body += part.html if isinstance(part, Block) else sections_html([part])
    return html_page(page.title, body)


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


def is_korean(value: Any) -> bool:
    """Whether a value's text holds a Hangul letter."""
    return bool(KOREAN.search(str(value)))


def is_number(value: Any) -> bool:
    """Whether a table cell is a number (an int or float, or one formatted by `fmt_number`/`pct`)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or bool(NUMBER.fullmatch(str(value)))


def lang_attr(value: Any) -> str:
    """` lang="ko"` for text holding Hangul, else nothing."""
    return ' lang="ko"' if is_korean(value) else ""


def text_width(text: str, font_size: float) -> float:
    """An upper estimate of the rendered width of `text` in px: wide (CJK, Hangul) characters and the widest
    Latin ones 1 em, capitals and `+=<>~#` 0.85 em, other characters 0.65 em (DejaVu Sans, the usual system-ui
    face on Linux: digits 0.64 em, `+` 0.84 em)."""
    width = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in "WF" or char in "mwMW@%":
            width += 1.0
        elif char.isupper() or char in "+=<>~#":
            width += 0.85
        else:
            width += 0.65
    return width * font_size


# ---- Markdown ----------------------------------------------------------------------------------------------


def md_cell(value: Any) -> str:
    """A value as a Markdown table cell (a `|` inside it is escaped)."""
    return str(value).replace("|", "\\|")


def md_code(text: str) -> str:
    """`text` as a Markdown code span, fenced by one backtick more than the longest run inside it."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown table as lines: the header, the `|---|` rule, one line per row."""
    lines = ["| " + " | ".join(map(md_cell, header)) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(map(md_cell, row)) + " |" for row in rows]


def sections_markdown(sections: Sequence[Section]) -> list[str]:
    """Sections as Markdown lines: `## title`, the intro, the tables, the notes as quotes."""
    lines: list[str] = []
    for section in sections:
        lines += [f"## {section.title}", ""]
        for paragraph in section.intro:
            lines += [paragraph, ""]
        for header, rows in section.tables:
            lines += [*md_table(header, rows), ""]
        lines += [f"> {note}" for note in section.notes]
        if section.notes:
            lines.append("")
    return lines


# ---- HTML --------------------------------------------------------------------------------------------------


def inline_html(text: str) -> str:
    """Text written with Markdown code spans as HTML: escaped, each span a `<code>` element."""
    out, pos = [], 0
    for match in CODE_SPAN.finditer(text):
        code = match.group(2)
        if len(code) > 1 and code[0] == code[-1] == " " and code.strip():
            code = code[1:-1]  # CommonMark strips one space each side (what `md_code` adds)
        out += [escape(text[pos : match.start()]), f"<code>{escape(code)}</code>"]
        pos = match.end()
    return "".join([*out, escape(text[pos:])])


def _cell(tag: str, value: Any, numeric: bool) -> str:
    cls = ' class="num"' if numeric else ""
    return f"<{tag}{cls}{lang_attr(value)}>{escape(value)}</{tag}>"


def numeric_columns(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> list[bool]:
    """For each column, whether it holds numbers only (empty cells aside): those are right-aligned."""
    columns = itertools.zip_longest(*rows, fillvalue="")
    numeric = [any(str(c) for c in col) and all(str(c) == "" or is_number(c) for c in col) for col in columns]
    return numeric + [False] * (len(header) - len(numeric))


def html_table(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table, one `<tr>` per line: a column of numbers right-aligned, header too; text left-aligned."""
    numeric = numeric_columns(header, rows)
    lines = ["<table><tr>" + "".join(_cell("th", h, n) for h, n in zip(header, numeric)) + "</tr>"]
    lines += ["<tr>" + "".join(_cell("td", c, n) for c, n in zip(row, numeric)) + "</tr>" for row in rows]
    lines.append("</table>")
    return "\n".join(lines)


def html_note(note: str, css: str = "note") -> str:
    """A note as a paragraph, its code spans rendered."""
    return f'<p class="{css}"{lang_attr(note)}>{inline_html(note)}</p>'


def sections_html(sections: Sequence[Section]) -> list[str]:
    """Sections as HTML fragments: `<h2>`, intro, tables, charts, notes; a folded section inside `<details>`."""
    body: list[str] = []
    for section in sections:
        heading = f'<h2 id="{section.anchor}"{lang_attr(section.title)}>{escape(section.title)}</h2>'
        parts = [html_note(paragraph, "intro") for paragraph in section.intro]
        parts += [html_table(header, rows) for header, rows in section.tables]
        parts += [chart for chart in section.charts if chart]
        parts += [html_note(note) for note in section.notes]
        if section.folded:
            body += [f"<details><summary>{heading}</summary>", *parts, "</details>"]
        else:
            body += [heading, *parts]
    return body


def html_contents(sections: Sequence[Section]) -> str:
    """A line of links to the sections, for the top of a long page."""
    return (
        "<nav>"
        + "".join(f'<a href="#{s.anchor}">{escape(s.title.split(":")[0])}</a>' for s in sections)
        + "</nav>"
    )


def html_page(title: str, body: Sequence[str]) -> str:
    """One self-contained HTML page: `<h1>title</h1>` then the body fragments, with the shared CSS inline.

    The page's own words are English; the Korean in it is marked `lang="ko"` where it appears.
    """
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>\n<h1{lang_attr(title)}>{escape(title)}</h1>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


# ---- SVG charts --------------------------------------------------------------------------------------------

# Room a label needs beyond its estimated width, as a factor and in px.
LABEL_SLACK, LABEL_GAP = 1.1, 8


def _room(labels: Sequence[Any], font_size: float) -> float:
    """The widest of the labels, with slack: the space that keeps each clear of its neighbours."""
    return max((text_width(str(label), font_size) for label in labels), default=0.0) * LABEL_SLACK + LABEL_GAP


def _text(x: float, y: float, text: Any, attrs: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}"{attrs}{lang_attr(text)}>{escape(text)}</text>'


def _svg_open(title: str, width: float, height: float) -> list[str]:
    return [
        SVG_OPEN.format(width=math.ceil(width), height=math.ceil(height), label=escape(title)),
        _text(0, 16, title, ' font-weight="bold"'),
    ]


def svg_hbars(title: str, labels: Sequence[Any], values: Sequence[float], unit: str = "") -> str:
    """A horizontal bar chart, one bar per label, value printed at the bar's end; "" when there is no bar."""
    if not labels:
        return ""
    row, width = 22, 420
    left = max(60.0, _room(labels, 12))
    ends = [f"{fmt_number(value)}{unit}" for value in values]
    top = max(values) or 1
    parts = _svg_open(
        title, max(left + width + _room(ends, 12), text_width(title, 12) + 10), 30 + row * len(labels)
    )
    for i, (label, value, end) in enumerate(zip(labels, values, ends)):
        y = 26 + i * row
        w = max(1.0, width * value / top) if value else 0
        parts += [
            _text(left - 6, y + 14, label, ' text-anchor="end"'),
            f'<rect x="{left:.1f}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" fill="{PALETTE[i % len(PALETTE)]}"/>',
            _text(left + w + 4, y + 14, end),
        ]
    return "".join([*parts, "</svg>"])


def _legend(
    names: Sequence[str], x0: float, y: float, width: float, font_size: float = 12
) -> tuple[list[str], float]:
    """Colour swatches with their names, side by side, wrapping at `width`; the SVG parts and the y below."""
    parts, x = [], x0
    for j, name in enumerate(names):
        room = 16 + _room([name], font_size) + 10
        if x > x0 and x + room > width:
            x, y = x0, y + 20
        parts += [
            f'<rect x="{x:.1f}" y="{y:.1f}" width="12" height="12" fill="{PALETTE[j % len(PALETTE)]}"/>',
            _text(x + 16, y + 11, name, f' font-size="{font_size}"'),
        ]
        x += room
    return parts, y + 20


def svg_grouped_hbars(
    title: str, categories: Sequence[str], series: Mapping[str, Sequence[float]], *, fmt: str = "{:g}"
) -> str:
    """Grouped horizontal bars: one group per category, one bar per series (coloured, with a legend)."""
    bar_h, gap, plot_w = 14, 10, 390
    left = max(60.0, 4 + _room(categories, 12))
    n = len(series)
    labels = [fmt.format(v) for values in series.values() for v in values]
    width = max(left + plot_w + _room(labels, 11), text_width(title, 12) + 10)
    peak = max((v for values in series.values() for v in values), default=0) or 1
    parts = _svg_open(title, width, 0)
    y = 30.0
    for i, category in enumerate(categories):
        parts.append(_text(4, y + n * bar_h / 2 + 4, category))
        for j, (name, values) in enumerate(series.items()):
            w = plot_w * values[i] / peak
            label = fmt.format(values[i])
            parts += [
                (
                    f'<rect x="{left:.1f}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" '
                    f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(name)}: {escape(label)}</title></rect>'
                ),
                _text(left + w + 4, y + bar_h - 4, label, ' font-size="11"'),
            ]
            y += bar_h
        y += gap
    legend, bottom = _legend(list(series), 4, y + 4, width)
    parts[0] = SVG_OPEN.format(width=math.ceil(width), height=math.ceil(bottom), label=escape(title))
    return "".join([*parts, *legend, "</svg>"])


def svg_stacked_bar(title: str, parts: Sequence[tuple[str, float]], width: int = 640) -> str:
    """One bar split into coloured parts (e.g. only in A | both | only in B), named with their values in a
    legend under the bar (a part too narrow for its name stays readable)."""
    total = sum(value for _, value in parts) or 1
    width = max(width, math.ceil(text_width(title, 12) + 10))
    svg, x = [], 4.0
    for j, (name, value) in enumerate(parts):
        w = (width - 8) * value / total
        svg.append(
            f'<rect x="{x:.1f}" y="24" width="{w:.1f}" height="22" fill="{PALETTE[j % len(PALETTE)]}">'
            f"<title>{escape(name)}: {escape(value)}</title></rect>"
        )
        x += w
    names = [f"{name} {fmt_number(value)} ({pct(value / total)})" for name, value in parts]
    legend, bottom = _legend(names, 4, 54, width, font_size=11)
    return "".join([*_svg_open(title, width, bottom), *svg, *legend, "</svg>"])


def svg_histogram(title: str, labels: Sequence[str], counts: Sequence[int], x_label: str) -> str:
    """A vertical-bar histogram with bin labels under the bars; "" when every count is 0.

    Each bin is as wide as its widest label (bin or count) needs, so no two labels overlap.
    """
    if not sum(counts):
        return ""
    height, base, left = 160, 190, 40
    slot = max(50.0, _room([*labels, *map(fmt_number, counts)], 10))
    bar = slot - 6
    width = max(left + 20 + slot * len(counts), text_width(title, 12) + 10)
    top = max(counts) or 1
    parts = _svg_open(title, width, base + 44)
    for i, (label, count) in enumerate(zip(labels, counts)):
        x = left + i * slot
        h = height * count / top
        parts += [
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{PALETTE[0]}"/>',
            _text(x + bar / 2, base - h - 3, fmt_number(count), ' text-anchor="middle" font-size="10"'),
            _text(x + bar / 2, base + 14, label, ' text-anchor="middle" font-size="10"'),
        ]
    parts.append(
        _text(left + slot * len(counts) / 2, base + 36, x_label, ' text-anchor="middle" font-size="11"')
    )
    return "".join([*parts, "</svg>"])
