"""`kcorpus pack` end to end on the real fixture corpus: counts, round trip, determinism, dtypes, errors."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from pathlib import Path

import datasets
import pyarrow as pa
import pytest

from kcorpus.pipeline import cli
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.marker import is_bookkeeping
from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.pipeline.pack.write import pack_wire_shard
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.pack.packer import content_tokens
from kcorpus.transforms.pack.tokenize import special_ids, tokenize_documents, tokenizer_from_bytes
from kcorpus.transforms.sharding import split_and_shard
from packing_fixtures import (
    CORPUS,
    big_vocab_tokenizer_dir,
    kcbert_tokenizer_dir,
    spm_tokenizer_dir,
    write_text_layout,
)

COUNTS = {"train": 3, "validation": 1}


def job(out: Path, tokenizer: Path, corpus: Path = CORPUS, **kwargs) -> PackJob:
    pack = kwargs.pop("pack", PackConfig(max_length=128, single_segment_prob=0.1, short_seq_prob=0.05, seed=3))
    return PackJob(
        corpus=str(corpus), tokenizer=str(tokenizer), out=str(out), pack=pack, validation_fraction=0.1,
        num_shards=COUNTS["train"], num_validation_shards=COUNTS["validation"], **kwargs,
    )


def read_rows(path: Path) -> pa.Table:
    return pa.ipc.open_stream(pa.memory_map(str(path))).read_all()


def all_files(out: Path) -> dict[str, bytes]:
    """Every output file's bytes, but kcorpus's ownership marker (which records when it was written)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not is_bookkeeping(p.name)}


@pytest.fixture(scope="module")
def kcbert(tmp_path_factory) -> Path:
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("kcbert"))


@pytest.fixture(scope="module")
def packed(tmp_path_factory, kcbert) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("packed") / "out"
    return out, run(job(out, kcbert), local_mode="in_memory")


def corpus_docs() -> list[dict]:
    return [json.loads(line) for p in sorted((CORPUS / "docs").glob("*.jsonl")) for line in p.open()]


def test_manifest_counts_reconcile_with_the_corpus(packed):
    _out, manifest = packed
    counts = manifest["counts"]
    assert counts["documents"] == 645
    assert counts["corpus_tokens"] == counts["tokens"] == 58140
    assert counts["dropped_tokens"] == 0
    assert counts["rejected_documents"] == {"dead_lettered": 0, "dropped_empty_document": 0}
    splits = counts["splits"]
    assert splits["train"]["documents"] + splits["validation"]["documents"] == 645
    assert counts["sequences"] == sum(s["rows"] for s in manifest["shards"])
    positions = counts["sequences"] * 128
    assert counts["padding_tokens"] == positions - counts["tokens"] - counts["special_tokens"]
    assert counts["padding_fraction"] == round(counts["padding_tokens"] / positions, 6)
    assert manifest["input_ids_dtype"] == "uint16" and manifest["tokenizer"]["vocab_size"] == 30000
    assert manifest["tokenizer"]["special_ids"] == {"cls": 2, "sep": 3, "pad": 0, "mask": 4}
    assert manifest["config"]["num_shards"] == COUNTS
    assert [s["file"] for s in manifest["shards"]] == [
        "train/data-00000-of-00003.arrow", "train/data-00001-of-00003.arrow", "train/data-00002-of-00003.arrow",
        "validation/data-00000-of-00001.arrow",
    ]


def test_shards_hold_exactly_what_the_pure_packer_gives(packed, kcbert):
    out, _manifest = packed
    tok = tokenizer_from_bytes((kcbert / "tokenizer.json").read_bytes())
    raw = corpus_docs()
    docs = tokenize_documents(tok, [(d["id"], d["text"]) for d in raw], sources=[d["source"] for d in raw])
    by_shard = defaultdict(list)
    for d in docs:
        by_shard[split_and_shard(d.id, 0.1, COUNTS)].append(d)
    config = PackConfig(max_length=128, single_segment_prob=0.1, short_seq_prob=0.05, seed=3)
    special = special_ids(tok)
    for (split, index), shard_docs in by_shard.items():
        columns, _stats = pack_wire_shard((d.to_wire() for d in reversed(shard_docs)), config, special)
        seqs = list(columns.sequences())
        rows = read_rows(out / split / f"data-{index:05d}-of-{COUNTS[split]:05d}.arrow").to_pylist()
        assert [r["input_ids"] for r in rows] == [s.input_ids.tolist() for s in seqs]
        assert [r["token_type_ids"] for r in rows] == [s.token_type_ids.tolist() for s in seqs]
        assert [r["special_tokens_mask"] for r in rows] == [s.special_tokens_mask.astype(bool).tolist() for s in seqs]
        assert [r["length"] for r in rows] == [s.length for s in seqs]
        assert [r["doc_id"] for r in rows] == [s.doc_id for s in seqs]
        assert [r["word_start"] for r in rows] == [s.word_start.astype(bool).tolist() for s in seqs]
        assert [r["source"] for r in rows] == [s.source for s in seqs]
        # every corpus token of the shard's documents is in exactly one row, in document order
        packed_tokens = defaultdict(list)
        for s in seqs:
            packed_tokens[s.doc_id].extend(content_tokens(s).tolist())
        assert packed_tokens == {d.id: d.ids.tolist() for d in shard_docs}


def test_manifest_counts_documents_sequences_and_tokens_per_source(packed):
    out, manifest = packed
    counts = manifest["counts"]
    assert manifest["config"]["layout"] == "pair" and manifest["config"]["word_start"] is True
    assert {name: c["documents"] for name, c in counts["sources"].items()} == {
        "nsmc": 582, "petitions": 45, "wiki": 18}
    for key, total in (("documents", "documents"), ("sequences", "sequences"), ("tokens", "tokens")):
        assert sum(c[key] for c in counts["sources"].values()) == counts[total]
    splits = counts["splits"]
    for name, total in counts["sources"].items():
        assert {k: sum(splits[s]["sources"].get(name, {}).get(k, 0) for s in splits) for k in total} == total
    # what the shards hold: each row's source, its content tokens to that source
    for split in splits:
        table = datasets.load_from_disk(str(out / split))
        found = defaultdict(lambda: {"sequences": 0, "tokens": 0})
        for source, mask in zip(table["source"], table["special_tokens_mask"]):
            found[source]["sequences"] += 1
            found[source]["tokens"] += len(mask) - sum(mask)
        assert dict(found) == {name: {"sequences": c["sequences"], "tokens": c["tokens"]}
                               for name, c in splits[split]["sources"].items() if c["sequences"]}


def test_source_is_dictionary_encoded_and_the_token_flags_boolean_in_the_shards(packed):
    out, _manifest = packed
    table = read_rows(out / "train" / "data-00000-of-00003.arrow")
    assert table.schema.field("source").type == pa.dictionary(pa.int32(), pa.string())
    assert table.schema.field("word_start").type == pa.list_(pa.bool_())
    assert table.schema.field("special_tokens_mask").type == pa.list_(pa.bool_())
    assert table.schema.field("token_type_ids").type == pa.list_(pa.uint8())  # `pair`: segment B is 1
    # every record batch carries its own sorted dictionary
    for batch in table.to_batches():
        names = batch.column("source").dictionary.to_pylist()
        assert names == sorted(set(batch.column("source").to_pylist()))


def test_load_from_disk_round_trip(packed):
    out, manifest = packed
    train = datasets.load_from_disk(str(out / "train"))
    validation = datasets.load_from_disk(str(out / "validation"))
    splits = manifest["counts"]["splits"]
    assert train.num_rows == splits["train"]["sequences"] and validation.num_rows == splits["validation"]["sequences"]
    assert train.features["input_ids"].feature.dtype == "uint16"
    assert train.column_names == ["input_ids", "token_type_ids", "special_tokens_mask", "word_start", "length",
                                  "doc_id", "source"]
    assert train.features["token_type_ids"].feature.dtype == "uint8"
    assert train.features["special_tokens_mask"].feature.dtype == train.features["word_start"].feature.dtype == "bool"
    direct = read_rows(out / "train" / "data-00000-of-00003.arrow").to_pylist()
    assert {r["source"] for r in direct} == {"nsmc", "petitions", "wiki"}
    assert train.select(range(len(direct))).to_list() == direct
    assert all(row["input_ids"][0] == 2 and len(row["input_ids"]) == row["length"] <= 128 for row in train)
    assert not set(train["doc_id"]) & set(validation["doc_id"])  # no document in both splits
    for shard in manifest["shards"]:
        assert hashlib.sha256((out / shard["file"]).read_bytes()).hexdigest() == shard["sha256"]
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]


@pytest.mark.slow
def test_byte_identical_across_runs_and_runner_modes(packed, kcbert, tmp_path):
    out, _ = packed
    again = tmp_path / "again"
    run(job(again, kcbert), local_mode="in_memory")
    assert all_files(again) == all_files(out)
    multi = tmp_path / "multi"
    run(job(multi, kcbert), ["--direct_num_workers=2"], local_mode="multi_processing")
    assert all_files(multi) == all_files(out)


def test_vocab_above_65536_writes_uint32_without_wrapping(tmp_path, packed, kcbert):
    big = big_vocab_tokenizer_dir(tmp_path / "big")
    manifest = run(job(tmp_path / "out", big), local_mode="in_memory")
    assert manifest["tokenizer"]["vocab_size"] == 70000 and manifest["input_ids_dtype"] == "uint32"
    train = datasets.load_from_disk(str(tmp_path / "out" / "train"))
    assert train.features["input_ids"].feature.dtype == "uint32"
    big_tok = tokenizer_from_bytes((big / "tokenizer.json").read_bytes())
    small_tok = tokenizer_from_bytes((kcbert / "tokenizer.json").read_bytes())
    big_rows = read_rows(tmp_path / "out" / "train" / "data-00000-of-00003.arrow")["input_ids"].to_pylist()
    small_rows = read_rows(packed[0] / "train" / "data-00000-of-00003.arrow")["input_ids"].to_pylist()
    assert max(max(r) for r in big_rows) > 65535
    assert [[big_tok.id_to_token(i) for i in r] for r in big_rows] == [
        [small_tok.id_to_token(i) for i in r] for r in small_rows
    ]


@pytest.mark.slow
def test_sentencepiece_derived_tokenizer(tmp_path):
    spm_dir = spm_tokenizer_dir(tmp_path / "spm")
    tok = tokenizer_from_bytes((spm_dir / "tokenizer.json").read_bytes())
    manifest = run(job(tmp_path / "out", spm_dir), local_mode="in_memory")
    expected = sum(
        len(tok.encode(s, add_special_tokens=False).ids)
        for d in corpus_docs() for s in d["text"].split("\n") if s.strip()
    )
    counts = manifest["counts"]
    assert counts["corpus_tokens"] == counts["tokens"] == expected and counts["dropped_tokens"] == 0
    assert manifest["tokenizer"]["vocab_size"] == 3000
    ids = manifest["tokenizer"]["special_ids"]
    train = datasets.load_from_disk(str(tmp_path / "out" / "train"))
    assert all(r["input_ids"][0] == ids["cls"] and r["input_ids"][-1] == ids["sep"] for r in train)
    assert max(max(r) for r in train["input_ids"]) < 3000


def test_text_layout_input_gives_the_same_tokens(tmp_path, kcbert, packed):
    corpus = write_text_layout(CORPUS, tmp_path / "corpus")
    manifest = run(job(tmp_path / "out", kcbert, corpus=corpus), local_mode="in_memory")
    assert manifest["corpus"]["layout"] == "text"
    assert manifest["counts"]["documents"] == 645 and manifest["counts"]["tokens"] == 58140


def test_bad_lines_are_dead_lettered_and_empty_documents_dropped(tmp_path, kcbert):
    good = (CORPUS / "docs" / "part-00000-of-00002.jsonl").read_text().splitlines()[:20]
    lines = good[:5] + ["{not json", '{"id": "x"}', '{"id": "empty", "text": " \\n  ", "source": "s"}'] + good[5:]
    (tmp_path / "c" / "docs").mkdir(parents=True)
    (tmp_path / "c" / "docs" / "part-00000-of-00001.jsonl").write_text("\n".join(lines) + "\n")
    manifest = run(job(tmp_path / "out", kcbert, corpus=tmp_path / "c"), local_mode="in_memory")
    assert manifest["counts"]["documents"] == 20
    assert manifest["counts"]["rejected_documents"] == {"dead_lettered": 2, "dropped_empty_document": 1}
    dead = [json.loads(x) for x in (tmp_path / "out" / "rejected" / "dead_letter.jsonl").read_text().splitlines()]
    assert [(d["line"], d["reason"].split(":")[0]) for d in dead] == [(6, "bad_json"), (7, "missing_id_or_text")]
    assert all(d["path"].endswith("part-00000-of-00001.jsonl") and d["stage"] == "pack" for d in dead)
    dropped = json.loads((tmp_path / "out" / "rejected" / "dropped.jsonl").read_text())
    assert (dropped["id"], dropped["reason"]) == ("empty", "empty_document")


def test_existing_output_needs_overwrite(packed, kcbert, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(packed[0], out)
    (out / "train" / "data-00007-of-00009.arrow").write_bytes(b"stale shard of an older pack")
    with pytest.raises(OutputError, match="--overwrite"):
        run(job(out, kcbert), local_mode="in_memory")
    run(job(out, kcbert, overwrite=True), local_mode="in_memory")
    assert all_files(out) == all_files(packed[0])


def test_cli_cross_document_layout(tmp_path, kcbert, capsys):
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(kcbert), "--out", str(tmp_path / "out"),
            "--max-length", "128", "--layout", "cross_document", "--validation-fraction", "0",
            "--local-mode", "in_memory"]
    assert cli.main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["tokens"] == 58140 and printed["dropped_tokens"] == 0
    # one stream per shard: only the last sequence of each of the shards is short
    assert printed["padding_fraction"] < 0.01
    assert not (tmp_path / "out" / "validation").exists()
    rows = datasets.load_from_disk(str(tmp_path / "out" / "train"))
    assert sum(1 for r in rows if r["length"] < 128) <= 1
    # one segment per row: no token_type_ids column (all zeros, the models' default); bool specials
    assert rows.column_names == ["input_ids", "special_tokens_mask", "word_start", "length", "doc_id", "source"]
    assert rows.features["special_tokens_mask"].feature.dtype == "bool"
    info = json.loads((tmp_path / "out" / "train" / "dataset_info.json").read_text())
    assert datasets.Features.from_dict(info["features"]) == rows.features
    assert sum(map(sum, rows["special_tokens_mask"])) == printed["special_tokens"]


@pytest.mark.slow
def test_cli_warns_when_padding_passes_a_fifth_naming_the_layouts_that_avoid_it(tmp_path, kcbert, capsys):
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(kcbert), "--max-length", "128",
            "--validation-fraction", "0", "--local-mode", "in_memory"]
    assert cli.main([*argv, "--out", str(tmp_path / "pair")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["padding_fraction"] == 0.552495
    assert captured.err == (
        "kcorpus pack: padding is 55.2% of the 128-token positions (layout pair): rows filled across documents "
        "waste less, --layout full_sentences (whole sentences across documents) or cross_document (no padding "
        "at all)\n"
    )
    assert cli.main([*argv, "--out", str(tmp_path / "full"), "--layout", "full_sentences"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["padding_fraction"] == 0.141156 and captured.err == ""


def test_cli_reports_clear_errors(tmp_path, kcbert, capsys):
    (tmp_path / "empty").mkdir()
    argv = ["pack", "--corpus", str(tmp_path / "empty"), "--tokenizer", str(kcbert), "--out", str(tmp_path / "o")]
    assert cli.main(argv) == 2
    assert "no corpus files" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # inputs are checked before the output folder is created
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == (
        f"kcorpus pack: error: --tokenizer {tmp_path / 'empty'}: no {tmp_path / 'empty'}/tokenizer.json; "
        "expected a folder with "
        "tokenizer.json (train-vocab's output)\n"
    )
    # every problem at once, before any output is touched
    (tmp_path / "o").write_text("a user's file\n")
    argv = ["pack", "--corpus", str(tmp_path / "c"), "--tokenizer", str(tmp_path), "--out", str(tmp_path / "o")]
    assert cli.main(argv) == 2
    assert len(capsys.readouterr().err.splitlines()) == 3
    assert (tmp_path / "o").read_text() == "a user's file\n"


def test_shards_without_documents_are_still_written_and_load(tmp_path, kcbert):
    from kcorpus.data import PackedDataset

    first = (CORPUS / "docs" / "part-00000-of-00002.jsonl").read_text().splitlines()[0]
    (tmp_path / "c" / "docs").mkdir(parents=True)
    (tmp_path / "c" / "docs" / "part-00000-of-00001.jsonl").write_text(first + "\n")
    manifest = run(job(tmp_path / "out", kcbert, corpus=tmp_path / "c"), local_mode="in_memory")
    assert len(manifest["shards"]) == 4 and sum(s["rows"] for s in manifest["shards"]) == manifest["counts"]["sequences"]
    assert sorted(s["rows"] > 0 for s in manifest["shards"]) == [False, False, False, True]
    for split in ("train", "validation"):
        rows = datasets.load_from_disk(str(tmp_path / "out" / split)).num_rows
        assert rows == manifest["counts"]["splits"][split]["sequences"] == len(PackedDataset(tmp_path / "out" / split))


def test_batches_are_reshuffled_only_when_units_are_too_few_to_spread(kcbert, tmp_path):
    from apache_beam.options.pipeline_options import PipelineOptions

    from kcorpus.pipeline.options import pipeline_options
    from kcorpus.pipeline.pack.read import spread_batches

    local = pipeline_options(["--direct_num_workers=2"])
    auto = job(tmp_path, kcbert)
    assert spread_batches(auto, 3, local) and not spread_batches(auto, 4, local)
    dataflow = ["--runner=DataflowRunner"]
    assert spread_batches(auto, 63, PipelineOptions(dataflow)) and not spread_batches(auto, 64, PipelineOptions(dataflow))
    assert not spread_batches(auto, 100, PipelineOptions([*dataflow, "--max_num_workers=50"]))
    assert spread_batches(auto, 100, PipelineOptions([*dataflow, "--num_workers=51"]))
    assert not spread_batches(job(tmp_path, kcbert, reshuffle_batches="never"), 1, local)
    assert spread_batches(job(tmp_path, kcbert, reshuffle_batches="always"), 100, local)
    with pytest.raises(ValueError, match="reshuffle_batches"):
        job(tmp_path, kcbert, reshuffle_batches="sometimes")


def test_no_word_start_pack_has_no_column_and_the_same_rows(tmp_path, kcbert, packed):
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(kcbert), "--out", str(tmp_path / "out"),
            "--max-length", "128", "--single-segment-prob", "0.1", "--short-seq-prob", "0.05", "--seed", "3",
            "--validation-fraction", "0.1", "--num-shards", "3", "--num-validation-shards", "1", "--no-word-start",
            "--local-mode", "in_memory"]
    assert cli.main(argv) == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["config"]["word_start"] is False
    without = datasets.load_from_disk(str(tmp_path / "out"))
    with_flags = datasets.load_from_disk(str(packed[0]))
    for split in ("train", "validation"):
        assert "word_start" not in without[split].column_names
        assert without[split].to_dict() == with_flags[split].remove_columns("word_start").to_dict()
    size = sum(s["bytes"] for s in manifest["shards"])
    assert size < sum(s["bytes"] for s in packed[1]["shards"])


def test_a_pack_written_before_word_start_and_source_still_loads():
    """tests/testdata/pack/old_pack: written by kcorpus before these columns (see that folder's README)."""
    old = CORPUS.parent / "old_pack"
    loaded = datasets.load_from_disk(str(old))
    assert list(loaded) == ["train", "validation"]
    assert loaded["train"].column_names == ["input_ids", "token_type_ids", "special_tokens_mask", "length", "doc_id"]
    manifest = json.loads((old / "manifest.json").read_text())
    assert "sources" not in manifest["counts"] and "layout" in manifest["config"]
    assert sum(d.num_rows for d in loaded.values()) == manifest["counts"]["sequences"] == 31


def test_cli_nsp_layout_writes_next_sentence_label(tmp_path, kcbert, capsys):
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(kcbert), "--out", str(tmp_path / "out"),
            "--max-length", "128", "--layout", "nsp", "--validation-fraction", "0.1",
            "--num-shards", "2", "--local-mode", "in_memory"]
    assert cli.main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["config"]["layout"] == "nsp" and manifest["config"]["short_seq_prob"] == 0.1
    # truncation drops tokens and random Bs copy some: both counted, and they reconcile with the corpus
    assert printed["corpus_tokens"] == 58140 and printed["dropped_tokens"] > 0 and printed["borrowed_tokens"] > 0
    assert printed["tokens"] - printed["borrowed_tokens"] + printed["dropped_tokens"] == 58140
    train = datasets.load_from_disk(str(tmp_path / "out" / "train"))
    assert train.features["next_sentence_label"].dtype == "int8"
    labels = train["next_sentence_label"]
    assert set(labels) == {0, 1}
    for row in train.select(range(50)):
        types = row["token_type_ids"]
        assert row["input_ids"][0] == 2 and types[-1] == 1 and row["special_tokens_mask"].count(1) == 3
        assert len(types) <= 128
