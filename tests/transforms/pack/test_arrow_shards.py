"""The shards' columns per layout: bool `special_tokens_mask`, `token_type_ids` only where a row can have a
segment B, and `datasets.load_from_disk` reading exactly the features `dataset_info.json` declares."""

from __future__ import annotations

import json

import datasets
import numpy as np
import pyarrow as pa
import pytest

from kcorpus.transforms.pack import arrow_shards
from kcorpus.transforms.pack.blocks import LAYOUTS, TWO_SEGMENT_LAYOUTS, PackConfig, SpecialIds
from kcorpus.transforms.pack.chunks import pack_sorted
from kcorpus.transforms.pack.tokenize import tokenize_wire
from packing_fixtures import CORPUS, kcbert_vocab, wordpiece_tokenizer

SPECIAL = SpecialIds(cls=2, sep=3, pad=0)


@pytest.fixture(scope="module")
def wires():
    tok = wordpiece_tokenizer(kcbert_vocab())
    raw = [json.loads(line) for path in sorted((CORPUS / "docs").glob("*.jsonl")) for line in path.open()]
    return tokenize_wire(tok, [(d["id"], d["text"]) for d in raw], np.uint16, sources=[d["source"] for d in raw])


def config_of(layout: str) -> PackConfig:
    """Every option that can shape a row's segments: short targets, and single segments in `pair`."""
    return PackConfig(max_length=64, layout=layout, single_segment_prob=0.1 if layout == "pair" else 0.0,
                      short_seq_prob=0.05 if layout != "nsp" else None, seed=7)


def test_the_columns_per_layout():
    for layout in LAYOUTS:
        schema = arrow_shards.packed_schema(np.dtype(np.uint16), layout=layout)
        types = {field.name: field.type for field in schema}
        assert types["special_tokens_mask"] == types["word_start"] == pa.list_(pa.bool_())
        assert types["input_ids"] == pa.list_(pa.uint16())
        if layout in ("pair", "nsp"):
            assert types["token_type_ids"] == pa.list_(pa.uint8())
        else:
            assert "token_type_ids" not in types
        assert ("next_sentence_label" in types) == (layout == "nsp")
        # the schema's `huggingface` metadata and dataset_info.json declare exactly these columns
        features = arrow_shards.features_dict(np.dtype(np.uint16), layout=layout)
        assert list(features) == schema.names
        assert json.loads(schema.metadata[b"huggingface"])["info"]["features"] == features
        assert datasets.Features.from_dict(features).arrow_schema.names == schema.names
    assert TWO_SEGMENT_LAYOUTS == ("pair", "nsp")
    plain = arrow_shards.features_dict(np.dtype(np.uint32), layout="single", word_start=False)
    assert plain == {
        "input_ids": {"feature": {"dtype": "uint32", "_type": "Value"}, "_type": "List"},
        "special_tokens_mask": {"feature": {"dtype": "bool", "_type": "Value"}, "_type": "List"},
        "length": {"dtype": "int32", "_type": "Value"},
        "doc_id": {"dtype": "string", "_type": "Value"},
        "source": {"dtype": "string", "_type": "Value"},
    }


@pytest.mark.parametrize("layout", LAYOUTS)
def test_only_two_segment_layouts_give_a_token_type_1(wires, layout):
    """What leaving the column out relies on, on the real corpus: the packer gives the single-segment layouts
    no token type but 0; the two-segment layouts do use 1 (so their column carries information)."""
    columns, _ = pack_sorted(wires, config_of(layout), SPECIAL)
    assert columns.num_rows > 100
    assert columns.token_type_ids.any() == (layout in TWO_SEGMENT_LAYOUTS)


def test_a_segment_b_in_a_layout_without_the_column_is_refused(wires):
    columns, _ = pack_sorted(wires[:50], config_of("pair"), SPECIAL)
    assert columns.token_type_ids.any()
    with pytest.raises(ValueError, match="no token_type_ids"):
        arrow_shards.stream_bytes(columns, arrow_shards.packed_schema(np.dtype(np.uint16), layout="single"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_load_from_disk_reads_the_declared_features_and_the_rows(tmp_path, wires, layout):
    columns, _ = pack_sorted(wires, config_of(layout), SPECIAL)
    schema = arrow_shards.packed_schema(np.dtype(np.uint16), layout=layout)
    data = arrow_shards.stream_bytes(columns, schema, 64)
    name = arrow_shards.shard_name(0, 1)
    (tmp_path / name).write_bytes(data)
    info = arrow_shards.dataset_info_json(np.dtype(np.uint16), columns.num_rows, len(data), "train", layout=layout)
    (tmp_path / "dataset_info.json").write_text(info)
    (tmp_path / "state.json").write_text(arrow_shards.state_json([name], ["digest"], "train"))
    loaded = datasets.load_from_disk(str(tmp_path))
    assert loaded.features == datasets.Features.from_dict(json.loads(info)["features"])
    assert loaded.column_names == schema.names and loaded.num_rows == columns.num_rows
    rows = list(columns.sequences())
    for i in (0, 63, 64, columns.num_rows - 1):  # across record batches
        assert loaded[i]["input_ids"] == rows[i].input_ids.tolist()
        assert loaded[i]["special_tokens_mask"] == rows[i].special_tokens_mask.astype(bool).tolist()
        if layout in TWO_SEGMENT_LAYOUTS:
            assert loaded[i]["token_type_ids"] == rows[i].token_type_ids.tolist()
