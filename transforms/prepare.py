"""Per-document preparation: NFC, per-source normalization and rewrites, sentence split, clean, filter.

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
from kcorpus.transforms.rewrites import remove_control_chars, rewrite_masks, squeeze_punctuation

# Horizontal whitespace (NBSP, ideographic and zero-width spaces included) collapses to one space.
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The outcome of preparing one document.

    `document` is the kept document (its text: kept sentences joined by "\\n") or None; `reason` names why
    the whole document was dropped; `sentence_reasons` lists the reason of every dropped sentence;
    `rewrites` names the rewrite rules that changed the document's text (`control_chars`, `masks`,
    `punctuation_runs`), each counted once per document.
    """

    document: Document | None
    reason: str | None
    sentences_in: int
    sentences_kept: int
    sentence_reasons: tuple[str, ...]
    rewrites: tuple[str, ...] = ()


def normalize_text(text: str, remove: Sequence[re.Pattern[str]] = ()) -> str:
    """NFC, one kind of line break, the source's residue patterns removed, horizontal spaces collapsed."""
    text = _LINE_BREAKS.sub("\n", unicodedata.normalize("NFC", text))
    for pattern in remove:
        text = pattern.sub(" ", text)
    return "\n".join(_HSPACE.sub(" ", line).strip() for line in text.split("\n"))


def identity(text: str) -> str:
    return text


def rewrite_text(text: str, filters: FilterConfig) -> tuple[str, tuple[str, ...]]:
    """The preparation rewrites of `transforms/rewrites.py`, in order, on a normalized text; returns the
    text and the names of the rules that changed it."""
    applied = []
    rewritten = remove_control_chars(text)
    if rewritten != text:
        applied.append("control_chars")
    text = rewrite_masks(rewritten, filters.masks, filters.mask_token)
    if text != rewritten:
        applied.append("masks")
    rewritten = squeeze_punctuation(text, filters.max_punctuation_run)
    if rewritten != text:
        applied.append("punctuation_runs")
    return rewritten, tuple(applied)


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
        return [unit for paragraph in self.paragraph_units(text) for unit in paragraph]

    def paragraph_units(self, text: str) -> list[list[str]]:
        """The units of each non-empty line (paragraph) of a normalized text."""
        lines = [line for line in text.split("\n") if line]
        if self.splitter is None:
            return [[line] for line in lines]
        return [self.splitter(line) for line in lines]

    def prepare(self, doc: Document) -> Prepared:
        # Rewrites see one kind of line break and run before the space collapse, which tidies what they leave.
        text = _LINE_BREAKS.sub("\n", unicodedata.normalize("NFC", doc.text))
        text, rewrites = rewrite_text(text, self.filters)
        text = normalize_text(text, self.remove)
        kept: list[str] = []
        paragraphs: list[str] = []
        reasons: list[str] = []
        units_in = 0
        for units in self.paragraph_units(text):
            units_in += len(units)
            kept_here = []
            for unit in units:
                sentence = _HSPACE.sub(" ", self.cleaner(unit)).strip()
                reason = check_sentence(sentence, self.filters)
                if reason is None:
                    kept_here.append(sentence)
                else:
                    reasons.append(reason)
            if kept_here:
                kept.extend(kept_here)
                paragraphs.append("\n".join(kept_here))
        doc_reason = check_document(kept, reasons, self.filters, paragraphs)
        document = None if doc_reason else dataclasses.replace(doc, text="\n".join(kept))
        return Prepared(
            document, doc_reason, units_in, len(kept) if document else 0, tuple(reasons), rewrites
        )
