"""Removals that leave no debris: spans cut out of a text together with what they would leave behind.

`cut_spans(text, spans)` removes the spans a rule takes out of kept text (URLs, e-mail addresses, emoji,
WikiExtractor placeholders) and with them the debris they would leave:
- a bracket or quote pair left holding nothing but spaces and separators goes too, nested pairs as well
  (`경찰민원포탈(https://…)에서` -> `경찰민원포탈에서`);
- spans apart by spaces and separators only go as one (`(https://a) (https://b) 또한` -> `또한`);
- with `markers` (URLs and addresses), a list marker before a span, or a mark pointing at it, goes with it
  (`1. https://a 2. https://b 3. 기대효과` -> `3. 기대효과`, `원문보기: https://…` -> `원문보기`);
- a separator left against a bracket, a closing mark or a line end goes (`(참고, https://a)` -> `(참고)`);
- no space is left doubled, before closing punctuation, after an opening bracket or at a line end; a space
  stays where either side had one, but a particle the span was written against, or anything written against
  a bracketed aside, joins the word before it (`국민신문고 https://…에서` -> `국민신문고에서`, `진동수의 비
  (formula_1)이다` -> `진동수의 비이다`).
Line breaks are never removed. `whitelisted` and `repeats` are the cleaner's whitelist and repeat rule with
their removals traced (and the whitelist's tidied). Pure; no Beam.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS
from kcorpus.transforms.text.passes import replace_outside

# Bracket and quote pairs a cut may empty (a straight quote closes itself).
PAIRS = {
    "(": ")", "[": "]", "{": "}", "<": ">", "（": "）", "［": "］", "｛": "｝", "「": "」", "『": "』", "《": "》",
    "〈": "〉", "【": "】", "〔": "〕", "“": "”", "‘": "’", '"': '"', "'": "'",
}  # fmt: skip
_OPENERS = frozenset("([{（［｛「『《〈【〔“‘")
# Marks no space goes before.
_CLOSERS = frozenset(".,!?;:)]}）］｝」』》〉】〕”’…")
_SPACES = " \t"
# What may stand between two spans that go as one, or between a span and the bracket it empties.
_SEPARATORS = ",;/|·、，；"
_SKIP = frozenset(_SPACES + _SEPARATORS)
# A case or adverbial particle standing as a word of its own once the span it was written against is gone.
_PARTICLE = re.compile(
    r"(?:이|가|을|를|은|는|의|에|에서|에게|께|로|으로|와|과|도|만|까지|부터|처럼|보다|이나|나|에는|에서는|으로는|"
    r"로는|에도|로서|으로서|로써|으로써|이라는|라는|이라고|라고)(?=[\s.,!?;:)\]}”’」』》〉]|$)"
)
# Punctuation a URL match took from the sentence around it: a trailing period or comma, an unbalanced `)`.
_URL_TAIL = ".,;:!?"
# Modern Hangul: syllables and the modern compatibility jamo (ㅋㅋ), not the archaic `ㆍ` petitions use as a dot.
HANGUL = re.compile(f"[{HANGUL_SYLLABLE_CLASS}{COMPATIBILITY_JAMO_CLASS}]")
# What stands for the span alone and goes with it: a list marker before it (`1. https://a 2. https://b`), or
# a mark pointing at it (`원문보기: https://…`, `예시링크-> https://…`).
_MARKER = re.compile(r"(?:(?<!\S)(?:\d{1,2}[.)]|[-*•▶►☞※①-⑳])|(?<!\d)(?::|->|=>|→|☞|▶|►))[ \t]*$")


def url_span(match: re.Match[str]) -> tuple[int, int]:
    """The span of a URL match without the punctuation it took from its sentence: a trailing `.,;:!?` and a
    closing `)` it has no `(` for (`국민신문고(https://www.epeople.go.kr)를`: the `)` is the sentence's)."""
    start, end = match.span()
    text = match.string
    opened, closed = match.group().count("("), match.group().count(")")
    while end > start and (text[end - 1] in _URL_TAIL or (text[end - 1] == ")" and closed > opened)):
        closed -= text[end - 1] == ")"
        end -= 1
    return start, end


def cut_spans(text: str, spans: Iterable[tuple[int, int]], *, glue: bool = True, markers: bool = False) -> str:
    """`text` without `spans` (start, end) and the debris they would leave (see the module docstring); without
    `glue`, a particle a span was written against stays where it was (a removed placeholder); with `markers`,
    a list marker or pointer before a span goes with it (URLs and addresses: what they stood for is gone)."""
    groups = _settle(text, sorted(spans), markers)
    if not groups:
        return text
    parts = [text[: groups[0][0]]]
    for i, (start, end) in enumerate(groups):
        following = text[end : groups[i + 1][0]] if i + 1 < len(groups) else text[end:]
        aside = PAIRS.get(text[start]) == text[end - 1] and end - start > 1
        parts[-1], following = _join(parts[-1], following, start_of_text=i == 0, aside=aside, glue=glue)
        parts.append(following)
    return "".join(parts)


def holds_hangul(text: str) -> bool:
    """Whether `text` holds a modern Hangul letter (a syllable or a compatibility jamo but the archaic ones)."""
    return HANGUL.search(text) is not None


def bracketed(text: str, spans: Sequence[tuple[int, int]]) -> list[bool]:
    """Per span (sorted): whether a round, square or curly bracket holds it with nothing else but other spans,
    spaces and separators (`거리(formula_1)의`, `(formula_1, formula_2)`; not `(formula_6는 광속)`)."""
    held = [
        (start, end)
        for start, end in _merge(text, [(s, e) for s, e in spans if e > s])
        if _widen(text, start, end, markers=False, pairs="([{（［｛") != (start, end)
    ]
    out, group = [], 0
    for start, end in spans:  # both sorted: one walk
        while group < len(held) and held[group][1] < end:
            group += 1
        out.append(group < len(held) and held[group][0] <= start)
    return out


def _settle(text: str, spans: Sequence[tuple[int, int]], markers: bool) -> list[tuple[int, int]]:
    """The spans merged where only spaces and separators part them, widened over the pairs they empty (and,
    with `markers`, the markers before them), until nothing changes: one walk, each group merged with the one before it as long as
    it widens (a stack), so that nested pairs of lists cost no pass each."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if end <= start:
            continue
        while True:
            if out and (start <= out[-1][1] or _SKIP.issuperset(text[out[-1][1] : start])):
                start, end = out[-1][0], max(end, out[-1][1])
                out.pop()
                continue
            widened = _widen(text, start, end, markers)
            if widened == (start, end):
                break
            start, end = widened
        out.append((start, end))
    return out


def _merge(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and (start <= out[-1][1] or _SKIP.issuperset(text[out[-1][1] : start])):
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _widen(text: str, start: int, end: int, markers: bool, pairs: str = "") -> tuple[int, int]:
    """`(start, end)` widened over every bracket or quote pair that holds nothing else (spaces and separators
    aside) and, with `markers`, over a list marker or pointer before it."""
    while True:
        left, right = start, end
        while left > 0 and text[left - 1] in _SKIP:
            left -= 1
        while right < len(text) and text[right] in _SKIP:
            right += 1
        opener = text[left - 1] if left > 0 else ""
        if right < len(text) and PAIRS.get(opener) == text[right] and (not pairs or opener in pairs):
            start, end = left - 1, right + 1
            continue
        marker = _MARKER.search(text, max(0, start - 8), start) if markers else None
        if marker is None:
            return start, end
        start = marker.start()


def _join(left: str, right: str, *, start_of_text: bool, aside: bool, glue: bool) -> tuple[str, str]:
    """The text before and after a cut (`aside`: a bracket pair with what it held), tidied where they meet."""
    kept_left = left.rstrip(_SPACES)
    kept_right = right.lstrip(_SPACES)
    # A space where either side had one, but not before what was written against a bracketed aside (`비
    # (formula_1)이다` -> `비이다`), nor (with `glue`) before a particle the span was written against, when a
    # word comes before it.
    spaced = len(kept_right) < len(right) or (
        len(kept_left) < len(left)
        and not aside
        and not (glue and kept_left[-1:].isalnum() and _PARTICLE.match(kept_right))
    )
    line_start = (start_of_text and not kept_left) or kept_left.endswith("\n")
    line_end = not kept_right or kept_right.startswith("\n")
    if line_end or kept_right[0] in _CLOSERS:
        kept_left = kept_left.rstrip(_SPACES + _SEPARATORS)
    if line_start or (kept_left and kept_left[-1] in _OPENERS):
        kept_right = kept_right.lstrip(_SPACES + _SEPARATORS)
    if (
        line_start
        or line_end
        or not kept_left
        or kept_left[-1] in _OPENERS
        or (kept_right and kept_right[0] in _CLOSERS)
    ):
        return kept_left, kept_right
    return kept_left + (" " if spaced else ""), kept_right


# (rule, the text a rule took out, what it put in its place) of one removal, for the counts of a build.
Removed = tuple[str, str, str]


@dataclasses.dataclass(frozen=True)
class RemovalRule:
    """One removal of a cleaner: `pattern`'s matches (each contains `needle`) made `replacement`, or, with a
    `span` function (a match -> the span to remove), cut out with their debris (`cut_spans`, with `markers`)."""

    name: str
    pattern: re.Pattern[str]
    replacement: str = ""
    needle: str = ""
    span: Callable[[re.Match[str]], tuple[int, int]] | None = None
    markers: bool = False

    def apply(self, text: str, trace: list[Removed] | None = None) -> str:
        """`text` with the rule applied; every match noted in `trace` (when given) as `(name, match, "")`."""
        if self.span is None:
            if trace is not None:
                trace.extend((self.name, m.group(), self.replacement) for m in self.pattern.finditer(text))
            return self.pattern.sub(self.replacement, text)
        spans = [self.span(m) for m in self.pattern.finditer(text)]
        if trace is not None:
            trace.extend((self.name, text[start:end], "") for start, end in spans)
        return cut_spans(text, spans, markers=self.markers) if spans else text


def match_span(match: re.Match[str]) -> tuple[int, int]:
    """A match's own span (a `RemovalRule.span` that cuts the match as it is)."""
    return match.span()


def whitelisted(
    text: str, whitelist: bytes, outside: re.Pattern[str], tidy: bool, trace: list[Removed] | None
) -> str:
    """`replace_outside(text, whitelist)`, the runs it made a space noted in `trace` (but whitespace); with
    `tidy`, a run a bracket holds alone goes with its bracket instead (`공약(公約)으로` -> `공약으로`)."""
    after = replace_outside(text, whitelist)
    if after == text:
        return text
    matches = list(outside.finditer(text))
    words = [m for m in matches if not m.group().isspace()]
    if trace is not None:
        trace.extend(("whitelist", m.group(), " ") for m in words)
    if not tidy or not words:
        return after
    # A run a bracket holds alone goes with the bracket, one against a bracket leaves no space inside it
    # (`수도(首都 서울)` -> `수도(서울)`); the others become a space, as the whitelist makes them.
    held = {m.start() for m, alone in zip(words, bracketed(text, [m.span() for m in words])) if alone}
    held.update(m.start() for m in words if _against_bracket(text, *m.span()))
    parts: list[str] = []
    cut_at: list[tuple[int, int]] = []
    position = length = 0
    for match in matches:
        kept = text[position : match.start()]
        piece = match.group() if match.start() in held else " "
        if match.start() in held:
            cut_at.append((length + len(kept), length + len(kept) + len(piece)))
        parts += (kept, piece)
        length += len(kept) + len(piece)
        position = match.end()
    parts.append(text[position:])
    return cut_spans("".join(parts), cut_at)


def _against_bracket(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` stands right inside an opening or before a closing bracket."""
    return (start > 0 and text[start - 1] in "([{") or (end < len(text) and text[end] in ")]}")


def repeats(
    run: re.Pattern[str], replace_run: Callable[[re.Match[str]], str], text: str, trace: list[Removed] | None
) -> str:
    """The repeat rule over `text`; each run it shortened noted in `trace` as `("repeats", run, shortened)`."""
    if trace is None:
        return run.sub(replace_run, text)

    def replace(match: re.Match[str]) -> str:
        shortened = replace_run(match)
        if len(shortened) < len(match.group()):
            trace.append(("repeats", match.group(), shortened))
        return shortened

    return run.sub(replace, text)
