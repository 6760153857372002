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
from kcorpus.pipeline.corpus.spill import MIN_BUCKETS, BucketRecords, bucket_records
from kcorpus.pipeline.stage_metrics import Metered, metered_flat_map
from kcorpus.transforms.dedup import (
    NearDedupConfig,
    bucket_candidates,
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

Meta = tuple[str, str, bytes, list[int], bytes]


def _exact_entries(batch: list[Meta], scope: str, buckets: int) -> Iterator[Any]:
    """`(bucket, (scope key, digest, node))` per document; a digest's first bytes choose its bucket."""
    for node, source, text_digest, _, _ in batch:
        yield int.from_bytes(text_digest[:4], "big") % buckets, (scope_key(source, scope), text_digest, node)


def _band_entries(batch: list[Meta], scope: str, buckets: int) -> Iterator[Any]:
    """`(bucket, ((scope key, band, LSH key), (node, signature id)))` per document and band."""
    for node, source, _, bands, sig in batch:
        sk = scope_key(source, scope)
        member = (node, signature_id(sig))
        for band, key in enumerate(bands):
            yield key % buckets, ((sk, band, key), member)


def _signature_entries(batch: list[Meta], buckets: int) -> Iterator[Any]:
    for node, _, _, _, sig in batch:
        yield shard_of(node, buckets), (node, sig)


SAME, CANDIDATE = "same", "candidate"


def _bucket_pairs(kv: tuple[int, Iterable[Any]]) -> Iterator[Any]:
    """`(kind, a, b)` for the members of every LSH bucket: `same` signatures or a `candidate` pair."""
    groups: dict[tuple[str, int, int], list[tuple[str, int]]] = {}
    for key, member in bucket_records(kv[1]):
        groups.setdefault(key, []).append(member)
    for members in groups.values():
        if len(members) > 1 and len({node for node, _ in members}) > 1:
            same, candidates = bucket_candidates(members)
            yield from ((SAME, a, b) for a, b in same)
            yield from ((CANDIDATE, a, b) for a, b in candidates)


def _pair_ends(pair: tuple[str, str, str], buckets: int) -> Iterator[Any]:
    """A candidate pair under the signature bucket of each of its ends (once if both share one)."""
    _, a, b = pair
    for bucket in sorted({shard_of(a, buckets), shard_of(b, buckets)}):
        yield bucket, (a, b)


def _end_signatures(kv: tuple[int, Mapping[str, Any]], buckets: int) -> Iterator[Any]:
    """Joined on a signature bucket: `((a, b), (end, signature))` for each end of a pair in the bucket."""
    bucket, joined = kv
    pairs = list(joined["pairs"])
    if not pairs:
        return
    wanted = {node for pair in pairs for node in pair if shard_of(node, buckets) == bucket}
    sigs = {node: sig for node, sig in bucket_records(joined["sigs"]) if node in wanted}
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


def _exact_losers(kv: tuple[int, Iterable[Any]]) -> list[Any]:
    pairs = (((sk, text_digest), node) for sk, text_digest, node in bucket_records(kv[1]))
    return [
        (lo, (_PRIORITY[EXACT], EXACT, su)) for ids in ids_by_key(pairs) for lo, su in duplicate_losers(ids)
    ]


def _components(edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(connected_components(edges).items())


def _spill_dir(tmp_dir: str | None, name: str) -> str | None:
    return f"{tmp_dir}/spill/{name}" if tmp_dir else None


class ExactDedup(beam.PTransform):
    """Batches of `(node, source, digest, keys, signature)` (one collection or a tuple of them) ->
    `(node, (priority, reason, survivor))` per duplicate.

    Args:
        scope: `global` or `per_source`.
        buckets: digest buckets; one worker holds one bucket's digests at a time.
        tmp_dir: with it, digests are grouped through files there (the local runner, see `spill`).
    """

    def __init__(self, scope: str, buckets: int = MIN_BUCKETS, tmp_dir: str | None = None) -> None:
        super().__init__()
        self.scope, self.buckets, self.tmp_dir = scope, buckets, tmp_dir

    def expand(self, meta: beam.PCollection | tuple[beam.PCollection, ...]) -> beam.PCollection:
        return (
            meta
            | "KeyByDigestBucket"
            >> BucketRecords(
                "ExactDedup/KeyByDigestBucket",
                _exact_entries,
                self.scope,
                self.buckets,
                spill_dir=_spill_dir(self.tmp_dir, "exact"),
            )
            | "GroupByDigestBucket" >> beam.GroupByKey()
            | "Losers" >> metered_flat_map("ExactDedup/Losers", _exact_losers)
        )


class NearDedup(beam.PTransform):
    """MinHash LSH buckets -> candidate pairs -> verified edges -> connected components -> losers.

    Members of a bucket with identical signatures are linked at once; every other pair is verified by its
    estimated Jaccard similarity, joined with the two compact signatures (128 bytes per document, grouped
    once, in buckets). Edges are few, so the components are computed in one place with a union-find whose
    result depends only on the set of edges: deterministic. Returns `{"losers": (node, (priority, reason,
    survivor)), "counts": ((source, counter), n)}` (candidate, verified and rejected pairs).

    Args:
        config: `dedup.near`.
        buckets: buckets of the signatures; the LSH keys use 4x as many (16 per document).
        tmp_dir: with it, LSH keys and signatures are grouped through files there (the local runner).
    """

    def __init__(self, config: NearDedupConfig, buckets: int = MIN_BUCKETS, tmp_dir: str | None = None) -> None:
        super().__init__()
        self.config, self.buckets, self.tmp_dir = config, buckets, tmp_dir

    def expand(self, meta: beam.PCollection | tuple[beam.PCollection, ...]) -> dict[str, beam.PCollection]:
        scope, min_jaccard, buckets = self.config.scope, self.config.min_jaccard, self.buckets
        pairs = (
            meta
            | "KeyByBandBucket"
            >> BucketRecords(
                "NearDedup/KeyByBandBucket",
                _band_entries,
                scope,
                4 * buckets,
                spill_dir=_spill_dir(self.tmp_dir, "bands"),
            )
            | "GroupByBandBucket" >> beam.GroupByKey()
            | "BucketPairs" >> metered_flat_map("NearDedup/BucketPairs", _bucket_pairs)
            | "DistinctPairs" >> beam.Distinct()
        )
        same = pairs | "SameSignature" >> beam.Filter(lambda p: p[0] == SAME)
        same_edges = same | "SameEdges" >> metered_flat_map("NearDedup/SameEdges", _same_edge).with_outputs(
            "counts", main="edges"
        )
        sigs = meta | "SignaturesByBucket" >> BucketRecords(
            "NearDedup/SignaturesByBucket", _signature_entries, buckets, spill_dir=_spill_dir(self.tmp_dir, "sigs")
        )
        ends = (
            pairs
            | "Candidates" >> beam.Filter(lambda p: p[0] == CANDIDATE)
            | "KeyByEnds" >> metered_flat_map("NearDedup/KeyByEnds", _pair_ends, buckets)
        )
        verified = (
            {"sigs": sigs, "pairs": ends}
            | "JoinSignatures" >> beam.CoGroupByKey()
            | "EndSignatures" >> metered_flat_map("NearDedup/EndSignatures", _end_signatures, buckets)
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
