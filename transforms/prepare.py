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

# (rule, text before, text after) of one rewrite, for the examples of the run.
Rewrite = tuple[str, str, str]
# Horizontal whitespace (NBSP, ideographic and zero-width spaces included) collapses to one space.
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The outcome of preparing one document.

    `document` is the kept document (its text: kept sentences joined by "\\n") or None; `reason` names why
    the whole document was dropped; `sentence_reasons` lists the reason of every dropped sentence and
    `dropped_sentences` the sentences themselves; `rewrites` holds `(rule, before, after)` for every text a
    rule changed (the build samples them into `examples/`).
    """

    document: Document | None
    reason: str | None
    sentences_in: int
    sentences_kept: int
    sentence_reasons: tuple[str, ...]
    dropped_sentences: tuple[str, ...] = ()
    rewrites: tuple[Rewrite, ...] = ()


def rewritten(rule: str, before: str, after: str, rewrites: list[Rewrite]) -> str:
    """`after`, noting `(rule, before, after)` in `rewrites` when the rule changed the text.

    The one hook for a rewrite rule to show its work: `text = rewritten("pii", text, mask_pii(text), rewrites)`.
    """
    if after != before:
        rewrites.append((rule, before, after))
    return after


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
        rewrites: list[Rewrite] = []
        text = normalize_text(doc.text, self.remove)
        if self.remove:
            self._note_removed(normalize_text(doc.text), text, rewrites)
        units = self.units(text)
        kept: list[str] = []
        reasons: list[str] = []
        dropped: list[str] = []
        for unit in units:
            sentence = rewritten("clean", unit, _HSPACE.sub(" ", self.cleaner(unit)).strip(), rewrites)
            reason = check_sentence(sentence, self.filters)
            if reason is None:
                kept.append(sentence)
            else:
                reasons.append(reason)
                dropped.append(sentence)
        doc_reason = check_document(kept, reasons, self.filters)
        document = None if doc_reason else dataclasses.replace(doc, text="\n".join(kept))
        return Prepared(
            document, doc_reason, len(units), len(kept) if document else 0, tuple(reasons), tuple(dropped),
            tuple(rewrites),
        )  # fmt: skip

    @staticmethod
    def _note_removed(plain: str, removed: str, rewrites: list[Rewrite]) -> None:
        """The lines that `remove_patterns` changed (when the patterns left the line breaks alone)."""
        before, after = plain.split("\n"), removed.split("\n")
        if len(before) == len(after):
            for line_before, line_after in zip(before, after, strict=True):
                rewritten("remove_patterns", line_before, line_after, rewrites)
