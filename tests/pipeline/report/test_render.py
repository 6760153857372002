"""The shared report renderer: escaping, tables, charts, the page shell."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from kcorpus.pipeline.report.render import (
    Section,
    html_page,
    md_table,
    sections_html,
    sections_markdown,
    svg_grouped_hbars,
    svg_histogram,
    svg_stacked_bar,
)


def test_markdown_tables_escape_pipes() -> None:
    assert md_table(["a", "b|c"], [[1, "x|y"]]) == ["| a | b\\|c |", "|---|---|", "| 1 | x\\|y |"]


def test_sections_in_markdown_and_html() -> None:
    section = Section("Drops <all>", tables=[(["reason", "n"], [["too_short", 3]])], notes=["a & b"])
    assert sections_markdown([section]) == [
        "## Drops <all>", "", "| reason | n |", "|---|---|", "| too_short | 3 |", "", "> a & b", "",
    ]  # fmt: skip
    page = html_page("t", sections_html([section]))
    assert "<h2>Drops &lt;all&gt;</h2>" in page and '<p class="note">a &amp; b</p>' in page
    assert not re.search(r"<script|<link|<img|src=", page)


def test_charts_are_well_formed_svg() -> None:
    charts = [
        svg_grouped_hbars("g <1>", ["x", "y"], {"A": [1, 2], "B": [3, 0]}),
        svg_stacked_bar("s", [("only_a", 2), ("overlap", 5), ("only_b", 1)]),
        svg_histogram("h", ["0-9", "10+"], [4, 1], "chars"),
    ]
    for chart in charts:
        ElementTree.fromstring(chart)
    assert svg_histogram("empty", ["0-9"], [0], "chars") == ""
