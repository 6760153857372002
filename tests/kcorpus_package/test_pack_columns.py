"""Packs of both column formats read alike: the compact one (`special_tokens_mask` bool, no `token_type_ids` in
single-segment layouts) and the one before it (both uint8 in every layout), by `PackedDataset` and by
`datasets` + transformers' `DataCollatorForLanguageModeling`."""

from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pytest

from kcorpus.data import PackedDataset
from kcorpus.data.dataset import PAD_TO
from packing_fixtures import PACK_DATA

CLS, SEP = 2, 3  # the KcBERT vocabulary's; its WordPiece never gives them to corpus text
PACKS = {"pair": "wordpiece_pack", "cross_document": "stream_pack"}


def write_old_format(pack: Path, dest: Path) -> Path:
    """A copy of `pack` in the columns kcorpus wrote before they were made compact: `token_type_ids` in every
    layout (zeros where the pack leaves it out) and `special_tokens_mask`, both uint8."""
    shutil.copytree(pack, dest)
    for shard in sorted(dest.glob("*/data-*.arrow")):
        batches = []
        for batch in pa.ipc.open_stream(shard.read_bytes()):
            ids, specials = batch.column("input_ids"), batch.column("special_tokens_mask")
            types = batch.column("token_type_ids") if "token_type_ids" in batch.schema.names else \
                pa.ListArray.from_arrays(ids.offsets, pa.array(np.zeros(len(ids.values), np.uint8)))
            columns = {"input_ids": ids, "token_type_ids": types,
                       "special_tokens_mask": pa.ListArray.from_arrays(specials.offsets,
                                                                       specials.values.cast(pa.uint8()))}
            columns.update((name, batch.column(name)) for name in batch.schema.names if name not in columns)
            batches.append(pa.record_batch(list(columns.values()), names=list(columns)))
        with pa.ipc.new_stream(str(shard), batches[0].schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    return dest


def derived(input_ids: np.ndarray, attention_mask: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """(token_type_ids, special_tokens_mask) of a padded batch computed from its ids and the layout alone:
    `[CLS]`, `[SEP]` and padding are special; in `pair` the tokens after a row's first `[SEP]` are segment B."""
    specials = ((input_ids == CLS) | (input_ids == SEP) | (attention_mask == 0)).astype(np.int64)
    types = np.zeros_like(input_ids)
    if layout == "pair":
        after_sep = np.cumsum((input_ids == SEP) & (attention_mask == 1), axis=1) - (input_ids == SEP)
        types = ((after_sep >= 1) & (attention_mask == 1)).astype(np.int64)
    return types, specials


@pytest.mark.parametrize("layout", PACKS)
def test_old_and_new_columns_give_the_same_batches(request, tmp_path, layout):
    pack = request.getfixturevalue(PACKS[layout])
    new = PackedDataset(pack / "train")
    old = PackedDataset(write_old_format(pack, tmp_path / "old") / "train")
    assert len(new) == len(old) > 200
    new_names = pa.ipc.open_stream((pack / "train" / "data-00000-of-00002.arrow").read_bytes()).schema.names
    assert ("token_type_ids" in new_names) == (layout == "pair")
    rows = list(range(0, len(new), 3))  # across record batches (100 rows) and shards
    for pad_to in PAD_TO:
        got, want = new.batch(rows, pad_to, word_start=True), old.batch(rows, pad_to, word_start=True)
        assert got.keys() == want.keys() >= {"input_ids", "token_type_ids", "special_tokens_mask", "word_start"}
        for key in got:
            assert np.asarray(got[key]).dtype == np.asarray(want[key]).dtype, key
            assert np.array_equal(got[key], want[key]), (pad_to, key)
    padded = new.batch(rows, "longest")
    types, specials = derived(padded["input_ids"], padded["attention_mask"], layout)
    assert np.array_equal(padded["token_type_ids"], types) and np.array_equal(padded["special_tokens_mask"], specials)
    assert padded["token_type_ids"].any() == (layout == "pair")
    for i in (0, 99, 100, len(new) - 1):
        for key in ("input_ids", "token_type_ids", "special_tokens_mask"):
            assert new[i][key].dtype == np.int64 and np.array_equal(new[i][key], old[i][key])
    assert np.array_equal(new.content_lengths, old.content_lengths)
    # the compact columns save 7/8 of a byte a token (special_tokens_mask), and where they leave out
    # token_type_ids its byte a token and offsets; about (the copy's stream has no schema metadata and skips
    # the dictionaries that repeat)
    size = sum(f.stat().st_size for f in (pack / "train").glob("*.arrow"))
    old_size = sum(f.stat().st_size for f in (tmp_path / "old" / "train").glob("*.arrow"))
    tokens = int(new.lengths.sum())
    saved = 7 / 8 * tokens + (tokens + 4 * len(new) if layout != "pair" else 0)
    assert 0.9 * saved <= old_size - size <= 1.05 * saved


def test_the_old_pack_fixture_gives_the_tokens_types_of_its_layout():
    ds = PackedDataset(PACK_DATA / "old_pack" / "train")
    assert ds.layout == "pair"
    batch = ds.batch(range(len(ds)), "max_length")
    types, specials = derived(batch["input_ids"], batch["attention_mask"], "pair")
    assert np.array_equal(batch["token_type_ids"], types) and batch["token_type_ids"].any()
    assert np.array_equal(batch["special_tokens_mask"], specials)
    flat = ds.batch(range(len(ds)), "none")
    real = batch["attention_mask"] == 1
    assert np.array_equal(flat["special_tokens_mask"][0], specials[real])


@pytest.mark.parametrize("layout", PACKS)
def test_transformers_collator_on_a_pack_loaded_with_datasets_never_masks_a_special_token(request, layout,
                                                                                         wordpiece_dir):
    import torch
    from transformers import DataCollatorForLanguageModeling, PreTrainedTokenizerFast

    split = datasets.load_from_disk(str(request.getfixturevalue(PACKS[layout]) / "train"))
    assert split.features["special_tokens_mask"].feature.dtype == "bool"
    assert ("token_type_ids" in split.column_names) == (layout == "pair")
    columns = [c for c in ("input_ids", "token_type_ids", "special_tokens_mask") if c in split.column_names]
    examples = [split.select_columns(columns)[i] for i in range(16)]
    tok = PreTrainedTokenizerFast(tokenizer_file=str(wordpiece_dir / "tokenizer.json"), pad_token="[PAD]",
                                  mask_token="[MASK]", cls_token="[CLS]", sep_token="[SEP]", unk_token="[UNK]")
    # every token that may be masked is: the labels show exactly which tokens the collator took as special
    collator = DataCollatorForLanguageModeling(tok, mlm_probability=1.0, return_tensors="pt")
    torch.manual_seed(0)
    batch = collator(examples)
    width = batch["input_ids"].shape[1]
    special = np.ones((len(examples), width), dtype=bool)
    original = np.zeros((len(examples), width), dtype=np.int64)
    for k, example in enumerate(examples):
        n = len(example["input_ids"])
        special[k, :n] = example["special_tokens_mask"]
        original[k, :n] = example["input_ids"]
    labels = batch["labels"].numpy()
    assert np.array_equal(labels != -100, ~special) and special.any() and (~special).any()
    assert np.array_equal(labels[~special], original[~special])
    assert np.all(batch["input_ids"].numpy()[special] == original[special])
    if layout == "pair":
        assert batch["token_type_ids"].shape == batch["input_ids"].shape and batch["token_type_ids"].any()
    else:
        assert "token_type_ids" not in batch


def test_a_split_mixing_the_two_column_formats_is_refused(wordpiece_pack, tmp_path):
    old = write_old_format(wordpiece_pack, tmp_path / "old")
    shutil.copyfile(wordpiece_pack / "train" / "data-00000-of-00002.arrow", old / "train" / "data-00000-of-00002.arrow")
    with pytest.raises(ValueError, match="store token_type_ids, special_tokens_mask or word_start differently"):
        PackedDataset(old / "train")
