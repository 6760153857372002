"""Korean Wikipedia: WikiExtractor `<doc>` output (plain or `--json`) and the raw pages-articles XML dump.

The dump is streamed page by page with `iterparse` (never loaded whole); wikitext becomes plain text with
mwparserfromhell, after removing what is not prose (templates, tables, references, file/category links).
"""

from __future__ import annotations

import dataclasses
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from typing import IO

from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix
from kcorpus.transforms.rules.wiki_stubs import stub_reason

DOC_OPEN = re.compile(r'^<doc id="([^"]*)"(?: url="([^"]*)")?(?: title="(.*)")?\s*>$')
DOC_CLOSE = "</doc>"

# Link namespaces whose links are not running text (English and Korean names).
NON_TEXT_LINK_PREFIXES = ("file:", "image:", "파일:", "그림:", "category:", "분류:", "media:", "미디어:")
_INTERLANGUAGE = re.compile(r"^:?[a-z]{2,3}(?:-[a-z]+)?:")
NON_TEXT_TAGS = frozenset({"ref", "references", "gallery", "math", "table", "timeline", "score", "syntaxhighlight",
                           "source", "pre", "graph", "imagemap", "templatedata", "chem", "hiero"})
# Sections of lists and links, not prose (compared lower-cased).
BOILERPLATE_SECTIONS = frozenset({"같이 보기", "각주", "참고 문헌", "참고문헌", "외부 링크", "출처", "주석", "관련 항목",
                                  "see also", "references", "external links", "notes", "further reading"})
_SPACES = re.compile(r"[ \t\u00a0]+")
HEADING_MARK = "\ue000"  # private-use character: never in article text
CATEGORY_LINE = re.compile(r"^\s*(?:\[\[(?:분류|category):[^\]]*\]\]\s*)+$", re.IGNORECASE)
REDIRECT_TEXT = re.compile(r"^\s*#(?:redirect|넘겨주기)", re.IGNORECASE)


def article_text(title: str, paragraphs: Iterable[str], *, with_title: bool) -> str:
    """The document text: the title line (by option) then the non-blank paragraphs, one per line.

    Lines that are only category links (`[[분류:…]]`, which WikiExtractor leaves behind) are not text.
    """
    body = article_body(paragraphs)
    if not body:
        return ""
    return "\n".join([title, *body] if with_title and title else body)


def article_body(paragraphs: Iterable[str]) -> list[str]:
    """The non-blank paragraphs, stripped, without the lines that are only category links."""
    return [p.strip() for p in paragraphs if p.strip() and not CATEGORY_LINE.match(p)]


def unescape_lines(lines: Iterable[str]) -> list[str]:
    """WikiExtractor's body lines with its HTML escaping undone (`&lt;사육&gt;` -> `<사육>`, `AT&amp;T` -> `AT&T`).

    WikiExtractor escapes `<`, `>` and `&` in the text of both its layouts (its default `--html-safe`), as it
    does in the title attribute; the tags this uncovers (`<br>`, `<ref>`) are the `wikiextractor`
    boilerplate set's to remove.
    """
    return [html.unescape(line) if "&" in line else line for line in lines]


def wikitext_to_text(wikitext: str) -> str:
    """Plain text of an article's wikitext: prose and the headings of sections that have prose, one per line."""
    import mwparserfromhell

    text = _plain_top(mwparserfromhell.parse(wikitext).nodes)
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and line != HEADING_MARK]
    kept = []
    for i, line in enumerate(lines):
        if line.startswith(HEADING_MARK):
            following = lines[i + 1] if i + 1 < len(lines) else HEADING_MARK
            if following.startswith(HEADING_MARK):
                continue  # a heading with no text under it
            line = line[len(HEADING_MARK):]
        kept.append(line)
    return "\n".join(kept)


def _plain_top(nodes: list) -> str:
    """Top-level nodes to text, skipping boilerplate sections (see also, references, external links)."""
    from mwparserfromhell.nodes import Heading

    out: list[str] = []
    skip_below = 0  # while > 0: inside a boilerplate section of that level
    for node in nodes:
        if isinstance(node, Heading):
            if skip_below and node.level > skip_below:
                continue
            skip_below = 0
            title = _plain(node.title.nodes).strip()
            if title.lower() in BOILERPLATE_SECTIONS:
                skip_below = node.level
                continue
            out.append(f"\n{HEADING_MARK}{title}\n")
        elif not skip_below:
            out.append(_plain([node]))
    return "".join(out)


def _plain(nodes: list) -> str:
    """Visible text of parsed wikitext nodes, without templates, references, tables, files and categories.

    A walk that builds the text (rather than removing nodes and calling `strip_code`) keeps this linear.
    """
    from mwparserfromhell.nodes import ExternalLink, Heading, HTMLEntity, Tag, Text, Wikilink

    out: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.value)
        elif isinstance(node, Wikilink):
            target = str(node.title).strip().lower()
            if not (target.startswith(NON_TEXT_LINK_PREFIXES) or _INTERLANGUAGE.match(target)):
                out.append(_plain((node.text if node.text is not None else node.title).nodes))
        elif isinstance(node, Tag):
            tag = str(node.tag).strip().lower()
            if tag in ("br", "p"):
                out.append("\n")
            if tag not in NON_TEXT_TAGS and node.contents is not None:
                out.append(_plain(node.contents.nodes))
        elif isinstance(node, ExternalLink):
            if node.title is not None:
                out.append(_plain(node.title.nodes))
        elif isinstance(node, HTMLEntity):
            out.append(node.normalize())
        elif isinstance(node, Heading):
            out.append(f"\n{HEADING_MARK}{_plain(node.title.nodes).strip()}\n")
        # Templates, comments, arguments and parser functions carry no running text.
    return "".join(out)


@dataclasses.dataclass(frozen=True)
class DumpPage:
    """One `<page>` of a MediaWiki XML dump, before its wikitext is converted."""

    page_id: str
    title: str
    ns: int
    redirect: bool
    wikitext: str | None
    revid: str = ""
    timestamp: str = ""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def iter_dump_pages(stream: IO[bytes], path: str) -> Iterator[DumpPage | DeadLetter]:
    """Stream the pages of a dump; malformed XML ends the file with a DeadLetter at the failing line."""
    root = None
    try:
        for event, elem in ET.iterparse(stream, events=("start", "end")):
            if root is None:
                root = elem
            if event != "end" or _local(elem.tag) != "page":
                continue
            fields: dict[str, str] = {}
            redirect = False
            for child in elem.iter():
                name = _local(child.tag)
                if name == "redirect":
                    redirect = True
                elif name in ("title", "ns", "text", "timestamp") or (name == "id" and name not in fields):
                    fields.setdefault(name, child.text or "")
                if name == "revision":
                    rev_id = child.find("{*}id")
                    fields["revid"] = rev_id.text or "" if rev_id is not None else ""
            text_elem = elem.find("{*}revision/{*}text")
            wikitext = None if text_elem is None else (text_elem.text or "")
            ns = int(fields["ns"]) if fields.get("ns", "").strip().lstrip("-").isdigit() else 0
            yield DumpPage(fields.get("id", ""), fields.get("title", ""), ns, redirect, wikitext,
                           fields.get("revid", ""), fields.get("timestamp", ""))
            root.clear()
    except ET.ParseError as err:
        yield DeadLetter(path, f"invalid_xml: {err}", line=err.position[0])


def page_record(page: DumpPage, path: str, source: str, *, namespaces: tuple[int, ...] = (0,),
                with_title: bool = True, keep_stubs: bool = False) -> Document | DeadLetter | Dropped:
    """A Document for an article page; redirects and other namespaces are Dropped with that reason."""
    doc_id = f"{source}:{page.page_id}"
    if not page.page_id:
        return DeadLetter(path, f"missing_field: page id (title {page.title!r})", raw=raw_prefix(page.title))
    if page.redirect or (page.wikitext is not None and REDIRECT_TEXT.match(page.wikitext)):
        return Dropped(doc_id, source, "read", "redirect", page.title)
    if page.ns not in namespaces:
        return Dropped(doc_id, source, "read", "namespace", page.title)
    if page.wikitext is None:
        return DeadLetter(path, f"missing_field: revision/text of page {page.page_id}", raw=raw_prefix(page.title))
    body = wikitext_to_text(page.wikitext).splitlines()
    text = article_text(page.title, body, with_title=with_title)
    reason = "empty" if not text else None if keep_stubs else stub_reason(page.title, article_body(body))
    if reason:
        return Dropped(doc_id, source, "read", reason, text or page.title)
    metadata = {"title": page.title, "revid": page.revid, "timestamp": page.timestamp}
    return Document(doc_id, text, source, metadata)


def extractor_json_record(obj: dict, path: str, line: int | None, offset: int, raw: bytes, source: str,
                          *, with_title: bool, keep_stubs: bool = False) -> Document | DeadLetter | Dropped:
    """One `wikiextractor --json` object -> Document (or why not)."""
    missing = [key for key in ("id", "title", "text") if key not in obj]
    if missing:
        return DeadLetter(path, f"missing_field: {', '.join(missing)}", line, offset, raw_prefix(raw))
    if not isinstance(obj["text"], str) or not isinstance(obj["title"], str):
        return DeadLetter(path, "invalid_value: title and text must be strings", line, offset, raw_prefix(raw))
    title = obj["title"]
    paragraphs = unescape_lines(obj["text"].splitlines())
    if paragraphs and paragraphs[0].strip() == title:
        paragraphs = paragraphs[1:]
    doc_id = f"{source}:{obj['id']}"
    text = article_text(title, paragraphs, with_title=with_title)
    reason = "empty" if not text else None if keep_stubs else stub_reason(title, article_body(paragraphs))
    if reason:
        return Dropped(doc_id, source, "read", reason, text or title)
    metadata = {"title": title, "url": obj.get("url", ""), "revid": str(obj.get("revid", ""))}
    return Document(doc_id, text, source, metadata)


@dataclasses.dataclass
class _OpenDoc:
    doc_id: str
    url: str
    title: str
    line: int | None
    offset: int
    raw: bytearray
    lines: list[str]
    error: str = ""


def extractor_doc_records(lines: Iterable[tuple[int | None, int, bytes]], path: str, source: str, encoding: str,
                          *, with_title: bool, keep_stubs: bool = False) -> Iterator[Document | DeadLetter | Dropped]:
    """Parse WikiExtractor `<doc>` text given (line number or None, byte offset, raw line) triples."""
    current: _OpenDoc | None = None

    def close(doc: _OpenDoc) -> Document | DeadLetter | Dropped:
        if doc.error:
            return DeadLetter(path, doc.error, doc.line, doc.offset, raw_prefix(bytes(doc.raw)))
        body = unescape_lines(doc.lines)
        if body and body[0].strip() == doc.title:
            body = body[1:]
        text = article_text(doc.title, body, with_title=with_title)
        doc_id = f"{source}:{doc.doc_id}"
        reason = "empty" if not text else None if keep_stubs else stub_reason(doc.title, article_body(body))
        if reason:
            return Dropped(doc_id, source, "read", reason, text or doc.title)
        return Document(doc_id, text, source, {"title": doc.title, "url": doc.url})

    for line_no, offset, raw in lines:
        stripped = raw.rstrip(b"\r\n")
        if offset == 0 and stripped.startswith(b"\xef\xbb\xbf"):
            stripped = stripped[3:]
        where = f"line {line_no}" if line_no is not None else f"byte {offset}"
        error = f"nul_byte: {where}" if b"\x00" in stripped else ""
        try:
            text = stripped.decode(encoding)
        except UnicodeDecodeError as err:
            text, error = "", error or f"invalid_encoding: {where}: {err}"
        opening = DOC_OPEN.match(text) if text.startswith("<doc ") else None
        if current is not None and not opening and len(current.raw) < 200:
            current.raw += raw
        if opening:
            if current is not None:
                yield DeadLetter(path, "truncated_doc: <doc> without </doc>", current.line, current.offset,
                                 raw_prefix(bytes(current.raw)))
            doc_id, url, title = opening.groups()
            current = _OpenDoc(doc_id, url or "", html.unescape(title or ""), line_no, offset, bytearray(raw), [])
        elif text.strip() == DOC_CLOSE and current is not None:
            yield close(current)
            current = None
        elif current is not None:
            if error and not current.error:
                current.error = error
            current.lines.append(text)
        elif error or text.strip():
            yield DeadLetter(path, error or "outside_doc: text outside <doc>", line_no, offset, raw_prefix(stripped))
    if current is not None:
        yield DeadLetter(path, "truncated_doc: <doc> without </doc>", current.line, current.offset,
                         raw_prefix(bytes(current.raw)))
