"""Per-document preparation: NFC, rewrites, boilerplate, PII, sentence split, clean, filter.

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

from kcorpus.transforms.record import Document, new_document
from kcorpus.transforms.rules.boilerplate import BoilerplateRemover
from kcorpus.transforms.rules.filters import FilterConfig, check_document, check_sentence
from kcorpus.transforms.rules.pii import mask_pii, may_hold_pii
from kcorpus.transforms.rules.repetition import title_repeat_reason
from kcorpus.transforms.rules.script import script_reason
from kcorpus.transforms.text.passes import collapse_hspace, collapse_spaces
from kcorpus.transforms.text.removals import Removed
from kcorpus.transforms.text.rewrites import (
    remove_control_chars,
    rewrite_masks,
    rewrite_placeholders,
    squeeze_punctuation,
)
from kcorpus.transforms.text.split.segments import cut_long, glued_units, join_continuations, join_short

# (rule, text before, text after) of one rewrite, for the examples of the run.
Rewrite = tuple[str, str, str]
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")
# Every character `_LINE_BREAKS` can start with: a class scans 4x faster than the alternation.
_ANY_LINE_BREAK = re.compile(r"[\r\u2028\u2029\x0b\x0c\x85]")
_WORD = re.compile(r"[^\W_]")


def named_by_script(reason: str, text: str) -> str:
    """A dropped sentence's reason: `script:<name>` when its letters are mostly another script, whatever cleaning
    left of it; a `placeholder` sentence (a Wikipedia formula hole) keeps its reason, unread."""
    return reason if reason == "placeholder" else script_reason(text) or reason


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The outcome of preparing one document.

    `document` is the kept document (its text: kept sentences joined by "\\n") or None; `reason` names why
    the whole document was dropped; `sentence_reasons` lists the reason of every dropped sentence and
    `dropped_sentences` the sentences themselves (as the filters saw them: cleaned, and in a split source
    with their short neighbours joined; an `empty` one as it was before cleaning emptied it); `rewrites`
    counts the rewrites by counter name (`prepare:rewritten:<rule>` once per changed document for control
    characters, masks, placeholders and punctuation runs; `boilerplate:<set>:<rule>`, `pii:<type>`); `examples`
    holds `(rule, before, after)` for every text a rule changed (the build samples them into `examples/`);
    `removed` holds `(stage:rule, what it took out, what it put in its place)` for every span a rewrite,
    boilerplate rule or the cleaner took out of or replaced in the text (`prepare:placeholders`,
    `boilerplate:petitions:admin_notice`, `clean:url`, `clean:emoji`, ...), but those of a sentence that
    cleaning emptied (that sentence is `empty`).
    """

    document: Document | None
    reason: str | None
    sentences_in: int
    sentences_kept: int
    sentence_reasons: tuple[str, ...]
    rewrites: Mapping[str, int] = dataclasses.field(default_factory=dict)
    dropped_sentences: tuple[str, ...] = ()
    examples: tuple[Rewrite, ...] = ()
    removed: tuple[Removed, ...] = ()


def new_prepared(
    document: Document | None,
    reason: str | None,
    sentences_in: int,
    sentences_kept: int,
    sentence_reasons: tuple[str, ...],
    rewrites: Mapping[str, int],
    dropped_sentences: tuple[str, ...],
    examples: tuple[Rewrite, ...],
    removed: tuple[Removed, ...] = (),
) -> Prepared:
    """`Prepared(...)` (every field given, in order) without the frozen dataclass's `__init__`, which
    costs as much as the filters of a short comment."""
    prepared = object.__new__(Prepared)
    fields = prepared.__dict__
    fields["document"], fields["reason"] = document, reason
    fields["sentences_in"], fields["sentences_kept"] = sentences_in, sentences_kept
    fields["sentence_reasons"], fields["rewrites"] = sentence_reasons, rewrites
    fields["dropped_sentences"], fields["examples"] = dropped_sentences, examples
    fields["removed"] = removed
    return prepared


def rewritten(rule: str, before: str, after: str, examples: list[Rewrite] | None) -> str:
    """`after`, noting `(rule, before, after)` in `examples` when the rule changed the text.

    The one hook for a rewrite rule to show its work: `text = rewritten("my_rule", text, my_rule(text),
    examples)`; the build samples 10 per rule into `examples/` and the run report.
    """
    if examples is not None and after != before:
        examples.append((rule, before, after))
    return after


def normalize_text(text: str, remove: Sequence[re.Pattern[str]] = ()) -> str:
    """NFC, one kind of line break, the source's residue patterns removed, horizontal spaces collapsed."""
    text = unify_line_breaks(unicodedata.normalize("NFC", text))
    for pattern in remove:
        text = pattern.sub(" ", text)
    return collapse_spaces(text)


def unify_line_breaks(text: str) -> str:
    """`\\r\\n`, `\\r` and the other line breaks of `str.splitlines` (but `\\x1c`-`\\x1e`) made `\\n`."""
    return _LINE_BREAKS.sub("\n", text) if _ANY_LINE_BREAK.search(text) else text


def identity(text: str) -> str:
    return text


def rewrite_text(
    text: str, filters: FilterConfig, examples: list[Rewrite] | None = None, trace: list[Removed] | None = None
) -> tuple[str, tuple[str, ...]]:
    """The preparation rewrites of `transforms/text/rewrites.py`, in order, on a normalized text; returns the
    text and the names of the rules that changed it; every span they took out or replaced is noted in `trace`
    (`(rule, span, replacement)`)."""
    applied: list[str] = []
    after = remove_control_chars(text, trace)
    if after != text:
        text = _applied("control_chars", text, after, applied, examples)
    after = rewrite_masks(text, filters.masks, filters.mask_token, trace)
    if after != text:
        text = _applied("masks", text, after, applied, examples)
    if "_" in text:  # every placeholder holds one; most texts hold none
        after = rewrite_placeholders(text, filters.placeholders, filters.formula_token, filters.code_token, trace)
        if after != text:
            text = _applied("placeholders", text, after, applied, examples)
    after = squeeze_punctuation(text, filters.max_punctuation_run, trace)
    if after != text:
        text = _applied("punctuation_runs", text, after, applied, examples)
    return text, tuple(applied)


def _applied(rule: str, before: str, after: str, applied: list[str], examples: list[Rewrite] | None) -> str:
    """`after`, with `rule` noted in `applied` and its example (a rule that changed nothing notes neither)."""
    applied.append(rule)
    return rewritten(rule, before, after, examples)


class DocumentPreparer:
    """Normalize, rewrite, split, clean and filter the documents of one source."""

    def __init__(
        self,
        *,
        cleaner: Callable[[str], str],
        splitter: Callable[[str], list[str]] | None,
        filters: FilterConfig,
        remove_patterns: Sequence[str] = (),
        boilerplate: Sequence[str] | Callable[[Mapping[str, Any]], Sequence[str]] = (),
        title_line: bool = False,
    ) -> None:
        """`boilerplate`: rule set names, or a function of a document's metadata that names them;
        `title_line`: the first line of a document is its title (`title_repeat` applies)."""
        self.cleaner = cleaner
        self.title_line = title_line
        self.splitter = splitter
        self.filters = filters
        self.remove_patterns = tuple(remove_patterns)
        self.boilerplate = boilerplate
        # In a split source the floor and ceiling shape lines (`split/segments.py`) and the floor is the document's.
        self._line_filters = dataclasses.replace(filters, min_chars=0, max_chars=0)
        # A cleaner whose output has single inner spaces only needs no collapse and no strip after it.
        self._tidy = getattr(cleaner, "single_spaced", False)
        self._removers: dict[tuple[str, ...], BoilerplateRemover] = {}

    def remover(self, doc: Document) -> BoilerplateRemover:
        """The compiled boilerplate rules of one document (compiled once per set of sets)."""
        sets = tuple(self.boilerplate(doc.metadata or {}) if callable(self.boilerplate) else self.boilerplate)
        if sets not in self._removers:
            self._removers[sets] = BoilerplateRemover(sets, self.remove_patterns)
        return self._removers[sets]

    def scrub(
        self, doc: Document, examples: list[Rewrite] | None = None, removed: list[Removed] | None = None
    ) -> tuple[str, dict[str, int], str | None]:
        """Normalized, rewritten text without boilerplate and with PII handled, its rewrite counts, a drop
        reason; the spans the rewrites and boilerplate rules took out are added to `removed`."""
        # Rewrites see one kind of line break and run before the space collapse, which tidies what they leave.
        text = unify_line_breaks(unicodedata.normalize("NFC", doc.text))
        mark = len(removed) if removed is not None else 0
        text, applied = rewrite_text(text, self.filters, examples, removed)
        if applied and removed is not None and len(removed) > mark:  # the rewrites' spans, named by stage
            removed[mark:] = [(f"prepare:{rule}", before, after) for rule, before, after in removed[mark:]]
        counts = {f"prepare:rewritten:{rule}": 1 for rule in applied} if applied else {}
        # Only a rewrite can undo NFC (a control character removed between a letter and its combining mark).
        normalized = normalize_text(text) if applied else collapse_spaces(text)
        text = normalized
        remover = self.remover(doc)
        if remover:  # a source without rules (NSMC) builds no `Removal`
            removal = remover.remove(normalized)
            text = removal.text
            if removal.counts:
                rewritten("boilerplate", normalized, text, examples)
                counts.update({f"boilerplate:{key}": n for key, n in removal.counts.items()})
                if removed is not None:
                    removed.extend((f"boilerplate:{key}", before, after) for key, before, after in removal.removed)
                if removal.lines_removed:
                    counts["boilerplate:lines_removed"] = removal.lines_removed
                if not _WORD.search(text):
                    return text, counts, "boilerplate"
        if self.filters.pii == "keep" or not may_hold_pii(text):
            return text, counts, None
        masked = mask_pii(text)
        if not masked.counts:
            return text, counts, None
        counts.update({f"pii:{kind}": n for kind, n in masked.counts.items()})
        if self.filters.pii == "drop":
            return text, counts, "pii"
        return rewritten("pii", text, masked.text, examples), counts, None

    def units(self, text: str) -> list[str]:
        """The sentence-level units of a normalized text: split sentences, or its non-empty lines."""
        return [unit for paragraph in self.paragraph_units(text) for unit in paragraph]

    def paragraph_units(self, text: str) -> list[list[str]]:
        """The units of each non-empty line (paragraph) of a normalized text."""
        if self.splitter is None and "\n" not in text:  # one comment, one line: the common case
            return [[text]] if text else []
        lines = [line for line in text.split("\n") if line]
        if self.splitter is None:
            return [[line] for line in lines]
        # No unit starts with a particle or ending that continues the one before, whichever backend split it.
        return [join_continuations(self.splitter(line), line) for line in lines]

    def prepare(self, doc: Document) -> Prepared:
        examples: list[Rewrite] = []
        removed: list[Removed] = []
        text, rewrites, reason = self.scrub(doc, examples, removed)
        if reason:
            return Prepared(None, reason, 0, 0, (), rewrites)
        cleaner, filters = self.cleaner, self.filters
        # A cleaner whose output has single inner spaces only needs no collapse and no strip after it.
        tidy = getattr(cleaner, "single_spaced", False)
        kept: list[str] = []
        paragraphs: list[str] = []
        reasons: list[str] = []
        dropped: list[str] = []
        units_in = 0
        title_lines = 0  # the kept lines of a title (`title_line`): no sentence for `min_sentences`
        split_lines = [line for line in text.split("\n") if line] if self.splitter is not None else None
        for index, units in enumerate(self.paragraph_units(text)):
            units_in += len(units)
            if split_lines is not None:
                kept_here = self._paragraph_lines(split_lines[index], units, examples, reasons, dropped, removed)
                if index == 0 and self.title_line:
                    title_lines = len(kept_here)
                if kept_here:
                    kept.extend(kept_here)
                    paragraphs.append("\n".join(kept_here) if len(kept_here) > 1 else kept_here[0])
                continue
            kept_here = []
            for unit in units:
                sentence = cleaner(unit) if tidy else collapse_hspace(cleaner(unit)).strip()
                if sentence != unit:  # `rewritten("clean", ...)`, inlined: it runs once per sentence
                    examples.append(("clean", unit, sentence))
                    if sentence:
                        self._note_cleaned(unit, removed)
                reason = check_sentence(sentence, filters)
                if reason is None:
                    kept_here.append(sentence)
                else:  # a text mostly in another script is named by it, whatever cleaning left of it
                    reasons.append(named_by_script(reason, unit))
                    dropped.append(unit if reason == "empty" else sentence)  # what cleaning emptied
            if kept_here:
                kept.extend(kept_here)
                paragraphs.append("\n".join(kept_here) if len(kept_here) > 1 else kept_here[0])
        doc_reason = (
            self._floor_reason(kept, title_lines)
            or (self.title_line and title_repeat_reason(paragraphs))
            or check_document(kept, reasons, filters, paragraphs)
        )
        # Not dataclasses.replace: it costs as much as the filters of a short comment.
        document = None if doc_reason else new_document(doc.id, "\n".join(kept), doc.source, doc.metadata)
        return new_prepared(
            document,
            doc_reason,
            units_in,
            len(kept) if document else 0,
            tuple(reasons),
            rewrites,
            tuple(dropped),
            tuple(examples),
            tuple(removed),
        )

    def _note_cleaned(self, unit: str, removed: list[Removed]) -> None:
        """What the cleaner took out of `unit` (a second, traced pass, only over the units it changed)."""
        traced = getattr(self.cleaner, "traced", None)
        if traced is not None:
            removed.extend((f"clean:{rule}", before, after) for rule, before, after in traced(unit)[1])

    def _floor_reason(self, lines: list[str], title_lines: int = 0) -> str | None:
        """In a split source, the floor is the document's: it needs a line of `min_chars` (else `too_short`),
        and only such lines count towards `min_sentences` (a heading line is no sentence); the first
        `title_lines` lines are the title, which never counts, whatever its length (`이 세상 살아가다 보면` over
        one sentence is a stub like `깊은밤을 날아서` over one)."""
        if self.splitter is None or not lines:
            return None
        min_chars, needed = self.filters.min_chars, max(self.filters.min_sentences, 1)
        full = 0
        for line in lines[title_lines:]:
            if len(line) >= min_chars:
                full += 1
                if full == needed:
                    return None
        if not full and any(len(line) >= min_chars for line in lines[:title_lines]):
            return "too_few_sentences"  # a full title over too little: what it was before titles stopped counting
        return "too_few_sentences" if full else "too_short"

    def _paragraph_lines(
        self,
        paragraph: str,
        units: list[str],
        examples: list[Rewrite],
        reasons: list[str],
        dropped: list[str],
        removed: list[Removed],
    ) -> list[str]:
        """The kept lines of one split `paragraph`: its sentences cleaned, over-long ones cut, short ones
        joined to a neighbour (`split/segments.py`; with no space where `paragraph` had none between them), then
        the sentence rules but the floor and ceiling; what a rule drops is noted in `reasons` and `dropped`."""
        cleaner, tidy = self.cleaner, self._tidy
        min_chars, max_chars = self.filters.min_chars, self.filters.max_chars
        sentences: list[str] = []
        origins: list[int] = []  # per sentence: the index of its unit when it is the unit's first piece, else -1
        short = False
        for index, unit in enumerate(units):
            sentence = cleaner(unit) if tidy else collapse_hspace(cleaner(unit)).strip()
            if sentence != unit:
                examples.append(("clean", unit, sentence))
                if sentence:
                    self._note_cleaned(unit, removed)
            n = len(sentence)
            if not n:  # a text mostly in another script is named by it, whatever cleaning left of it
                reasons.append(named_by_script("empty", unit))
                dropped.append(unit)  # what cleaning emptied
            elif max_chars and n > max_chars:
                for piece_index, piece in enumerate(cut_long(sentence, max_chars, min_chars)):
                    if len(piece) > max_chars:  # no space to cut at
                        reasons.append("too_long")
                        dropped.append(piece)
                    else:
                        sentences.append(piece)
                        origins.append(-1 if piece_index else index)
                        short = short or len(piece) < min_chars
            else:
                sentences.append(sentence)
                origins.append(index)
                if n < min_chars:
                    short = True
        if short:  # where the paragraph had no space between two sentences, joining them adds none
            unit_glued = glued_units(paragraph, units)
            glued = [i > 0 and origin >= 0 and unit_glued[origin] for i, origin in enumerate(origins)]
            lines = join_short(sentences, min_chars, glued)
        else:
            lines = sentences
        failed = None
        for i, line in enumerate(lines):
            reason = check_sentence(line, self._line_filters)
            if reason is not None:
                reasons.append(named_by_script(reason, line))
                dropped.append(line)
                failed = [*(failed or ()), i]
        return lines if failed is None else [line for i, line in enumerate(lines) if i not in failed]
