"""Names shared by the build-corpus stages: a document's node key, run kinds, the metrics namespace."""

from __future__ import annotations

from kcorpus.transforms.dedup import digest

METRICS_NAMESPACE = "kcorpus.build_corpus"
# The two kinds of sorted run files a worker spills: kept documents and dropped records.
KIND_DOCS, KIND_DROPPED = "docs", "dropped"


def node_key(doc_id: str, source: str) -> str:
    """A document's identity across sources; string order equals (id, source) order."""
    return f"{doc_id}\x00{source}"


def source_of(node: str) -> str:
    """The source half of a node key."""
    return node.partition("\x00")[2]


def sampled(node: str, rate: float) -> bool:
    """A deterministic sample of dropped records: the same records on every run and worker."""
    return int.from_bytes(digest(node, 8), "big") < rate * 2**64
