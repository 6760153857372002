"""The layouts whose sequences cross documents, packed as one stream: `cross_document` and `full_sentences`.

A shard's stream is its documents in (id, tie key) order, each followed by `[SEP]`; a row is `[CLS]` and a
stretch of the stream:
- `cross_document`: cut every `max_length - 1` tokens, whatever the sentence or document, so only the last
  row of a shard is short;
- `full_sentences` (RoBERTa's FULL-SENTENCES, the packing DeBERTa took over): whole sentences, filled
  greedily across documents (a document's `[SEP]` parts it from the next); a row that ends inside a document
  gets a closing `[SEP]` of its own. A sentence longer than `max_length - 2` is cut into pieces (as in every
  layout), so a row's padding is only the room the next sentence did not fit in.

`StreamPacker` takes a shard's documents in order, a block at a time, and returns the rows completed so far;
it carries the open row (less than `max_length` tokens) over to the next block. A shard so streams in bounded
memory, and its rows do not depend on how its documents were cut into blocks. A row's `doc_id` and `source`
are those of the document its first stream token belongs to.
"""

from __future__ import annotations

import collections

import numpy as np

from kcorpus.transforms.pack.blocks import (
    DocBlock,
    PackConfig,
    PackedColumns,
    SpecialIds,
    concat_columns,
    empty_columns,
    flat_ranges,
)

STREAM_LAYOUTS = ("cross_document", "full_sentences")


class StreamPacker:
    """Rows of a `cross_document` or `full_sentences` stream, from blocks of documents given in shard order."""

    def __init__(self, config: PackConfig, special: SpecialIds):
        if config.layout not in STREAM_LAYOUTS:
            raise ValueError(f"{config.layout} sequences do not cross documents; use packer.pack_block")
        self.config, self.special = config, special
        self._closes = config.layout == "full_sentences"  # a row that ends inside a document gets a [SEP]
        self.documents: collections.Counter[str] = collections.Counter()  # every document added, per source
        self.corpus_tokens = 0
        # the open row's stream (from its first token on), its [SEP] marks and word starts, and its owner
        self._ids: np.ndarray | None = None
        self._seps = np.zeros(0, np.uint8)
        self._flags: np.ndarray | None = None
        self._owner: tuple[str, str] = ("", "")

    def add(self, block: DocBlock) -> PackedColumns | None:
        """The rows that the documents of `block` (the shard's next ones) complete, or None."""
        self.documents.update(block.sources)
        self.corpus_tokens += int(block.ids.shape[0])
        tokens = block.doc_tokens()
        kept = np.flatnonzero(tokens > 0)
        if not kept.shape[0]:
            return None
        if self._ids is not None and self._ids.dtype != block.ids.dtype:
            raise ValueError(f"documents of one shard have mixed id dtypes {self._ids.dtype} and {block.ids.dtype}")
        if self._ids is not None and (self._flags is None) != (block.word_start is None):
            raise ValueError("documents of one shard mix word_start flags and none")
        carried = 0 if self._ids is None else int(self._ids.shape[0])
        ends = carried + np.cumsum(tokens[kept] + 1)  # after each kept document's [SEP], carried row first
        stream, seps, flags = self._stream(block, ends, carried)
        owners = [self._owner] * (carried > 0) + [(block.doc_ids[i], block.sources[i]) for i in kept.tolist()]
        owner_ends = np.concatenate([[carried], ends]) if carried else ends
        if self.config.layout == "cross_document":
            room = self.config.max_length - 1
            starts = np.arange(0, int(ends[-1]) // room * room + 1, room, dtype=np.int64)
        else:
            starts = self._sentence_rows(block, carried)
        rows = None
        if starts.shape[0] > 1:
            rows = _rows(stream, seps, flags, starts, owners, owner_ends, self.special, self._closes)
        open_at = int(starts[-1])
        self._ids, self._seps = stream[open_at:], seps[open_at:]
        self._flags = flags[open_at:] if flags is not None else None
        self._owner = owners[int(np.searchsorted(owner_ends, open_at, side="right"))] if open_at < ends[-1] else ("", "")
        return rows

    def finish(self) -> PackedColumns | None:
        """The last row (the open one), or None when there is none."""
        if self._ids is None or not self._ids.shape[0]:
            return None
        length = int(self._ids.shape[0])
        rows = _rows(self._ids, self._seps, self._flags, np.array([0, length], dtype=np.int64), [self._owner],
                     np.array([length], dtype=np.int64), self.special, self._closes)
        self._ids = self._ids[:0]
        self._seps, self._flags = self._seps[:0], self._flags[:0] if self._flags is not None else None
        return rows

    def _stream(self, block: DocBlock, ends: np.ndarray, carried: int):
        """The open row's stream followed by the block's: its ids, [SEP] marks and word starts (or None)."""
        length = int(ends[-1])
        seps = np.zeros(length, dtype=np.uint8)
        seps[ends - 1] = 1
        stream = np.empty(length, dtype=block.ids.dtype)
        stream[seps == 1] = self.special.sep
        content = seps == 0
        content[:carried] = False
        stream[content] = block.ids
        flags = None
        if block.word_start is not None:
            flags = np.zeros(length, dtype=np.uint8)
            flags[content] = block.word_start
        if carried:
            stream[:carried], seps[:carried] = self._ids, self._seps
            if flags is not None:
                flags[:carried] = self._flags
        return stream, seps, flags

    def _sentence_rows(self, block: DocBlock, carried: int) -> np.ndarray:
        """`full_sentences`: where every row starts in the stream (the last start is the open row's)."""
        limit = self.config.max_length - 2  # [CLS] and the closing [SEP]
        sizes, lasts = _sentence_pieces(block, limit)
        starts = [0]
        used = position = carried
        for size, last in zip(sizes.tolist(), lasts.tolist()):
            if used + size > limit and used:
                starts.append(position)
                used = 0
            used += size + last
            position += size + last
        return np.array(starts, dtype=np.int64)


def _sentence_pieces(block: DocBlock, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The sentences of the block's documents as pieces of at most `limit` tokens (empty sentences left out), in
    order: each piece's size, and 1 where it is its document's last (its [SEP] follows it)."""
    lengths = block.lengths.astype(np.int64)
    doc_of = np.repeat(np.arange(block.sentences.shape[0]), block.sentences)
    pieces = -(-lengths // limit)  # 0 for an empty sentence
    sentence = np.repeat(np.arange(lengths.shape[0]), pieces)
    index = np.arange(sentence.shape[0]) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    sizes = np.minimum(limit, lengths[sentence] - index * limit)
    docs = doc_of[sentence]
    lasts = np.ones(docs.shape[0], dtype=np.int64)
    lasts[:-1] = docs[1:] != docs[:-1]
    return sizes, lasts


def _rows(stream: np.ndarray, seps: np.ndarray, flags: np.ndarray | None, starts: np.ndarray,
          owners: list[tuple[str, str]], owner_ends: np.ndarray, special: SpecialIds, close: bool) -> PackedColumns:
    """Row i: `[CLS]` and `stream[starts[i]:starts[i+1]]`; with `close`, a closing `[SEP]` where that stretch
    does not end with one."""
    first, stop = starts[:-1], starts[1:]
    content = stop - first
    closing = (seps[stop - 1] == 0).astype(np.int64) if close else np.zeros(first.shape[0], dtype=np.int64)
    offsets = np.zeros(first.shape[0] + 1, dtype=np.int64)
    np.cumsum(1 + content + closing, out=offsets[1:])
    total = int(offsets[-1])
    heads, tails = offsets[:-1], offsets[1:] - 1
    src, dst = flat_ranges(first, content), flat_ranges(heads + 1, content)
    ids = np.empty(total, dtype=stream.dtype)
    mask = np.ones(total, dtype=np.uint8)
    ids[heads] = special.cls
    ids[tails[closing == 1]] = special.sep
    ids[dst], mask[dst] = stream[src], seps[src]
    words = None
    if flags is not None:
        words = np.zeros(total, dtype=np.uint8)
        words[dst] = flags[src]
    rows = np.searchsorted(owner_ends, first, side="right").tolist()
    return PackedColumns(ids, np.zeros(total, dtype=np.uint8), mask, offsets, [owners[r][0] for r in rows],
                         [owners[r][1] for r in rows], words)


def pack_stream(block: DocBlock, config: PackConfig, special: SpecialIds) -> PackedColumns:
    """A whole shard's documents (in order) in a stream layout, in one call."""
    packer = StreamPacker(config, special)
    parts = [p for p in (packer.add(block), packer.finish()) if p is not None]
    return concat_columns(parts) if parts else empty_columns(block.ids.dtype, block.word_start is not None)
