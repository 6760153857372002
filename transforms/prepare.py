"""Per-document preparation: NFC, per-source normalization, boilerplate, PII, sentence split, clean, filter.

`DocumentPreparer` holds the compiled pieces for one source (cleaner, splitter, patterns); build it once per
worker (`DoFn.setup`) and call `prepare(doc)` per document. It is pure: the same document gives the same
`Prepared` outcome on every machine.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kcorpus.transforms.boilerplate import BoilerplateRemover
from kcorpus.transforms.filters import FilterConfig, check_document, check_sentence
from kcorpus.transforms.pii import mask_pii
from kcorpus.transforms.record import Document

# Horizontal whitespace (NBSP, ideographic and zero-width spaces included) collapses to one space.
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_WORD = re.compile(r"[^\W_]")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The outcome of preparing one document.

    `document` is the kept document (its text: kept sentences joined by "\\n") or None; `reason` names why
    the whole document was dropped; `sentence_reasons` lists the reason of every dropped sentence;
    `rewrites` counts the boilerplate and PII rewrites (`boilerplate:<set>:<rule>`, `pii:<type>`).
    """

    document: Document | None
    reason: str | None
    sentences_in: int
    sentences_kept: int
    sentence_reasons: tuple[str, ...]
    rewrites: Mapping[str, int] = dataclasses.field(default_factory=dict)


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
        boilerplate: Sequence[str] | Callable[[Mapping[str, Any]], Sequence[str]] = (),
    ) -> None:
        """`boilerplate`: rule set names, or a function of a document's metadata that names them."""
        self.cleaner = cleaner
        self.splitter = splitter
        self.filters = filters
        self.remove_patterns = tuple(remove_patterns)
        self.boilerplate = boilerplate
        self._removers: dict[tuple[str, ...], BoilerplateRemover] = {}

    def remover(self, doc: Document) -> BoilerplateRemover:
        """The compiled boilerplate rules of one document (compiled once per set of sets)."""
        sets = tuple(self.boilerplate(doc.metadata or {}) if callable(self.boilerplate) else self.boilerplate)
        if sets not in self._removers:
            self._removers[sets] = BoilerplateRemover(sets, self.remove_patterns)
        return self._removers[sets]

    def scrub(self, doc: Document) -> tuple[str, dict[str, int], str | None]:
        """Normalized text without boilerplate and with PII handled, its rewrite counts, a drop reason."""
        removal = self.remover(doc).remove(normalize_text(doc.text))
        counts = {f"boilerplate:{key}": n for key, n in removal.counts.items()}
        if removal.lines_removed:
            counts["boilerplate:lines_removed"] = removal.lines_removed
        if removal.counts and not _WORD.search(removal.text):
            return removal.text, counts, "boilerplate"
        if self.filters.pii == "keep":
            return removal.text, counts, None
        masked = mask_pii(removal.text)
        counts.update({f"pii:{kind}": n for kind, n in masked.counts.items()})
        if masked.counts and self.filters.pii == "drop":
            return removal.text, counts, "pii"
        return masked.text, counts, None

    def units(self, text: str) -> list[str]:
        """The sentence-level units of a normalized text: split sentences, or its non-empty lines."""
        lines = [line for line in text.split("\n") if line]
        if self.splitter is None:
            return lines
        return [s for line in lines for s in self.splitter(line)]

    def prepare(self, doc: Document) -> Prepared:
        text, rewrites, reason = self.scrub(doc)
        if reason:
            return Prepared(None, reason, 0, 0, (), rewrites)
        units = self.units(text)
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
        kept_count = len(kept) if document else 0
        return Prepared(document, doc_reason, len(units), kept_count, tuple(reasons), rewrites)
