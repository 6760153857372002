"""The single-pass text rewrites of the per-document hot loop: `replace_outside`, `collapse_whitespace`,
`collapse_spaces`, `has_run_of_4`.

Each runs over every document or every sentence of a build (the cleaner's whitelist and its last step,
normalization, the exact dedup key, the guard of the repeat rules). The install compiles them (`_passes.c`) where
a C compiler is at hand, each a single read of the text; elsewhere the `python_*` twins below, the references
the compiled ones are tested against, do the same. `COMPILED` says which run.
"""

from __future__ import annotations

import array
import functools
import re
from collections.abc import Iterable

# Horizontal whitespace (NBSP, ideographic and zero-width spaces included) collapses to one space.
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
# `_HSPACE` minus " ": without one of these and without "  ", `_HSPACE.sub(" ", text)` is `text` (a
# character-class scan costs a fifth of the substitution, which matches every single space).
_ODD_HSPACE = re.compile(r"[\t\u00a0\u2000-\u200b\u3000\ufeff]")
# A character four times in a row: the necessary condition of soynlp's repeat rule and of the punctuation-run
# rewrite (true on under 10% of real comments, so most texts skip those substitutions).
ANY_RUN_OF_4 = re.compile(r"(.)\1\1\1", re.DOTALL)


def collapse_hspace(text: str) -> str:
    """Every run of horizontal spaces (NBSP, ideographic and zero-width spaces included) made one space."""
    return _HSPACE.sub(" ", text) if "  " in text or _ODD_HSPACE.search(text) else text


def pack_ranges(ranges: Iterable[tuple[int, int]]) -> bytes:
    """Code point ranges `(start, end)`, both included, as `replace_outside` takes them: sorted and merged."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return array.array("I", [bound for pair in merged for bound in pair]).tobytes()


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    """The inside of a regex character class `[...]` that matches `ranges`."""
    return "".join(
        f"\\U{start:08X}" if start == end else f"\\U{start:08X}-\\U{end:08X}" for start, end in ranges
    )


@functools.lru_cache(maxsize=16)
def _outside(ranges: bytes) -> re.Pattern[str]:
    bounds = array.array("I", ranges)
    pairs = zip(bounds[::2], bounds[1::2], strict=True)
    return re.compile(f"[^{_char_class(pairs)}]+" if bounds else "(?s).+")


def python_replace_outside(text: str, ranges: bytes) -> str:
    """Every run of characters outside `ranges` (`pack_ranges`) made one space."""
    return _outside(ranges).sub(" ", text)


def python_collapse_whitespace(text: str) -> str:
    """The words of `text` (`str.split`), one space between two: `re.sub(r"\\s+", " ", text).strip()`."""
    return " ".join(text.split())


def python_collapse_spaces(text: str) -> str:
    """Horizontal space runs made one space and every line stripped (`_HSPACE` never matches a newline)."""
    text = collapse_hspace(text)
    if "\n" not in text:
        return text.strip()
    return "\n".join([line.strip() for line in text.split("\n")])


def python_has_run_of_4(text: str) -> bool:
    """Whether some character occurs four times in a row."""
    return ANY_RUN_OF_4.search(text) is not None


try:
    from kcorpus.transforms.text._passes import (
        collapse_spaces,
        collapse_whitespace,
        has_run_of_4,
        replace_outside,
    )

    COMPILED = True
except ImportError:  # installed without a C compiler: the same texts, slower
    replace_outside, collapse_whitespace, collapse_spaces, has_run_of_4 = (
        python_replace_outside,
        python_collapse_whitespace,
        python_collapse_spaces,
        python_has_run_of_4,
    )
    COMPILED = False
