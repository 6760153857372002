"""`WriteShardFn`: one shard's sorted runs -> its final corpus files; and the dead-letter file.

A shard's bytes depend only on its records (a k-way merge of sorted runs), never on bundling or workers.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import json
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.atomic import AtomicTextFile
from kcorpus.pipeline.corpus.keys import (
    KIND_DROPPED,
    METRICS_NAMESPACE,
    SHARED_ID,
    document_key,
    document_of,
    node_key,
    sampled,
    split_node,
)
from kcorpus.pipeline.corpus.runs import RECORDS, sentences_of, text_of
from kcorpus.pipeline.corpus.spill import Table, bucket_table, table_rows
from kcorpus.pipeline.corpus.units import span_of
from kcorpus.pipeline.external_sort import Run, RunSpan, merge_runs, reduce_runs
from kcorpus.transforms import corpus_layout
from kcorpus.transforms.dedup import EXACT
from kcorpus.transforms.examples import DOCUMENT_DROP, ExampleSampler, duplicate_note
from kcorpus.transforms.record import DeadLetter
from kcorpus.transforms.sharding import shard_of

LOSER_COLUMNS = ("node", "priority", "reason", "survivor")
# Runs a shard's writer merges at once, a chunk of each in memory (a full one ~130-230 KB). With input units a
# shard has a run or more per unit, each a span of the unit's file; a span shorter than a full chunk's stored
# size holds less and counts as its share of a run, so the 4.8 GB bench's ~8,600 spans a shard (~2 KB each
# at 128 shards) merge in one pass, none rewritten; beyond, `merge_pass` rewrites only the runs it must.
FAN_IN = 1024
SPAN_BLOCK_BYTES = 32 << 10


def loser_row(
    loser: tuple[str, tuple[int, str, str]], num_shards: int
) -> tuple[int, tuple[str, int, str, str]]:
    """One dedup loser `(node, (priority, reason, survivor))` as a row (`LOSER_COLUMNS`) in its shard's bucket."""
    node, (priority, reason, survivor) = loser
    return shard_of(document_of(node), num_shards), (node, priority, reason, survivor)


class ShardLosers:
    """A shard's dedup losers with one reason each (the smallest `(priority, reason, survivor)`: exact before
    near), in node order: parallel lists searched by bisection, a third less memory than a dict of tuples
    (a writer holds its shard's losers while it merges the shard's runs)."""

    def __init__(self, table: Table) -> None:
        self.nodes: list[str] = []
        self.priorities: list[int] = []
        self.reasons: list[str] = []
        self.survivors: list[str] = []
        if not table_rows(table):
            return
        nodes, priorities, reasons, survivors = (table[c] for c in ("node", "priority", "reason", "survivor"))

        def value(i: int) -> tuple[int, str, str]:
            return priorities[i], reasons[i], survivors[i]

        for i in sorted(
            range(len(nodes)), key=nodes.__getitem__
        ):  # row numbers, not row tuples: less to hold
            if self.nodes and self.nodes[-1] == nodes[i]:  # a document that lost twice: its smallest reason
                last = (self.priorities[-1], self.reasons[-1], self.survivors[-1])
                self.priorities[-1], self.reasons[-1], self.survivors[-1] = min(last, value(i))
                continue
            self.nodes.append(nodes[i])
            self.priorities.append(priorities[i])
            self.reasons.append(reasons[i])
            self.survivors.append(survivors[i])

    def __len__(self) -> int:
        return len(self.nodes)

    def get(self, node: str) -> tuple[int, str, str] | None:
        """`(priority, reason, survivor)` of a losing document, None for a document that is kept."""
        i = bisect.bisect_left(self.nodes, node)
        if i == len(self.nodes) or self.nodes[i] != node:
            return None
        return self.priorities[i], self.reasons[i], self.survivors[i]


def _is_run(value: Any) -> bool:
    return isinstance(value, (RunSpan, bytes)) or (isinstance(value, str) and bool(value))


def shard_inputs(values: Iterable[Any], units_dir: str = "") -> tuple[list[Run], ShardLosers]:
    """A shard's grouped values -> its sorted runs (paths, unit segments and their `span_wire`s, in
    `units_dir`), and its dedup losers."""
    values = list(values)
    runs = sorted(
        (span_of(v, units_dir) if isinstance(v, bytes) else v for v in values if _is_run(v)),
        key=lambda r: (r, 0) if isinstance(r, str) else (r.path, r.offset),
    )
    return runs, ShardLosers(bucket_table(v for v in values if not isinstance(v, (str, bytes, RunSpan))))


def judged(records: Iterable[Any], losers: ShardLosers) -> Iterator[tuple[str, str, str, Any, Any, bool]]:
    """A shard's merged document records (sorted by id, source, record digest) as `(id, source, payload,
    carried, loser, shared_id)` (`carried`: runs.py); `loser` is `(priority, reason, survivor)` for a dedup
    loser, None for a kept document.

    The same record twice (one node: a file given twice, a re-delivered month) is one document: the second is
    an exact duplicate of the first. `shared_id` marks a kept document whose id and source a kept document
    just before it has: another record under the same id, kept, and counted so that the user hears of it.
    """
    previous_node = ""
    previous_kept: tuple[str, str] | None = None
    for (doc_id, source, record_id), payload, carried in records:
        node = node_key(doc_id, source, record_id)
        loser = losers.get(node)
        if loser is None and node == previous_node:
            loser = (0, EXACT, node)
        previous_node = node
        shared_id = False
        if loser is None:
            shared_id, previous_kept = previous_kept == (doc_id, source), (doc_id, source)
        yield doc_id, source, payload, carried, loser, shared_id


# Kept documents buffered before one write to each of a shard's files.
WRITE_LINES = 512


class WriteShardFn(beam.DoFn):
    """Merges one shard's runs into its final files; dedup losers go to `rejected/duplicates-*`.

    Input: `((kind, shard), values)`: runs (paths, or `span_wire`s of the units in `units_dir`) and, for
    document shards, the shard's dedup losers (`loser_row` rows as tables, or their spilled segments). Runs
    beyond `FAN_IN` full ones are first merged in groups under `tmp_dir`.

    Main output: `((source, counter), n)` counts. Tagged `examples`: the shard's sample of dedup losers.
    """

    def __init__(self, out_dir: str, output: Any, tmp_dir: str, units_dir: str = "") -> None:
        self.out_dir = out_dir
        self.output = output
        self.tmp_dir = tmp_dir
        self.units_dir = units_dir

    def process(self, element: tuple[tuple[str, int], Iterable[Any]]) -> Iterator[Any]:
        (kind, shard), values = element
        runs, losers = shard_inputs(values, self.units_dir)
        n, compression = self.output.num_shards, self.output.compression
        if kind == KIND_DROPPED:
            self._write_dropped(shard, runs)
            return
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        kept: collections.Counter[str] = collections.Counter()  # by source, added to `counts` at the end
        sentences: collections.Counter[str] = collections.Counter()
        docs = AtomicTextFile(f"{self.out_dir}/{corpus_layout.docs_shard(shard, n, compression=compression)}")
        text = (
            AtomicTextFile(f"{self.out_dir}/{corpus_layout.text_shard(shard, n, compression=compression)}")
            if self.output.text
            else None
        )
        dups = AtomicTextFile(
            f"{self.out_dir}/{corpus_layout.duplicates_shard(shard, n, compression=compression)}"
        )
        # Lines are joined and written a few hundred at a time: one write per line costs more than the line.
        doc_lines: list[str] = []
        text_lines: list[str] = []
        first = True  # nothing written to `text` yet
        examples = ExampleSampler()
        for doc_id, source, payload, carried, loser, shared_id in judged(self._merged(runs), losers):
            if loser is not None:
                counts[(source, f"dedup:dropped:{loser[1]}")] += 1
                self._reject(dups, examples, doc_id, source, text_of(payload, carried), loser)
                continue
            if shared_id:
                counts[(source, SHARED_ID)] += 1
            kept[source] += 1
            sentences[source] += sentences_of(carried)
            doc_lines.append(payload)
            if text is not None:
                text_lines.append(carried)
            if len(doc_lines) >= WRITE_LINES:
                first = _write_lines(docs, text, doc_lines, text_lines, first)
        _write_lines(docs, text, doc_lines, text_lines, first)
        for source, value in kept.items():
            counts[(source, "write:kept")] += value
            counts[(source, "write:sentences")] += sentences[source]
        for f in (docs, text, dups):
            if f is not None:
                f.close()
        progress.add("write", records=1)
        for example in examples.drain():
            yield beam.pvalue.TaggedOutput("examples", example)
        for (source, name), value in sorted(counts.items()):
            Metrics.counter(METRICS_NAMESPACE, name).inc(value)
            yield (source, name), value

    def _reject(
        self,
        dups: AtomicTextFile,
        examples: ExampleSampler,
        doc_id: str,
        source: str,
        doc_text: str,
        loser: tuple[int, str, str],
    ) -> None:
        """A dedup loser noted as an example and written to `rejected/duplicates-*` (or its sample)."""
        _, reason, survivor = loser
        sid, ssource = split_node(survivor)
        examples.note(DOCUMENT_DROP, reason, doc_id, source, doc_text, note=duplicate_note(sid, ssource))
        if self._keep_dropped(doc_id, source):
            record = {
                "id": doc_id,
                "source": source,
                "stage": "dedup",
                "reason": reason,
                "duplicate_of": {"id": sid, "source": ssource},
                "text": doc_text,
            }
            dups.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _write_dropped(self, shard: int, runs: list[Run]) -> None:
        """A `rejected/dropped-*` shard: its runs' payloads in order."""
        n, compression = self.output.num_shards, self.output.compression
        with AtomicTextFile(
            f"{self.out_dir}/{corpus_layout.dropped_shard(shard, n, compression=compression)}"
        ) as f:
            for _, payload in self._merged(runs):
                f.write(payload + "\n")
        progress.add("write", records=1)

    def _merged(self, runs: list[Run]) -> Any:
        """A shard's records in order: its runs merged, in passes when they are more than `FAN_IN` full ones."""
        reduced = reduce_runs(runs, RECORDS, f"{self.tmp_dir}/merged", FAN_IN, span_block_bytes=SPAN_BLOCK_BYTES)
        return merge_runs(reduced, RECORDS)

    def finish_bundle(self) -> None:
        progress.flush()

    def _keep_dropped(self, doc_id: str, source: str) -> bool:
        mode = self.output.dropped
        return mode == "all" or (
            mode == "sample" and sampled(document_key(doc_id, source), self.output.dropped_sample_rate)
        )


def _write_lines(
    docs: AtomicTextFile, text: AtomicTextFile | None, doc_lines: list[str], text_lines: list[str], first: bool
) -> bool:
    """Writes and empties the buffered lines: a payload per line in `docs`; in `text` (unless None), each text
    ended by a newline, an empty line between two texts (`first`: nothing is in `text` yet). Returns the new
    `first`."""
    if not doc_lines:
        return first
    docs.write("\n".join(doc_lines) + "\n")
    if text is not None:
        text.write(("" if first else "\n") + "\n\n".join(text_lines) + "\n")
    doc_lines.clear()
    text_lines.clear()
    return False


def write_dead_letters(items: list[tuple[str, DeadLetter]], out_dir: str, compression: str) -> int:
    """All dead letters, sorted, in one file (they are few; a run that makes many has a broken input)."""
    rows = []
    for source, dl in items:
        obj = dataclasses.asdict(dl)
        obj["source"] = source
        rows.append(((dl.path, dl.line or -1, dl.offset or -1, dl.stage, dl.reason, dl.raw, source), obj))
    with AtomicTextFile(f"{out_dir}/{corpus_layout.dead_letter_file(compression=compression)}") as f:
        for _, obj in sorted(rows, key=lambda r: r[0]):
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return len(rows)
