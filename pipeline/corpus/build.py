"""`kcorpus build-corpus`: raw sources -> clean, deduplicated, sentence-split corpus shards.

Stages (Beam labels): `Read[<source>]` -> `PrepareDocuments` (NFC, per-source normalization, sentence
split, `clean()`, filters; batches of documents per element; kept and dropped records are spilled to
sorted run files so texts never go through a shuffle) -> `ExactDedup` and `NearDedup` (on compact digests
and LSH keys only) -> `WriteShards` (per-shard k-way merge of the runs, dedup losers routed to
`rejected/`) -> `WriteStats`. Every count in stats.json is computed from the tagged outputs, so it is exact
on every runner; Beam metrics counters with the same `<stage>:<outcome>` names are incremented too.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
import os
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from kcorpus.pipeline.config import CorpusConfig, SourceConfig
from kcorpus.pipeline.corpus.shards import AtomicTextFile, merge_runs, shard_name, write_run
from kcorpus.transforms.dedup import (
    NearDedupConfig,
    bucket_candidates,
    bucketed,
    connected_components,
    dedup_text,
    digest,
    duplicate_losers,
    estimated_jaccard,
    ids_by_key,
    lsh_keys_and_signatures,
    scope_key,
    shard_of,
    signature_id,
)
from kcorpus.transforms.prepare import DocumentPreparer, identity
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix

log = logging.getLogger(__name__)

EXACT, NEAR = "exact_duplicate", "near_duplicate"
# Exact wins over near when a document is both (its survivor is then an identical text).
_PRIORITY = {EXACT: 0, NEAR: 1}
KIND_DOCS, KIND_DROPPED = "docs", "dropped"
# Records buffered by one worker before a sorted run is spilled: bounds worker memory whatever the input.
SPILL_BYTES = 16 << 20
PROGRESS_SECONDS = 10.0
METRICS_NAMESPACE = "kcorpus.build_corpus"


def node_key(doc_id: str, source: str) -> str:
    """A document's identity across sources; string order equals (id, source) order."""
    return f"{doc_id}\x00{source}"


def sampled(node: str, rate: float) -> bool:
    """A deterministic sample of dropped records: the same records on every run and worker."""
    return int.from_bytes(digest(node, 8), "big") < rate * 2**64


def _windowed(value: Any) -> Any:
    return GlobalWindows.windowed_value(value)


class PrepareBatchFn(beam.DoFn):
    """Prepares batches of `(source, record)`; spills kept and dropped records to sorted runs.

    Main output: `((source, counter), n)` counts. Tagged outputs: `meta` (`(node, source, digest,
    lsh_keys, signature)` per kept document), `run` (`(kind, shard, path)`), `dead_letter` (`(source, DeadLetter)`).
    """

    def __init__(self, config: CorpusConfig, tmp_dir: str) -> None:
        self.config = config
        self.tmp_dir = tmp_dir

    def setup(self) -> None:
        splitter = None
        if any(s.split_sentences for s in self.config.sources) and self.config.split.backend != "none":
            from kcorpus.transforms.sentences import make_splitter

            splitter = make_splitter(self.config.split.backend)
        self.preparers = {s.name: self._preparer(s, splitter) for s in self.config.sources}
        self.sources = {s.name: s for s in self.config.sources}

    def _preparer(self, source: SourceConfig, splitter: Any) -> DocumentPreparer:
        cleaner = identity
        if source.preset != "none":
            from kcorpus.transforms.clean import make_cleaner

            cleaner = make_cleaner(source.preset, **dict(source.clean_options))
        return DocumentPreparer(
            cleaner=cleaner,
            splitter=splitter if source.split_sentences else None,
            filters=self.config.filters,
            remove_patterns=source.remove_patterns,
        )

    def start_bundle(self) -> None:
        self.buffers: dict[tuple[str, int], list[tuple[tuple[str, ...], str]]] = collections.defaultdict(list)
        self.buffered = 0
        self.docs_seen = 0
        self.bytes_seen = 0
        self.started = self.last_log = time.monotonic()

    def _spill(self, kind: str, shard: int, key: tuple[str, ...], payload: str) -> Iterator[Any]:
        self.buffers[(kind, shard)].append((key, payload))
        self.buffered += len(payload)
        if self.buffered >= SPILL_BYTES:
            yield from (beam.pvalue.TaggedOutput("run", r) for r in self._flush())

    def _flush(self) -> list[tuple[str, int, str]]:
        runs = []
        for (kind, shard), lines in sorted(self.buffers.items()):
            path = f"{self.tmp_dir}/{kind}/{shard:05d}/{uuid.uuid4().hex}.run"
            write_run(path, lines)
            runs.append((kind, shard, path))
        self.buffers.clear()
        self.buffered = 0
        return runs

    def finish_bundle(self) -> Iterator[Any]:
        for run in self._flush():
            yield beam.pvalue.TaggedOutput("run", _windowed(run))

    def process(self, batch: list[tuple[str, Any]]) -> Iterator[Any]:
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        kept: list[tuple[Document, str]] = []
        num_shards = self.config.output.num_shards
        output = self.config.output
        for source, item in batch:
            if isinstance(item, DeadLetter):
                counts[(source, "read:dead_letter")] += 1
                yield beam.pvalue.TaggedOutput("dead_letter", (source, item))
                continue
            if isinstance(item, Dropped):
                counts[(source, f"read:dropped:{item.reason}")] += 1
                yield from self._spill_dropped(item, output)
                continue
            counts[(source, "read:documents")] += 1
            self.docs_seen += 1
            try:
                prepared = self.preparers[source].prepare(item)
                payload = prepared.document.to_json() if prepared.document else ""
            except Exception as exc:  # noqa: BLE001 -- any failure of one document dead-letters it, not the run
                counts[(source, "prepare:dead_letter")] += 1
                yield beam.pvalue.TaggedOutput("dead_letter", (source, self._dead_letter(item, exc)))
                continue
            self.bytes_seen += len(item.text)
            counts[(source, "filter:sentences_in")] += prepared.sentences_in
            counts[(source, "filter:sentences_kept")] += prepared.sentences_kept
            for reason in prepared.sentence_reasons:
                counts[(source, f"filter:sentences_dropped:{reason}")] += 1
            if prepared.document is None:
                counts[(source, f"filter:dropped:{prepared.reason}")] += 1
                dropped = Dropped(item.id, source, "filter", prepared.reason or "unknown", item.text)
                yield from self._spill_dropped(dropped, output)
                continue
            counts[(source, "filter:kept")] += 1
            kept.append((prepared.document, payload))
        yield from self._emit_kept(kept, num_shards)
        for (source, name), n in sorted(counts.items()):
            Metrics.counter(METRICS_NAMESPACE, name).inc(n)
            yield (source, name), n
        self._progress()

    def _spill_dropped(self, item: Dropped, output: Any) -> Iterator[Any]:
        node = node_key(item.id, item.source)
        if output.dropped == "all" or (
            output.dropped == "sample" and sampled(node, output.dropped_sample_rate)
        ):
            shard = shard_of(node, output.num_shards)
            key = (item.id, item.source, item.stage, item.reason)
            yield from self._spill(KIND_DROPPED, shard, key, item.to_json())

    def _emit_kept(self, kept: list[tuple[Document, str]], num_shards: int) -> Iterator[Any]:
        """Digests and LSH keys for a whole batch at once (vectorized); the documents go to runs."""
        if not kept:
            return
        texts = [dedup_text(d.text) for d, _ in kept]
        near = self.config.dedup.near
        if near.enabled:
            keys, signatures = lsh_keys_and_signatures(texts, near)
        else:
            keys, signatures = [[] for _ in kept], [b"" for _ in kept]
        meta = []
        for (doc, payload), text, bands, sig in zip(kept, texts, keys, signatures, strict=True):
            node = node_key(doc.id, doc.source)
            meta.append((node, doc.source, digest(text), bands, sig))
            yield from self._spill(KIND_DOCS, shard_of(node, num_shards), (doc.id, doc.source), payload)
        yield beam.pvalue.TaggedOutput("meta", meta)

    @staticmethod
    def _dead_letter(doc: Document, exc: Exception) -> DeadLetter:
        meta = doc.metadata or {}
        line = meta.get("line")
        return DeadLetter(
            path=str(meta.get("path", doc.source)),
            reason=f"document {doc.id}: {type(exc).__name__}: {exc}",
            line=line if isinstance(line, int) else None,
            raw=raw_prefix(doc.text if isinstance(doc.text, str) else repr(doc.text)),
            stage="prepare",
        )

    def _progress(self) -> None:
        now = time.monotonic()
        if now - self.last_log >= PROGRESS_SECONDS:
            self.last_log = now
            rate = self.bytes_seen / max(now - self.started, 1e-9) / 1e6
            log.info(
                "build-corpus worker %d: %d documents prepared (%.1f M chars, %.2f M chars/s)",
                os.getpid(),
                self.docs_seen,
                self.bytes_seen / 1e6,
                rate,
            )


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


def _source_of(node: str) -> str:
    return node.partition("\x00")[2]


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
        source = _source_of(b)
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
    source = _source_of(b)
    yield from _pair_counts(source, "dedup:near_candidates")
    yield from _pair_counts(source, "dedup:near_verified")
    yield a, b


class ExactDedup(beam.PTransform):
    """Batches of `(node, source, digest, keys)` -> `(node, (priority, reason, survivor))` per duplicate."""

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def expand(self, meta: beam.PCollection) -> beam.PCollection:
        scope = self.scope
        return (
            meta
            | "KeyByDigestBucket" >> beam.FlatMap(_exact_keys, scope)
            | "GroupByDigestBucket" >> beam.GroupByKey()
            | "Losers"
            >> beam.FlatMap(
                lambda kv: [
                    (lo, (_PRIORITY[EXACT], EXACT, su))
                    for ids in ids_by_key(_flat(kv[1]))
                    for lo, su in duplicate_losers(ids)
                ]
            )
        )


class NearDedup(beam.PTransform):
    """MinHash LSH buckets -> candidate pairs -> verified edges -> connected components -> losers.

    Members of a bucket with identical signatures are linked at once; every other pair is verified by its
    estimated Jaccard similarity, joined with the two compact signatures (128 bytes per document, shuffled
    once, in buckets). Edges are few, so the components are computed in one place with a union-find whose result
    depends only on the set of edges: deterministic. Returns `{"losers": (node, (priority, reason,
    survivor)), "counts": ((source, counter), n)}` (candidate, verified and rejected pairs).
    """

    def __init__(self, config: NearDedupConfig) -> None:
        super().__init__()
        self.config = config

    def expand(self, meta: beam.PCollection) -> dict[str, beam.PCollection]:
        scope, min_jaccard = self.config.scope, self.config.min_jaccard
        pairs = (
            meta
            | "KeyByBandBucket" >> beam.FlatMap(_band_keys, scope)
            | "GroupByBandBucket" >> beam.GroupByKey()
            | "BucketPairs" >> beam.FlatMap(_bucket_pairs)
            | "DistinctPairs" >> beam.Distinct()
        )
        same = pairs | "SameSignature" >> beam.Filter(lambda p: p[0] == SAME)
        same_edges = same | "SameEdges" >> beam.ParDo(_same_edge).with_outputs("counts", main="edges")
        sigs = meta | "SignaturesByBucket" >> beam.FlatMap(_signature_buckets)
        ends = (
            pairs
            | "Candidates" >> beam.Filter(lambda p: p[0] == CANDIDATE)
            | "KeyByEnds" >> beam.FlatMap(_pair_ends)
        )
        verified = (
            {"sigs": sigs, "pairs": ends}
            | "JoinSignatures" >> beam.CoGroupByKey()
            | "EndSignatures" >> beam.FlatMap(_end_signatures)
            | "GroupPairs" >> beam.GroupByKey()
            | "VerifyPairs" >> beam.ParDo(VerifyPairsFn(min_jaccard)).with_outputs("counts", main="edges")
        )
        losers = (
            (same_edges.edges, verified.edges)
            | "AllEdges" >> beam.Flatten()
            | "EdgeList" >> beam.combiners.ToList()
            | "Components" >> beam.FlatMap(lambda edges: sorted(connected_components(edges).items()))
            | "Losers" >> beam.MapTuple(lambda lo, su: (lo, (_PRIORITY[NEAR], NEAR, su)))
        )
        counts = (same_edges.counts, verified.counts) | "PairCounts" >> beam.Flatten()
        return {"losers": losers, "counts": counts}


class WriteShardFn(beam.DoFn):
    """Merges one shard's runs into its final files; dedup losers go to `rejected/duplicates-*`."""

    def __init__(self, out_dir: str, output: Any) -> None:
        self.out_dir = out_dir
        self.output = output

    def process(
        self, element: tuple[tuple[str, int], Iterable[str]], losers: Mapping[str, Any]
    ) -> Iterator[Any]:
        (kind, shard), paths = element
        runs = sorted(p for p in paths if p)
        n = self.output.num_shards
        if kind == KIND_DROPPED:
            with AtomicTextFile(f"{self.out_dir}/rejected/{shard_name('dropped', shard, n, '.jsonl')}") as f:
                for _, payload in merge_runs(runs):
                    f.write(payload + "\n")
            return
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        docs = AtomicTextFile(f"{self.out_dir}/docs/{shard_name('part', shard, n, '.jsonl')}")
        text = AtomicTextFile(f"{self.out_dir}/text/{shard_name('part', shard, n, '.txt')}")
        dups = AtomicTextFile(f"{self.out_dir}/rejected/{shard_name('duplicates', shard, n, '.jsonl')}")
        first = True
        for (doc_id, source), payload in merge_runs(runs):
            node = node_key(doc_id, source)
            loser = losers.get(node)
            if loser is not None:
                _, reason, survivor = loser
                counts[(source, f"dedup:dropped:{reason}")] += 1
                if self._keep_dropped(node):
                    obj = json.loads(payload)
                    sid, _, ssource = survivor.partition("\x00")
                    record = {
                        "id": doc_id,
                        "source": source,
                        "stage": "dedup",
                        "reason": reason,
                        "duplicate_of": {"id": sid, "source": ssource},
                        "text": obj["text"],
                    }
                    dups.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            doc_text = json.loads(payload)["text"]
            counts[(source, "write:kept")] += 1
            counts[(source, "write:sentences")] += doc_text.count("\n") + 1
            docs.write(payload + "\n")
            text.write(("" if first else "\n") + doc_text + "\n")
            first = False
        for f in (docs, text, dups):
            f.close()
        for (source, name), value in sorted(counts.items()):
            Metrics.counter(METRICS_NAMESPACE, name).inc(value)
            yield (source, name), value

    def _keep_dropped(self, node: str) -> bool:
        mode = self.output.dropped
        return mode == "all" or (mode == "sample" and sampled(node, self.output.dropped_sample_rate))


def write_dead_letters(items: list[tuple[str, DeadLetter]], out_dir: str) -> int:
    """All dead letters, sorted, in one file (they are few; a run that makes many has a broken input)."""
    rows = []
    for source, dl in items:
        obj = dataclasses.asdict(dl)
        obj["source"] = source
        rows.append(((dl.path, dl.line or -1, dl.offset or -1, dl.stage, dl.reason, dl.raw, source), obj))
    with AtomicTextFile(f"{out_dir}/rejected/dead_letter.jsonl") as f:
        for _, obj in sorted(rows, key=lambda r: r[0]):
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return len(rows)


def summarize(counts: Mapping[tuple[str, str], int], source_names: Iterable[str]) -> dict[str, Any]:
    """stats.json from the `(source, counter) -> n` totals; `reconciled` checks every source's balance."""

    def block(counters: Mapping[str, int]) -> dict[str, Any]:
        dropped_by_reason: collections.Counter[str] = collections.Counter()
        for name, n in counters.items():
            stage, _, rest = name.partition(":")
            if rest.startswith("dropped:") and stage in ("read", "filter", "dedup"):
                dropped_by_reason[rest.removeprefix("dropped:")] += n
        dead = counters.get("read:dead_letter", 0) + counters.get("prepare:dead_letter", 0)
        inputs = (
            counters.get("read:documents", 0)
            + counters.get("read:dead_letter", 0)
            + sum(n for name, n in counters.items() if name.startswith("read:dropped:"))
        )
        kept = counters.get("write:kept", 0)
        dropped = sum(dropped_by_reason.values())
        return {
            "input": inputs,
            "kept": kept,
            "dropped": dropped,
            "dead_lettered": dead,
            "dropped_by_reason": dict(sorted(dropped_by_reason.items())),
            "sentences": counters.get("write:sentences", 0),
            "reconciled": inputs == kept + dropped + dead,
            "counters": dict(sorted(counters.items())),
        }

    per_source: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in source_names}
    total: collections.Counter[str] = collections.Counter()
    for (source, name), n in counts.items():
        per_source.setdefault(source, collections.Counter())[name] += n
        total[name] += n
    sources = {name: block(c) for name, c in sorted(per_source.items())}
    summary = block(total)
    summary["reconciled"] = summary["reconciled"] and all(s["reconciled"] for s in sources.values())
    return {"total": summary, "sources": sources}


def write_stats(
    counts: list[tuple[tuple[str, str], int]],
    out_dir: str,
    source_names: list[str],
    extra: Mapping[str, Any],
    dead_letters_written: int,
) -> dict[str, Any]:
    """Writes stats.json; a dead-letter file that disagrees with the counters un-reconciles the run."""
    stats = summarize(dict(counts), source_names)
    if dead_letters_written != stats["total"]["dead_lettered"]:
        stats["total"]["reconciled"] = False
    stats.update(extra)
    with AtomicTextFile(f"{out_dir}/stats.json") as f:
        f.write(json.dumps(stats, ensure_ascii=False, indent=2, sort_keys=False) + "\n")
    return stats


def _tag(source: str) -> Any:
    return beam.Map(lambda item, s=source: (s, item))


class PrepareDocuments(beam.PTransform):
    """`PrepareBatchFn` over one or more collections of batches -> `{counts, meta, run, dead_letter}`.

    A ParDo per input keeps the documents inside the stage that read them; only the small outputs are
    flattened (the local runner pickles and buffers every input of a multi-input Flatten).
    """

    TAGS = ("counts", "meta", "run", "dead_letter")

    def __init__(self, config: CorpusConfig, tmp_dir: str) -> None:
        super().__init__()
        self.config, self.tmp_dir = config, tmp_dir

    def expand(self, batches: tuple[beam.PCollection, ...]) -> dict[str, beam.PCollection]:
        outputs = [
            b
            | f"Prepare[{i}]"
            >> beam.ParDo(PrepareBatchFn(self.config, self.tmp_dir)).with_outputs(
                "meta", "run", "dead_letter", main="counts"
            )
            for i, b in enumerate(batches)
        ]
        if len(outputs) == 1:
            return {tag: outputs[0][tag] for tag in self.TAGS}
        return {tag: [o[tag] for o in outputs] | f"All[{tag}]" >> beam.Flatten() for tag in self.TAGS}


class BuildCorpus(beam.PTransform):
    """The whole build-corpus pipeline, applied to a `Pipeline` (PBegin)."""

    def __init__(
        self,
        config: CorpusConfig,
        out_dir: str,
        tmp_dir: str,
        *,
        batch_size: int = 1000,
        reshuffle: bool = False,
    ) -> None:
        super().__init__()
        self.config = config
        self.out_dir = out_dir
        self.tmp_dir = tmp_dir
        self.batch_size = batch_size
        self.reshuffle = reshuffle

    def _read(self, pbegin: Any) -> list[beam.PCollection]:
        """Batches of `(source, record)`: one collection for every source the fast path reads, plus one per
        other source. They are never flattened: each gets its own prepare step, fused with its reading."""
        from kcorpus.pipeline.corpus.read import ReadDocuments
        from kcorpus.pipeline.corpus.read_batches import BatchSource, ReadSourceBatches, uses_fast_path

        fast, batches = [], []
        for s in self.config.sources:
            options = dict(s.options) or None
            if uses_fast_path(s.format, options):
                fast.append(BatchSource(s.format, tuple(s.paths), options, s.name))
                continue
            outputs = pbegin | f"Read[{s.name}]" >> ReadDocuments(
                s.format, list(s.paths), options=options, source=s.name, rebalance=False
            )
            tagged = [
                outputs[k] | f"Tag[{s.name}:{k}]" >> _tag(s.name)
                for k in ("documents", "dead_letter", "dropped")
            ]
            batches.append(
                tagged
                | f"Merge[{s.name}]" >> beam.Flatten()
                | f"Batch[{s.name}]"
                >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
            )
        if fast:
            label = "Read[" + ",".join(b.source for b in fast) + "]"
            batches.insert(0, pbegin | label >> ReadSourceBatches(fast, batch_size=self.batch_size))
        return batches

    def expand(self, pbegin: Any) -> beam.PCollection:
        cfg, out = self.config, self.out_dir
        n = cfg.output.num_shards
        batches = self._read(pbegin)
        if self.reshuffle:
            batches = [b | f"Reshuffle[{i}]" >> beam.Reshuffle() for i, b in enumerate(batches)]
        prepared = tuple(batches) | "PrepareDocuments" >> PrepareDocuments(cfg, self.tmp_dir)
        losers = []
        counts = [prepared["counts"]]
        if cfg.dedup.exact.enabled:
            losers.append(prepared["meta"] | "ExactDedup" >> ExactDedup(cfg.dedup.exact.scope))
        if cfg.dedup.near.enabled:
            near = prepared["meta"] | "NearDedup" >> NearDedup(cfg.dedup.near)
            losers.append(near["losers"])
            counts.append(near["counts"])
        losers_by_node = (
            (losers or [pbegin | "NoDedup" >> beam.Create([])])
            | "AllLosers" >> beam.Flatten()
            | "OneReasonPerDocument" >> beam.CombinePerKey(min)
        )
        shards = pbegin | "AllShards" >> beam.Create(
            [((kind, s), "") for kind in (KIND_DOCS, KIND_DROPPED) for s in range(n)]
        )
        runs = prepared["run"] | "KeyRuns" >> beam.MapTuple(lambda kind, shard, path: ((kind, shard), path))
        written = (
            (shards, runs)
            | "RunsAndShards" >> beam.Flatten()
            | "GroupRunsByShard" >> beam.GroupByKey()
            | "WriteShards" >> beam.ParDo(WriteShardFn(out, cfg.output), beam.pvalue.AsDict(losers_by_node))
        )
        dead = (
            prepared["dead_letter"]
            | "AllDeadLetters" >> beam.combiners.ToList()
            | "WriteDeadLetters" >> beam.Map(write_dead_letters, out)
        )
        names = [s.name for s in cfg.sources]
        extra = {"output": {"num_shards": n, "dropped": cfg.output.dropped}}
        return (
            (*counts, written)
            | "AllCounts" >> beam.Flatten()
            | "SumCounts" >> beam.CombinePerKey(sum)
            | "CountsList" >> beam.combiners.ToList()
            | "WriteStats" >> beam.Map(write_stats, out, names, extra, beam.pvalue.AsSingleton(dead))
        )


OUTPUT_PATTERNS = ("stats.json", "text/*", "docs/*", "rejected/*")


def _existing_outputs(out_dir: str) -> list[str]:
    found = []
    for result in FileSystems.match([f"{out_dir}/{p}" for p in OUTPUT_PATTERNS]):
        found.extend(m.path for m in result.metadata_list)
    return sorted(found)


def _remove_tree(path: str) -> None:
    """Delete a temporary directory's files (and the directory itself where the filesystem has one)."""
    files = [m.path for r in FileSystems.match([f"{path}/**"]) for m in r.metadata_list]
    if files:
        FileSystems.delete(files)
    if FileSystems.exists(path):
        FileSystems.delete([path])


def run_build(
    config: CorpusConfig,
    out_dir: str,
    beam_args: list[str] | tuple[str, ...] = (),
    *,
    local_mode: str = "multi_processing",
    batch_size: int = 1000,
    reshuffle: bool = False,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Runs the pipeline to completion and returns the parsed stats.json."""
    from kcorpus.pipeline.options import make_pipeline

    out_dir = out_dir.rstrip("/")
    existing = _existing_outputs(out_dir)
    if existing and not overwrite:
        raise FileExistsError(f"{out_dir} already holds a corpus ({existing[0]}, ...); pass --overwrite")
    if existing:
        FileSystems.delete(existing)
    tmp_dir = f"{out_dir}/.tmp-build-{uuid.uuid4().hex[:12]}"
    started = time.monotonic()
    pipeline = make_pipeline(list(beam_args), local_mode=local_mode)
    _ = pipeline | "BuildCorpus" >> BuildCorpus(
        config, out_dir, tmp_dir, batch_size=batch_size, reshuffle=reshuffle
    )
    try:
        result = pipeline.run()
        result.wait_until_finish()
    finally:
        _remove_tree(tmp_dir)
    with FileSystems.open(f"{out_dir}/stats.json") as f:
        stats = json.loads(f.read().decode("utf-8"))
    _check_metrics(result, stats)
    for name, block in stats["sources"].items():
        if block["input"] == 0:
            log.warning("source %r read no records at all: check its paths and format", name)
    summary = {k: v for k, v in stats["total"].items() if k != "counters"}
    log.info("build-corpus finished in %.1f s: %s", time.monotonic() - started, summary)
    return stats


def _check_metrics(result: Any, stats: Mapping[str, Any]) -> None:
    """Beam metrics are a second opinion only: stats.json is computed from the tagged outputs."""
    try:
        counters = result.metrics().query()["counters"]
    except (AttributeError, NotImplementedError, KeyError):
        return
    metric = collections.Counter()
    for c in counters:
        if c.key.metric.namespace == METRICS_NAMESPACE:
            metric[c.key.metric.name] += c.committed or 0
    if not metric:
        log.info("the runner reported no Beam metrics; stats.json is counted from the outputs")
    elif dict(metric) != stats["total"]["counters"]:
        differ = sorted(
            k
            for k in set(metric) | set(stats["total"]["counters"])
            if metric.get(k) != stats["total"]["counters"].get(k)
        )
        log.warning(
            "Beam metrics disagree with stats.json (counted from the outputs, authoritative): %s", differ
        )
    else:
        log.info("Beam metrics agree with stats.json (%d counters)", len(metric))
