"""What `kcorpus audit` reads: a seeded, deterministic sample of records per group, and word-level diffs.

The sample keeps, per group (a source, a drop rule), the records with the smallest rank: a blake2b digest of
the seed, the group and the record's id, so the sample depends only on the seed and the corpus, not on the
order of shards or lines, and a larger `n` only adds records. The diff compares a kept document with its
input eojeol by eojeol (whitespace-separated words, line breaks aside: splitting a paragraph into sentences
is no change), so what cleaning and the rules removed or rewrote shows as words, not as moved lines.
"""

from __future__ import annotations

import difflib
import hashlib
import heapq
from collections.abc import Hashable
from typing import Any

EQUAL, DELETE, INSERT = "=", "-", "+"
# Unchanged words shown around a change; a longer unchanged run is cut to its ends.
CONTEXT_WORDS = 12


def rank(seed: int, group: str, record_id: str) -> bytes:
    """The sort key of a record in its group's sample."""
    return hashlib.blake2b(f"{seed}\x00{group}\x00{record_id}".encode(), digest_size=8).digest()


class GroupSample:
    """The `n` records of smallest rank in each group, fed one record at a time (memory: `n` per group)."""

    def __init__(self, n: int, seed: int) -> None:
        self.n, self.seed = n, seed
        self.heaps: dict[Hashable, list[tuple[bytes, int, Any]]] = {}
        self.seen: dict[Hashable, int] = {}
        self._order = 0  # breaks ties of equal ranks (the same id twice) by arrival, never by the record

    def add(self, group: Hashable, record_id: str, record: Any) -> None:
        self.seen[group] = self.seen.get(group, 0) + 1
        if self.n <= 0:
            return
        heap = self.heaps.setdefault(group, [])
        # A max-heap of the n smallest ranks, through negated bytes.
        key = bytes(255 - b for b in rank(self.seed, str(group), record_id))
        self._order += 1
        item = (key, -self._order, record)
        if len(heap) < self.n:
            heapq.heappush(heap, item)
        elif item > heap[0]:
            heapq.heapreplace(heap, item)

    def groups(self) -> dict[Hashable, list[Any]]:
        """Every group's sample, smallest rank first; groups in sorted order."""
        return {
            group: [record for _, _, record in sorted(self.heaps.get(group, []), reverse=True)]
            for group in sorted(self.seen, key=str)
        }


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """`(op, words)` runs that turn the words of `before` into those of `after`: `=` kept, `-` removed,
    `+` added (a rewritten word is a `-` run then a `+` run)."""
    a, b = before.split(), after.split()
    runs: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            runs.append((EQUAL, " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append((DELETE, " ".join(a[i1:i2])))
        if j2 > j1:
            runs.append((INSERT, " ".join(b[j1:j2])))
    return runs


def condensed(runs: list[tuple[str, str]], context: int = CONTEXT_WORDS) -> list[tuple[str, str]]:
    """`runs` with every unchanged run longer than two contexts cut to its ends (`…` in between); the first
    run keeps only its end, the last only its start; a text without change keeps its first `4 * context`
    words."""
    out: list[tuple[str, str]] = []
    for i, (op, text) in enumerate(runs):
        words = text.split()
        if op != EQUAL:
            out.append((op, text))
            continue
        first, last = i == 0, i == len(runs) - 1
        if first and last:
            keep = 4 * context
            out.append((EQUAL, " ".join(words[:keep]) + (" …" if len(words) > keep else "")))
        elif first and len(words) > context:
            out.append((EQUAL, "… " + " ".join(words[-context:])))
        elif last and len(words) > context:
            out.append((EQUAL, " ".join(words[:context]) + " …"))
        elif len(words) > 2 * context + 1:
            out.append((EQUAL, " ".join(words[:context]) + " … " + " ".join(words[-context:])))
        else:
            out.append((EQUAL, text))
    return out


def diff_counts(runs: list[tuple[str, str]]) -> dict[str, int]:
    """Words kept, removed and added, and the characters (spaces aside) removed and added."""
    counts = {"kept_words": 0, "removed_words": 0, "added_words": 0, "removed_chars": 0, "added_chars": 0}
    for op, text in runs:
        words = text.split()
        if op == EQUAL:
            counts["kept_words"] += len(words)
        elif op == DELETE:
            counts["removed_words"] += len(words)
            counts["removed_chars"] += sum(map(len, words))
        else:
            counts["added_words"] += len(words)
            counts["added_chars"] += sum(map(len, words))
    return counts
