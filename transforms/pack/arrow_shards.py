"""Packed sequences as Hugging Face `datasets` save_to_disk shards (Arrow IPC stream) and their metadata.

`datasets.load_from_disk` reads Arrow IPC *stream* files and needs `state.json` (all seven keys below) and a
`dataset_info.json` whose declared features match the schema exactly; `dataset_dict.json` at the pack root
makes `load_from_disk(PACK)` a `DatasetDict` of the split folders. Rows are stored unpadded; `length` is
the number of real tokens, so a loader pads to `max_length` (or to the longest row) and builds the mask.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from kcorpus.transforms import sharding
from kcorpus.transforms.pack.blocks import TWO_SEGMENT_LAYOUTS, PackedColumns

ROWS_PER_BATCH = 1024


def shard_name(index: int, count: int) -> str:
    """`data-00000-of-00004.arrow`: the Hugging Face `save_to_disk` shard name."""
    return sharding.shard_name("data", index, count, ".arrow")


SOURCE_TYPE = pa.dictionary(pa.int32(), pa.string())


def packed_fields(ids_dtype: np.dtype, *, layout: str = "pair", word_start: bool = True) -> list[pa.Field]:
    """The columns of a pack's shards. Per token: `input_ids`, `token_type_ids` (uint8) only in the layouts
    with a segment B (`TWO_SEGMENT_LAYOUTS`; in the others it is all zeros, the default of every model),
    `special_tokens_mask` and `word_start` as bools (Arrow packs them to a bit a token)."""
    fields = [pa.field("input_ids", pa.list_(pa.from_numpy_dtype(np.dtype(ids_dtype))))]
    if layout in TWO_SEGMENT_LAYOUTS:
        fields.append(pa.field("token_type_ids", pa.list_(pa.uint8())))
    fields.append(pa.field("special_tokens_mask", pa.list_(pa.bool_())))
    if word_start:
        fields.append(pa.field("word_start", pa.list_(pa.bool_())))
    fields += [pa.field("length", pa.int32()), pa.field("doc_id", pa.string()), pa.field("source", SOURCE_TYPE)]
    if layout == "nsp":
        fields.append(pa.field("next_sentence_label", pa.int8()))
    return fields


def _feature(arrow_type: pa.DataType) -> dict:
    """An Arrow type as a `datasets` feature; the dictionary-encoded `source` is read (and declared) a string."""
    if pa.types.is_list(arrow_type):
        return {"feature": _feature(arrow_type.value_type), "_type": "List"}
    if pa.types.is_dictionary(arrow_type):
        return _feature(arrow_type.value_type)
    return {"dtype": str(arrow_type), "_type": "Value"}


def features_dict(ids_dtype: np.dtype, *, layout: str = "pair", word_start: bool = True) -> dict:
    """The `datasets` features of a packed split, in `dataset_info.json` form: exactly the shards' columns."""
    return {f.name: _feature(f.type) for f in packed_fields(ids_dtype, layout=layout, word_start=word_start)}


def packed_schema(ids_dtype: np.dtype, *, layout: str = "pair", word_start: bool = True) -> pa.Schema:
    """Arrow schema with the `huggingface` metadata `datasets` itself writes."""
    features = features_dict(ids_dtype, layout=layout, word_start=word_start)
    meta = json.dumps({"info": {"features": features}}, separators=(", ", ": "))
    return pa.schema(packed_fields(ids_dtype, layout=layout, word_start=word_start), metadata={"huggingface": meta})


def _source_column(sources: list[str]) -> pa.DictionaryArray:
    """Row sources dictionary-encoded, the dictionary sorted (so a batch's bytes depend only on its rows)."""
    names = sorted(set(sources))
    index = {name: i for i, name in enumerate(names)}
    codes = np.fromiter((index[s] for s in sources), dtype=np.int32, count=len(sources))
    return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), pa.array(names, type=pa.string()))


def _list_column(values: np.ndarray, offsets: np.ndarray, dtype: pa.DataType) -> pa.ListArray:
    """Rows `offsets[i]:offsets[i+1]` of `values` (offsets rebased to 0) as an Arrow list column."""
    rebased = (offsets - offsets[0]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(rebased), pa.array(values.astype(dtype.to_pandas_dtype(), copy=False)))


def record_batch(columns: PackedColumns, lo: int, hi: int, schema: pa.Schema) -> pa.RecordBatch:
    """Rows `lo:hi` of packed columns as one record batch."""
    ids_type = schema.field("input_ids").type.value_type
    offsets = columns.offsets[lo : hi + 1]
    start, stop = int(offsets[0]), int(offsets[-1])
    ids = columns.input_ids[start:stop]
    if ids.shape[0] and int(ids.max()) > np.iinfo(ids_type.to_pandas_dtype()).max:
        raise ValueError(f"token id {int(ids.max())} does not fit {ids_type}")
    arrays = [_list_column(ids, offsets, ids_type)]
    types = columns.token_type_ids[start:stop]
    if "token_type_ids" in schema.names:
        arrays.append(_list_column(types, offsets, pa.uint8()))
    elif types.any():
        raise ValueError("the rows have a segment B (token type 1) but the schema has no token_type_ids")
    arrays.append(_list_column(columns.special_tokens_mask[start:stop].view(np.bool_), offsets, pa.bool_()))
    if "word_start" in schema.names:
        if columns.word_start is None:
            raise ValueError("the schema has word_start but the packed rows have no flags")
        arrays.append(_list_column(columns.word_start[start:stop].view(np.bool_), offsets, pa.bool_()))
    arrays += [
        pa.array(np.diff(offsets).astype(np.int32), type=pa.int32()),
        pa.array(columns.doc_ids[lo:hi], type=pa.string()),
        _source_column(columns.sources[lo:hi]),
    ]
    if "next_sentence_label" in schema.names:
        arrays.append(pa.array(columns.next_sentence_label[lo:hi], type=pa.int8()))
    return pa.record_batch(arrays, schema=schema)


def stream_bytes(columns: PackedColumns, schema: pa.Schema, rows_per_batch: int = ROWS_PER_BATCH) -> bytes:
    """One shard as Arrow IPC stream bytes, in fixed-size record batches (so the bytes are reproducible)."""
    return join_stream(schema, [batch_messages(columns, schema, rows_per_batch)])


def _batch_messages(batch: pa.RecordBatch, schema: pa.Schema, head: bytes, eos: bytes) -> bytes:
    """One record batch's messages: its `source` dictionary, then the batch. Every batch carries its own
    dictionary (a replacement, which IPC streams allow), so the bytes of a batch never depend on the batch
    before it, and streams of row ranges join into the bytes of one stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch)
    data = sink.getvalue().to_pybytes()
    if not (data.startswith(head) and data.endswith(eos)):
        raise ValueError("Arrow IPC stream does not start with its schema and end with end-of-stream")
    return data[len(head) : len(data) - len(eos)]


def stream_ends(schema: pa.Schema) -> tuple[bytes, bytes]:
    """The bytes an IPC stream of `schema` starts with (the schema message) and ends with (end-of-stream)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema):
        pass
    empty = sink.getvalue().to_pybytes()
    eos = empty[-8:]
    return empty[: -len(eos)], eos


def batch_messages(columns: PackedColumns, schema: pa.Schema, rows_per_batch: int = ROWS_PER_BATCH,
                   rows: int | None = None) -> bytes:
    """The record-batch messages of `stream_bytes` alone (no schema message, no end-of-stream): the streams of
    consecutive row ranges, each a whole number of batches, concatenate into one stream (`join_stream`).
    `rows`: of the first `rows` rows only."""
    head, eos = stream_ends(schema)
    stop = columns.num_rows if rows is None else rows
    return b"".join(
        _batch_messages(record_batch(columns, lo, min(lo + rows_per_batch, stop), schema), schema, head, eos)
        for lo in range(0, stop, rows_per_batch)
    )


def empty_batch(schema: pa.Schema) -> bytes:
    """The messages of one record batch of no rows: what a stream of no rows holds (`datasets` cannot cast the
    `source` column of a table without any batch)."""
    head, eos = stream_ends(schema)
    empty = pa.record_batch([pa.array([], type=field.type) for field in schema], schema=schema)
    return _batch_messages(empty, schema, head, eos)


def join_stream(schema: pa.Schema, messages: Sequence[bytes]) -> bytes:
    """One Arrow IPC stream from `batch_messages` parts in row order: the bytes `stream_bytes` gives for all.
    A stream of no rows holds one empty record batch (`empty_batch`)."""
    head, eos = stream_ends(schema)
    if not any(messages):
        messages = [empty_batch(schema)]
    return b"".join([head, *messages, eos])


def dataset_info_json(ids_dtype: np.dtype, num_rows: int, num_bytes: int, split: str, *, layout: str = "pair",
                      word_start: bool = True) -> str:
    info = {
        "citation": "",
        "description": "Packed pretraining sequences written by `kcorpus pack`.",
        "features": features_dict(ids_dtype, layout=layout, word_start=word_start),
        "homepage": "",
        "license": "",
        "splits": {split: {"name": split, "num_bytes": num_bytes, "num_examples": num_rows}},
    }
    return json.dumps(info, indent=2, ensure_ascii=False) + "\n"


def state_json(files: Sequence[str], shard_digests: Sequence[str], split: str) -> str:
    """`datasets` state; the fingerprint is derived from the shard contents so it is reproducible."""
    fingerprint = hashlib.sha256("".join(shard_digests).encode()).hexdigest()[:16]
    state = {
        "_data_files": [{"filename": f} for f in files],
        "_fingerprint": fingerprint,
        "_format_columns": None,
        "_format_kwargs": {},
        "_format_type": None,
        "_output_all_columns": False,
        "_split": split,
    }
    return json.dumps(state, indent=2) + "\n"


def dataset_dict_json(splits: Sequence[str]) -> str:
    """The pack root's `dataset_dict.json`, as `DatasetDict.save_to_disk` writes it: the split folder names."""
    return json.dumps({"splits": list(splits)}) + "\n"
