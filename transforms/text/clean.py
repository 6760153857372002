"""Cleaning of one text: `clean(text, preset=..., **overrides)`.

Preset `kcelectra` gives the published KcELECTRA `clean` byte for byte (emoji removed); `kcbert` the older
KcBERT one that keeps emoji (byte for byte against it under emoji 1.2.0). Both are checked against the
published functions on every line of NSMC and a month of petitions (tests/testdata/golden/). Both are for
comments: their whitelist turns Hanja, curly quotes, ①, ※ and full-width text into spaces.

Preset `longform` is for edited and long-form text (petitions, news, Wikipedia): no whitelist. It deletes
(never replaces by a space, so no particle is cut off its word) control and invisible format characters and,
unless `keep_emoji`, the pictographic emoji (U+1F000 and up, with their joiner, keycap and variation
selector); folds full-width ASCII `Ａ１！` to `A1!`; runs the URL rule and a repeat rule that only shortens
Hangul (`ㅋㅋㅋㅋ`, never `10000` or an `OOOO` mask); keeps everything else as written.

The steps, in the reference's order:
  1. NFC (not in the reference: its Hangul range wipes NFD text, e.g. from macOS; NFC input is unchanged)
  2. every run of characters outside the whitelist -> one space
  3. URLs -> "" (the reference's rule); then the optional e-mail, @mention and `OOO` removals -> " "
  4. every run of 4+ of the same word character -> `num_repeats` of it (soynlp `repeat_normalize`)
  5. whitespace runs -> one space, stripped

`longform` runs: NFC (after the deletions), full-width folding, steps 3-5 (step 4 on Hangul only).

The reference also calls `emoji.replace_emoji` after step 2. That call can never find anything there: no
emoji is made only of characters the whitelist keeps (ASCII, Hangul, `％·∼`), which is why `kcelectra`
does not need the emoji package at all, and the goldens (made with emoji 2.x) prove it.

Every regex here runs in linear time: the only backtracking is bounded (the URL host is at most 256
characters) or confined to one run of characters that each start position can own alone.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from kcorpus.transforms.korean import COMPATIBILITY_JAMO, HANGUL_SYLLABLES, NAVER_OOO_MASK
from kcorpus.transforms.package_data import read_rows
from kcorpus.transforms.text.passes import collapse_whitespace, has_run_of_4, pack_ranges, replace_outside
from kcorpus.transforms.text.removals import RemovalRule, Removed, match_span, repeats, url_span, whitelisted

# The reference whitelist: ASCII (its ` .,?!/@$%~()` are ASCII too), ％ · ∼, Hangul compatibility jamo
# ㄱ-ㅣ and the Hangul syllables 가-힣. Everything else, Hanja and old-style jamo included, becomes a space.
KCELECTRA_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x7F),
    (0xB7, 0xB7),  # ·
    (0x223C, 0x223C),  # ∼
    COMPATIBILITY_JAMO,  # ㄱ-ㅣ
    HANGUL_SYLLABLES,  # 가-힣
    (0xFF05, 0xFF05),  # ％
)
# The code points of every emoji of emoji 1.2.0, frozen in a table (bench/generators/make_emoji_table.py): the kcbert preset
# keeps them, whichever emoji version is installed.
EMOJI_1_2_0_RANGES: tuple[tuple[int, int], ...] = tuple(
    (int(first, 16), int(last, 16)) for first, last in read_rows(__package__, "emoji_1_2_0.tsv")
)
# CJK unified ideographs (with extension A and B-H) and the compatibility ideographs.
HANJA_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FA1F),
    (0x30000, 0x323AF),
)

# Same semantics as the reference's url_pattern: scheme, optional "www.", a host-like run of 1-256, a dot
# and a 1-6 character "TLD" ending at a word boundary, then any run of path characters. Backtracking is
# bounded by 256 x 6 steps per "http", so the cost stays linear in the text length.
_URL = re.compile(
    r"https?://(?:www\.)?"
    r"[-a-zA-Z0-9@:%._+~#=]{1,256}\.[a-zA-Z0-9()]{1,6}\b"
    r"[-a-zA-Z0-9()@:%_+.~#?&/=]*"
)
# The look-behinds let a match start only where a run of local-part characters starts: each run is then
# scanned once, which keeps `a.a.a.…` without an "@" linear instead of quadratic.
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_MENTION = re.compile(r"(?<![A-Za-z0-9._%+-])@[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")
# Every character `str.isspace` (and so `strip` and `split`) knows but " " (none is above U+3000), and the
# zero-width spaces U+200B and U+FEFF: a cleaner's `single_spaced` says whether it keeps none of them.
_SPACES_BUT_SPACE = tuple(cp for cp in range(0x3001) if chr(cp).isspace() and cp != 0x20) + (0x200B, 0xFEFF)
# soynlp's rule: a word character followed by 3+ copies of itself (only where `has_run_of_4`).
_WORD_RUN = re.compile(r"(\w)\1{3,}")
# The same rule on Hangul letters only (`repeat_only_hangul`): digits, Latin masks (OOOO) and Hanja stay.
_HANGUL_RUN = re.compile(r"([가-힣ㄱ-ㆎ])\1{3,}")

# What `whitelist=False` deletes: C0/C1 controls but whitespace, and invisible format characters (soft
# hyphen, zero-width non-joiner, direction marks and embeddings, word joiner, invisible operators, text
# variation selector), and private-use characters (font icons: petitions hold "미공군 \U000f0854비-52\U000f0855").
_FORMAT_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x200C, 0x200C), (0x200E, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x2064), (0xFE0E, 0xFE0E), (0xE000, 0xF8FF), (0xF0000, 0x10FFFF),
)  # fmt: skip
# Zero-width space and BOM become a space (`passes.collapse_hspace` treats them so).
_ZERO_WIDTH_RANGES: tuple[tuple[int, int], ...] = ((0x200B, 0x200B), (0xFEFF, 0xFEFF))
_ZERO_WIDTH_TABLE = {0x200B: " ", 0xFEFF: " "}
# The pictographic emoji: every emoji 1.2.0 code point from U+1F000 up (faces, flags, skin tones), and the
# zero-width joiner, combining keycap and emoji variation selector that build sequences of them. Symbols of
# the BMP that double as emoji (♥ ☎ ✔ ↔ ▶ © ™) are text in edited writing and stay.
_PICTOGRAPH_RANGES: tuple[tuple[int, int], ...] = ((0x200D, 0x200D), (0x20E3, 0x20E3), (0xFE0F, 0xFE0F)) + tuple(
    (start, end) for start, end in EMOJI_1_2_0_RANGES if start >= 0x1F000
)
# Full-width ASCII FF01-FF5E is ASCII shifted by FEE0; the full-width signs ￠￡￢￤￥￦ fold as NFKC does them.
_FULLWIDTH_TABLE = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {
    ord(wide): ord(narrow) for wide, narrow in zip("￠￡￢￤￥￦", "¢£¬¦¥₩", strict=True)
}
_FULLWIDTH_RANGES: tuple[tuple[int, int], ...] = ((0xFF01, 0xFF5E), (0xFFE0, 0xFFE2), (0xFFE4, 0xFFE6))


@dataclasses.dataclass(frozen=True)
class CleanOptions:
    """What `clean` does; a preset is a named instance, keyword overrides replace fields."""

    nfc: bool = True
    whitelist: bool = True
    keep_emoji: bool = False
    keep_hanja: bool = False
    fold_fullwidth: bool = False
    remove_urls: bool = True
    remove_emails: bool = False
    remove_mentions: bool = False
    remove_ooo: bool = False
    num_repeats: int = 2
    repeat_only_hangul: bool = False
    tidy_removals: bool = False

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "num_repeats":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"num_repeats must be an int, got {type(value).__name__}")
                if value < 0:
                    raise ValueError(f"num_repeats must be >= 0 (0 turns the collapse off), got {value}")
            elif not isinstance(value, bool):
                raise TypeError(f"{field.name} must be a bool, got {type(value).__name__}")


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(CleanOptions))
PRESETS: Mapping[str, CleanOptions] = MappingProxyType(
    {
        "kcelectra": CleanOptions(),
        "kcbert": CleanOptions(keep_emoji=True),
        "longform": CleanOptions(
            whitelist=False, keep_hanja=True, fold_fullwidth=True, repeat_only_hangul=True, tidy_removals=True
        ),
    }
)


def resolve_options(preset: str = "kcelectra", **overrides: Any) -> CleanOptions:
    """The options of `preset` with `overrides` applied; ValueError naming the valid ones otherwise."""
    if preset not in PRESETS:
        raise ValueError(f"unknown clean preset {preset!r}; valid presets: {', '.join(sorted(PRESETS))}")
    unknown = sorted(set(overrides) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(
            f"unknown clean option(s) {', '.join(map(repr, unknown))}; valid options: {', '.join(OPTION_NAMES)}"
        )
    return dataclasses.replace(PRESETS[preset], **overrides)


def repeat_normalize(text: str, num_repeats: int = 2) -> str:
    """soynlp's `repeat_normalize`, same output, faster: runs of 4+ of a word character become
    `num_repeats` of it (no collapse when `num_repeats <= 0`), whitespace runs one space, then strip."""
    if num_repeats > 0 and has_run_of_4(text):
        text = _WORD_RUN.sub(functools.partial(_repeat_run, num_repeats), text)
    # str.split() splits on exactly the characters re's `\s` matches (both use Py_UNICODE_ISSPACE).
    return collapse_whitespace(text)


def make_cleaner(preset: str = "kcelectra", **overrides: Any) -> Callable[[str], str]:
    """A `str -> str` cleaner with the options parsed and the regexes compiled once."""
    return _build_cleaner(resolve_options(preset, **overrides))


def clean(text: str, *, preset: str = "kcelectra", **overrides: Any) -> str:
    """Clean one text KcELECTRA-style; see the module docstring for the steps and `CleanOptions`."""
    if not isinstance(text, str):
        raise TypeError(f"clean() takes a str, got {type(text).__name__}")
    if not overrides:
        cleaner = _PRESET_CLEANERS.get(preset)
        if cleaner is not None:
            return cleaner(text)
    try:
        # The type is part of the key so that keep_emoji=1 is not served the cleaner built for True.
        key = tuple(sorted((name, type(value), value) for name, value in overrides.items()))
        cleaner = _cached_cleaner(preset, key)
    except TypeError:  # an unhashable override value: let make_cleaner report it
        cleaner = make_cleaner(preset, **overrides)
    return cleaner(text)


def whitelist_ranges(options: CleanOptions) -> tuple[tuple[int, int], ...]:
    """The code point ranges a cleaner with `options` keeps (everything else becomes a space)."""
    ranges = KCELECTRA_RANGES
    if options.keep_emoji:
        ranges += EMOJI_1_2_0_RANGES
    if options.keep_hanja:
        ranges += HANJA_RANGES
    return ranges


def _build_cleaner(options: CleanOptions) -> Callable[[str], str]:
    if not options.whitelist:
        return _build_open_cleaner(options)
    # Whitelisted whitespace other than " " (tab, newline, \x1c-\x1f) goes with the removed characters:
    # whitespace ends up as one space either way and no later rule can tell the two apart, but then the
    # text can only hold " " and the final whitespace pass finds nothing to change in most texts.
    kept = _subtract(whitelist_ranges(options), {cp for cp in range(0x80) if chr(cp).isspace()} - {0x20})
    num_repeats = options.num_repeats
    replace_run = functools.partial(_repeat_run, num_repeats) if num_repeats > 0 else None
    # A partial of a module-level function rather than a closure, so that a cleaner pickles (multiprocessing).
    run = _HANGUL_RUN if options.repeat_only_hangul else _WORD_RUN
    outside = re.compile(f"[{_char_class(_complement(kept))}]+")  # what the whitelist replaced, when traced
    steps = functools.partial(
        _clean_text, options.nfc, options.fold_fullwidth, pack_ranges(kept), outside, options.tidy_removals,
        _removals(options), run, replace_run,
    )  # fmt: skip
    cleaner = _with_trace(steps)
    # What callers may skip: with no other space kept, the output's only spaces are single ones between words.
    cleaner.single_spaced = not any(start <= cp <= end for cp in _SPACES_BUT_SPACE for start, end in kept)
    return cleaner


def _with_trace(steps: functools.partial) -> functools.partial:
    """The cleaner `steps(None, text)`, with `traced`: `text -> (cleaned, removals)` (`Removed` tuples: what
    each removal, the whitelist and the repeat rule took out), the same cleaned text."""
    cleaner = functools.partial(steps, None)
    cleaner.traced = functools.partial(_traced, steps)
    return cleaner


def _traced(steps: Callable[[list[Removed] | None, str], str], text: str) -> tuple[str, list[Removed]]:
    trace: list[Removed] = []
    return steps(trace, text), trace


def _removals(options: CleanOptions) -> tuple[RemovalRule, ...]:
    """The optional removals, in order; with `tidy_removals` each match is cut out with its debris."""
    tidy = options.tidy_removals
    # A list marker or pointer stood for an address or mention (`1. https://…`), never for a mask.
    return tuple(
        RemovalRule(
            name, rx, repl, needle, (url_span if name == "url" else match_span) if tidy else None, name != "ooo"
        )
        for enabled, name, rx, repl, needle in (
            (options.remove_urls, "url", _URL, "", "http"),
            (options.remove_emails, "email", _EMAIL, " ", "@"),
            (options.remove_mentions, "mention", _MENTION, " ", "@"),
            (options.remove_ooo, "ooo", NAVER_OOO_MASK, " ", "OOO"),
        )
        if enabled
    )


def _build_open_cleaner(options: CleanOptions) -> Callable[[str], str]:
    """The cleaner of `whitelist=False` (`longform`): deletions, folding, removals, repeats, whitespace."""
    pictographs = () if options.keep_emoji else _PICTOGRAPH_RANGES
    special = _FORMAT_RANGES + pictographs + _ZERO_WIDTH_RANGES + (_FULLWIDTH_RANGES if options.fold_fullwidth else ())
    # The compiled one-pass test over the code points that are not special (a regex class of ~200 ranges
    # cost 8x the whole kcelectra cleaner): a text it leaves unchanged holds nothing to delete or fold.
    ordinary = pack_ranges(_complement(special))
    run = _HANGUL_RUN if options.repeat_only_hangul else _WORD_RUN
    replace_run = functools.partial(_repeat_run, options.num_repeats) if options.num_repeats > 0 else None
    span = match_span if options.tidy_removals else None
    deletions = (RemovalRule("invisible", re.compile(f"[{_char_class(_FORMAT_RANGES)}]+")),) + (
        (RemovalRule("emoji", re.compile(f"[{_char_class(pictographs)}]+"), span=span),) if pictographs else ()
    )
    steps = functools.partial(
        _clean_open_text,
        options.nfc,
        ordinary,
        deletions,
        options.fold_fullwidth,
        _removals(options),
        run,
        replace_run,
    )
    cleaner = _with_trace(steps)
    # collapse_whitespace leaves single " "s only, and the zero-width spaces it does not know became " ".
    cleaner.single_spaced = True
    return cleaner


def _clean_open_text(
    nfc: bool,
    ordinary: bytes,
    deletions: tuple[RemovalRule, ...],
    fold_fullwidth: bool,
    removals: tuple[RemovalRule, ...],
    run: re.Pattern[str],
    replace_run: Callable[[re.Match[str]], str] | None,
    trace: list[Removed] | None,
    text: str,
) -> str:
    if replace_outside(text, ordinary) != text:  # one scan: most sentences hold nothing to delete or fold
        # Deleted, not made a space: "믿어 달라\u200e”고" keeps its particle on its word.
        for rule in deletions:
            text = rule.apply(text, trace)
        text = text.translate(_ZERO_WIDTH_TABLE)
        if fold_fullwidth:
            text = text.translate(_FULLWIDTH_TABLE)
    if nfc and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    for rule in removals:
        if rule.needle in text:
            text = rule.apply(text, trace)
    if replace_run is not None and has_run_of_4(text):
        text = repeats(run, replace_run, text, trace)
    return collapse_whitespace(text)


def _clean_text(
    nfc: bool,
    fold_fullwidth: bool,
    whitelist: bytes,
    outside: re.Pattern[str],
    tidy: bool,
    removals: tuple[RemovalRule, ...],
    run: re.Pattern[str],
    replace_run: Callable[[re.Match[str]], str] | None,
    trace: list[Removed] | None,
    text: str,
) -> str:
    if nfc and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    if fold_fullwidth:
        text = text.translate(_FULLWIDTH_TABLE)
    if trace is None and not tidy:
        text = replace_outside(text, whitelist)
    else:
        text = whitelisted(text, whitelist, outside, tidy, trace)
    for rule in removals:
        if rule.needle in text:
            text = rule.apply(text, trace)
    # repeat_normalize(text, num_repeats), inlined: this is the hot loop of every corpus build.
    if replace_run is not None and has_run_of_4(text):
        text = run.sub(replace_run, text) if trace is None else repeats(run, replace_run, text, trace)
    # One scan that returns the text as is when it is single-spaced (a substring test of "  " costs more).
    return collapse_whitespace(text)


def _complement(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges of the code points outside `ranges`."""
    out: list[tuple[int, int]] = []
    start = 0
    for first, last in sorted(ranges):
        if first > start:
            out.append((start, first - 1))
        start = max(start, last + 1)
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return out


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    """The inside of a regex character class `[...]` that matches `ranges`."""
    return "".join(f"\\U{start:08X}-\\U{end:08X}" for start, end in ranges)


def _subtract(ranges: Iterable[tuple[int, int]], points: set[int]) -> list[tuple[int, int]]:
    """`ranges` without the code points in `points` (split where needed)."""
    out: list[tuple[int, int]] = []
    for start, end in ranges:
        for cp in sorted(p for p in points if start <= p <= end):
            if start < cp:
                out.append((start, cp - 1))
            start = cp + 1
        if start <= end:
            out.append((start, end))
    return out


def _repeat_run(num_repeats: int, match: re.Match[str]) -> str:
    # A function is faster than the "\1\1" template soynlp uses, and gives the same text.
    return match.group(1) * num_repeats


@functools.lru_cache(maxsize=64)
def _cached_cleaner(preset: str, overrides: tuple[tuple[str, type, Any], ...]) -> Callable[[str], str]:
    return make_cleaner(preset, **{name: value for name, _, value in overrides})


_PRESET_CLEANERS: dict[str, Callable[[str], str]] = {name: _build_cleaner(o) for name, o in PRESETS.items()}
