"""Checks on rendered report pages, shared by the report tests: label boxes in SVG charts, Korean text
without `lang="ko"`, Markdown left literal in HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from xml.etree import ElementTree

from kcorpus.pipeline.report.render import text_width

SVG_NS = "{http://www.w3.org/2000/svg}"
HANGUL = re.compile("[가-힣ㄱ-ㆎ]")
# A Markdown construct that means nothing in HTML: a code span's backtick, bold, a link, a heading, a table rule.
MARKDOWN = re.compile(r"`|\*\*|\]\(|^#{1,6} |\|\s*-{3,}\s*\|", re.MULTILINE)


def label_boxes(svg: str) -> list[tuple[float, float, float, float, str]]:
    """(left, right, top, bottom, text) of every label of a chart but its title, from its position, anchor
    and font size, with the estimated width of `render.text_width` (checked against Chromium's rendering: it
    is an upper bound for the report's labels)."""
    root = ElementTree.fromstring(svg)
    boxes = []
    for text in list(root.iter(f"{SVG_NS}text"))[1:]:
        size = float(text.get("font-size", 12))
        width = text_width(text.text or "", size)
        x, y = float(text.get("x")), float(text.get("y"))
        left = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor", "start")]
        boxes.append((left, left + width, y - 0.8 * size, y + 0.2 * size, text.text or ""))
    return boxes


def overlapping_labels(svg: str) -> list[tuple[str, str]]:
    """The pairs of labels whose boxes meet."""
    boxes = label_boxes(svg)
    return [
        (a[4], b[4])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if min(a[1], b[1]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[2], b[2])
    ]


def labels_outside(svg: str) -> list[str]:
    """The labels that stick out of the chart's left or right edge."""
    width = float(ElementTree.fromstring(svg).get("width"))
    return [text for left, right, _, _, text in label_boxes(svg) if left < 0 or right > width]


class _LangWalker(HTMLParser):
    VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "wbr", "col"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None]] = []
        self.unmarked: list[str] = []
        self.visible: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs).get("lang")))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        tags = [tag for tag, _ in self.stack]
        if "head" in tags:
            return
        lang = next((lang for _, lang in reversed(self.stack) if lang), None)
        if HANGUL.search(data) and lang != "ko":
            self.unmarked.append(data)
        # The page's own prose (paragraphs, headings), not the data its tables and charts show.
        if "code" not in tags and not {"style", "td", "th", "svg"} & set(tags):
            self.visible.append(data)


def korean_without_lang(page: str) -> list[str]:
    """The texts of the page's body that hold Hangul with no `lang="ko"` on them or above them."""
    walker = _LangWalker()
    walker.feed(page)
    return walker.unmarked


def literal_markdown(page: str) -> list[str]:
    """The texts of the page's prose (outside tables, charts and `<code>`) that hold Markdown syntax."""
    walker = _LangWalker()
    walker.feed(page)
    return [text for text in walker.visible if MARKDOWN.search(text)]
