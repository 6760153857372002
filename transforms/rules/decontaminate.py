"""Decontamination: find corpus documents that contain a text of an evaluation set (NSMC test, KLUE, ...).

Both sides are compared in a canonical form that `clean()` and light edits cannot change: NFC, case folded,
the OOO/○○○ masks removed (`OO` too), every character but Hangul, Latin letters and digits turned into a
space, runs of one character squeezed to one (`ㅋㅋㅋㅋ` = `ㅋ`). An evaluation text is then indexed by its length:

- 13+ eojeol (`ngram`): every run of 13 consecutive eojeol (GPT-3's 13-gram rule, on Korean words);
- shorter, but `char_ngram`+ letters: every run of `char_ngram` letters, spaces ignored (spacing edits
  and a changed word at one end still match);
- shorter still, but `min_chars`+ letters: the whole text, matched against whole lines (sentences) of a
  document and runs of consecutive lines (a comment the splitter cut in two);
- under `min_chars` letters (`최고`, `굳 ㅋ`, `삼가 고인의 명복을 빕니다`): not indexed; such texts are stock
  phrases that any comment corpus shares with any comment evaluation set, no evidence of contamination.

Matching is hashing: each kind is a sorted array of 64-bit polynomial hashes of the evaluation texts (a few
MB for NSMC test), and a whole batch of documents is hashed at once with prefix sums over its code points,
so every window's hash costs a few vector operations. The arithmetic wraps modulo 2**64; the base is odd so
its powers have inverses and a window's hash does not depend on where the window starts.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from kcorpus.transforms.dedup import _mix64
from kcorpus.transforms.korean import HANGUL_LETTER_CLASS
from kcorpus.transforms.record import Document

ACTIONS = ("drop", "redact")
KINDS = ("eojeol", "chars", "whole")
CONTAMINATED = "contaminated"
# The matching lines quoted in a rejected record are cut at this many characters.
EVIDENCE_CHARS = 300

_NOT_LETTER = re.compile(rf"[^0-9a-z{HANGUL_LETTER_CLASS}\n]+")
_RUN = re.compile(r"(\S)\1+")
# Fullwidth ASCII (Ａ-Ｚ, ０-９, ...) -> ASCII; NFKC would do it too, but it turns ㅋ into a conjoining jamo.
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_HAS_FULLWIDTH = re.compile("[\uff01-\uff5e]")
# Masks: runs of 2+ (like korean.MASK_RUNS): clean()'s repeat normalization shortens `OOO` to `OO`.
_MASKS = re.compile(r"(?<![A-Za-z])O{2,}(?![A-Za-z])|○{2,}")
# Texts hashed at once: about 60 bytes of arrays per character, so ~60 MB per chunk.
CHUNK_CHARS = 1 << 20
# Low-bit bitmaps of at most 2**23 entries (8 MB) per kind: about 16 bits per indexed hash below that.
BITMAP_MAX_BITS = 23
_BASE = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_INV_BASE = pow(_BASE, -1, 2**64)


@dataclasses.dataclass(frozen=True)
class DecontaminateConfig:
    """`dedup.decontaminate`: the evaluation files (a source-like spec) and how documents are matched.

    Attributes:
        paths: globs of the evaluation files; none (the default) turns decontamination off.
        format: the reader of the evaluation files (any `sources[].format`).
        options: reader options, as for a source.
        ngram: eojeol per n-gram for evaluation texts of at least that many eojeol.
        char_ngram: letters per n-gram for shorter evaluation texts of at least that many letters.
        min_chars: evaluation texts with fewer letters than this are not indexed (too common to matter): the
            minimum length of a whole-text match.
        action: `drop` a contaminated document, or `redact` the lines that match (dropped if none is left).
    """

    paths: tuple[str, ...] = ()
    format: str = "jsonl"
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    ngram: int = 13
    char_ngram: int = 30
    # Between two halves of NSMC test, every whole-text match under 12 letters was a stock phrase (`정말 재밌게
    # 잘 봤습니다`, `컴퓨터 전기세가 아깝다`) and under 15 junk (`가나다라마바사아자차카타파하`); from 15 letters,
    # reposts of one comment (bench/RESULTS.md). NSMC test holds `삼가 고인의 명복을 빕니다..` (11 letters).
    min_chars: int = 15
    action: str = "drop"

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"dedup.decontaminate.action must be one of {ACTIONS}, got {self.action!r}")
        if self.ngram < 1 or self.char_ngram < 1 or self.min_chars < 1:
            raise ValueError("dedup.decontaminate: ngram, char_ngram and min_chars must be >= 1")
        if self.min_chars > self.char_ngram:
            raise ValueError("dedup.decontaminate: min_chars must be <= char_ngram")
        if self.paths:
            from kcorpus.transforms.readers.registry import reader_for

            try:
                reader_for(self.format)
            except ValueError as exc:
                raise ValueError(f"dedup.decontaminate.format: {exc}") from None

    @property
    def enabled(self) -> bool:
        return bool(self.paths)


def canonical(text: str) -> str:
    """The form both sides are compared in: Hangul, Latin letters and digits only, single spaces, runs of one
    character squeezed to one, fullwidth ASCII as ASCII, case folded."""
    return " ".join(_canonical_lines(text).split())


def _canonical_lines(text: str) -> str:
    """`canonical` of every line of `text`, line breaks kept (so line numbers still match), spaces not squeezed."""
    text = unicodedata.normalize("NFC", text)
    if _HAS_FULLWIDTH.search(text):
        text = text.translate(_FULLWIDTH)
    text = _NOT_LETTER.sub(" ", _MASKS.sub(" ", text).casefold())
    return _RUN.sub(r"\1", text)


# ---- hashing ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class _Stream:
    """The canonical letters of several texts, spaces dropped, with token and line boundaries (offsets)."""

    points: np.ndarray
    tok_start: np.ndarray
    tok_end: np.ndarray
    tok_text: np.ndarray  # the text of each token
    line_start: np.ndarray
    line_end: np.ndarray
    line_text: np.ndarray
    line_no: np.ndarray  # the line's index in its text (empty canonical lines are skipped)
    text_end: np.ndarray  # per text: the offset after its last letter


def _stream(texts: Sequence[str]) -> _Stream:
    letters: list[str] = []
    tok_len: list[int] = []
    tok_text: list[int] = []
    line_len: list[int] = []
    line_text: list[int] = []
    line_no: list[int] = []
    text_len: list[int] = []
    for t, text in enumerate(texts):
        total = 0
        for no, line in enumerate(_canonical_lines(text).split("\n")):
            tokens = line.split()
            if not tokens:
                continue
            lengths = [len(tok) for tok in tokens]
            letters.extend(tokens)
            tok_len.extend(lengths)
            tok_text.extend([t] * len(tokens))
            line_len.append(sum(lengths))
            line_text.append(t)
            line_no.append(no)
            total += line_len[-1]
        text_len.append(total)
    joined = "".join(letters)
    points = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64) + np.uint64(1)
    tok_end = np.cumsum(np.asarray(tok_len, dtype=np.int64))
    line_end = np.cumsum(np.asarray(line_len, dtype=np.int64))
    return _Stream(
        points=points,
        tok_start=tok_end - np.asarray(tok_len, dtype=np.int64),
        tok_end=tok_end,
        tok_text=np.asarray(tok_text, dtype=np.int64),
        line_start=line_end - np.asarray(line_len, dtype=np.int64),
        line_end=line_end,
        line_text=np.asarray(line_text, dtype=np.int64),
        line_no=np.asarray(line_no, dtype=np.int64),
        text_end=np.cumsum(np.asarray(text_len, dtype=np.int64)),
    )


# (B**i, B**-i) for i < len: one tuple, replaced whole, so threads sharing a worker never see a torn pair.
_POWERS: tuple[np.ndarray, np.ndarray] = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """B**i and B**-i for i < n (at least), cached per process and grown by doubling."""
    global _POWERS
    powers = _POWERS
    if len(powers[0]) < n:
        size = max(n, 2 * len(powers[0]))
        grown = []
        for base in (_BASE, _INV_BASE):
            steps = np.full(size, base, dtype=np.uint64)
            steps[0] = 1
            grown.append(np.cumprod(steps, dtype=np.uint64))
        powers = _POWERS = (grown[0], grown[1])
    return powers


class _Prefix:
    """Prefix sums of v[i] * B**i over one array: the hash of any window in a few vector operations."""

    def __init__(self, values: np.ndarray) -> None:
        powers, self.inverse = _powers(len(values) + 1)
        self.prefix = np.zeros(len(values) + 1, dtype=np.uint64)
        np.cumsum(values * powers[: len(values)], dtype=np.uint64, out=self.prefix[1:])

    def windows(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The hash of `values[s:e]` for every (s, e): sum of v[i] * B**(i - s), mixed; wraps modulo 2**64."""
        if not len(starts):
            return np.zeros(0, dtype=np.uint64)
        return _mix64((self.prefix[ends] - self.prefix[starts]) * self.inverse[starts])


def _window_hashes(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    return _Prefix(values).windows(starts, ends)


def _token_hashes(stream: _Stream, letters: _Prefix) -> np.ndarray:
    return letters.windows(stream.tok_start, stream.tok_end)


def _eojeol_windows(stream: _Stream, n: int) -> np.ndarray:
    """Start tokens of the n-token windows that lie inside one text."""
    last = np.arange(len(stream.tok_text)) + n - 1
    starts = np.nonzero(last < len(stream.tok_text))[0]
    return starts[stream.tok_text[starts] == stream.tok_text[starts + n - 1]]


def _char_windows(stream: _Stream, n: int) -> np.ndarray:
    """Start offsets of the n-letter windows that lie inside one text."""
    ends = np.repeat(stream.text_end, np.diff(np.concatenate(([0], stream.text_end))))
    starts = np.arange(len(stream.points))
    return starts[starts + n <= ends]


def _line_runs(stream: _Stream, max_chars: int) -> tuple[np.ndarray, np.ndarray]:
    """(first line, last line) of every run of consecutive lines of one text shorter than `max_chars`."""
    firsts, lasts = [], []
    starts, ends, owner = stream.line_start.tolist(), stream.line_end.tolist(), stream.line_text.tolist()
    for i in range(len(starts)):
        j = i
        while j < len(starts) and owner[j] == owner[i] and ends[j] - starts[i] < max_chars:
            firsts.append(i)
            lasts.append(j)
            j += 1
    return np.asarray(firsts, dtype=np.int64), np.asarray(lasts, dtype=np.int64)


# ---- the index of an evaluation set -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EvalIndex:
    """Sorted hashes of the evaluation texts per kind, with the position in `ids` of the text of each.

    Each worker adds a bitmap of the hashes' low bits per kind on first use (not pickled): most windows of a
    document miss it, so only a few percent reach the binary search.
    """

    ids: tuple[str, ...]
    hashes: Mapping[str, np.ndarray]
    owners: Mapping[str, np.ndarray]
    counts: Mapping[str, int]  # evaluation texts per kind, and `too_short`
    _bitmaps: dict[str, np.ndarray] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_bitmaps": {}}

    def _bitmap(self, kind: str) -> np.ndarray:
        if kind not in self._bitmaps:
            keys = self.hashes[kind]
            size = 1 << min(BITMAP_MAX_BITS, max(10, (16 * len(keys)).bit_length()))
            bitmap = np.zeros(size, dtype=bool)
            bitmap[keys & np.uint64(size - 1)] = True
            self._bitmaps[kind] = bitmap
        return self._bitmaps[kind]

    def lookup(self, kind: str, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions in `hashes` found in the index, the owner of each)."""
        keys = self.hashes[kind]
        if not len(keys) or not len(hashes):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        bitmap = self._bitmap(kind)
        maybe = np.flatnonzero(bitmap[hashes & np.uint64(len(bitmap) - 1)])
        pos = np.minimum(np.searchsorted(keys, hashes[maybe]), len(keys) - 1)
        hit = keys[pos] == hashes[maybe]
        return maybe[hit], self.owners[kind][pos[hit]]


def build_index(records: Iterable[tuple[str, str]], config: DecontaminateConfig) -> EvalIndex:
    """The index of `(id, text)` evaluation records; each text is indexed by one kind, by its length."""
    records = sorted(records)
    parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {kind: [] for kind in KINDS}
    kinds = []
    first = 0
    for chunk in _chunks([t for _, t in records]):
        kind_of = _index_chunk(chunk, config, parts, first)
        kinds.append(kind_of)
        first += len(chunk)
    hashes, owners = {}, {}
    for kind, found in parts.items():
        h = np.concatenate([np.zeros(0, dtype=np.uint64), *(f[0] for f in found)])
        o = np.concatenate([np.zeros(0, dtype=np.int64), *(f[1] for f in found)])
        order = np.lexsort((o, h))  # equal hashes: the smallest id first, so matches name it
        hashes[kind], owners[kind] = h[order], o[order]
    kind_of = np.concatenate([np.zeros(0, dtype=np.int64), *kinds])
    counts = {kind: int((kind_of == k).sum()) for k, kind in enumerate((*KINDS, "too_short"))}
    return EvalIndex(tuple(i for i, _ in records), hashes, owners, counts)


def _index_chunk(
    texts: Sequence[str], config: DecontaminateConfig, parts: dict[str, list[Any]], first: int
) -> np.ndarray:
    """Adds the (hashes, owners) of some texts to `parts`; returns the kind of each (3: too short)."""
    stream = _stream(texts)
    text_len = np.diff(np.concatenate(([0], stream.text_end)))
    tokens = np.bincount(stream.tok_text, minlength=len(texts))
    kind_of = np.where(
        tokens >= config.ngram,
        0,
        np.where(text_len >= config.char_ngram, 1, np.where(text_len >= config.min_chars, 2, 3)),
    )
    letters = _Prefix(stream.points)
    starts = _eojeol_windows(stream, config.ngram)
    starts = starts[kind_of[stream.tok_text[starts]] == 0]
    parts["eojeol"].append((_window_hashes(_token_hashes(stream, letters), starts, starts + config.ngram),
                            first + stream.tok_text[starts]))  # fmt: skip
    char_owner = np.repeat(np.arange(len(texts)), text_len)
    starts = _char_windows(stream, config.char_ngram)
    starts = starts[kind_of[char_owner[starts]] == 1]
    parts["chars"].append((letters.windows(starts, starts + config.char_ngram), first + char_owner[starts]))
    whole = np.nonzero(kind_of == 2)[0]
    text_start = stream.text_end - text_len
    parts["whole"].append((letters.windows(text_start[whole], stream.text_end[whole]), first + whole))
    return kind_of


def _chunks(texts: Sequence[str], max_chars: int | None = None) -> Iterator[Sequence[str]]:
    """Consecutive slices of `texts` of at most `max_chars` characters (a longer text alone): bounds memory."""
    limit = CHUNK_CHARS if max_chars is None else max_chars
    start, size = 0, 0
    for i, text in enumerate(texts):
        if size and size + len(text) > limit:
            yield texts[start:i]
            start, size = i, 0
        size += len(text)
    if start < len(texts):
        yield texts[start:]


# ---- matching documents -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Match:
    """Why a document is contaminated: the first matching evaluation text, the kind, the lines that match."""

    eval_id: str
    kind: str
    lines: tuple[int, ...]

    def evidence(self, text: str, config: DecontaminateConfig) -> dict[str, Any]:
        """The `contaminated_by` entry of a rejected record: the evaluation id, the kind, the matching lines."""
        size = {"eojeol": f"{config.ngram} eojeol", "chars": f"{config.char_ngram} letters"}
        lines = text.split("\n")
        matched = "\n".join(lines[no] for no in self.lines if no < len(lines))
        if len(matched) > EVIDENCE_CHARS:
            matched = matched[:EVIDENCE_CHARS] + "…"
        return {"id": self.eval_id, "match": size.get(self.kind, "whole text"), "text": matched}


def find_matches(texts: Sequence[str], index: EvalIndex, config: DecontaminateConfig) -> list[Match | None]:
    """For each text (lines joined by "\\n"), its match with the evaluation set, or None.

    The first match is the one at the smallest letter offset (eojeol, then letters, then whole lines at
    one offset); `lines` lists every line that any match touches, for `redact`. Texts are hashed together
    in chunks of about `CHUNK_CHARS` characters.
    """
    return [m for chunk in _chunks(texts) for m in _find_in_chunk(chunk, index, config)]


def _find_in_chunk(texts: Sequence[str], index: EvalIndex, config: DecontaminateConfig) -> list[Match | None]:
    stream = _stream(texts)
    hits: list[list[tuple[int, int, int, str]]] = [[] for _ in texts]  # (offset, kind order, owner, kind)
    touched: list[set[int]] = [set() for _ in texts]
    line_of = np.repeat(np.arange(len(stream.line_end)), stream.line_end - stream.line_start)

    def note(kind: str, order: int, offsets: np.ndarray, last_offsets: np.ndarray, h: np.ndarray) -> None:
        found, owners = index.lookup(kind, h)
        for f, owner in zip(found.tolist(), owners.tolist(), strict=True):
            first, last = int(line_of[offsets[f]]), int(line_of[last_offsets[f]])
            t = int(stream.line_text[first])
            hits[t].append((int(offsets[f]), order, owner, kind))
            touched[t].update(stream.line_no[first : last + 1].tolist())

    letters = _Prefix(stream.points)
    if len(index.hashes["eojeol"]):
        starts = _eojeol_windows(stream, config.ngram)
        h = _window_hashes(_token_hashes(stream, letters), starts, starts + config.ngram)
        note("eojeol", 0, stream.tok_start[starts], stream.tok_end[starts + config.ngram - 1] - 1, h)
    if len(index.hashes["chars"]):
        starts = _char_windows(stream, config.char_ngram)
        h = letters.windows(starts, starts + config.char_ngram)
        note("chars", 1, starts, starts + config.char_ngram - 1, h)
    if len(index.hashes["whole"]):
        first, last = _line_runs(stream, config.char_ngram)
        offsets, ends = stream.line_start[first], stream.line_end[last]
        note("whole", 2, offsets, ends - 1, letters.windows(offsets, ends))
    out: list[Match | None] = []
    for t_hits, lines in zip(hits, touched, strict=True):
        if not t_hits:
            out.append(None)
            continue
        _, _, owner, kind = min(t_hits)
        out.append(Match(index.ids[owner], kind, tuple(sorted(lines))))
    return out


def redact(text: str, lines: Iterable[int]) -> str:
    """`text` without the lines (by index) that matched; "" when none is left."""
    drop = set(lines)
    return "\n".join(line for no, line in enumerate(text.split("\n")) if no not in drop)


def decontaminate(
    docs: Sequence[Document], index: EvalIndex, config: DecontaminateConfig
) -> list[tuple[Document | None, Match | None]]:
    """Each document as kept (unchanged, or redacted) or None (dropped), with its match if it had one."""
    out: list[tuple[Document | None, Match | None]] = []
    for doc, match in zip(docs, find_matches([d.text for d in docs], index, config), strict=True):
        if match is None:
            out.append((doc, None))
        elif config.action == "drop":
            out.append((None, match))
        else:
            text = redact(doc.text, match.lines)
            out.append((dataclasses.replace(doc, text=text) if text else None, match))
    return out
