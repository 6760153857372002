"""Reading `kcorpus build-corpus` output back as documents (pure Python, any line iterator).

`DIR/docs/*.jsonl`: one JSON object per line with `id` and `text` (sentences joined by "\n").
`DIR/text/*.txt`: one sentence per line, a blank line between documents; a document's id is
`<file name>:<line of its first sentence>`.
A line that cannot be used becomes a `DeadLetter` with its file, line number and reason; so does a line that
is not valid UTF-8 (`parse_corpus_bytes` decodes strictly: no U+FFFD is ever put into a text).
A file can be read in byte ranges of whole lines (`line_ranges`): a parser given a range's lines and the number
of its first line yields exactly the records that one pass over the file yields for those lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from kcorpus.transforms.corpus_layout import LAYOUTS
from kcorpus.transforms.record import DeadLetter, Document, raw_prefix

__all__ = ["LAYOUTS", "PARSERS", "line_ranges", "parse_corpus_bytes", "parse_docs_jsonl", "parse_text"]

STAGE = "pack"


def parse_docs_jsonl(
    path: str, lines: Iterable[str | None], first_line: int = 1
) -> Iterator[Document | DeadLetter]:
    """Documents of a `docs/*.jsonl` shard (or of its lines from number `first_line` on; a None line was
    dead-lettered already and is skipped)."""
    for number, line in enumerate(lines, start=first_line):
        if line is None or not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            yield DeadLetter(path, f"bad_json: {err.msg}", line=number, raw=raw_prefix(line), stage=STAGE)
            continue
        if not isinstance(obj, dict):
            yield DeadLetter(path, "not_an_object", line=number, raw=raw_prefix(line), stage=STAGE)
            continue
        doc_id, text = obj.get("id"), obj.get("text")
        if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or not isinstance(text, str):
            yield DeadLetter(path, "missing_id_or_text", line=number, raw=raw_prefix(line), stage=STAGE)
            continue
        yield Document(
            id=str(doc_id), text=text, source=str(obj.get("source") or ""), metadata=obj.get("metadata") or {}
        )


def parse_text(path: str, lines: Iterable[str | None], first_line: int = 1) -> Iterator[Document]:
    """Documents of a `text/*.txt` shard: blank-line separated blocks of sentence lines (from line
    `first_line` on; a range must start at a document's first line; a None line was dead-lettered already:
    it is left out of its block without ending it)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    block: list[str] = []
    first = 0
    for number, line in enumerate(lines, start=first_line):
        if line is None:
            continue
        line = line.rstrip("\r\n")
        if line.strip():
            if not block:
                first = number
            block.append(line)
        elif block:
            yield Document(id=f"{name}:{first}", text="\n".join(block), source="text")
            block = []
    if block:
        yield Document(id=f"{name}:{first}", text="\n".join(block), source="text")


PARSERS = {"docs": parse_docs_jsonl, "text": parse_text}


def parse_corpus_bytes(
    path: str, layout: str, raw_lines: Iterable[bytes], first_line: int = 1
) -> Iterator[Document | DeadLetter]:
    """The documents of a corpus file's raw lines (numbered from `first_line`); a line that is not UTF-8 is an
    `invalid_encoding` DeadLetter with its file and line number."""
    undecodable: list[DeadLetter] = []

    def decoded() -> Iterator[str | None]:
        for number, raw in enumerate(raw_lines, start=first_line):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as err:
                reason = f"invalid_encoding: {err.reason} at byte {err.start} of the line"
                undecodable.append(DeadLetter(path, reason, line=number, raw=raw_prefix(raw), stage=STAGE))
                yield None

    for record in PARSERS[layout](path, decoded(), first_line):
        yield from undecodable
        undecodable.clear()
        yield record
    yield from undecodable


# Where a range may end: after any line of a JSONL file; after a blank line (a document's end) of a text file.
_CUT_AFTER_BLANK_LINE = {"docs": False, "text": True}


def line_ranges(lines: Iterable[bytes], layout: str, range_bytes: int) -> Iterator[tuple[int, int, int]]:
    """`(start, end, first line number)` byte ranges of a file's raw lines, each at least `range_bytes` long
    (but the last), cut only where a parser may start again."""
    blank_only = _CUT_AFTER_BLANK_LINE[layout]
    start = position = 0
    first = number = 1
    for raw in lines:
        position += len(raw)
        number += 1
        if position - start >= range_bytes and (not blank_only or not raw.strip()):
            yield start, position, first
            start, first = position, number
    if position > start:
        yield start, position, first
