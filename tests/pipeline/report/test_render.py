"""The shared report renderer: escaping, tables, charts, the page shell."""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree

from report_checks import korean_without_lang, labels_outside, literal_markdown, overlapping_labels

from kcorpus.pipeline.report.render import (
    CSS,
    Block,
    Page,
    Section,
    html_page,
    html_table,
    inline_html,
    md_code,
    md_table,
    render_html,
    render_markdown,
    sections_html,
    sections_markdown,
    svg_grouped_hbars,
    svg_hbars,
    svg_histogram,
    svg_stacked_bar,
)
from kcorpus.pipeline.run.report import DOC_CHAR_BINS, Histogram


def test_markdown_tables_escape_pipes() -> None:
    assert md_table(["a", "b|c"], [[1, "x|y"]]) == ["| a | b\\|c |", "|---|---|", "| 1 | x\\|y |"]


def test_sections_in_markdown_and_html() -> None:
    section = Section("Drops <all>", tables=[(["reason", "n"], [["too_short", 3]])], notes=["a & b"])
    assert sections_markdown([section]) == [
        "## Drops <all>", "", "| reason | n |", "|---|---|", "| too_short | 3 |", "", "> a & b", "",
    ]  # fmt: skip
    page = html_page("t", sections_html([section]))
    assert '<h2 id="drops-all">Drops &lt;all&gt;</h2>' in page and '<p class="note">a &amp; b</p>' in page
    assert not re.search(r"<script|<link|<img|src=", page)


def test_a_page_renders_its_sections_and_blocks_in_order() -> None:
    section = Section("Drops", tables=[(["reason", "n"], [["too_short", 3]])])
    page = Page("보고서", [Block(["Made today.", ""], ["<p>Made today.</p>"]), section, Block(html=["<hr>"])])
    table = "| reason | n |\n|---|---|\n| too_short | 3 |\n"
    assert render_markdown(page) == f"# 보고서\n\nMade today.\n\n## Drops\n\n{table}"
    assert render_html(page) == html_page("보고서", ["<p>Made today.</p>", *sections_html([section]), "<hr>"])


def test_charts_are_well_formed_svg() -> None:
    charts = [
        svg_grouped_hbars("g <1>", ["x", "y"], {"A": [1, 2], "B": [3, 0]}),
        svg_stacked_bar("s", [("only_a", 2), ("overlap", 5), ("only_b", 1)]),
        svg_histogram("h", ["0-9", "10+"], [4, 1], "chars"),
    ]
    for chart in charts:
        ElementTree.fromstring(chart)
    assert svg_histogram("empty", ["0-9"], [0], "chars") == ""


def test_text_left_numbers_right_korean_marked() -> None:
    table = html_table(
        ["id", "text", "documents", "share"],
        [["nsmc:9692300", "재미없다 ㅋㅋ", "1,058", "9.05%"], ["kowiki:169", "SARS", 12, ""]],
    )
    assert table.splitlines() == [
        '<table><tr><th>id</th><th>text</th><th class="num">documents</th><th class="num">share</th></tr>',
        '<tr><td>nsmc:9692300</td><td lang="ko">재미없다 ㅋㅋ</td><td class="num">1,058</td><td class="num">9.05%</td></tr>',
        '<tr><td>kowiki:169</td><td>SARS</td><td class="num">12</td><td class="num"></td></tr>',
        "</table>",
    ]  # fmt: skip
    # A column that mixes words and numbers reads as text: left-aligned throughout.
    assert html_table(["setting", "value"], [["kind", "wordpiece"], ["size", 8000]]).count('class="num"') == 0
    assert "td,th{" in CSS and "text-align:left" in CSS and ".num{text-align:right" in CSS
    page = html_page("보고서", sections_html([Section("출처", tables=[(["a"], [["가"]])], notes=["나 `다`"])]))
    assert '<html lang="en">' in page and '<h1 lang="ko">보고서</h1>' in page
    assert korean_without_lang(page) == []
    assert korean_without_lang("<html><body><p>가</p></body></html>") == ["가"]  # the check can fail


def test_code_spans_render_as_code_not_backticks() -> None:
    assert inline_html("Tokens only in A: `##가` `a<b` rest") == (
        "Tokens only in A: <code>##가</code> <code>a&lt;b</code> rest"
    )
    for token in ["##°", "`", "``", "a`b", "`x", " ", "▁"]:
        assert inline_html(md_code(token)) == f"<code>{html.escape(token)}</code>", token
    page = html_page("t", sections_html([Section("s", notes=["only in B: " + " ".join(map(md_code, "$`|*"))])]))
    assert literal_markdown(page) == [] and page.count("<code>") == 4
    assert literal_markdown("<p>`x`</p>") == ["`x`"]  # the check can fail


def test_folded_section_is_a_details_element() -> None:
    body = sections_html([Section("Settings: used", tables=[(["k", "v"], [["a", 1]])], folded=True)])
    assert body[0] == '<details><summary><h2 id="settings">Settings: used</h2></summary>'
    assert body[-1] == "</details>"


def test_histogram_labels_never_overlap() -> None:
    # The characters-per-document bins of the run report, with counts as large as a big corpus gives.
    hist = Histogram.empty(DOC_CHAR_BINS)
    labels = hist.labels()
    assert labels[-2:] == ["10000-49999", "50000+"]
    counts = [12_345_678, 9_876_543, 1_234_567, 345_678, 45_678, 5_678, 678, 78, 8, 1]
    svg = svg_histogram("Characters per document", labels, counts, "characters")
    assert overlapping_labels(svg) == [] and labels_outside(svg) == []
    # Two of these labels 50 px apart, as the fixed 44 px bars put them, meet (the check can fail).
    fixed = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text x="0" y="16">t</text>'
        '<text x="65" y="30" text-anchor="middle" font-size="10">5000-9999</text>'
        '<text x="115" y="30" text-anchor="middle" font-size="10">10000-49999</text></svg>'
    )
    assert overlapping_labels(fixed) == [("5000-9999", "10000-49999")]


def test_bar_and_legend_labels_never_overlap() -> None:
    long = ["empty_disambiguation_and_more", "국민청원 게시판 본문", "x"]
    charts = [
        svg_hbars("Dropped documents per reason", long, [1_234_567, 3, 0]),
        svg_grouped_hbars("Tokens by script", long, {"A (this vocab)": [1, 2, 3], "B": [30000, 2, 0]}),
        # A part too narrow for its name: the names go to a legend under the bar.
        svg_stacked_bar("Exact-string overlap", [("only_a", 1649), ("overlap", 6351), ("only_b", 23649)]),
        svg_stacked_bar("tiny parts", [("only_a", 1), ("overlap", 1), ("only_b", 1_000_000)]),
    ]
    for chart in charts:
        ElementTree.fromstring(chart)
        assert overlapping_labels(chart) == [], chart
        assert labels_outside(chart) == [], chart
