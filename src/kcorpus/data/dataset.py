"""`PackedDataset`: one split of a pack, memory-mapped; rows are zero-copy views into the page cache."""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from kcorpus.data.flatten import cu_seqlens, position_ids
from kcorpus.data.vocab_check import check_tokenizer

Batch = dict[str, Any]
PAD_TO = ("max_length", "longest", "none")


@dataclasses.dataclass(frozen=True)
class _Bits:
    """A bool column's bit-packed values, zero-copy: `data` from the byte holding bit `offset` (the first value)
    on. Sliced like the byte columns (`bits[lo:hi]`, values `lo..hi-1` as uint8 0/1), so a chunk reads its
    bool and its byte columns alike."""

    data: np.ndarray
    offset: int

    def __getitem__(self, rows: slice) -> np.ndarray:
        lo, hi = rows.start + self.offset, rows.stop + self.offset
        return np.unpackbits(self.data[lo >> 3 : (hi + 7) >> 3], bitorder="little")[lo & 7 : (lo & 7) + hi - lo]

    @staticmethod
    def gather(parts: list[tuple[_Bits, int, int]]) -> np.ndarray:
        """Values `lo:hi` of every `(bits, lo, hi)`, back to back, with one unpack for all (a batch's rows lie
        in many record batches: an unpack per row costs more than the rest of the batch)."""
        pieces, spans = [], []
        unpacked_at = 0  # where the next piece's first bit lands in the unpacked bits
        for bits, lo, hi in parts:
            start, stop = lo + bits.offset, hi + bits.offset
            piece = bits.data[start >> 3 : (stop + 7) >> 3]
            first = unpacked_at + (start & 7)
            pieces.append(piece)
            spans.append((first, first + hi - lo))
            unpacked_at += 8 * piece.shape[0]
        unpacked = np.unpackbits(np.concatenate(pieces), bitorder="little")
        return np.concatenate([unpacked[lo:hi] for lo, hi in spans])


@dataclasses.dataclass(frozen=True)
class _Zeros:
    """A column the pack leaves out because it is all zeros (`token_type_ids` of a single-segment layout)."""

    def __getitem__(self, rows: slice) -> np.ndarray:
        return np.zeros(rows.stop - rows.start, dtype=np.uint8)


# a token column of a chunk, sliced `column[lo:hi]` whatever its storage
_Tokens = np.ndarray | _Bits | _Zeros


@dataclasses.dataclass
class _Chunk:
    """One record batch: token columns as flat zero-copy arrays (or bits, or zeros), `offsets` delimiting the
    rows."""

    offsets: np.ndarray
    ids: np.ndarray
    types: _Tokens  # uint8; zeros in a pack without the column (single-segment layouts)
    specials: _Tokens  # bits; uint8 in a pack written before it was a bool column
    word_start: _Bits | None
    source: np.ndarray | None  # per row, an index into `PackedDataset.sources`
    nsp: np.ndarray | None  # per row, next_sentence_label


def _gather(parts: list[tuple[_Tokens, int, int]]) -> np.ndarray | None:
    """Values `lo:hi` of every `(column, lo, hi)`, back to back; None when the pack leaves the column out. A
    column is stored alike in every record batch of a split (`_column_forms`)."""
    if not parts:
        return np.zeros(0, dtype=np.uint8)
    if isinstance(parts[0][0], _Zeros):
        return None
    if isinstance(parts[0][0], _Bits):
        return _Bits.gather(parts)
    return np.concatenate([column[lo:hi] for column, lo, hi in parts])


def _column_forms(chunks: list[_Chunk], path: Path) -> None:
    """Refuse a split whose shards store a column in different forms (shards of two packs in one folder)."""
    forms = {(type(c.types), type(c.specials), type(c.word_start)) for c in chunks}
    if len(forms) > 1:
        raise ValueError(f"{path}: its shards store token_type_ids, special_tokens_mask or word_start differently "
                         "(shards of packs written by different kcorpus versions or options?)")


def _tokens(column: pa.ListArray) -> _Tokens:
    """A list column's values, zero-copy: bit-packed for bools, else as they are stored."""
    values = column.values
    if values.type == pa.bool_():
        return _Bits(np.frombuffer(values.buffers()[1], dtype=np.uint8), values.offset)
    return values.to_numpy(zero_copy_only=True)


def _source_names(table: pa.Table) -> set[str]:
    if "source" not in table.column_names:
        return set()
    return {str(v) for chunk in table.column("source").chunks for v in chunk.dictionary.to_pylist()}


def _open_chunks(table: pa.Table, sources: list[str]) -> list[_Chunk]:
    index = {name: k for k, name in enumerate(sources)}
    chunks = []
    for batch in table.to_batches():
        if batch.num_rows == 0:
            continue
        names = batch.schema.names
        ids = batch.column("input_ids")
        source = None
        if "source" in names:
            column = batch.column("source")
            remap = np.asarray([index[str(v)] for v in column.dictionary.to_pylist()], dtype=np.int64)
            source = remap[column.indices.to_numpy(zero_copy_only=False)]
        nsp = None
        if "next_sentence_label" in names:
            nsp = batch.column("next_sentence_label").to_numpy(zero_copy_only=False)
        chunks.append(_Chunk(
            ids.offsets.to_numpy(zero_copy_only=True),
            ids.values.to_numpy(zero_copy_only=True),
            _tokens(batch.column("token_type_ids")) if "token_type_ids" in names else _Zeros(),
            _tokens(batch.column("special_tokens_mask")),
            _tokens(batch.column("word_start")) if "word_start" in names else None,
            source,
            nsp,
        ))
    return chunks


def read_manifest(split_dir: Path) -> dict[str, Any] | None:
    path = split_dir.parent / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _read_table(path: Path) -> pa.Table:
    return pa.ipc.open_stream(pa.memory_map(str(path), "r")).read_all()


class PackedDataset:
    """One split (`OUT/train` or `OUT/validation`) of a pack, memory-mapped.

    `tokenizer=` (a folder, a `tokenizer.json`, or a tokenizer object) is checked against the manifest: a
    tokenizer the pack was not written with raises ValueError.
    """

    def __init__(self, split_dir: str | Path, *, pad_id: int | None = None, max_length: int | None = None,
                 tokenizer: Any = None):
        self.path = Path(split_dir)
        state = json.loads((self.path / "state.json").read_text(encoding="utf-8"))
        self.files = [self.path / f["filename"] for f in state["_data_files"]]
        self.manifest = read_manifest(self.path) or {}
        tok = self.manifest.get("tokenizer", {})
        ids = tok.get("special_ids", {})
        self.pad_id = pad_id if pad_id is not None else ids.get("pad")
        self.mask_id = ids.get("mask")
        self.vocab_size = tok.get("vocab_size")
        config = self.manifest.get("config", {})
        self.max_length = max_length or config.get("max_length")
        self.layout = config.get("layout")
        if self.pad_id is None or self.max_length is None:
            raise ValueError(f"no manifest.json next to {self.path}: pass pad_id= and max_length=")
        if tokenizer is not None:
            check_tokenizer(self.manifest, tokenizer, str(self.path.parent))
        self._tables: list[pa.Table] | None = None
        self._chunks: list[_Chunk] = []
        self._chunk_starts = np.zeros(1, dtype=np.int64)
        self.sources = self._list_sources()
        self._open()
        self.has_word_start = bool(self._chunks) and self._chunks[0].word_start is not None
        self.has_source = bool(self._chunks) and self._chunks[0].source is not None

    def _list_sources(self) -> list[str]:
        counted = self.manifest.get("counts", {}).get("sources")
        if counted:
            return sorted(counted)
        return sorted(set().union(*(_source_names(t) for t in self._open_tables())))

    def _open_tables(self) -> list[pa.Table]:
        if self._tables is None:
            self._tables = [_read_table(f) for f in self.files]
        return self._tables

    def _open(self) -> list[_Chunk]:
        if self._tables is None or not self._chunks:
            self._chunks = [c for t in self._open_tables() for c in _open_chunks(t, self.sources)]
            _column_forms(self._chunks, self.path)
            # one flat list of record batches over all shards, for vectorised row lookup
            rows = [len(c.offsets) - 1 for c in self._chunks]
            self._chunk_starts = np.concatenate([[0], np.cumsum(rows, dtype=np.int64)]).astype(np.int64)
        return self._chunks

    def __getstate__(self) -> dict[str, Any]:
        # a spawned DataLoader worker re-opens the memory maps instead of receiving a pickled copy
        return {**self.__dict__, "_tables": None, "_chunks": []}

    def __len__(self) -> int:
        return int(self._chunk_starts[-1])

    @property
    def lengths(self) -> np.ndarray:
        self._open()
        return np.concatenate([np.diff(c.offsets) for c in self._chunks] or [np.zeros(0, np.int64)])

    @property
    def content_lengths(self) -> np.ndarray:
        """Tokens of each row that are neither special nor padding (what the manifest's `tokens` count)."""
        out = []
        for c in self._open():
            lengths = np.diff(c.offsets)
            special = np.add.reduceat(c.specials[c.offsets[0] : c.offsets[-1]], c.offsets[:-1] - c.offsets[0],
                                      dtype=np.int64)
            out.append(lengths - np.where(lengths > 0, special, 0))
        return np.concatenate(out or [np.zeros(0, np.int64)]).astype(np.int64)

    @property
    def row_sources(self) -> np.ndarray:
        """Each row's index into `sources` (a pack without a `source` column raises ValueError)."""
        if not self.has_source:
            raise ValueError(f"{self.path} has no `source` column: repack it with this kcorpus to mix by source")
        return np.concatenate([c.source for c in self._open()])

    def _locate(self, indices: np.ndarray) -> tuple[list[int], list[int]]:
        """(record batch, row in it) of each global index."""
        self._open()
        if indices.size and (indices.min() < 0 or indices.max() >= len(self)):
            raise IndexError(f"index out of range for {len(self)} sequences")
        chunk = np.searchsorted(self._chunk_starts, indices, side="right") - 1
        return chunk.tolist(), (indices - self._chunk_starts[chunk]).tolist()

    def views(self, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(input_ids, token_type_ids, special_tokens_mask) of one sequence: views of the memory map where the
        column is stored a byte or more a token, else unpacked (bools) or zeros (no `token_type_ids`)."""
        (c,), (r,) = self._locate(np.asarray([index], dtype=np.int64))
        chunk = self._chunks[c]
        lo, hi = chunk.offsets[r], chunk.offsets[r + 1]
        return chunk.ids[lo:hi], chunk.types[lo:hi], chunk.specials[lo:hi]

    def __getitem__(self, index: int) -> dict[str, np.ndarray]:
        ids, types, specials = self.views(int(index))
        return {
            "input_ids": ids.astype(np.int64),
            "token_type_ids": types.astype(np.int64),
            "special_tokens_mask": specials.astype(np.int64),
        }

    def batch(self, indices: Sequence[int], pad_to: str = "max_length", *, word_start: bool = False,
              restart_positions: str = "sequence", position_start: int = 0) -> Batch:
        """A numpy batch of the rows `indices`.

        Padded (`pad_to="max_length"` or `"longest"`): int64 (B, width) input_ids/token_type_ids/
        attention_mask/special_tokens_mask (padding is marked special, as HF tokenizers do).
        Padding-free (`pad_to="none"`): input_ids/token_type_ids/special_tokens_mask/position_ids of shape
        (1, total_tokens), `cu_seqlens` (int32, B+1) and `max_seqlen`; positions restart at every sequence
        (`restart_positions="document"`: also after every `[SEP]` of a `cross_document` row) and count from
        `position_start`. Also, when the pack has them: `source` (B,), `next_sentence_label` (B,) and, with
        `word_start=True`, `word_start` (same shape as input_ids).
        """
        if pad_to not in PAD_TO:
            raise ValueError(f"pad_to must be one of {', '.join(PAD_TO)}, got {pad_to!r}")
        chunks, rows = self._locate(np.asarray(indices, dtype=np.int64))
        spans = []
        for c, r in zip(chunks, rows):
            offsets = self._chunks[c].offsets
            spans.append((self._chunks[c], int(offsets[r]), int(offsets[r + 1]), r))
        lengths = np.fromiter((hi - lo for _, lo, hi, _ in spans), dtype=np.int64, count=len(spans))
        want_words = word_start and self.has_word_start
        if pad_to == "none":
            out = self._flat(spans, lengths, want_words)
            restarts = None
            if restart_positions == "document":
                restarts = self._document_starts(out["input_ids"][0], out["special_tokens_mask"][0], lengths)
            elif restart_positions != "sequence":
                raise ValueError(f"restart_positions must be 'sequence' or 'document', got {restart_positions!r}")
            out["position_ids"] = position_ids(lengths, restarts, position_start)[None, :]
            out["cu_seqlens"] = cu_seqlens(lengths)
            out["max_seqlen"] = int(lengths.max(initial=0))
        else:
            out = self._padded(spans, lengths, pad_to, want_words)
        if self.has_source:
            out["source"] = np.fromiter((c.source[r] for c, _, _, r in spans), dtype=np.int64, count=len(spans))
        if spans and spans[0][0].nsp is not None:
            out["next_sentence_label"] = np.fromiter((c.nsp[r] for c, _, _, r in spans), dtype=np.int64,
                                                     count=len(spans))
        return out

    def _token_columns(self, spans: list, want_words: bool) -> dict[str, np.ndarray | None]:
        """The rows' per-token columns, each the rows' values back to back (None: all zeros, not in the pack)."""
        names = {"input_ids": "ids", "token_type_ids": "types", "special_tokens_mask": "specials"}
        if want_words:
            names["word_start"] = "word_start"
        return {key: _gather([(getattr(chunk, name), lo, hi) for chunk, lo, hi, _ in spans])
                for key, name in names.items()}

    def _padded(self, spans: list, lengths: np.ndarray, pad_to: str, want_words: bool) -> Batch:
        width = self.max_length if pad_to == "max_length" else int(lengths.max(initial=0))
        real = np.arange(width) < lengths[:, None]
        fill = {"input_ids": self.pad_id, "token_type_ids": 0, "special_tokens_mask": 1, "word_start": False}
        padded = {}
        for key, values in self._token_columns(spans, want_words).items():
            padded[key] = np.full(real.shape, fill[key], dtype=bool if key == "word_start" else np.int64)
            if values is not None:
                padded[key][real] = values
        out = {"input_ids": padded["input_ids"], "token_type_ids": padded["token_type_ids"],
               "attention_mask": real.astype(np.int64), "special_tokens_mask": padded["special_tokens_mask"]}
        if want_words:
            out["word_start"] = padded["word_start"]
        return out

    def _flat(self, spans: list, lengths: np.ndarray, want_words: bool) -> Batch:
        out = {}
        for key, values in self._token_columns(spans, want_words).items():
            dtype = bool if key == "word_start" else np.int64
            out[key] = (np.zeros(int(lengths.sum()), dtype) if values is None else values.astype(dtype))[None, :]
        return out

    def _document_starts(self, ids: np.ndarray, specials: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Flat positions where a new document begins inside a `cross_document` row: after each `[SEP]`."""
        if self.layout != "cross_document":
            raise ValueError(f"restart_positions='document' needs a cross_document pack, this one is {self.layout!r}")
        sep = self.manifest.get("tokenizer", {}).get("special_ids", {}).get("sep")
        after_sep = np.flatnonzero((ids == sep) & (specials == 1)) + 1
        row_ends = np.cumsum(lengths)
        return after_sep[~np.isin(after_sep, row_ends)]

    @classmethod
    def from_pack(cls, out_dir: str | Path, split: str = "train", **kwargs: Any) -> PackedDataset:
        return cls(Path(out_dir) / split, **kwargs)


def warn_no_word_start(dataset: PackedDataset, grouping: str) -> None:
    warnings.warn(
        f"{dataset.path} has no word_start column (a pack written before it): whole words are grouped by the "
        f"vocabulary's {grouping} marks instead, so punctuation split off an eojeol counts as a word of its own",
        stacklevel=3,
    )
