"""`ReadCorpus`: the files of a build-corpus output -> batches of documents, unusable lines dead-lettered."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms.corpus_layout import LAYOUTS
from kcorpus.transforms.packing.corpus_files import PARSERS
from kcorpus.transforms.record import DeadLetter, Document


@dataclasses.dataclass(frozen=True)
class CorpusInput:
    """The resolved input: layout, sorted file list and total size."""

    layout: str
    files: tuple[str, ...]
    total_bytes: int


def resolve_corpus(corpus: str, input_format: str = "auto") -> CorpusInput:
    """Find `docs/*.jsonl` (preferred) or `text/*.txt` under the corpus directory."""
    layouts = list(LAYOUTS) if input_format == "auto" else [input_format]
    for layout in layouts:
        pattern = FileSystems.join(corpus, LAYOUTS[layout])
        matched = FileSystems.match([pattern])[0].metadata_list
        if matched:
            files = sorted(m.path for m in matched)
            return CorpusInput(layout, tuple(files), sum(m.size_in_bytes for m in matched))
    wanted = " or ".join(FileSystems.join(corpus, LAYOUTS[layout]) for layout in layouts)
    raise FileNotFoundError(f"no corpus files: nothing matches {wanted}")


def spread_batches(job: PackJob, num_files: int, options: PipelineOptions) -> bool:
    """Whether to reshuffle document batches between reading and tokenizing. `auto`: only when the local
    runner has fewer than two files per worker (files are read one per worker, so with enough similar-sized
    files the read fuses with tokenizing and no text crosses a shuffle) or on a distributed runner."""
    if job.reshuffle_batches != "auto":
        return job.reshuffle_batches == "always"
    if options.view_as(StandardOptions).runner is not None:
        return True
    workers = options.view_as(DirectOptions).direct_num_workers or 1
    return num_files < 2 * workers


def read_corpus_file(path: str, layout: str) -> Iterator[Document | DeadLetter]:
    with FileSystems.open(path) as raw:
        lines = (line.decode("utf-8", errors="replace") for line in raw)
        yield from PARSERS[layout](path, lines)


# (id, text, source): documents travel between stages as plain tuples so Beam's fast coder handles them
DocTuple = tuple[str, str, str]


def batch_documents(
    records: Iterable[Document | DeadLetter], max_docs: int, max_bytes: int
) -> Iterator[list[DocTuple] | DeadLetter]:
    """Group documents into batches for one tokenizer call (by count and text size); pass dead letters on."""
    batch: list[DocTuple] = []
    size = 0
    for record in records:
        if isinstance(record, DeadLetter):
            yield record
            continue
        batch.append((record.id, record.text, record.source))
        size += len(record.text)
        if len(batch) >= max_docs or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class ReadCorpus(beam.PTransform):
    """Corpus files -> batches of documents, with unusable lines on the `dead_letter` output."""

    def __init__(self, corpus: CorpusInput, max_docs: int, max_bytes: int, spread: bool = True):
        super().__init__()
        self._corpus = corpus
        self._fn = _ParseFile(corpus.layout, max_docs, max_bytes)
        self._spread = spread

    def expand(self, pbegin):
        parsed = (
            pbegin
            # Create reshuffles its values: one file per worker
            | "ListFiles" >> beam.Create(list(self._corpus.files))
            | "ParseFiles" >> beam.ParDo(Metered("ParseFiles", self._fn)).with_outputs("dead_letter", main="batches")
        )
        batches = parsed.batches
        if self._spread:
            # spreads the batches of a few large files over all workers, at the cost of a shuffle of all text
            batches = batches | "ReshuffleBatches" >> beam.Reshuffle()
        return {"batches": batches, "dead_letter": parsed.dead_letter}


class _ParseFile(beam.DoFn):
    def __init__(self, layout: str, max_docs: int, max_bytes: int):
        self._layout = layout
        self._max_docs = max_docs
        self._max_bytes = max_bytes
        self._read = Metrics.counter("pack", "pack:documents:read")
        self._dead = Metrics.counter("pack", "pack:documents:dead_letter")

    def process(self, path: str):
        records = read_corpus_file(path, self._layout)
        for item in batch_documents(records, self._max_docs, self._max_bytes):
            if isinstance(item, DeadLetter):
                self._dead.inc()
                yield beam.pvalue.TaggedOutput("dead_letter", item)
            else:
                self._read.inc(len(item))
                yield item
