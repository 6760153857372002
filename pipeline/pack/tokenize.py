"""`TokenizeDocuments`: batches of documents -> tokenized (and packed) documents spilled to sorted runs per shard."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.read import DocTuple
from kcorpus.pipeline.pack.runs import DOCS, ROWS, SPILL_BYTES, SpillBuffer
from kcorpus.pipeline.stage_metrics import Metered
from kcorpus.transforms.pack.blocks import PackConfig, SpecialIds
from kcorpus.transforms.pack.chunks import pack_chunk
from kcorpus.transforms.pack.tokenize import (
    full_vocab_size,
    read_tokenizer_bytes,
    sha256_hex,
    source_path,
    special_ids,
    tokenize_wire,
    tokenizer_file,
    tokenizer_from_bytes,
)
from kcorpus.transforms.record import Dropped
from kcorpus.transforms.sharding import split_and_shard


class _TokenizeBatch(beam.DoFn):
    """A batch of documents -> its documents per shard, packed into a `PackedChunk` when `pack` is given (`pair`,
    `single`), else as `WireDoc`s, buffered and spilled to sorted runs under `spill_folder`
    (pipeline/pack/runs.py): `(shard, RunRef)` per run, when the buffer holds `spill_bytes` and when the bundle
    ends; empty documents to `dropped`."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str,
                 spill_folder: str, pack: tuple[PackConfig, SpecialIds] | None = None, word_start: bool = True,
                 spill_bytes: int = SPILL_BYTES, max_length: int = 0):
        self._tokenizer_path = tokenizer
        self._pack = pack
        self._word_start = word_start
        self._dtype = dtype
        self._validation_fraction = validation_fraction
        self._counts = counts
        self._spill = (spill_folder, ROWS if pack is not None else DOCS, spill_bytes, max_length)
        self._tokens = Metrics.counter("pack", "pack:tokens:corpus")
        self._empty = Metrics.counter("pack", "pack:documents:dropped:empty_document")
        self._tok = None
        self._buffer: SpillBuffer | None = None

    def setup(self):
        self._tok = tokenizer_from_bytes(read_tokenizer_bytes(self._tokenizer_path))

    def start_bundle(self):
        self._buffer = SpillBuffer(*self._spill)

    def process(self, docs: Sequence[DocTuple]):
        encoded = tokenize_wire(self._tok, [(doc_id, text) for doc_id, text, _ in docs], self._dtype,
                                self._word_start, [source for _, _, source in docs])
        by_shard: dict[tuple[str, int], list] = {}
        for (doc_id, text, source), wire in zip(docs, encoded):
            if not wire[1]:
                self._empty.inc()
                yield beam.pvalue.TaggedOutput(
                    "dropped", Dropped(doc_id, source, "pack", "empty_document", text[:200])
                )
                continue
            key = split_and_shard(doc_id, self._validation_fraction, self._counts)
            by_shard.setdefault(key, []).append(wire)
        token_bytes = sum(len(w[1]) for group in by_shard.values() for w in group)
        self._tokens.inc(token_bytes // np.dtype(self._dtype).itemsize)
        refs = []
        for key, wires in by_shard.items():
            if self._pack is None:
                for wire in wires:
                    refs += self._buffer.add(key, wire)
            else:
                refs += self._buffer.add(key, pack_chunk(wires, *self._pack))
        yield from refs

    def finish_bundle(self):
        for ref in self._buffer.flush():
            yield GlobalWindows.windowed_value(ref)


class TokenizeDocuments(beam.PTransform):
    """Batches of documents -> `(shard, RunRef)` of the sorted runs its documents (packed when `pack` is given)
    were spilled to; empty documents on `dropped`."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str,
                 spill_folder: str, pack: tuple[PackConfig, SpecialIds] | None = None, word_start: bool = True,
                 spill_bytes: int = SPILL_BYTES, max_length: int = 0):
        super().__init__()
        self._fn = _TokenizeBatch(tokenizer, validation_fraction, counts, dtype, spill_folder, pack, word_start,
                                  spill_bytes, max_length)

    def expand(self, batches):
        return batches | "Encode" >> beam.ParDo(Metered("Encode", self._fn)).with_outputs("dropped", main="keyed")


@dataclasses.dataclass(frozen=True)
class TokenizerInfo:
    path: str
    sha256: str
    vocab_size: int
    special: SpecialIds
    mask_id: int | None
    tokens: dict[str, str]


def inspect_tokenizer(job: PackJob) -> TokenizerInfo:
    """The tokenizer's identity and special ids; ValueError naming the file when it is not a tokenizer.json."""
    data = read_tokenizer_bytes(job.tokenizer)
    file = tokenizer_file(job.tokenizer)
    try:
        tok = tokenizer_from_bytes(data)
    except UnicodeDecodeError as err:
        raise ValueError(f"--tokenizer {file}: not UTF-8 (byte {data[err.start]:#04x} at offset {err.start}); "
                         "expected the tokenizer.json train-vocab writes") from None
    except Exception as err:  # noqa: BLE001 (tokenizers raises a bare Exception for a file it cannot parse)
        raise ValueError(f"--tokenizer {file}: not a tokenizers JSON file ({err}); expected the tokenizer.json "
                         "train-vocab writes") from None
    special = special_ids(tok, job.cls_token, job.sep_token, job.pad_token)
    tokens = {"cls": job.cls_token, "sep": job.sep_token, "pad": job.pad_token, "mask": job.mask_token}
    return TokenizerInfo(
        path=source_path(tokenizer_file(job.tokenizer)),
        sha256=sha256_hex(data),
        vocab_size=full_vocab_size(tok),
        special=special,
        mask_id=tok.token_to_id(job.mask_token),
        tokens=tokens,
    )
