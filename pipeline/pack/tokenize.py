"""`TokenizeDocuments`: the pack's input units -> tokenized (and packed) documents spilled to sorted runs per shard
in each unit's data file, committed unit by unit (pipeline/pack/units.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics

from kcorpus.pipeline import progress
from kcorpus.pipeline.corpus.units import BatchUnit, Unit, UnitWriter, load_unit
from kcorpus.pipeline.pack.job import PackJob
from kcorpus.pipeline.pack.read import DocTuple, batch_documents, read_corpus_range
from kcorpus.pipeline.pack.runs import DOCS, ROWS, SPILL_BYTES, SpillBuffer
from kcorpus.pipeline.pack.units import DEAD_LETTER, EMPTY, READ, TOKENS, PackUnitResult, emit
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
from kcorpus.transforms.record import DeadLetter, Dropped
from kcorpus.transforms.sharding import split_and_shard


class _TokenizeUnits(beam.DoFn):
    """`(first line, Unit | BatchUnit)` -> the unit's outputs (`units.emit`): its documents read in batches,
    tokenized, split and sharded by a digest of the id, packed into `PackedChunk`s when `pack` is given (`pair`,
    `single`), else kept as `WireDoc`s, buffered and spilled to sorted runs per shard in the unit's data file
    (pipeline/pack/runs.py), committed (`<key>.done`); or, for a unit an earlier run finished, replayed."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str,
                 units_dir: str, layout: str, batching: tuple[int, int],
                 pack: tuple[PackConfig, SpecialIds] | None = None, word_start: bool = True,
                 spill_bytes: int = SPILL_BYTES, max_length: int = 0):
        self._tokenizer_path = tokenizer
        self._pack = pack
        self._word_start = word_start
        self._dtype = dtype
        self._validation_fraction = validation_fraction
        self._counts = counts
        self._units_dir, self._layout, self._batching = units_dir, layout, batching
        self._spill = (ROWS if pack is not None else DOCS, spill_bytes, max_length)
        self._tokenized = Metrics.counter("pack", "pack:units:tokenized")
        self._reused = Metrics.counter("pack", "pack:units:reused")
        self._tok = None

    def setup(self):
        self._tok = tokenizer_from_bytes(read_tokenizer_bytes(self._tokenizer_path))

    def process(self, element: tuple[int, Unit | BatchUnit]):
        first_line, unit = element
        result = load_unit(self._units_dir, unit.key, PackUnitResult)
        if result is not None:
            self._reused.inc()
            progress.add("read", records=result.counts.get(READ, 0))
        elif isinstance(unit, BatchUnit):
            if unit.batch is None:
                raise RuntimeError(f"input unit {unit.key} was finished when its range was read, and is gone "
                                   f"from {self._units_dir}: was the folder changed during the pack? Run it again")
            result = self._tokenize(unit.key, [unit.batch], 0)
        else:
            records = read_corpus_range(unit.path, self._layout, unit.start, unit.end, first_line)
            result = self._tokenize(unit.key, batch_documents(records, *self._batching), unit.nbytes)
        progress.add("read", nbytes=result.nbytes)
        yield from emit(result)

    def _tokenize(self, key: str, items: Iterable[list[DocTuple] | DeadLetter], nbytes: int) -> PackUnitResult:
        """Tokenizes a unit's batches into its data file and commits it."""
        self._tokenized.inc()
        writer = UnitWriter(self._units_dir, key, PackUnitResult(nbytes=nbytes))
        result = writer.result
        buffer = SpillBuffer("", *self._spill, sink=lambda records, codec: writer.append(codec.blocks(records)))
        for item in items:
            if isinstance(item, DeadLetter):
                result.dead_letters.append(item)
                result.count(DEAD_LETTER, 1)
                continue
            result.runs += self._encode(item, buffer, result)
            progress.add("read", records=len(item))
        result.runs += buffer.flush()
        return writer.commit()

    def _encode(self, docs: Sequence[DocTuple], buffer: SpillBuffer, result: PackUnitResult) -> list:
        """One batch tokenized into `buffer`: the runs it spilled; empty documents to `result.dropped`."""
        encoded = tokenize_wire(self._tok, [(doc_id, text) for doc_id, text, _ in docs], self._dtype,
                                self._word_start, [source for _, _, source in docs])
        by_shard: dict[tuple[str, int], list] = {}
        for (doc_id, text, source), wire in zip(docs, encoded):
            if not wire[1]:
                result.dropped.append(Dropped(doc_id, source, "pack", "empty_document", text[:200]))
                result.count(EMPTY, 1)
                continue
            key = split_and_shard(doc_id, self._validation_fraction, self._counts)
            by_shard.setdefault(key, []).append(wire)
        token_bytes = sum(len(w[1]) for group in by_shard.values() for w in group)
        result.count(READ, len(docs))
        result.count(TOKENS, token_bytes // np.dtype(self._dtype).itemsize)
        refs = []
        for key, wires in by_shard.items():
            if self._pack is None:
                for wire in wires:
                    refs += buffer.add(key, wire)
            else:
                refs += buffer.add(key, pack_chunk(wires, *self._pack))
        return refs

    def finish_bundle(self):
        progress.flush()


class TokenizeDocuments(beam.PTransform):
    """Input units -> `(shard, RunRef)` of the sorted runs their documents (packed when `pack` is given) were
    spilled to; empty documents on `dropped`, unusable lines on `dead_letter`."""

    def __init__(self, tokenizer: str, validation_fraction: float, counts: dict[str, int], dtype: str,
                 units_dir: str, layout: str, batching: tuple[int, int],
                 pack: tuple[PackConfig, SpecialIds] | None = None, word_start: bool = True,
                 spill_bytes: int = SPILL_BYTES, max_length: int = 0):
        super().__init__()
        self._fn = _TokenizeUnits(tokenizer, validation_fraction, counts, dtype, units_dir, layout, batching, pack,
                                  word_start, spill_bytes, max_length)

    def expand(self, units):
        return units | "Encode" >> beam.ParDo(Metered("Encode", self._fn)).with_outputs(
            "dropped", "dead_letter", main="keyed"
        )


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
