"""`ExactDedup` and `NearDedup`: the Beam wiring of deduplication, on compact digests and LSH keys only.

Both take the `meta` batches of `PrepareDocuments` (`(node, source, digest, lsh_keys, signature)` per kept
document) and return `(node, (priority, reason, survivor))` for every document that loses to another.
The pure maths (digests, MinHash, union-find) lives in `kcorpus.transforms.dedup`.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics

from kcorpus.pipeline.corpus.keys import METRICS_NAMESPACE, source_of
from kcorpus.pipeline.corpus.spill import (
    MIN_BUCKETS,
    BucketTables,
    Table,
    bucket_table,
    spill_dir,
    table_rows,
)
from kcorpus.pipeline.stage_metrics import Metered, metered_flat_map
from kcorpus.transforms.dedup import (
    EXACT,
    NEAR,
    NearDedupConfig,
    bucket_candidates,
    connected_components,
    digest,
    duplicate_losers,
    estimated_jaccards,
    ids_by_key,
    scope_key,
    signature_ids,
)
from kcorpus.transforms.sharding import shard_of

# Exact wins over near when a document is both (its survivor is then an identical text).
_PRIORITY = {EXACT: 0, NEAR: 1}

Meta = tuple[str, str, bytes, list[int], bytes]


# Rows buffered per spill file (~10-20 MB each): ~110 bytes per digest row, ~35 per LSH key, ~220 per signature.
EXACT_SPILL_ROWS, BAND_SPILL_ROWS, SIGNATURE_SPILL_ROWS = 100_000, 400_000, 60_000
# ... ~150 bytes per pair, ~300 with its first end's signature; ~250 per dedup loser (one-row tables).
PAIR_SPILL_ROWS, LOSER_SPILL_ROWS = 50_000, 20_000


def _exact_table(batch: list[Meta], scope: str, buckets: int) -> tuple[np.ndarray, Table]:
    """A row per document: scope key, digest, node; a digest's first bytes choose its bucket."""
    digests = [m[2] for m in batch]
    firsts = np.array([int.from_bytes(d[:4], "big") for d in digests], dtype=np.int64)
    table = {"sk": [scope_key(m[1], scope) for m in batch], "digest": digests, "node": [m[0] for m in batch]}
    return firsts % buckets, table


def _band_table(batch: list[Meta], scope: str, buckets: int) -> tuple[np.ndarray, Table]:
    """A row per document and band: scope code, band, LSH key, node, signature id; the key chooses the bucket.

    Every column is a numpy array of fixed-size items (nodes as UTF-8 `bytes`), so splitting by bucket and
    pickling copy buffers, never Python objects: 16 rows per document make this the heaviest shuffle."""
    if not batch:
        return np.zeros(0, dtype=np.int64), {}
    keys = np.array([m[3] for m in batch], dtype=np.int64)
    docs, bands = keys.shape
    table = {
        "scope": np.repeat(_scope_codes(batch, scope), bands),
        "band": np.tile(np.arange(bands, dtype=np.int16), docs),
        "key": keys.ravel(),
        "node": np.repeat(node_column([m[0] for m in batch]), bands),
        "sig_id": np.repeat(signature_ids([m[4] for m in batch]), bands),
    }
    return table["key"] % buckets, table


def node_column(nodes: list[str]) -> np.ndarray:
    """Node keys as a fixed-width bytes array (`nodes_of` reads them back). A node ends with its source's
    name, never with NUL, which numpy strips from the end of `bytes` items."""
    return np.array([node.encode("utf-8") for node in nodes], dtype=bytes)


def nodes_of(column: np.ndarray) -> list[str]:
    """The node keys of a `node_column` (or of some of its rows: `column[rows]`)."""
    return [value.decode("utf-8") for value in column.tolist()]


def _scope_codes(batch: list[Meta], scope: str) -> np.ndarray:
    """An int64 per document standing for its `scope_key`: a 64-bit digest of the key (one per source at most)."""
    codes = {
        source: int.from_bytes(digest(scope_key(source, scope), 8), "big", signed=True)
        for source in {m[1] for m in batch}
    }
    return np.array([codes[m[1]] for m in batch], dtype=np.int64)


def _signature_table(batch: list[Meta], buckets: int) -> tuple[np.ndarray, Table]:
    """A row per document: node and compact signature (a row of a uint8 matrix); the node chooses the bucket."""
    nodes = [m[0] for m in batch]
    ends = np.array([shard_of(n, buckets) for n in nodes], dtype=np.int64)
    sigs = np.frombuffer(b"".join(m[4] for m in batch), dtype=np.uint8).reshape(len(batch), -1)
    return ends, {"node": node_column(nodes), "sig": sigs}


SAME, CANDIDATE = "same", "candidate"


def lsh_groups(table: Table) -> Iterator[tuple[int, list[int]]]:
    """`(band, row numbers)` of every (scope, band, LSH key) shared by more than one row.

    With a `sig_id` column, only groups that can give a pair: in band 0, or with two distinct signatures
    (members with one signature share every band's bucket; `_bucket_pairs` links them from band 0)."""
    band, key, scope = table["band"], table["key"], table["scope"]
    sig = table.get("sig_id")
    # Most LSH keys occur once: sort the rows that share a key with another row only.
    by_key = np.argsort(key)
    repeated = key[by_key][1:] == key[by_key][:-1]
    shared_key = by_key[np.concatenate(([False], repeated)) | np.concatenate((repeated, [False]))]
    columns = (key, band, scope) if sig is None else (sig, key, band, scope)
    order = shared_key[np.lexsort(tuple(column[shared_key] for column in columns))]
    if not len(order):
        return
    k, b, s = key[order], band[order], scope[order]
    same = (k[1:] == k[:-1]) & (b[1:] == b[:-1]) & (s[1:] == s[:-1])
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    ends = np.concatenate((starts[1:], [len(order)]))
    wanted = ends - starts > 1
    if sig is not None:
        sorted_sig = sig[order]
        one_signature = sorted_sig[starts] == sorted_sig[ends - 1]
        wanted &= (b[starts] == 0) | ~one_signature
    for start, end in zip(starts[wanted].tolist(), ends[wanted].tolist(), strict=True):
        yield int(b[start]), order[start:end].tolist()


def _bucket_pairs(kv: tuple[int, Iterable[Any]]) -> Iterator[Any]:
    """`(kind, a, b)` for the members of every LSH bucket: `same` signatures or a `candidate` pair.

    Documents with identical signatures share every band's bucket, so their `same` pairs are emitted from
    band 0 only: the other bands would repeat them (16 copies of every exact duplicate's pair through the
    shuffle before `DistinctPairs`)."""
    table = bucket_table(kv[1])
    if not table_rows(table):
        return
    groups = list(lsh_groups(table))
    if not groups:
        return
    rows = [row for _, group in groups for row in group]
    members = list(zip(nodes_of(table["node"][rows]), table["sig_id"][rows].tolist(), strict=True))
    start = 0
    for band, group in groups:
        group_members = members[start : start + len(group)]
        start += len(group)
        if len({node for node, _ in group_members}) > 1:
            same, candidates = bucket_candidates(group_members)
            if band == 0:
                yield from ((SAME, a, b) for a, b in same)
            yield from ((CANDIDATE, a, b) for a, b in candidates)


def _pair_table(kv: tuple[int, Iterable[Any]], buckets: int) -> Iterator[tuple[np.ndarray, Table]]:
    """The pairs of one LSH-key bucket as a table (`same`, `a`, `b`), each row in the bucket of its `a`."""
    pairs = list(_bucket_pairs(kv))
    if pairs:
        kinds, a, b = zip(*pairs, strict=True)
        ends = np.array([shard_of(node, buckets) for node in a], dtype=np.int64)
        yield ends, {"same": np.array([k == SAME for k in kinds]), "a": list(a), "b": list(b)}


def _edge_table(edges: list[tuple[str, str]]) -> tuple[np.ndarray, Table]:
    """Edges as one table in bucket 0: every edge goes to the one place that links components."""
    return np.zeros(len(edges), dtype=np.int64), {"a": [a for a, _ in edges], "b": [b for _, b in edges]}


def _components(kv: tuple[int, Iterable[Any]]) -> list[tuple[str, str]]:
    table = bucket_table(kv[1])
    if not table_rows(table):
        return []
    return sorted(connected_components(zip(table["a"], table["b"], strict=True)).items())


def _as_given(element: tuple[np.ndarray, Table]) -> tuple[np.ndarray, Table]:
    return element


def _signatures(values: Iterable[Any], wanted: set[str]) -> tuple[dict[str, int], np.ndarray]:
    """The compact signatures of the `wanted` nodes in one bucket of `_signature_table` rows: `{node: row}`
    and the matrix of those rows."""
    table = bucket_table(values)
    if not table_rows(table) or not wanted:
        return {}, np.zeros((0, 0), dtype=np.uint8)
    rows = np.flatnonzero(np.isin(table["node"], node_column(sorted(wanted))))
    return {node: i for i, node in enumerate(nodes_of(table["node"][rows]))}, table["sig"][rows]


class _PairCounts:
    """Pair counters per source of the pair's second end: Beam metrics and a `counts` output, summed per call."""

    def __init__(self) -> None:
        self.counts: collections.Counter[tuple[str, str]] = collections.Counter()

    def add(self, b: str, *names: str) -> None:
        for name in names:
            self.counts[(source_of(b), name)] += 1

    def outputs(self) -> Iterator[Any]:
        for (source, name), n in sorted(self.counts.items()):
            Metrics.counter(METRICS_NAMESPACE, name).inc(n)
            yield beam.pvalue.TaggedOutput("counts", ((source, name), n))


CANDIDATES, VERIFIED, REJECTED = "dedup:near_candidates", "dedup:near_verified", "dedup:near_rejected"


class FirstEndsFn(beam.DoFn):
    """Joined on the bucket of the pairs' first ends: distinct pairs; identical-signature pairs are edges at once
    (tagged `edges`, a table; estimated Jaccard 1), every other pair goes on with its first end's signature as a table
    row in the bucket of its second end (main output). Tagged `counts`: candidate/verified pairs."""

    def __init__(self, buckets: int) -> None:
        self.buckets = buckets

    def process(self, kv: tuple[int, Mapping[str, Any]]) -> Iterator[Any]:
        _, joined = kv
        table = bucket_table(joined["pairs"])
        if not table_rows(table):
            return
        counts = _PairCounts()
        candidates, edges = [], []
        for same, a, b in sorted(set(zip(table["same"].tolist(), table["a"], table["b"], strict=True))):
            if same:
                counts.add(b, CANDIDATES, VERIFIED)
                edges.append((a, b))
            else:
                candidates.append((a, b))
        if edges:
            yield beam.pvalue.TaggedOutput("edges", _edge_table(edges))
        if candidates:
            row_of, sigs = _signatures(joined["sigs"], {a for a, _ in candidates})
            ends = np.array([shard_of(b, self.buckets) for _, b in candidates], dtype=np.int64)
            yield ends, {"a": [a for a, _ in candidates], "b": [b for _, b in candidates],
                         "sig_a": sigs[[row_of[a] for a, _ in candidates]]}
        yield from counts.outputs()


class VerifyPairsFn(beam.DoFn):
    """Joined on the bucket of the pairs' second ends: a candidate pair is an edge when the Jaccard similarity
    estimated from its two signatures reaches the threshold. Main output: the verified edges as a table
    (`_edge_table`). Tagged `counts`: candidate, verified and rejected pairs."""

    def __init__(self, min_jaccard: float) -> None:
        self.min_jaccard = min_jaccard

    def process(self, kv: tuple[int, Mapping[str, Any]]) -> Iterator[Any]:
        _, joined = kv
        table = bucket_table(joined["pairs"])
        if not table_rows(table):
            return
        row_of, sigs = _signatures(joined["sigs"], set(table["b"]))
        similar = estimated_jaccards(table["sig_a"], sigs[[row_of[b] for b in table["b"]]]) >= self.min_jaccard
        counts = _PairCounts()
        edges = []
        for a, b, verified in zip(table["a"], table["b"], similar.tolist(), strict=True):
            if verified:
                counts.add(b, CANDIDATES, VERIFIED)
                edges.append((a, b))
            else:
                counts.add(b, CANDIDATES, REJECTED)
        if edges:
            yield _edge_table(edges)
        yield from counts.outputs()


def _exact_losers(kv: tuple[int, Iterable[Any]]) -> list[Any]:
    table = bucket_table(kv[1])
    if not table_rows(table):
        return []
    pairs = zip(zip(table["sk"], table["digest"], strict=True), table["node"], strict=True)
    return [
        (lo, (_PRIORITY[EXACT], EXACT, su)) for ids in ids_by_key(pairs) for lo, su in duplicate_losers(ids)
    ]


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
                spill_dir=spill_dir(self.tmp_dir, "exact"),
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
        min_jaccard, buckets = self.config.min_jaccard, self.buckets
        pairs = self._bucket_pairs(meta)
        sigs = meta | "SignaturesByBucket" >> BucketTables(
            "NearDedup/SignaturesByBucket",
            _signature_table,
            buckets,
            spill_dir=spill_dir(self.tmp_dir, "sigs"),
            spill_rows=SIGNATURE_SPILL_ROWS,
        )
        first = (
            {"pairs": pairs, "sigs": sigs}
            | "JoinFirstEnds" >> beam.CoGroupByKey()
            | "FirstEnds"
            >> beam.ParDo(Metered("NearDedup/FirstEnds", FirstEndsFn(buckets))).with_outputs(
                "edges", "counts", main="candidates"
            )
        )
        candidates = first.candidates | "CandidatesBySecondEnd" >> BucketTables(
            "NearDedup/CandidatesBySecondEnd", _as_given, spill_dir=spill_dir(self.tmp_dir, "candidates"),
            spill_rows=PAIR_SPILL_ROWS,
        )
        verified = (
            {"pairs": candidates, "sigs": sigs}
            | "JoinSecondEnds" >> beam.CoGroupByKey()
            | "VerifyPairs"
            >> beam.ParDo(Metered("NearDedup/VerifyPairs", VerifyPairsFn(min_jaccard))).with_outputs(
                "counts", main="edges"
            )
        )
        losers = self._losers(first.edges, verified.edges)
        counts = (first.counts, verified.counts) | "PairCounts" >> beam.Flatten()
        return {"losers": losers, "counts": counts}

    def _bucket_pairs(self, meta: beam.PCollection | tuple[beam.PCollection, ...]) -> beam.PCollection:
        """The candidate pairs of every LSH band bucket, keyed by the bucket of their first end."""
        return (
            meta
            | "KeyByBandBucket"
            >> BucketTables(
                "NearDedup/KeyByBandBucket",
                _band_table,
                self.config.scope,
                4 * self.buckets,
                spill_dir=spill_dir(self.tmp_dir, "bands"),
                spill_rows=BAND_SPILL_ROWS,
            )
            | "GroupByBandBucket" >> beam.GroupByKey()
            | "BucketPairs" >> metered_flat_map("NearDedup/BucketPairs", _pair_table, self.buckets)
            | "PairsByFirstEnd"
            >> BucketTables(
                "NearDedup/PairsByFirstEnd", _as_given, spill_dir=spill_dir(self.tmp_dir, "pairs"),
                spill_rows=PAIR_SPILL_ROWS,
            )
        )

    def _losers(self, *edges: beam.PCollection) -> beam.PCollection:
        """The verified edges' connected components -> `(loser, (priority, NEAR, survivor))`."""
        return (
            edges
            | "EdgeTables"
            >> BucketTables(
                "NearDedup/EdgeTables", _as_given, spill_dir=spill_dir(self.tmp_dir, "edges"),
                spill_rows=PAIR_SPILL_ROWS,
            )
            | "AllEdges" >> beam.GroupByKey()
            | "Components" >> metered_flat_map("NearDedup/Components", _components)
            | "Losers" >> beam.MapTuple(lambda lo, su: (lo, (_PRIORITY[NEAR], NEAR, su)))
        )
