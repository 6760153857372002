"""Examples of what every rule did: a deterministic, bounded sample of before/after texts per rule.

A build records, for each rewrite rule (`clean`, `remove_patterns`, and any rule that reports its rewrites
through `transforms.prepare.rewritten`), each sentence filter, each document drop reason (filters,
decontamination, dedup), the `EXAMPLES_PER_RULE` examples with the smallest sample key: a blake2b digest of
the rule and the document id, so the sample is the same on every runner and worker, whatever the bundling,
and merging the samples of many workers gives the sample of the whole run. Long texts are cut to a window
around their first difference, so an example stays readable and the output stays small.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
from collections.abc import Iterable, Iterator

EXAMPLES_PER_RULE = 10
EXCERPT_CHARS = 300
# Characters kept before the first difference when a long rewrite is cut.
CONTEXT_CHARS = 60
REWRITE, SENTENCE_DROP, DOCUMENT_DROP = "rewrite", "sentence_drop", "document_drop"
KINDS = (REWRITE, SENTENCE_DROP, DOCUMENT_DROP)
DUPLICATE_OF, DUPLICATE_IN = "duplicate of ", " in "


@dataclasses.dataclass(frozen=True, order=True)
class Example:
    """One before/after pair of one rule; `after` is "" for a drop, `note` says more (`duplicate of a:04`)."""

    kind: str
    rule: str
    key: bytes
    id: str
    source: str
    before: str
    after: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "id": self.id,
            "source": self.source,
            "before": self.before,
            "after": self.after,
            "note": self.note,
        }


def sample_key(kind: str, rule: str, doc_id: str, source: str, ordinal: int = 0) -> bytes:
    """The sort key of an example: the same for the same rule, document and position on every machine."""
    text = f"{kind}\x00{rule}\x00{source}\x00{doc_id}\x00{ordinal}"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()


def duplicate_note(doc_id: str, source: str) -> str:
    """The note of a dedup drop, naming the kept document it duplicates: `duplicate of a:04 in nsmc`."""
    return f"{DUPLICATE_OF}{doc_id}{DUPLICATE_IN}{source}"


def parse_duplicate_note(note: str) -> tuple[str, str] | None:
    """(id, source) of the kept document a `duplicate_note` names, or None for another note."""
    if not note.startswith(DUPLICATE_OF) or DUPLICATE_IN not in note:
        return None
    doc_id, _, source = note.removeprefix(DUPLICATE_OF).rpartition(DUPLICATE_IN)
    return doc_id, source


def excerpt(before: str, after: str, width: int = EXCERPT_CHARS) -> tuple[str, str]:
    """`before` and `after` cut to `width` characters around their first difference ("…" marks a cut)."""
    if len(before) <= width and len(after) <= width:
        return before, after
    first = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    start = max(0, first - CONTEXT_CHARS)

    def cut(text: str) -> str:
        part = text[start : start + width]
        return ("…" if start else "") + part + ("…" if start + width < len(text) else "")

    return cut(before), cut(after)


def make_example(
    kind: str, rule: str, doc_id: str, source: str, before: str, after: str = "", *, ordinal: int = 0,
    note: str = "",
) -> Example:  # fmt: skip
    """An example with its sample key and its texts cut to `EXCERPT_CHARS`."""
    before, after = excerpt(before, after)
    return Example(
        kind, rule, sample_key(kind, rule, doc_id, source, ordinal), doc_id, source, before, after, note
    )


class ExampleSampler:
    """Keeps the `per_rule` examples with the smallest keys for each (kind, rule): bounded memory."""

    def __init__(self, per_rule: int = EXAMPLES_PER_RULE) -> None:
        self.per_rule = per_rule
        self._heaps: dict[tuple[str, str], list[tuple[bytes, int, Example]]] = {}
        self._added = 0

    def wants(self, kind: str, rule: str, key: bytes) -> bool:
        """Whether an example with this key would be kept now (check before building a costly one)."""
        heap = self._heaps.get((kind, rule))
        return heap is None or len(heap) < self.per_rule or key < _unneg(heap[0][0])

    def offer(self, example: Example) -> None:
        heap = self._heaps.setdefault((example.kind, example.rule), [])
        item = (_neg(example.key), self._added, example)  # a max-heap of keys: the largest is dropped first
        self._added += 1
        if len(heap) < self.per_rule:
            heapq.heappush(heap, item)
        elif example.key < _unneg(heap[0][0]):
            heapq.heapreplace(heap, item)

    def note(
        self, kind: str, rule: str, doc_id: str, source: str, before: str, after: str = "", *, ordinal: int = 0,
        note: str = "",
    ) -> None:  # fmt: skip
        """Offers an example, building it only when its key would be kept."""
        if self.wants(kind, rule, sample_key(kind, rule, doc_id, source, ordinal)):
            self.offer(make_example(kind, rule, doc_id, source, before, after, ordinal=ordinal, note=note))

    def drain(self) -> list[Example]:
        """Every kept example (sorted), and an empty sampler."""
        out = sorted(e for heap in self._heaps.values() for _, _, e in heap)
        self._heaps.clear()
        return out


_INVERTED_BYTES = bytes(range(255, -1, -1))


def _neg(key: bytes) -> bytes:
    """The key with every byte inverted: heapq's min-heap of these is a max-heap of the keys."""
    return key.translate(_INVERTED_BYTES)


_unneg = _neg


def smallest_per_rule(examples: Iterable[Example], per_rule: int = EXAMPLES_PER_RULE) -> list[Example]:
    """The whole run's sample from the samples of its workers: sorted by kind, rule, key."""
    sampler = ExampleSampler(per_rule)
    for example in examples:
        sampler.offer(example)
    return sampler.drain()


def by_rule(examples: Iterable[Example | dict]) -> Iterator[tuple[tuple[str, str], list[dict]]]:
    """Examples (objects or their dicts) grouped by (kind, rule), in file order."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for example in examples:
        row = example.to_dict() if isinstance(example, Example) else example
        groups.setdefault((row["kind"], row["rule"]), []).append(row)
    yield from groups.items()
