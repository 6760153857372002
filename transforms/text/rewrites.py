"""Text rewrites of preparation, applied before `clean()` so its presets stay byte-identical to the reference.

Each rewrite is a pure `str -> str` function; `DocumentPreparer` applies them to every document, whatever the
source's preset, and counts the documents each one changed (`prepare:rewritten:<rule>`):

- `control_chars`: C0 controls except tab and newline, DEL and C1 removed; ANSI escape sequences
  (`ESC[31m`) removed whole, the information separators U+001C-U+001F (whitespace to Python) become spaces.
- `masks`: `OOO`, `○○`, `***` masks (`korean.MASK_RUNS`) kept, removed (a space) or replaced by one token,
  before the cleaner's repeat normalization can shorten them (`OOOO` -> `OO`).
- `punctuation_runs`: a run of one punctuation character longer than `max_punctuation_run` squeezed to that
  length (`했길래......................` -> `했길래...`), so the run neither dooms nor pads the sentence.
"""

from __future__ import annotations

import functools
import re

from kcorpus.transforms.korean import MASK_RUNS
from kcorpus.transforms.text.passes import has_run_of_4

MASK_MODES = ("keep", "remove", "replace")
# CSI sequences (ESC [ params final), then any other two-character escape (ESC + one character).
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]+")
_SEPARATORS = re.compile(r"[\x1c-\x1f]+")
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")


def remove_control_chars(text: str) -> str:
    """`text` without control characters: tab, newline and the line breaks `normalize_text` handles stay."""
    if not _ANY_CONTROL.search(text):
        return text
    text = _ANSI_ESCAPE.sub("", text)
    return _CONTROL.sub("", _SEPARATORS.sub(" ", text))


def rewrite_masks(text: str, mode: str, token: str = "OOO") -> str:
    """Every mask run (`OOO`, `OO`, `○○○`, `***`) kept, made a space (`remove`) or `token` (`replace`).

    The run length never matters: `OOOO 네 글자` and `OOO 네 글자` give the same text.
    """
    if mode == "keep" or not ("O" in text or "*" in text or "○" in text or "◯" in text or "〇" in text):
        return text
    return MASK_RUNS.sub(" " if mode == "remove" else token, text)


def squeeze_punctuation(text: str, max_run: int) -> str:
    """Runs of one punctuation character longer than `max_run` cut to `max_run` (0 leaves the text as is)."""
    # With max_run >= 3 every run it cuts holds a character four times in a row, which `has_run_of_4` finds
    # far faster than the runs themselves (a tenth of comments hold one).
    if max_run <= 0 or (max_run >= 3 and not has_run_of_4(text)):
        return text
    return _run_pattern(max_run).sub(lambda m: m.group(1) * max_run, text)


@functools.lru_cache(maxsize=8)
def _run_pattern(max_run: int) -> re.Pattern[str]:
    return re.compile(rf"([^\w\s])\1{{{max_run},}}")
