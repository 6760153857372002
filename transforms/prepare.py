"""Per-document preparation: NFC, per-source normalization, sentence split, clean, filter.

`DocumentPreparer` holds the compiled pieces for one source (cleaner, splitter, patterns); build it once per
worker (`DoFn.setup`) and call `prepare(doc)` per document. It is pure: the same document gives the same
`Prepared` outcome on every machine.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Sequence

from kcorpus.transforms.filters import FilterConfig, check_document, check_sentence
from kcorpus.transforms.record import Document

# Horizontal whitespace (NBSP, ideographic and zero-width spaces included) collapses to one space.
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The outcome of preparing one document.

    `document` is the kept document (its text: kept sentences joined by "\\n") or None; `reason` names why
    the whole document was dropped; `sentence_reasons` lists the reason of every dropped sentence.
    """

    document: Document | None
    reason: str | None
    sentences_in: int
    sentences_kept: int
    sentence_reasons: tuple[str, ...]


def normalize_text(text: str, remove: Sequence[re.Pattern[str]] = ()) -> str:
    """NFC, one kind of line break, the source's residue patterns removed, horizontal spaces collapsed."""
    text = _LINE_BREAKS.sub("\n", unicodedata.normalize("NFC", text))
    for pattern in remove:
        text = pattern.sub(" ", text)
    return "\n".join(_HSPACE.sub(" ", line).strip() for line in text.split("\n"))


def identity(text: str) -> str:
    return text


class DocumentPreparer:
    """Normalize, split, clean and filter the documents of one source."""

    def __init__(
        self,
        *,
        cleaner: Callable[[str], str],
        splitter: Callable[[str], list[str]] | None,
        filters: FilterConfig,
        remove_patterns: Sequence[str] = (),
    ) -> None:
        self.cleaner = cleaner
        self.splitter = splitter
        self.filters = filters
        self.remove = tuple(re.compile(p) for p in remove_patterns)

    def units(self, text: str) -> list[str]:
        """The sentence-level units of a normalized text: split sentences, or its non-empty lines."""
        lines = [line for line in text.split("\n") if line]
        if self.splitter is None:
            return lines
        return [s for line in lines for s in self.splitter(line)]

    def prepare(self, doc: Document) -> Prepared:
        units = self.units(normalize_text(doc.text, self.remove))
        kept: list[str] = []
        reasons: list[str] = []
        for unit in units:
            sentence = _HSPACE.sub(" ", self.cleaner(unit)).strip()
            reason = check_sentence(sentence, self.filters)
            if reason is None:
                kept.append(sentence)
            else:
                reasons.append(reason)
        doc_reason = check_document(kept, reasons, self.filters)
        document = None if doc_reason else dataclasses.replace(doc, text="\n".join(kept))
        return Prepared(document, doc_reason, len(units), len(kept) if document else 0, tuple(reasons))
