"""`PrepareBatchFn`: batches of read records -> prepared documents spilled to sorted runs, plus dedup keys.

Each batch is normalized, sentence-split, cleaned and filtered (`DocumentPreparer`); kept and dropped records
are spilled to sorted runs so texts never go through a shuffle (`PrepareUnitFn`, prepare_units.py, writes them
into its unit's data file), and only compact digests, LSH keys and signatures (`meta`) travel on to the dedup
stages.
"""

from __future__ import annotations

import collections
import gc
import logging
import os
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from kcorpus.pipeline.corpus.config import CorpusConfig, SourceConfig
from kcorpus.pipeline.corpus.keys import (
    KIND_DOCS,
    KIND_DROPPED,
    METRICS_NAMESPACE,
    document_key,
    node_key,
    record_digest,
    sampled,
)
from kcorpus.pipeline.corpus.runs import RECORDS, RunRecord, carried_text
from kcorpus.pipeline.external_sort import write_run
from kcorpus.transforms.dedup import dedup_text, digest, fold_digits, lsh_keys_and_signatures
from kcorpus.transforms.examples import DOCUMENT_DROP, REWRITE, SENTENCE_DROP, ExampleSampler
from kcorpus.transforms.prepare import DocumentPreparer, Prepared, identity
from kcorpus.transforms.readers.options import as_options
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix
from kcorpus.transforms.rules.decontaminate import CONTAMINATED, EvalIndex, decontaminate
from kcorpus.transforms.sharding import shard_of
from kcorpus.transforms.text.removals import Removed, holds_hangul

log = logging.getLogger(__name__)

# The `details` of a sentence removed from a kept document (document drops carry no `level`), and of a span
# a removal took out of one.
SENTENCE_LEVEL = {"level": "sentence"}
SPAN_LEVEL = {"level": "span"}
# Records buffered by one worker before a sorted run is spilled: bounds worker memory whatever the input.
SPILL_BYTES = 16 << 20
PROGRESS_SECONDS = 10.0


def _windowed(value: Any) -> Any:
    return GlobalWindows.windowed_value(value)


class PrepareBatchFn(beam.DoFn):
    """Prepares batches of `(source, record)`; spills kept and dropped records to sorted runs.

    Main output: `((source, counter), n)` counts. Tagged outputs: `meta` (`(node, source, digest,
    lsh_keys, signature)` per kept document), `run` (`(kind, shard, path)`), `dead_letter`
    (`(source, DeadLetter)`), `examples` (the bundle's sample of rewrites and drops, `Example`s).
    """

    # Whether `process` increments the Beam counters itself (a unit's counts are counted when it is replayed).
    counts_metrics = True

    def __init__(self, config: CorpusConfig, tmp_dir: str) -> None:
        self.config = config
        self.tmp_dir = tmp_dir

    def setup(self) -> None:
        splitter = None
        if any(s.split_sentences for s in self.config.sources) and self.config.split.backend != "none":
            from kcorpus.transforms.text.split import make_splitter

            splitter = make_splitter(self.config.split.backend)
        self.preparers = {s.name: self._preparer(s, splitter) for s in self.config.sources}
        self.sources = {s.name: s for s in self.config.sources}
        self.folded = {s.name for s in self.config.sources if _folds_digits(s)}
        # What a worker holds by now (Beam, its imports, the compiled rules) lives as long as the worker: out
        # of the collector's sight, its full collections no longer walk it again and again while every
        # document allocates (they cost ~10% of this stage's CPU on comments). Reference counting still frees
        # these objects; only a cycle among them would stay.
        gc.freeze()

    def _preparer(self, source: SourceConfig, splitter: Any) -> DocumentPreparer:
        cleaner = identity
        if source.preset != "none":
            from kcorpus.transforms.text.clean import make_cleaner

            cleaner = make_cleaner(source.preset, **dict(source.clean_options))
        reader = reader_for(source.format)
        default_sets = reader.boilerplate_for
        return DocumentPreparer(
            cleaner=cleaner,
            splitter=splitter if source.split_sentences else None,
            filters=self.config.filters_for(source.name),
            remove_patterns=source.remove_patterns,
            boilerplate=default_sets if source.boilerplate is None else source.boilerplate,
            title_line=reader.title_line(as_options(dict(source.options))),
        )

    def start_bundle(self) -> None:
        self.buffers: dict[tuple[str, int], list[RunRecord]] = collections.defaultdict(list)
        self.buffered = 0
        self.examples = ExampleSampler()
        self.docs_seen = 0
        self.bytes_seen = 0
        self.started = self.last_log = time.monotonic()

    def _spill(self, kind: str, shard: int, record: RunRecord, chars: int) -> bool:
        """Buffers `(key, payload, ...)` (`chars` long) for a run file; True once the buffers hold `SPILL_BYTES`
        (the caller then yields `_spilled()`: a plain call per record, not a generator)."""
        self.buffers[(kind, shard)].append(record)
        self.buffered += chars
        return self.buffered >= SPILL_BYTES

    def _spilled(self) -> Iterator[Any]:
        """Every buffer written to a run file, as `run` outputs."""
        for run in self._flush():
            yield beam.pvalue.TaggedOutput("run", run)

    def _flush(self) -> list[tuple[str, int, str]]:
        runs = []
        for (kind, shard), lines in sorted(self.buffers.items()):
            path = f"{self.tmp_dir}/{kind}/{shard:05d}/{uuid.uuid4().hex}.run"
            write_run(path, sorted(lines), RECORDS)
            runs.append((kind, shard, path))
        self.buffers.clear()
        self.buffered = 0
        return runs

    def finish_bundle(self) -> Iterator[Any]:
        for run in self._flush():
            yield beam.pvalue.TaggedOutput("run", _windowed(run))
        for example in self.examples.drain():
            yield beam.pvalue.TaggedOutput("examples", _windowed(example))

    def _note_examples(self, doc: Document, prepared: Any) -> None:
        for i, (rule, before, after) in enumerate(prepared.examples):
            self.examples.note(REWRITE, rule, doc.id, doc.source, before, after, ordinal=i)
        for i, (reason, sentence) in enumerate(zip(prepared.sentence_reasons, prepared.dropped_sentences)):
            self.examples.note(SENTENCE_DROP, reason, doc.id, doc.source, sentence, ordinal=i)

    def process(self, batch: list[tuple[str, Any]], eval_index: EvalIndex | None = None) -> Iterator[Any]:
        # Counts per source, by counter name: string keys, no tuple built and hashed per increment.
        tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        kept: list[tuple[Document, str]] = []
        raw_texts: list[str] = []
        num_shards = self.config.output.num_shards
        output = self.config.output
        docs_seen = bytes_seen = 0  # for the progress log, added once per batch
        for source, item in batch:
            counts = tally[source]
            if isinstance(item, DeadLetter):
                counts["read:dead_letter"] += 1
                yield beam.pvalue.TaggedOutput("dead_letter", (source, item))
                continue
            if isinstance(item, Dropped):
                counts[f"read:dropped:{item.reason}"] += 1
                self.examples.note(DOCUMENT_DROP, item.reason, item.id, source, item.text)
                yield from self._spill_dropped(item, output)
                continue
            counts["read:documents"] += 1
            docs_seen += 1
            try:
                prepared = self.preparers[source].prepare(item)
                payload = prepared.document.to_json() if prepared.document else ""
            except Exception as exc:  # noqa: BLE001 -- any failure of one document dead-letters it, not the run
                counts["prepare:dead_letter"] += 1
                yield beam.pvalue.TaggedOutput("dead_letter", (source, self._dead_letter(item, exc)))
                continue
            bytes_seen += len(item.text)
            if prepared.examples or prepared.sentence_reasons:
                self._note_examples(item, prepared)
            _count_prepared(counts, len(item.text), prepared)
            if prepared.document is None:
                counts[f"filter:dropped:{prepared.reason}"] += 1
                dropped = Dropped(item.id, source, "filter", prepared.reason or "unknown", item.text)
                self.examples.note(DOCUMENT_DROP, dropped.reason, item.id, source, item.text)
                yield from self._spill_dropped(dropped, output)
                continue
            counts["filter:kept"] += 1
            if prepared.sentence_reasons:
                yield from self._sentence_drops(
                    item, prepared.sentence_reasons, prepared.dropped_sentences, counts
                )
            if prepared.removed:
                yield from self._span_removals(item, prepared.removed, counts)
            kept.append((prepared.document, payload))
            raw_texts.append(item.text)
        self.docs_seen += docs_seen
        self.bytes_seen += bytes_seen
        if eval_index is not None:
            kept = yield from self._decontaminate(kept, raw_texts, eval_index, tally)
        yield from self._emit_kept(kept, num_shards)
        yield from self._emit_counts(tally)
        self._progress()

    def _emit_counts(self, tally: dict[str, collections.Counter[str]]) -> Iterator[Any]:
        """A batch's counts per (source, counter), sorted; Beam counters too where this step keeps them."""
        for (source, name), n in _sorted_counts(tally):
            if self.counts_metrics:
                Metrics.counter(METRICS_NAMESPACE, name).inc(n)
            yield (source, name), n

    def _decontaminate(
        self,
        kept: list[tuple[Document, str]],
        raw_texts: list[str],
        index: EvalIndex,
        tally: dict[str, collections.Counter[str]],
    ) -> Iterator[Any]:
        """Drops (or redacts) the documents that contain an evaluation text; returns those kept."""
        config = self.config.dedup.decontaminate
        out = []
        outcomes = decontaminate([d for d, _ in kept], index, config)
        for (doc, payload), raw, (after, match) in zip(kept, raw_texts, outcomes, strict=True):
            counts = tally[doc.source]
            counts["decontaminate:checked"] += 1
            if match is None:
                out.append((doc, payload))
                continue
            if after is None:
                counts[f"decontaminate:dropped:{CONTAMINATED}"] += 1
                details = {"contaminated_by": match.evidence(doc.text, config)}
                evidence = details["contaminated_by"]
                note = f"{evidence['id']} ({evidence['match']})"
                self.examples.note(
                    DOCUMENT_DROP, CONTAMINATED, doc.id, doc.source, evidence["text"], note=note
                )
                dropped = Dropped(doc.id, doc.source, "decontaminate", CONTAMINATED, raw, details)
                yield from self._spill_dropped(dropped, self.config.output)
                continue
            counts["decontaminate:redacted"] += 1
            counts["decontaminate:redacted_lines"] += len(match.lines)
            self.examples.note(REWRITE, "decontaminate", doc.id, doc.source, doc.text, after.text)
            out.append((after, after.to_json()))
        return out

    def _sentence_drops(
        self,
        doc: Document,
        reasons: Sequence[str],
        sentences: Sequence[str],
        counts: collections.Counter[str],
    ) -> Iterator[Any]:
        """The sentences that left a kept document: counted (`filter:sentences_removed:<reason>` and their
        characters, `filter:chars_removed:<reason>`) and written to `rejected/` with `"level": "sentence"`,
        sampled with their document (the same node key)."""
        for reason, sentence in zip(reasons, sentences, strict=True):
            counts[f"filter:sentences_removed:{reason}"] += 1
            counts[f"filter:chars_removed:{reason}"] += len(sentence)
            dropped = Dropped(doc.id, doc.source, "filter", reason, sentence, SENTENCE_LEVEL)
            yield from self._spill_dropped(dropped, self.config.output)

    def _span_removals(
        self, doc: Document, removed: Sequence[Removed], counts: collections.Counter[str]
    ) -> Iterator[Any]:
        """The spans rewrites, boilerplate rules and the cleaner took out of (or replaced in) a kept document:
        counted per rule (`<stage>:spans_removed:<rule>`, and the characters they took,
        `<stage>:chars_removed:<rule>`); a removal that took Hangul is written to `rejected/` with `"level":
        "span"` (stage and rule as in its counter, the text it took), sampled with its document."""
        for name, before, after in removed:
            stage, _, rule = name.partition(":")
            counts[f"{stage}:spans_removed:{rule}"] += 1
            counts[f"{stage}:chars_removed:{rule}"] += max(len(before) - len(after.strip()), 0)
            if not after.strip() and holds_hangul(before):
                dropped = Dropped(doc.id, doc.source, stage, rule, before, SPAN_LEVEL)
                yield from self._spill_dropped(dropped, self.config.output)

    def _spill_dropped(self, item: Dropped, output: Any) -> Iterator[Any]:
        doc_key = document_key(item.id, item.source)
        if output.dropped == "all" or (
            output.dropped == "sample" and sampled(doc_key, output.dropped_sample_rate)
        ):
            shard = shard_of(doc_key, output.num_shards)
            key = (item.id, item.source, item.stage, item.reason)
            payload = item.to_json()
            if self._spill(KIND_DROPPED, shard, (key, payload), len(payload)):
                yield from self._spilled()

    def _emit_kept(self, kept: list[tuple[Document, str]], num_shards: int) -> Iterator[Any]:
        """Digests and LSH keys for a whole batch at once (vectorized); the documents go to runs."""
        if not kept:
            return
        texts = [dedup_text(d.text) for d, _ in kept]
        near = self.config.dedup.near
        if near.enabled:
            folded = self.folded
            shingled = [
                fold_digits(t) if d.source in folded else t for (d, _), t in zip(kept, texts, strict=True)
            ]
            keys, signatures = lsh_keys_and_signatures(shingled, near)
        else:
            keys, signatures = [[] for _ in kept], [b"" for _ in kept]
        meta = []
        for (doc, payload), text, bands, sig in zip(kept, texts, keys, signatures, strict=True):
            record_id = record_digest(payload)
            meta.append((node_key(doc.id, doc.source, record_id), doc.source, digest(text), bands, sig))
            record = ((doc.id, doc.source, record_id), payload, carried_text(doc.text, self.config.output.text))
            shard = shard_of(document_key(doc.id, doc.source), num_shards)
            if self._spill(KIND_DOCS, shard, record, len(payload) + len(doc.text)):
                yield from self._spilled()
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


def _folds_digits(source: SourceConfig) -> bool:
    """Whether near dedup folds this source's numbers: its `fold_digits`, or its format's default."""
    return reader_for(source.format).fold_digits if source.fold_digits is None else source.fold_digits



def _count_prepared(counts: collections.Counter[str], characters: int, prepared: Prepared) -> None:
    """A prepared document's counters: its characters as read (the report's "chars in", before cleaning), its
    sentences in, kept and dropped by reason, its rewrites."""
    counts["read:characters"] += characters
    counts["filter:sentences_in"] += prepared.sentences_in
    counts["filter:sentences_kept"] += prepared.sentences_kept
    for reason in prepared.sentence_reasons:
        counts[f"filter:sentences_dropped:{reason}"] += 1
    if prepared.rewrites:
        counts.update(prepared.rewrites)


def _sorted_counts(tally: dict[str, collections.Counter[str]]) -> list[tuple[tuple[str, str], int]]:
    """A batch's counts as sorted `((source, counter), n)` pairs."""
    return sorted(((source, name), n) for source, counts in tally.items() for name, n in counts.items())
