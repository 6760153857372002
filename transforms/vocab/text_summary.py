"""What the trainers and the post-training checks need to know about the training text, from one streamed pass.

The text itself is never held: `summarize` reads the sentences once and keeps the count of every character
(the WordPiece alphabet, the Hangul syllables the checks encode, the genuine jamo), the distinct words that
hold a conjoining jamo (where a jamo token must come from), the first sentences (the round-trip check) and,
for SentencePiece, what splitting long sentences and isolating jamo will make of them. So the checks cost a
bounded sample however large the corpus, and training can stream the sentences from disk.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from kcorpus.transforms.korean import CONJOINING_JAMO_CLASS, is_conjoining_jamo, is_hangul_syllable
from kcorpus.transforms.vocab.train import DELIMITER_BYTES, SpmInput, split_long_sentence

_JAMO = re.compile(f"[{CONJOINING_JAMO_CLASS}]")
# Characters counted per numpy call: large enough that the per-call cost vanishes, small enough to stay ~16 MB.
_BATCH_CHARS = 4_000_000
# Distinct words with a conjoining jamo kept for the decomposition check (genuine jamo are rare in NFC text;
# a corpus of archaic Hangul may hold many: beyond this the check reads the words kept, and says so).
MAX_JAMO_WORDS = 1_000_000
# Sentences kept at a regular stride for the [UNK] rate: ~1 s of encoding, a rate to +-0.0001 at 0.001.
SPREAD_SENTENCES = 10_000


@dataclasses.dataclass
class TextSummary:
    """The training text, summarized.

    Attributes:
        sentences: how many sentences were read.
        char_counts: every character of the text and its count.
        spread: sentences taken at a regular stride over the whole text, where train-vocab measures its [UNK]
            rate: every one up to `SPREAD_SENTENCES`, then between that and twice as many (the stride doubles
            each time the list fills).
        jamo_words: the distinct space-separated words holding a conjoining jamo (at most `MAX_JAMO_WORDS`).
        jamo_words_dropped: occurrences of such words not kept (seen after `MAX_JAMO_WORDS` were).
        round_trip: the first sentences, in input order, for the round-trip check.
        max_sentence_bytes: the length SentencePiece accepts (None: not summarized for SentencePiece).
        long_sentences: sentences longer than `max_sentence_bytes` (split at spaces for SentencePiece).
        pieces: sentences once the long ones are split.
        max_isolated_bytes: the longest piece holding a jamo once its jamo are isolated (0 without jamo).
    """

    sentences: int = 0
    char_counts: dict[str, int] = dataclasses.field(default_factory=dict)
    spread: list[str] = dataclasses.field(default_factory=list)
    jamo_words: set[str] = dataclasses.field(default_factory=set)
    jamo_words_dropped: int = 0
    round_trip: list[str] = dataclasses.field(default_factory=list)
    max_sentence_bytes: int | None = None
    long_sentences: int = 0
    pieces: int = 0
    max_isolated_bytes: int = 0

    def spm_input(self) -> SpmInput:
        """What SentencePiece must know before it reads the (split) sentences."""
        if self.max_sentence_bytes is None:
            raise ValueError("summarize(max_sentence_bytes=...) was not given the SentencePiece limit")
        return SpmInput(counts=self.char_counts, pieces=self.pieces, max_isolated_bytes=self.max_isolated_bytes)

    @property
    def syllables(self) -> Counter[str]:
        """The Hangul syllables of the text, with counts."""
        return Counter({c: n for c, n in self.char_counts.items() if is_hangul_syllable(c)})

    @property
    def genuine_jamo(self) -> Counter[str]:
        """Conjoining jamo of the NFC training text, with counts: typed by people (`ᆢ`, `ᄏ`, `ᅠ`), not decomposed."""
        return Counter({c: n for c, n in self.char_counts.items() if is_conjoining_jamo(c)})


def summarize(
    sentences: Iterable[str], *, round_trip: int = 2000, max_sentence_bytes: int | None = None
) -> TextSummary:
    """One pass over `sentences` (pre-normalized: NFC, single spaces) into a `TextSummary`.

    Args:
        sentences: the training sentences, in training order.
        round_trip: how many of the first sentences to keep for the round-trip check.
        max_sentence_bytes: SentencePiece's `max_sentence_length`: count the sentences it splits and what
            isolating jamo adds to the pieces (None for WordPiece).
    """
    summary = TextSummary(max_sentence_bytes=max_sentence_bytes)
    counter = _CharCounter()
    batch: list[str] = []
    size = 0
    stride = 1

    def flush() -> None:
        text = "".join(batch)
        counter.add(text)
        if _JAMO.search(text):
            for sentence in batch:
                if _JAMO.search(sentence):
                    _add_jamo_sentence(summary, sentence)
        batch.clear()

    for sentence in sentences:
        if summary.sentences % stride == 0:
            summary.spread.append(sentence)
            if len(summary.spread) == 2 * SPREAD_SENTENCES:
                del summary.spread[1::2]
                stride *= 2
        summary.sentences += 1
        if len(summary.round_trip) < round_trip:
            summary.round_trip.append(sentence)
        if max_sentence_bytes is not None:
            pieces = split_long_sentence(sentence, max_sentence_bytes)
            summary.long_sentences += len(pieces) > 1
            summary.pieces += len(pieces)
        batch.append(sentence)
        size += len(sentence)
        if size >= _BATCH_CHARS:
            flush()
            size = 0
    if batch:
        flush()
    summary.char_counts = counter.counts()
    return summary


class _CharCounter:
    """Counts the characters of a text, a batch of sentences at a time, with numpy."""

    def __init__(self) -> None:
        import numpy as np

        self.np = np
        self.all = np.zeros(0x110000, dtype=np.int64)

    def add(self, text: str) -> None:
        np = self.np
        # surrogatepass: a lone surrogate from a JSON escape is counted like any other character
        codes = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
        np.add(self.all, np.bincount(codes, minlength=0x110000), out=self.all)

    def counts(self) -> dict[str, int]:
        return {chr(code): int(self.all[code]) for code in self.np.flatnonzero(self.all)}


def _add_jamo_sentence(summary: TextSummary, sentence: str) -> None:
    for word in sentence.split(" "):
        if _JAMO.search(word) and word not in summary.jamo_words:
            if len(summary.jamo_words) < MAX_JAMO_WORDS:
                summary.jamo_words.add(word)
            else:
                summary.jamo_words_dropped += 1
    if summary.max_sentence_bytes is not None:
        isolated = _max_isolated_bytes(sentence, summary.max_sentence_bytes)
        summary.max_isolated_bytes = max(summary.max_isolated_bytes, isolated)


def _max_isolated_bytes(sentence: str, max_bytes: int) -> int:
    """The longest piece of `sentence` holding a jamo, once split for SentencePiece and its jamo isolated."""
    longest = 0
    for piece in split_long_sentence(sentence, max_bytes):
        jamo = len(_JAMO.findall(piece))
        if jamo:
            longest = max(longest, len(piece.encode("utf-8")) + 2 * DELIMITER_BYTES * jamo)
    return longest



def spread_stride(sentences: int) -> int:
    """The stride `summarize` ends with after `sentences`: the smallest power of two that leaves fewer than
    2 x `SPREAD_SENTENCES` sentences at its multiples (the list is halved when it reaches that)."""
    stride = 1
    while -(-sentences // stride) >= 2 * SPREAD_SENTENCES:
        stride *= 2
    return stride


@dataclasses.dataclass
class SummaryPart:
    """What `summarize` learns from a run of consecutive sentences, for `merge_parts` to join in text order.

    Attributes:
        sentences: how many sentences the run holds.
        char_codes: the code points of its characters, ascending (numpy), and `char_totals` their counts.
        spread: its sentences at the whole text's spread positions.
        round_trip: its sentences among the whole text's first `round_trip`.
        jamo_words: the first `MAX_JAMO_WORDS` distinct words holding a conjoining jamo, in order of first
            occurrence, with their occurrences; `jamo_overflow`: the occurrences of the other such words.
        long_sentences, pieces, max_isolated_bytes: as in `TextSummary`.
    """

    sentences: int = 0
    char_codes: Any = None
    char_totals: Any = None
    spread: list[str] = dataclasses.field(default_factory=list)
    round_trip: list[str] = dataclasses.field(default_factory=list)
    jamo_words: dict[str, int] = dataclasses.field(default_factory=dict)
    jamo_overflow: int = 0
    long_sentences: int = 0
    pieces: int = 0
    max_isolated_bytes: int = 0


def summarize_part(
    sentences: Iterable[str], *, first: int, stride: int, round_trip: int, max_sentence_bytes: int | None = None
) -> SummaryPart:
    """A run of sentences whose first is the text's `first`-th (0-based): the text's spread is every
    `stride`-th sentence (`spread_stride` of the text's count), its round trip the first `round_trip`."""
    part = SummaryPart()
    counter = _CharCounter()
    batch: list[str] = []
    size = 0
    for index, sentence in enumerate(sentences, first):
        part.sentences += 1
        if index % stride == 0:
            part.spread.append(sentence)
        if index < round_trip:
            part.round_trip.append(sentence)
        if max_sentence_bytes is not None:
            pieces = split_long_sentence(sentence, max_sentence_bytes)
            part.long_sentences += len(pieces) > 1
            part.pieces += len(pieces)
        batch.append(sentence)
        size += len(sentence)
        if size >= _BATCH_CHARS:
            _add_part_batch(part, counter, batch, max_sentence_bytes)
            size = 0
    _add_part_batch(part, counter, batch, max_sentence_bytes)
    part.char_codes = counter.np.flatnonzero(counter.all)
    part.char_totals = counter.all[part.char_codes]
    return part


def _add_part_batch(part: SummaryPart, counter: _CharCounter, batch: list[str], max_bytes: int | None) -> None:
    text = "".join(batch)
    counter.add(text)
    if _JAMO.search(text):
        for sentence in batch:
            if _JAMO.search(sentence):
                _add_jamo_words(part, sentence, max_bytes)
    batch.clear()


def _add_jamo_words(part: SummaryPart, sentence: str, max_bytes: int | None) -> None:
    for word in sentence.split(" "):
        if _JAMO.search(word):
            if word in part.jamo_words:
                part.jamo_words[word] += 1
            elif len(part.jamo_words) < MAX_JAMO_WORDS:
                part.jamo_words[word] = 1
            else:  # MAX_JAMO_WORDS distinct words come before it in this run alone: the text cannot keep it
                part.jamo_overflow += 1
    if max_bytes is not None:
        part.max_isolated_bytes = max(part.max_isolated_bytes, _max_isolated_bytes(sentence, max_bytes))


def merge_parts(
    parts: Iterable[SummaryPart], *, round_trip: int, max_sentence_bytes: int | None = None
) -> TextSummary:
    """The `TextSummary` of the parts' sentences read in order: what `summarize` makes of them in one pass."""
    import numpy as np

    summary = TextSummary(max_sentence_bytes=max_sentence_bytes)
    totals = np.zeros(0x110000, dtype=np.int64)
    for part in parts:
        summary.sentences += part.sentences
        np.add.at(totals, part.char_codes, part.char_totals)
        summary.spread.extend(part.spread)
        summary.round_trip.extend(part.round_trip)
        for word, occurrences in part.jamo_words.items():
            if word in summary.jamo_words:
                continue
            if len(summary.jamo_words) < MAX_JAMO_WORDS:
                summary.jamo_words.add(word)
            else:  # every occurrence of a word not kept came after the set was full
                summary.jamo_words_dropped += occurrences
        summary.jamo_words_dropped += part.jamo_overflow
        summary.long_sentences += part.long_sentences
        summary.pieces += part.pieces
        summary.max_isolated_bytes = max(summary.max_isolated_bytes, part.max_isolated_bytes)
    del summary.round_trip[round_trip:]
    summary.char_counts = {chr(code): int(totals[code]) for code in np.flatnonzero(totals)}
    return summary
