"""Names shared by the build-corpus stages: a document's keys, run kinds, the metrics namespace.

A document has two keys. Its *document key* (`document_key`: id and source) chooses its shard and whether a
sample keeps its rejected record. Its *node* (`node_key`: id, source and a digest of the prepared record) is
its identity in dedup: ids are the user's and need not be unique (a re-delivered file, two monthly dumps of
one wiki), so two records that share an id are still two nodes unless they are the very same record.
"""

from __future__ import annotations

from kcorpus.transforms.dedup import digest

METRICS_NAMESPACE = "kcorpus.build_corpus"
# The two kinds of sorted run files a worker spills: kept documents and dropped records.
KIND_DOCS, KIND_DROPPED = "docs", "dropped"
# The counter of kept documents whose id and source a kept document before them has (a different record).
SHARED_ID = "write:kept_shared_id"


def document_key(doc_id: str, source: str) -> str:
    """A document's id across sources; string order equals (id, source) order."""
    return f"{doc_id}\x00{source}"


def record_digest(payload: str) -> str:
    """A prepared record's digest (16 hex digits): equal only for the same record, whatever file it came from."""
    return digest(payload, 8).hex()


def node_key(doc_id: str, source: str, record: str) -> str:
    """A document's identity in dedup: its `document_key` and its `record_digest`, in that string order (so the
    smallest node of a cluster is its smallest id, as ever). It never ends with NUL."""
    return f"{doc_id}\x00{source}\x00{record}"


def split_node(node: str) -> tuple[str, str]:
    """The `(id, source)` of a node key."""
    doc_id, _, rest = node.partition("\x00")
    return doc_id, rest.rpartition("\x00")[0]


def document_of(node: str) -> str:
    """The `document_key` of a node key."""
    return node.rpartition("\x00")[0]


def source_of(node: str) -> str:
    """The source of a node key."""
    return split_node(node)[1]


def sampled(key: str, rate: float) -> bool:
    """A deterministic sample of dropped records (by document key): the same records on every run and worker."""
    return int.from_bytes(digest(key, 8), "big") < rate * 2**64
