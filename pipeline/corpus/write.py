"""`WriteShardFn`: one shard's sorted runs -> its final corpus files; and the dead-letter file.

A shard's bytes depend only on its records (a k-way merge of sorted runs), never on bundling or workers.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.atomic import AtomicTextFile
from kcorpus.pipeline.corpus.keys import KIND_DROPPED, METRICS_NAMESPACE, node_key, sampled
from kcorpus.pipeline.corpus.shards import merge_runs
from kcorpus.transforms import corpus_layout
from kcorpus.transforms.examples import DOCUMENT_DROP, ExampleSampler
from kcorpus.transforms.record import DeadLetter


class WriteShardFn(beam.DoFn):
    """Merges one shard's runs into its final files; dedup losers go to `rejected/duplicates-*`.

    Main output: `((source, counter), n)` counts. Tagged `examples`: the shard's sample of dedup losers.
    """

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
            with AtomicTextFile(f"{self.out_dir}/{corpus_layout.dropped_shard(shard, n)}") as f:
                for _, payload in merge_runs(runs):
                    f.write(payload + "\n")
            progress.add("write", records=1)
            return
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        docs = AtomicTextFile(f"{self.out_dir}/{corpus_layout.docs_shard(shard, n)}")
        text = AtomicTextFile(f"{self.out_dir}/{corpus_layout.text_shard(shard, n)}")
        dups = AtomicTextFile(f"{self.out_dir}/{corpus_layout.duplicates_shard(shard, n)}")
        first = True
        examples = ExampleSampler()
        for (doc_id, source), payload, doc_text in merge_runs(runs):
            node = node_key(doc_id, source)
            loser = losers.get(node)
            if loser is not None:
                _, reason, survivor = loser
                counts[(source, f"dedup:dropped:{reason}")] += 1
                note = "duplicate of " + survivor.replace("\x00", " in ")
                examples.note(DOCUMENT_DROP, reason, doc_id, source, doc_text, note=note)
                if self._keep_dropped(node):
                    sid, _, ssource = survivor.partition("\x00")
                    record = {
                        "id": doc_id,
                        "source": source,
                        "stage": "dedup",
                        "reason": reason,
                        "duplicate_of": {"id": sid, "source": ssource},
                        "text": doc_text,
                    }
                    dups.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            counts[(source, "write:kept")] += 1
            counts[(source, "write:sentences")] += doc_text.count("\n") + 1
            docs.write(payload + "\n")
            text.write(("" if first else "\n") + doc_text + "\n")
            first = False
        for f in (docs, text, dups):
            f.close()
        progress.add("write", records=1)
        for example in examples.drain():
            yield beam.pvalue.TaggedOutput("examples", example)
        for (source, name), value in sorted(counts.items()):
            Metrics.counter(METRICS_NAMESPACE, name).inc(value)
            yield (source, name), value

    def finish_bundle(self) -> None:
        progress.flush()

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
    with AtomicTextFile(f"{out_dir}/{corpus_layout.DEAD_LETTER_FILE}") as f:
        for _, obj in sorted(rows, key=lambda r: r[0]):
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return len(rows)
