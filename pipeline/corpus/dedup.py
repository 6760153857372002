"""`ExactDedup` and `NearDedup`: the Beam wiring of deduplication, on compact digests and LSH keys only.

Both take the `meta` batches of `PrepareDocuments` (`(node, source, digest, lsh_keys, signature)` per kept
document) and return `(node, (priority, reason, survivor))` for every document that loses to another.
The pure maths (digests, MinHash, union-find) lives in `kcorpus.transforms.dedup`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics

from kcorpus.pipeline.corpus.keys import METRICS_NAMESPACE, source_of
from kcorpus.pipeline.corpus.spill import MIN_BUCKETS, BucketTables, Table, bucket_table, table_rows
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


# Rows buffered per spill file (~10-20 MB each): ~110 bytes per digest row, ~35 per LSH key, ~220 per signature.
EXACT_SPILL_ROWS, BAND_SPILL_ROWS, SIGNATURE_SPILL_ROWS = 100_000, 400_000, 60_000


def _exact_table(batch: list[Meta], scope: str, buckets: int) -> tuple[np.ndarray, Table]:
    """A row per document: scope key, digest, node; a digest's first bytes choose its bucket."""
    digests = [m[2] for m in batch]
    firsts = np.array([int.from_bytes(d[:4], "big") for d in digests], dtype=np.int64)
    table = {"sk": [scope_key(m[1], scope) for m in batch], "digest": digests, "node": [m[0] for m in batch]}
    return firsts % buckets, table


def _band_table(batch: list[Meta], scope: str, buckets: int) -> tuple[np.ndarray, Table]:
    """A row per document and band: scope key, band, LSH key, node, signature id; the key chooses the bucket."""
    if not batch:
        return np.zeros(0, dtype=np.int64), {}
    keys = np.array([m[3] for m in batch], dtype=np.int64)
    docs, bands = keys.shape
    per_doc = np.empty((2, docs), dtype=object)  # object arrays: repeated without a Python loop
    per_doc[0] = [m[0] for m in batch]
    per_doc[1] = [scope_key(m[1], scope) for m in batch]
    sig_ids = np.array([signature_id(m[4]) for m in batch], dtype=np.int64)
    table = {
        "sk": np.repeat(per_doc[1], bands),
        "band": np.tile(np.arange(bands, dtype=np.int16), docs),
        "key": keys.ravel(),
        "node": np.repeat(per_doc[0], bands),
        "sig_id": np.repeat(sig_ids, bands),
    }
    return table["key"] % buckets, table


def _signature_table(batch: list[Meta], buckets: int) -> tuple[np.ndarray, Table]:
    nodes = [m[0] for m in batch]
    return np.array([shard_of(n, buckets) for n in nodes], dtype=np.int64), {"node": nodes, "sig": [m[4] for m in batch]}


SAME, CANDIDATE = "same", "candidate"


def _codes(values: Any) -> np.ndarray:
    """A small integer per distinct value (the scope keys: one, or one per source)."""
    distinct = sorted(set(values))
    if len(distinct) <= 1:
        return np.zeros(len(values), dtype=np.int64)
    return np.searchsorted(np.array(distinct, dtype=object), np.asarray(values, dtype=object))


def lsh_groups(table: Table) -> Iterator[tuple[int, list[int]]]:
    """`(band, row numbers)` of every (scope key, band, LSH key) shared by more than one row."""
    sk = _codes(table["sk"])
    band, key = table["band"], table["key"]
    order = np.lexsort((key, band, sk))
    k, b, s = key[order], band[order], sk[order]
    same = (k[1:] == k[:-1]) & (b[1:] == b[:-1]) & (s[1:] == s[:-1])
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    ends = np.concatenate((starts[1:], [len(order)]))
    shared = ends - starts > 1
    for start, end in zip(starts[shared].tolist(), ends[shared].tolist(), strict=True):
        yield int(b[start]), order[start:end].tolist()


def _bucket_pairs(kv: tuple[int, Iterable[Any]]) -> Iterator[Any]:
    """`(kind, a, b)` for the members of every LSH bucket: `same` signatures or a `candidate` pair.

    Documents with identical signatures share every band's bucket, so their `same` pairs are emitted from
    band 0 only: the other bands would repeat them (16 copies of every exact duplicate's pair through the
    shuffle before `DistinctPairs`)."""
    table = bucket_table(kv[1])
    if not table_rows(table):
        return
    nodes, sig_ids = table["node"], table["sig_id"]
    for band, rows in lsh_groups(table):
        members = [(nodes[i], int(sig_ids[i])) for i in rows]
        if len({node for node, _ in members}) > 1:
            same, candidates = bucket_candidates(members)
            if band == 0:
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
    table = bucket_table(joined["sigs"])
    sigs = {node: sig for node, sig in zip(table.get("node", []), table.get("sig", []), strict=True) if node in wanted}
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
    table = bucket_table(kv[1])
    if not table_rows(table):
        return []
    pairs = zip(zip(table["sk"], table["digest"], strict=True), table["node"], strict=True)
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
            >> BucketTables(
                "ExactDedup/KeyByDigestBucket",
                _exact_table,
                self.scope,
                self.buckets,
                spill_dir=_spill_dir(self.tmp_dir, "exact"),
                spill_rows=EXACT_SPILL_ROWS,
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
            >> BucketTables(
                "NearDedup/KeyByBandBucket",
                _band_table,
                scope,
                4 * buckets,
                spill_dir=_spill_dir(self.tmp_dir, "bands"),
                spill_rows=BAND_SPILL_ROWS,
            )
            | "GroupByBandBucket" >> beam.GroupByKey()
            | "BucketPairs" >> metered_flat_map("NearDedup/BucketPairs", _bucket_pairs)
            | "DistinctPairs" >> beam.Distinct()
        )
        same = pairs | "SameSignature" >> beam.Filter(lambda p: p[0] == SAME)
        same_edges = same | "SameEdges" >> metered_flat_map("NearDedup/SameEdges", _same_edge).with_outputs(
            "counts", main="edges"
        )
        sigs = meta | "SignaturesByBucket" >> BucketTables(
            "NearDedup/SignaturesByBucket",
            _signature_table,
            buckets,
            spill_dir=_spill_dir(self.tmp_dir, "sigs"),
            spill_rows=SIGNATURE_SPILL_ROWS,
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
