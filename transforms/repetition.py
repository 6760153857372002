"""Repetition rules: the sentence rule for true spam, and Gopher's document rules adapted to Korean.

**Sentence** (`spam_reason`): a sentence is spam when one token, or one short unit repeated back to back,
makes up nearly all of it: `좋아요 좋아요 좋아요 좋아요`, `ㅋㅋ ㅋㅋ ㅋㅋ ㅋㅋ`, `최고최고최고최고`. Both shares
are measured over letters (punctuation and spaces do not count), so ordinary parallel constructions, which
Korean reviews use constantly (`완벽한 스토리, 완벽한 연기`, `잔잔한 웃음 잔잔한 감동`), stay far below it.

**Document** (`document_repetition_reason`): the repetition rules of Gopher (Rae et al. 2021, table A1), the
ones datatrove's `GopherRepetitionFilter` runs, with its thresholds as defaults:

- duplicate lines / paragraphs: the share of lines (paragraphs) that repeat an earlier one, and the share of
  characters in them (0.30 / 0.20 each);
- top n-gram: the share of characters covered by the most frequent word n-gram, n = 2, 3, 4
  (0.20, 0.18, 0.16), when it occurs more than once;
- duplicated n-grams: the share of characters covered by word n-grams that occur more than once,
  n = 5 ... 10 (0.15 ... 0.10).

Adapted to Korean and to short texts: words are eojeol (space-separated) with their punctuation stripped, and
characters are the letters of those words (eojeol carry particles, so spaces and punctuation would only dilute
the shares). A "line" is a kept sentence (a comment for comment sources), a "paragraph" a line of the source;
the line rules need `min_lines` lines and the n-gram rules `min_words` words, below which a repeat is a
refrain, not a repeated page (a 12-word review that says `너무 좋아요` twice is not a Gopher case).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Hashable, Sequence

_NOT_LETTER = re.compile(r"[\W_]+")
_LETTER_RUN = re.compile(r"[^\W_]+")
_NOT_LETTER_OR_SPACE = re.compile(r"[^\w\s]+|_+")

# Gopher's table A1: top n-gram character fractions from n = 2, duplicated n-gram fractions from n = 5.
TOP_NGRAM_FIRST_N = 2
DUP_NGRAM_FIRST_N = 5


def letters(text: str) -> str:
    """`text` with everything but letters and digits removed (spaces, punctuation, symbols, `_`)."""
    return _NOT_LETTER.sub("", text)


def words(text: str) -> list[str]:
    """The eojeol of `text` with their punctuation stripped; tokens of punctuation alone are left out."""
    return _NOT_LETTER_OR_SPACE.sub("", text).split()


def repeated_token_share(tokens: Sequence[str]) -> float:
    """The share of `tokens` taken by the most frequent one (0.0 for no tokens)."""
    if not tokens:
        return 0.0
    return Counter(tokens).most_common(1)[0][1] / len(tokens)


def repeated_unit_share(compact: str, min_repeats: int, max_unit_chars: int) -> float:
    """The share of `compact` covered by runs of a unit of up to `max_unit_chars` characters repeated back
    to back at least `min_repeats` times (`좋아요좋아요좋아요` is one run of `좋아요` x 3)."""
    if not compact:
        return 0.0
    covered = sum(m.end() - m.start() for m in _unit_run(min_repeats, max_unit_chars).finditer(compact))
    return covered / len(compact)


def spam_reason(
    text: str, max_share: float, min_tokens: int, unit_min_repeats: int, unit_max_chars: int
) -> str | None:
    """`"repetitive"` when one token (from `min_tokens` tokens; tokens are runs of letters) or runs of one
    short unit make up at least `max_share` of the sentence's letters; `None` to keep; 0 disables."""
    if not max_share:
        return None
    return spam_reason_of_tokens(letter_tokens(text), max_share, min_tokens, unit_min_repeats, unit_max_chars)


def letter_tokens(text: str) -> list[str]:
    """The runs of letters and digits of `text`: punctuation separates tokens too (`좋아요!좋아요!`)."""
    # No letter or digit is whitespace, so these are the words of `_NOT_LETTER.sub(" ", text).split()`.
    return _LETTER_RUN.findall(text)


def spam_reason_of_tokens(
    tokens: list[str],
    max_share: float,
    min_tokens: int,
    unit_min_repeats: int,
    unit_max_chars: int,
    compact: str | None = None,
) -> str | None:
    """`spam_reason` of a sentence given its `letter_tokens` (which the filters compute once per sentence)
    and, where the caller has it, their concatenation `compact`."""
    if not max_share:
        return None
    # Cheap necessary conditions first: a token with share s leaves at most (1 - s) * n other tokens, a run of
    # a unit of k letters at most k + (1 - s) * n distinct letters.
    n = len(tokens)
    few_tokens = n >= min_tokens and len(set(tokens)) <= n - max_share * n + 1
    if few_tokens and repeated_token_share(tokens) >= max_share:
        return "repetitive"
    if compact is None:
        compact = "".join(tokens)
    if few_distinct_letters(compact, max_share, unit_min_repeats, unit_max_chars) and (
        repeated_unit_share(compact, unit_min_repeats, unit_max_chars) >= max_share
    ):
        return "repetitive"
    return None


def few_distinct_letters(compact: str, max_share: float, unit_min_repeats: int, unit_max_chars: int) -> bool:
    """Whether `compact` has few enough distinct letters for runs of units to cover `max_share` of it.

    Two bounds: the rule's own (`unit_max_chars + (1 - max_share) * n`), and one that holds for any runs: a
    run of c >= `copies` copies of a unit holds at most 1/c of its length in distinct letters, so runs
    covering a share s leave at most `n - s * n * (1 - 1 / copies)` distinct letters (+1 for rounding). On
    comments the second one spares the unit-run scan on 9 in 10 of the texts the first one lets through.
    """
    n = len(compact)
    distinct = len(set(compact))
    copies = max(unit_min_repeats, 2)
    return distinct <= unit_max_chars + (1 - max_share) * n and distinct <= n - max_share * n * (1 - 1 / copies) + 1


@functools.lru_cache(maxsize=8)
def _unit_run(min_repeats: int, max_unit_chars: int) -> re.Pattern[str]:
    # The lazy unit finds the shortest period first ("ㅋ" in "ㅋㅋㅋㅋ"); each attempt is bounded by
    # max_unit_chars, so the scan stays linear in the text.
    return re.compile(rf"(.{{1,{max_unit_chars}}}?)\1{{{max(min_repeats - 1, 1)},}}", re.DOTALL)


def duplicate_share(items: Sequence[str]) -> tuple[float, float]:
    """(share of items that repeat an earlier one, share of characters in those repeats)."""
    seen: set[str] = set()
    dup_items = dup_chars = 0
    for item in items:
        if item in seen:
            dup_items += 1
            dup_chars += len(item)
        else:
            seen.add(item)
    total_chars = sum(len(item) for item in items)
    return dup_items / len(items), dup_chars / total_chars if total_chars else 0.0


def _covered_chars(
    lengths: Sequence[int], grams: Sequence[Hashable], n: int, wanted: set[Hashable]
) -> int:
    """Characters of the words covered by the occurrences of the `wanted` n-grams (overlaps counted once)."""
    covered = bytearray(len(lengths))
    mark = b"\x01" * n
    # compress/map keep the scan over every n-gram in C; Python only visits the occurrences.
    for i in itertools.compress(range(len(grams)), map(wanted.__contains__, grams)):
        covered[i : i + n] = mark
    return sum(itertools.compress(lengths, covered))


def top_ngram_share(ids: Sequence[int], lengths: Sequence[int], total: int, n: int) -> float:
    """The share of characters covered by the most frequent n-gram, 0.0 unless it occurs twice or more."""
    return _top_share(_NgramCodes(ids).of(n), lengths, total, n)


def dup_ngram_share(ids: Sequence[int], lengths: Sequence[int], total: int, n: int) -> float:
    """The share of characters covered by n-grams that occur more than once."""
    return _dup_share(_NgramCodes(ids).of(n), lengths, total, n)


def _top_share(grams: Sequence[Hashable], lengths: Sequence[int], total: int, n: int) -> float:
    counts = Counter(grams)
    if len(counts) == len(grams):  # no n-gram repeats (or none at all)
        return 0.0
    top, _ = counts.most_common(1)[0]
    return _covered_chars(lengths, grams, n, {top}) / total


def _dup_share(grams: Sequence[Hashable], lengths: Sequence[int], total: int, n: int) -> float:
    counts = Counter(grams)
    if len(counts) == len(grams):  # no n-gram repeats
        return 0.0
    repeated = set(itertools.compress(counts, map((1).__lt__, counts.values())))
    return _covered_chars(lengths, grams, n, repeated) / total


class _NgramCodes:
    """The word n-grams of `ids` as one int each, for n = 2, 3, ... in turn, each made from the last.

    With `base` above every id, `code = code * base + id` gives distinct n-grams distinct ints, in the same
    order as tuples of n ids would be: the counts, the most frequent one (ties go to the first) and the
    covered characters are the same, but an int hashes in one step where a tuple hashes n items.
    """

    def __init__(self, ids: Sequence[int]) -> None:
        self.ids, self.base = ids, max(ids, default=0) + 1
        self.n, self.codes = 1, list(ids)

    def of(self, n: int) -> list[int]:
        """The codes of the n-grams (from the last n asked, or from words again for a smaller n)."""
        base, ids = self.base, self.ids
        if n < self.n:
            self.n, self.codes = 1, list(ids)
        while self.n < n:
            self.n += 1
            self.codes = [code * base + i for code, i in zip(self.codes, ids[self.n - 1 :])]
        return self.codes


def ngram_repetition_reason(
    text_words: Sequence[str], top_fractions: Sequence[float], dup_fractions: Sequence[float]
) -> str | None:
    """The first n-gram rule `text_words` breaks (`top_2gram`, ..., `dup_5gram`, ...), or None."""
    index: dict[str, int] = {}
    ids = [index.setdefault(w, len(index)) for w in text_words]
    if len(index) == len(ids):  # no word repeats, so no n-gram does
        return None
    lengths = [len(w) for w in text_words]
    total = sum(lengths)
    grams = _NgramCodes(ids)
    for n, limit in enumerate(top_fractions, start=TOP_NGRAM_FIRST_N):
        if limit and _top_share(grams.of(n), lengths, total, n) > limit:
            return f"top_{n}gram"
    for n, limit in enumerate(dup_fractions, start=DUP_NGRAM_FIRST_N):
        share = _dup_share(grams.of(n), lengths, total, n) if limit else 0.0
        if share > limit:
            return f"dup_{n}gram"
        if limit and not share:  # no repeated n-gram: no repeated longer one either
            break
    return None


def document_repetition_reason(
    lines: Sequence[str],
    paragraphs: Sequence[str],
    *,
    line_fractions: tuple[float, float],
    paragraph_fractions: tuple[float, float],
    top_fractions: Sequence[float],
    dup_fractions: Sequence[float],
    min_lines: int,
    min_words: int,
) -> str | None:
    """Gopher's repetition rules over a document's kept `lines` and its `paragraphs`, in Gopher's order.

    Returns the reason of the first rule broken (`dup_paragraphs`, `dup_paragraph_chars`, `dup_lines`,
    `dup_line_chars`, `top_<n>gram`, `dup_<n>gram`), or None. A fraction of 0 disables its rule.
    """
    # The common case, one short comment: too few lines, and too few characters to hold min_words words.
    if len(lines) < min_lines and len(paragraphs) < min_lines and sum(map(len, lines)) < 2 * min_words - 1:
        return None
    for name, items, (max_items, max_chars) in (
        ("paragraph", paragraphs, paragraph_fractions),
        ("line", lines, line_fractions),
    ):
        if len(items) < max(min_lines, 2):
            continue
        item_share, char_share = duplicate_share(items)
        if max_items and item_share > max_items:
            return f"dup_{name}s"
        if max_chars and char_share > max_chars:
            return f"dup_{name}_chars"
    if not (any(top_fractions) or any(dup_fractions)):
        return None
    # One pass over the lines joined: "\n" separates words and no punctuation run spans it.
    joined = "\n".join(lines)
    if len(joined.split()) < min_words:  # stripping punctuation only removes words
        return None
    text_words = words(joined)
    if len(text_words) < min_words:
        return None
    return ngram_repetition_reason(text_words, top_fractions, dup_fractions)
