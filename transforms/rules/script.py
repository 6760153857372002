"""The language reason of a dropped sentence: the script most of its letters are written in.

A sentence in Japanese or Chinese that the KcELECTRA whitelist empties would be dropped as `empty`, one in
Russian as `low_hangul`: neither says what the text was. `script_reason` reads the sentence before cleaning
and names the script when one script other than Hangul and Latin holds most of its letters (`script:kana`,
`script:han`, `script:cyrillic`, ...). Latin-script text keeps `low_hangul` (code, URLs, English names and
Korean mixed with them are that rule's business, not a language question). Letters are what `str.isalpha`
calls letters; digits, punctuation and symbols do not count.
"""

from __future__ import annotations

import bisect

# (first, last, script) code point ranges, sorted by `first`. Japanese kana (with the half-width forms) are
# `kana`; CJK ideographs (Hanja, Kanji, Hanzi) `han`; a text with kana and mostly kana + han is Japanese.
_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, "latin"),
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0E00, 0x0E7F, "thai"),
    (0x1100, 0x11FF, "hangul"),
    (0x1E00, 0x1EFF, "latin"),
    (0x3040, 0x30FF, "kana"),
    (0x3130, 0x318F, "hangul"),
    (0x31F0, 0x31FF, "kana"),
    (0x3400, 0x4DBF, "han"),
    (0x4E00, 0x9FFF, "han"),
    (0xA960, 0xA97F, "hangul"),
    (0xAC00, 0xD7FF, "hangul"),
    (0xF900, 0xFAFF, "han"),
    (0xFF21, 0xFF5A, "latin"),
    (0xFF66, 0xFF9F, "kana"),
    (0xFFA0, 0xFFDC, "hangul"),
    (0x20000, 0x3134F, "han"),
)
_FIRSTS = [first for first, _, _ in _RANGES]
# Scripts that never name a drop: Korean itself, and Latin (left to `low_hangul`).
_NOT_A_REASON = frozenset({"hangul", "latin"})


def script_of(char: str) -> str:
    """The script of one letter: `hangul`, `latin`, `han`, `kana`, `cyrillic`, ... or `other`."""
    code = ord(char)
    i = bisect.bisect_right(_FIRSTS, code) - 1
    if i >= 0 and code <= _RANGES[i][1]:
        return _RANGES[i][2]
    return "other"


def script_counts(text: str) -> dict[str, int]:
    """Letters of `text` per script."""
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = script_of(char)
            counts[script] = counts.get(script, 0) + 1
    return counts


def script_reason(text: str) -> str | None:
    """`script:<name>` when one script other than Hangul and Latin holds more than half of the letters of
    `text` (Japanese: kana present and kana + han more than half, named `kana`); None otherwise."""
    counts = script_counts(text)
    letters = sum(counts.values())
    if not letters:
        return None
    if counts.get("kana") and 2 * (counts["kana"] + counts.get("han", 0)) > letters:
        return "script:kana"
    script, most = max(counts.items(), key=lambda item: item[1])
    if script in _NOT_A_REASON or 2 * most <= letters:
        return None
    return f"script:{script}"
