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
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

_NOT_LETTER = re.compile(r"[\W_]+")
_LETTER_RUN = re.compile(r"[^\W_]+")
_PUNCTUATION = re.compile(r"[^\w\s]+")  # neither a word character nor a space

# Gopher's table A1: top n-gram character fractions from n = 2, duplicated n-gram fractions from n = 5.
TOP_NGRAM_FIRST_N = 2
DUP_NGRAM_FIRST_N = 5


def letters(text: str) -> str:
    """`text` with everything but letters and digits removed (spaces, punctuation, symbols, `_`)."""
    return _NOT_LETTER.sub("", text)


def words(text: str) -> list[str]:
    """The eojeol of `text` with their punctuation stripped; tokens of punctuation alone are left out."""
    # One class (a fast scan) instead of `[^\w\s]+|_+`: "_" is a word character, so it goes first.
    return _PUNCTUATION.sub("", text.replace("_", "") if "_" in text else text).split()


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
) -> str | None:
    """`spam_reason` of a sentence given its `letter_tokens`."""
    if not max_share:
        return None
    compact = "".join(tokens)
    n = len(tokens)
    if (
        few_distinct_tokens(n, len(set(tokens)), max_share, min_tokens)
        and repeated_token_share(tokens) >= max_share
    ):
        return "repetitive"
    if few_distinct_letters(
        len(compact), len(set(compact)), max_share, unit_min_repeats, unit_max_chars
    ) and (repeated_unit_share(compact, unit_min_repeats, unit_max_chars) >= max_share):
        return "repetitive"
    return None


def may_be_spam(
    tokens: int,
    letters: int,
    distinct_tokens: int,
    distinct_letters: int,
    max_share: float,
    min_tokens: int,
    unit_min_repeats: int,
    unit_max_chars: int,
) -> bool:
    """The necessary conditions of both spam rules, from a sentence's counts (`letter_stats`): when False,
    `spam_reason` keeps the sentence, and its tokens need not be built."""
    # `few_distinct_tokens(...) or few_distinct_letters(...)`, inlined: this runs once per sentence.
    if tokens >= min_tokens and distinct_tokens <= tokens - max_share * tokens + 1:
        return True
    copies = max(unit_min_repeats, 2)
    return (
        distinct_letters <= unit_max_chars + (1 - max_share) * letters
        and distinct_letters <= letters - max_share * letters * (1 - 1 / copies) + 1
    )


def few_distinct_tokens(tokens: int, distinct_tokens: int, max_share: float, min_tokens: int) -> bool:
    """Whether one of `tokens` tokens (`distinct_tokens` of them distinct) can make up `max_share` of them:
    a token with share s leaves at most (1 - s) * n other tokens (+1 for rounding)."""
    return tokens >= min_tokens and distinct_tokens <= tokens - max_share * tokens + 1


def few_distinct_letters(
    letters: int, distinct_letters: int, max_share: float, unit_min_repeats: int, unit_max_chars: int
) -> bool:
    """Whether `letters` letters, `distinct_letters` of them distinct, are few enough for runs of units to
    cover `max_share` of them.

    Two bounds: the rule's own (a run of a unit of k letters leaves at most `unit_max_chars + (1 - max_share)
    * n` distinct letters), and one that holds for any runs: a run of c >= `copies` copies of a unit holds at
    most 1/c of its length in distinct letters, so runs covering a share s leave at most
    `n - s * n * (1 - 1 / copies)` distinct letters (+1 for rounding). On comments the second one spares the
    unit-run scan on 9 in 10 of the texts the first one lets through.
    """
    n, distinct = letters, distinct_letters
    copies = max(unit_min_repeats, 2)
    return (
        distinct <= unit_max_chars + (1 - max_share) * n
        and distinct <= n - max_share * n * (1 - 1 / copies) + 1
    )


@functools.lru_cache(maxsize=8)
def _unit_run(min_repeats: int, max_unit_chars: int) -> re.Pattern[str]:
    # The lazy unit finds the shortest period first ("ㅋ" in "ㅋㅋㅋㅋ"); each attempt is bounded by
    # max_unit_chars, so the scan stays linear in the text.
    return re.compile(rf"(.{{1,{max_unit_chars}}}?)\1{{{max(min_repeats - 1, 1)},}}", re.DOTALL)


def duplicate_share(items: Sequence[str]) -> tuple[float, float]:
    """(share of items that repeat an earlier one, share of characters in those repeats)."""
    first = dict.fromkeys(items)  # each distinct item once, where it first occurs
    total_chars = sum(map(len, items))
    dup_chars = total_chars - sum(map(len, first))
    return (len(items) - len(first)) / len(items), dup_chars / total_chars if total_chars else 0.0


def _covered_chars(lengths: np.ndarray, starts: np.ndarray, n: int) -> int:
    """Characters of the words covered by n-grams starting at `starts` (overlaps counted once)."""
    covered = np.zeros(len(lengths), dtype=bool)
    for k in range(n):
        covered[starts + k] = True
    return int(lengths[covered].sum())


def top_ngram_share(ids: Sequence[int], lengths: Sequence[int], total: int, n: int) -> float:
    """The share of characters covered by the most frequent n-gram, 0.0 unless it occurs twice or more."""
    return _NgramCounts(np.asarray(ids, dtype=np.int64)).of(n).top_share(np.asarray(lengths), total)


def dup_ngram_share(ids: Sequence[int], lengths: Sequence[int], total: int, n: int) -> float:
    """The share of characters covered by n-grams that occur more than once."""
    return _NgramCounts(np.asarray(ids, dtype=np.int64)).of(n).dup_share(np.asarray(lengths), total)


class _Ngrams:
    """The word n-grams of a text for one n: each n-gram's rank among the distinct ones (`ranks`, one per
    position), and per distinct n-gram its count and the position where it first occurs."""

    def __init__(self, codes: np.ndarray, n: int) -> None:
        self.n = n
        _, self.first, self.ranks, self.counts = np.unique(
            codes, return_index=True, return_inverse=True, return_counts=True
        )

    @property
    def repeats(self) -> bool:
        return len(self.counts) < len(self.ranks)

    def top_share(self, lengths: np.ndarray, total: int) -> float:
        """The share of characters covered by the most frequent n-gram (ties: the one that occurs first)."""
        if not self.repeats:
            return 0.0
        most = np.flatnonzero(self.counts == self.counts.max())
        top = most[np.argmin(self.first[most])]
        return _covered_chars(lengths, np.flatnonzero(self.ranks == top), self.n) / total

    def dup_share(self, lengths: np.ndarray, total: int) -> float:
        """The share of characters covered by the n-grams that occur more than once."""
        if not self.repeats:
            return 0.0
        return _covered_chars(lengths, np.flatnonzero((self.counts > 1)[self.ranks]), self.n) / total


class _NgramCounts:
    """The word n-grams of `ids` (non-negative word ids below the number of words) for n = 2, 3, ... in turn,
    each made from the last.

    An n-gram is the pair (rank of its first n - 1 words, id of its last word), coded as one int64:
    `rank * base + id` with `base` above every id. Ranks stay below the number of words, so the codes fit for
    any text under 3e9 words; equal n-grams get equal ranks and distinct ones distinct ranks, so the counts,
    the first occurrences and the covered characters are those of the word tuples.
    """

    def __init__(self, ids: np.ndarray) -> None:
        self.ids, self.base = ids, int(ids.max(initial=0)) + 1
        self.n, self.ranks = 1, ids
        self.ngrams: _Ngrams | None = None

    def of(self, n: int) -> _Ngrams:
        """The n-grams for `n` >= 2 (from the last n asked, or from the words again for a smaller n)."""
        if n < self.n:
            self.n, self.ranks = 1, self.ids
        while self.n < n:
            codes = self.ranks[:-1] * self.base + self.ids[self.n :]
            self.n += 1
            self.ngrams = _Ngrams(codes, self.n)
            self.ranks = self.ngrams.ranks
        assert self.ngrams is not None and self.ngrams.n == n
        return self.ngrams


def ngram_repetition_reason(
    text_words: Sequence[str], top_fractions: Sequence[float], dup_fractions: Sequence[float]
) -> str | None:
    """The first n-gram rule `text_words` breaks (`top_2gram`, ..., `dup_5gram`, ...), or None.

    A rule is only counted out where a bound does not already keep it under its limit (most texts):
    - the top n-gram covers at most `n * most` characters, `most` being the largest characters-times-count of
      any word (each of its occurrences holds each of its words, so it occurs at most as often as any of them);
    - repeated n-grams cover only words that occur twice or more (both occurrences hold each of their words).
    """
    # A word's id is the position where it first occurs (one C loop, no Python per word).
    index: dict[str, int] = {}
    word_ids = np.fromiter(
        map(index.setdefault, text_words, range(len(text_words))), dtype=np.int64, count=len(text_words)
    )
    if len(index) == len(word_ids):  # no word repeats, so no n-gram does
        return None
    lengths = np.fromiter(map(len, text_words), dtype=np.int64, count=len(text_words))
    total = int(lengths.sum())
    if not total:
        return None
    word_counts = np.bincount(word_ids)
    word_lengths = np.zeros(len(word_counts), dtype=np.int64)
    word_lengths[word_ids] = lengths
    most = int((word_lengths * word_counts).max())
    grams = _NgramCounts(word_ids)
    for n, limit in enumerate(top_fractions, start=TOP_NGRAM_FIRST_N):
        if limit and n * most / total > limit and grams.of(n).top_share(lengths, total) > limit:
            return f"top_{n}gram"
    in_repeats = int(lengths[word_counts[word_ids] > 1].sum())
    for n, limit in enumerate(dup_fractions, start=DUP_NGRAM_FIRST_N):
        if not limit or in_repeats / total <= limit:
            continue
        share = grams.of(n).dup_share(lengths, total)
        if share > limit:
            return f"dup_{n}gram"
        if not share:  # no repeated n-gram: no repeated longer one either
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
    return text_ngram_repetition_reason("\n".join(lines), min_words, top_fractions, dup_fractions)


def python_text_ngram_repetition_reason(
    text: str, min_words: int, top_fractions: Sequence[float], dup_fractions: Sequence[float]
) -> str | None:
    """`ngram_repetition_reason` of the `words` of `text`, None below `min_words` words: the reference of the
    compiled `text_ngram_repetition_reason` (`_ngram_repetition.c`), and its fallback."""
    # Stripping punctuation only removes words, so a cheaper count can rule a text out first (worth it only
    # where it may: a text of 8 characters per word and more has enough words but for rare ones).
    if len(text) < 8 * min_words and len(text.split()) < min_words:
        return None
    text_words = words(text)
    if len(text_words) < min_words:
        return None
    return ngram_repetition_reason(text_words, top_fractions, dup_fractions)


try:
    from kcorpus.transforms.rules._ngram_repetition import text_ngram_repetition_reason

    NGRAMS_COMPILED = True
except ImportError:  # installed without a C compiler: the same reasons, slower
    text_ngram_repetition_reason = python_text_ngram_repetition_reason
    NGRAMS_COMPILED = False


def title_repeat_reason(paragraphs: Sequence[str]) -> str | None:
    """`title_repeat` when every paragraph after the first says the first again (a petition whose body is
    its title once more): the letters of the rest are those of the first, once or several times over; case,
    spaces and punctuation aside. None for a single paragraph or a body that says anything else."""
    if len(paragraphs) < 2:
        return None
    title = letters(paragraphs[0]).casefold()
    # Checked only where the body is short enough to be the title a few times: a cheap test for long texts.
    if not title or sum(map(len, paragraphs[1:])) > 4 * (len(paragraphs[0]) + 10):
        return None
    body = letters("".join(paragraphs[1:])).casefold()
    copies, rest = divmod(len(body), len(title))
    return "title_repeat" if copies and not rest and body == title * copies else None
