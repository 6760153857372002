"""The pack root as a `datasets.DatasetDict`, and the Hugging Face `Trainer` example of docs/training.md on it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import datasets
import pytest

from kcorpus.data import PackedDataset
from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.vocab.files import write_wordpiece_dir
from packing_fixtures import CORPUS, kcbert_vocab

TRAINING_DOC = Path(__file__).resolve().parents[3] / "docs" / "training.md"


def pack_job(vocab: Path, out: Path, validation_fraction: float = 0.1, layout: str = "pair") -> PackJob:
    return PackJob(corpus=str(CORPUS), tokenizer=str(vocab), out=str(out),
                   pack=PackConfig(max_length=64, layout=layout), validation_fraction=validation_fraction,
                   num_shards=2, num_validation_shards=1)


def make_run_dir(root: Path, layout: str = "pair") -> Path:
    """A `kcorpus run`-shaped folder: `vocab/` written by kcorpus (KcBERT's vocab) and `pack/` packed with it."""
    root = root / "runs" / "sample"
    write_wordpiece_dir(str(root / "vocab"), kcbert_vocab())
    run(pack_job(root / "vocab", root / "pack", layout=layout), local_mode="in_memory")
    return root


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_run_dir(tmp_path_factory.mktemp("work"))


def test_pack_root_loads_as_a_datasetdict_and_each_split_alone(run_dir):
    pack = run_dir / "pack"
    manifest = json.loads((pack / "manifest.json").read_text())
    assert (pack / "dataset_dict.json").read_text() == '{"splits": ["train", "validation"]}\n'
    loaded = datasets.load_from_disk(str(pack))
    assert isinstance(loaded, datasets.DatasetDict) and list(loaded) == ["train", "validation"]
    for split in ("train", "validation"):
        alone = datasets.load_from_disk(str(pack / split))
        assert isinstance(alone, datasets.Dataset)
        assert loaded[split].num_rows == alone.num_rows == manifest["counts"]["splits"][split]["sequences"]
        assert loaded[split].to_dict() == alone.to_dict()
        assert len(PackedDataset(pack / split)) == alone.num_rows
    # the manifest lists the shards only, with their digests, as before
    assert [s["file"] for s in manifest["shards"]] == [
        "train/data-00000-of-00002.arrow", "train/data-00001-of-00002.arrow", "validation/data-00000-of-00001.arrow"]


def test_pack_without_validation_is_a_datasetdict_of_train(run_dir, tmp_path):
    run(pack_job(run_dir / "vocab", tmp_path / "pack", validation_fraction=0.0), local_mode="in_memory")
    assert json.loads((tmp_path / "pack" / "dataset_dict.json").read_text()) == {"splits": ["train"]}
    assert list(datasets.load_from_disk(str(tmp_path / "pack"))) == ["train"]


def doc_example(heading: str) -> str:
    """The first ```python block after `heading` in docs/training.md."""
    text = TRAINING_DOC.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


@pytest.mark.slow
# `make run`'s pack is `cross_document` (no token_type_ids column); `pair` has one
@pytest.mark.parametrize("layout", ["pair", "cross_document"])
def test_trainer_example_of_the_docs_runs_on_the_pack(run_dir, tmp_path, layout, monkeypatch, capsys):
    pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate (in the test extra)")
    if layout != "pair":
        run_dir = make_run_dir(tmp_path, layout)
    code = doc_example("## The Hugging Face `Trainer`")
    assert 'datasets.load_from_disk("runs/sample/pack")' in code and "trainer.train()" in code
    monkeypatch.chdir(run_dir.parent.parent)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    namespace: dict = {}
    exec(compile(code, str(TRAINING_DOC), "exec"), namespace)  # noqa: S102  (the docs example, verbatim)
    trainer = namespace["trainer"]
    assert trainer.state.global_step == 3
    assert len(namespace["tokenizer"]) == 30000
    printed = re.search(r"'eval_loss': ([0-9.]+)", capsys.readouterr().out)
    # an untrained model: the MLM loss on the validation split is about ln(vocab size) = 10.31
    assert printed and abs(float(printed.group(1)) - 10.31) < 0.5
    assert os.path.isdir(run_dir / "mlm")
