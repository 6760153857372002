"""`ExactDedup` and `NearDedup`: the Beam wiring of deduplication, on compact digests and LSH keys only.

Both take the `meta` batches of `PrepareDocuments` (`(node, source, digest, lsh_keys, signature)` per kept
document) and return `(node, (priority, reason, survivor))` for every document that loses to another.
The pure maths (digests, MinHash, union-find) lives in `kcorpus.transforms.dedup`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from kcorpus.pipeline.corpus.keys import METRICS_NAMESPACE, source_of
from kcorpus.pipeline.stage_metrics import Metered, metered_flat_map
from kcorpus.transforms.dedup import (
    NearDedupConfig,
    bucket_candidates,
    bucketed,
    connected_components,
    duplicate_losers,
    estimated_jaccard,
    ids_by_key,
    scope_key,
    signature_id,
)
from kcorpus.transforms.sharding import shard_of

EXACT, NEAR = "exact_duplicate", "near_duplicate"
# Exact wins over near when a document is both (its survivor is then an identical text).
_PRIORITY = {EXACT: 0, NEAR: 1}

# Shuffle buckets per scope: one element per (batch, bucket) instead of one per document.
DEDUP_BUCKETS = 64


Meta = tuple[str, str, bytes, list[int], bytes]


def _exact_keys(batch: list[Meta], scope: str) -> Iterator[Any]:
    by_scope: dict[str, list[tuple[bytes, str]]] = {}
    for node, source, text_digest, _, _ in batch:
        by_scope.setdefault(scope_key(source, scope), []).append((text_digest, node))
    for sk, pairs in sorted(by_scope.items()):
        for bucket, members in sorted(bucketed(pairs, DEDUP_BUCKETS).items()):
            yield (sk, bucket), members


def _band_keys(batch: list[Meta], scope: str) -> Iterator[Any]:
    by_band: dict[tuple[str, int], list[tuple[int, tuple[str, int]]]] = {}
    for node, source, _, bands, sig in batch:
        sk = scope_key(source, scope)
        member = (node, signature_id(sig))
        for band, key in enumerate(bands):
            by_band.setdefault((sk, band), []).append((key, member))
    for (sk, band), pairs in sorted(by_band.items()):
        for bucket, members in sorted(bucketed(pairs, DEDUP_BUCKETS).items()):
            yield (sk, band, bucket), members


def _flat(groups: Iterable[list[Any]]) -> Iterator[Any]:
    for group in groups:
        yield from group


# Buckets of the signature joins: one element per (batch, bucket); a bucket's signatures fit in memory.
SIGNATURE_BUCKETS = 16
SAME, CANDIDATE = "same", "candidate"


def _bucket_pairs(kv: tuple[Any, Iterable[list[tuple[int, tuple[str, int]]]]]) -> Iterator[Any]:
    """`(kind, a, b)` for the members of every LSH bucket: `same` signatures or a `candidate` pair."""
    groups: dict[int, list[tuple[str, int]]] = {}
    for key, member in _flat(kv[1]):
        groups.setdefault(key, []).append(member)
    for _, members in sorted(groups.items()):
        if len({node for node, _ in members}) > 1:
            same, candidates = bucket_candidates(members)
            yield from ((SAME, a, b) for a, b in same)
            yield from ((CANDIDATE, a, b) for a, b in candidates)


def _signature_buckets(batch: list[Meta]) -> Iterator[Any]:
    out: dict[int, list[tuple[str, bytes]]] = {}
    for node, _, _, _, sig in batch:
        out.setdefault(shard_of(node, SIGNATURE_BUCKETS), []).append((node, sig))
    yield from sorted(out.items())


def _pair_ends(pair: tuple[str, str, str]) -> Iterator[Any]:
    """A candidate pair under the signature bucket of each of its ends (once if both share one)."""
    _, a, b = pair
    buckets = {shard_of(a, SIGNATURE_BUCKETS), shard_of(b, SIGNATURE_BUCKETS)}
    for bucket in sorted(buckets):
        yield bucket, (a, b)


def _end_signatures(kv: tuple[int, Mapping[str, Any]]) -> Iterator[Any]:
    """Joined on a signature bucket: `((a, b), (end, signature))` for each end of a pair in the bucket."""
    bucket, joined = kv
    pairs = list(joined["pairs"])
    if not pairs:
        return
    wanted = {node for pair in pairs for node in pair if shard_of(node, SIGNATURE_BUCKETS) == bucket}
    sigs = {node: sig for node, sig in _flat(joined["sigs"]) if node in wanted}
    for a, b in pairs:
        for end, node in ((0, a), (1, b)):
            if node in sigs:
                yield (a, b), (end, sigs[node])


class VerifyPairsFn(beam.DoFn):
    """A candidate pair with both signatures is an edge when its estimated Jaccard reaches the threshold.

    Main output: verified edges `(a, b)`. Tagged `counts`: `((source of b, counter), 1)` per pair.
    """

    def __init__(self, min_jaccard: float) -> None:
        self.min_jaccard = min_jaccard

    def process(self, kv: tuple[tuple[str, str], Iterable[tuple[int, bytes]]]) -> Iterator[Any]:
        (a, b), ends = kv
        sigs = dict(ends)
        source = source_of(b)
        yield from _pair_counts(source, "dedup:near_candidates")
        if estimated_jaccard(sigs[0], sigs[1]) >= self.min_jaccard:
            yield from _pair_counts(source, "dedup:near_verified")
            yield a, b
        else:
            yield from _pair_counts(source, "dedup:near_rejected")


def _pair_counts(source: str, name: str) -> Iterator[Any]:
    Metrics.counter(METRICS_NAMESPACE, name).inc()
    yield beam.pvalue.TaggedOutput("counts", ((source, name), 1))


def _same_edge(kind_edge: tuple[str, str, str]) -> Iterator[Any]:
    """An identical-signature pair: a candidate and a verified edge at once (estimated Jaccard 1)."""
    _, a, b = kind_edge
    source = source_of(b)
    yield from _pair_counts(source, "dedup:near_candidates")
    yield from _pair_counts(source, "dedup:near_verified")
    yield a, b


def _exact_losers(kv: tuple[Any, Iterable[list[tuple[bytes, str]]]]) -> list[Any]:
    return [
        (lo, (_PRIORITY[EXACT], EXACT, su))
        for ids in ids_by_key(_flat(kv[1]))
        for lo, su in duplicate_losers(ids)
    ]


def _components(edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(connected_components(edges).items())


class ExactDedup(beam.PTransform):
    """Batches of `(node, source, digest, keys)` -> `(node, (priority, reason, survivor))` per duplicate."""

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def expand(self, meta: beam.PCollection) -> beam.PCollection:
        scope = self.scope
        return (
            meta
            | "KeyByDigestBucket" >> metered_flat_map("ExactDedup/KeyByDigestBucket", _exact_keys, scope)
            | "GroupByDigestBucket" >> beam.GroupByKey()
            | "Losers" >> metered_flat_map("ExactDedup/Losers", _exact_losers)
        )


class NearDedup(beam.PTransform):
    """MinHash LSH buckets -> candidate pairs -> verified edges -> connected components -> losers.

    Members of a bucket with identical signatures are linked at once; every other pair is verified by its
    estimated Jaccard similarity, joined with the two compact signatures (128 bytes per document, shuffled
    once, in buckets). Edges are few, so the components are computed in one place with a union-find whose
    result depends only on the set of edges: deterministic. Returns `{"losers": (node, (priority, reason,
    survivor)), "counts": ((source, counter), n)}` (candidate, verified and rejected pairs).
    """

    def __init__(self, config: NearDedupConfig) -> None:
        super().__init__()
        self.config = config

    def expand(self, meta: beam.PCollection) -> dict[str, beam.PCollection]:
        scope, min_jaccard = self.config.scope, self.config.min_jaccard
        pairs = (
            meta
            | "KeyByBandBucket" >> metered_flat_map("NearDedup/KeyByBandBucket", _band_keys, scope)
            | "GroupByBandBucket" >> beam.GroupByKey()
            | "BucketPairs" >> metered_flat_map("NearDedup/BucketPairs", _bucket_pairs)
            | "DistinctPairs" >> beam.Distinct()
        )
        same = pairs | "SameSignature" >> beam.Filter(lambda p: p[0] == SAME)
        same_edges = same | "SameEdges" >> metered_flat_map("NearDedup/SameEdges", _same_edge).with_outputs(
            "counts", main="edges"
        )
        sigs = meta | "SignaturesByBucket" >> metered_flat_map(
            "NearDedup/SignaturesByBucket", _signature_buckets
        )
        ends = (
            pairs
            | "Candidates" >> beam.Filter(lambda p: p[0] == CANDIDATE)
            | "KeyByEnds" >> metered_flat_map("NearDedup/KeyByEnds", _pair_ends)
        )
        verified = (
            {"sigs": sigs, "pairs": ends}
            | "JoinSignatures" >> beam.CoGroupByKey()
            | "EndSignatures" >> metered_flat_map("NearDedup/EndSignatures", _end_signatures)
            | "GroupPairs" >> beam.GroupByKey()
            | "VerifyPairs"
            >> beam.ParDo(Metered("NearDedup/VerifyPairs", VerifyPairsFn(min_jaccard))).with_outputs(
                "counts", main="edges"
            )
        )
        losers = (
            (same_edges.edges, verified.edges)
            | "AllEdges" >> beam.Flatten()
            | "EdgeList" >> beam.combiners.ToList()
            | "Components" >> metered_flat_map("NearDedup/Components", _components)
            | "Losers" >> beam.MapTuple(lambda lo, su: (lo, (_PRIORITY[NEAR], NEAR, su)))
        )
        counts = (same_edges.counts, verified.counts) | "PairCounts" >> beam.Flatten()
        return {"losers": losers, "counts": counts}
