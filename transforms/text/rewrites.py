"""Text rewrites of preparation, applied before `clean()` so its presets stay byte-identical to the reference.

Each rewrite is a pure `str -> str` function; `DocumentPreparer` applies them to every document, whatever the
source's preset, and counts the documents each one changed (`prepare:rewritten:<rule>`):

- `control_chars`: C0 controls except tab and newline, DEL and C1 removed; ANSI escape sequences
  (`ESC[31m`) removed whole, the information separators U+001C-U+001F (whitespace to Python) become spaces.
- `masks`: `OOO`, `○○`, `***` masks (`korean.MASK_RUNS`) kept, removed (a space) or replaced by one token,
  before the cleaner's repeat normalization can shorten them (`OOOO` -> `OO`).
- `placeholders`: WikiExtractor's `formula_N`/`codice_N` (a formula or code it dropped): one a bracket holds
  alone goes with its bracket (`거리(formula_1)의` -> `거리의`), as does every one of a line that holds nothing
  else (a displayed formula); the others become a token (`replace`: `[수식]`, `[코드]`: `세기가 [수식]인
  경우`) or go (`remove`, which leaves their particles as holes: `세기가 인 경우`); `drop` leaves them for the
  `placeholder` sentence rule.
- `punctuation_runs`: a run of one punctuation character longer than `max_punctuation_run` squeezed to that
  length (`했길래......................` -> `했길래...`), so the run neither dooms nor pads the sentence. Mask
  runs (`*****`, `○○○○`) are masks, never squeezed: `masks: keep` keeps them byte for byte.
"""

from __future__ import annotations

import functools
import re

from kcorpus.transforms.korean import MASK_RUNS, MASK_SYMBOLS
from kcorpus.transforms.text.passes import has_run_of_4
from kcorpus.transforms.text.removals import Removed, bracketed, cut_spans

MASK_MODES = ("keep", "remove", "replace")
PLACEHOLDER_MODES = ("replace", "remove", "drop")
# WikiExtractor's stand-ins for the <math> and <code> it drops, also glued to a number (`10m~20formula_1정도`).
PLACEHOLDER = re.compile(r"(?<![A-Za-z_])(formula|codice)_\d+(?![0-9])")
_WORD = re.compile(r"[^\W_]")
# A line that continues the sentence of a displayed formula before it: it starts with a particle or an ending
# (`를 formula_1의`, `일 때`, `와 같다`; not `이`, which also begins `이 식은`).
_CONTINUATION = re.compile(
    r"(?:을|를|가|은|는|의|에|에서|에게|와|과|로|으로|도|만|인|일|이다|이며|이고|이면|이므로|이라고|이라는|라고|라는|"
    r"이라|이지만)(?=[\s.,)]|$)"
)
_TERMINATORS = ".?!:;…"
_ENDS_IN_PLACEHOLDER = re.compile(r"(?<![A-Za-z_])(?:formula|codice)_\d+[ \t]*$")
# CSI sequences (ESC [ params final), then any other two-character escape (ESC + one character).
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]+")
_SEPARATORS = re.compile(r"[\x1c-\x1f]+")
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")


def remove_control_chars(text: str, trace: list[Removed] | None = None) -> str:
    """`text` without control characters: tab, newline and the line breaks `normalize_text` handles stay.
    Each run removed is noted in `trace` as `("control_chars", run, replacement)`."""
    if not _ANY_CONTROL.search(text):
        return text
    if trace is None:
        return _CONTROL.sub("", _SEPARATORS.sub(" ", _ANSI_ESCAPE.sub("", text)))
    text = _traced_sub(_ANSI_ESCAPE, "", text, "control_chars", trace)
    return _traced_sub(_CONTROL, "", _traced_sub(_SEPARATORS, " ", text, "control_chars", trace), "control_chars", trace)


def rewrite_masks(text: str, mode: str, token: str = "OOO", trace: list[Removed] | None = None) -> str:
    """Every mask run (`OOO`, `OO`, `○○○`, `***`) kept, made a space (`remove`) or `token` (`replace`); each
    noted in `trace` as `("masks", run, replacement)`.

    The run length never matters: `OOOO 네 글자` and `OOO 네 글자` give the same text.
    """
    if mode == "keep" or not ("O" in text or "*" in text or "○" in text or "◯" in text or "〇" in text):
        return text
    replacement = " " if mode == "remove" else token
    if trace is None:
        return MASK_RUNS.sub(replacement, text)
    return _traced_sub(MASK_RUNS, replacement, text, "masks", trace)


def squeeze_punctuation(text: str, max_run: int, trace: list[Removed] | None = None) -> str:
    """Runs of one punctuation character longer than `max_run` cut to `max_run` (0 leaves the text as is);
    mask runs stay. Each run cut is noted in `trace` as `("punctuation_runs", run, what is left of it)`."""
    # With max_run >= 3 every run it cuts holds a character four times in a row, which `has_run_of_4` finds
    # far faster than the runs themselves (a tenth of comments hold one).
    if max_run <= 0 or (max_run >= 3 and not has_run_of_4(text)):
        return text

    def squeezed(match: re.Match[str]) -> str:
        if trace is not None:
            trace.append(("punctuation_runs", match.group(), match.group(1) * max_run))
        return match.group(1) * max_run

    return _run_pattern(max_run).sub(squeezed, text)


def _traced_sub(pattern: re.Pattern[str], replacement: str, text: str, rule: str, trace: list[Removed]) -> str:
    """`pattern.sub(replacement, text)`, each match noted in `trace` as `(rule, match, replacement)`."""
    trace.extend((rule, m.group(), replacement) for m in pattern.finditer(text))
    return pattern.sub(replacement, text)


def rewrite_placeholders(
    text: str,
    mode: str,
    formula_token: str = "[수식]",
    code_token: str = "[코드]",
    trace: list[Removed] | None = None,
) -> str:
    """`text` with its `formula_N`/`codice_N` placeholders cut or replaced (module docstring), line by line; each
    noted in `trace` as `("placeholders", placeholder, what replaced it)`. `drop` leaves the text as is.

    With `replace`, a displayed formula (a line of placeholders alone) that the next line continues (`formula_302`
    ⏎ `를 formula_1의 테일러 급수라고 한다.`) is not cut: its token starts that line (`[수식]를 [수식]의 테일러 급수라고
    한다.`), and both join the line before when it ends without a terminator (`…멱급수 [수식]를 …`); a line
    that ends in a placeholder joins the line that continues it the same way (`…이라하고,formula_299` ⏎ `를 …`).
    """
    if mode == "drop" or "_" not in text or not PLACEHOLDER.search(text):
        return text
    lines = text.split("\n")
    out: list[str] = []
    joins: str | None = None  # "display" or "end": the last line of `out` and this one are one sentence
    for i, line in enumerate(lines):
        continued = _continued(lines, i, mode)
        if "_" in line:
            keep = continued and _displayed(line)  # a displayed formula the next line goes on from stays
            line = _line_placeholders(line, mode, formula_token, code_token, trace, keep=keep)
        if joins is not None:
            line = out.pop() + line
            if joins == "display" and out and out[-1] and out[-1][-1] not in _TERMINATORS:
                line = out.pop() + " " + line
        joins = ("display" if _displayed(lines[i]) else "end") if continued else None
        out.append(line)
    return "\n".join(out)


def _continued(lines: list[str], i: int, mode: str) -> bool:
    """Whether line `i` is a displayed formula, or ends in a placeholder, and the next line goes on with its
    sentence (`replace` only)."""
    line = lines[i]
    return (
        mode == "replace"
        and i + 1 < len(lines)
        and "_" in line
        and (_displayed(line) or _ENDS_IN_PLACEHOLDER.search(line) is not None)
        and _CONTINUATION.match(lines[i + 1]) is not None
    )


def _displayed(line: str) -> bool:
    """Whether a line is a displayed formula: placeholders, with no word besides them."""
    return PLACEHOLDER.search(line) is not None and not _WORD.search(PLACEHOLDER.sub("", line))


def _line_placeholders(
    line: str, mode: str, formula_token: str, code_token: str, trace: list[Removed] | None, keep: bool = False
) -> str:
    """One line's placeholders cut or replaced; with `keep`, every one replaced (a displayed formula kept)."""
    matches = list(PLACEHOLDER.finditer(line))
    if not matches:
        return line
    if keep:
        cut = [False] * len(matches)
    elif mode == "remove" or not _WORD.search(PLACEHOLDER.sub("", line)):
        cut = [True] * len(matches)
    else:
        cut = bracketed(line, [m.span() for m in matches])
    parts: list[str] = []
    cut_at: list[tuple[int, int]] = []
    position = length = 0
    for match, goes in zip(matches, cut, strict=True):
        token = "" if goes else formula_token if match.group(1) == "formula" else code_token
        if trace is not None:
            trace.append(("placeholders", match.group(), token))
        before = line[position : match.start()]
        parts += (before, match.group() if goes else token)
        length += len(before)
        if goes:
            cut_at.append((length, length + len(match.group())))
        length += len(parts[-1])
        position = match.end()
    parts.append(line[position:])
    replaced = "".join(parts)
    # A removed placeholder leaves its particle where it was (`만약 formula_1가` -> `만약 가`): gluing it to the
    # word before would make a wrong word (`만약가`); `replace` is the default for that reason.
    after = cut_spans(replaced, cut_at, glue=False) if cut_at else replaced
    return after if keep or _WORD.search(after) else ""


@functools.lru_cache(maxsize=8)
def _run_pattern(max_run: int) -> re.Pattern[str]:
    # Not the mask symbols: a run of them is a mask (`korean.MASK_RUNS`), written as the source wrote it.
    return re.compile(rf"([^\w\s{re.escape(MASK_SYMBOLS)}])\1{{{max_run},}}")
