"""The loader part of each recipe in docs/training.md, verbatim, on a small real pack packed as the recipe says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from kcorpus.transforms.packing.blocks import LAYOUTS
from kcorpus.transforms.vocab.files import write_wordpiece_dir
from packing_fixtures import kcbert_vocab

from .conftest import build_pack

TRAINING_DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"
RECIPES = {"kcbert": "### KcBERT", "kcelectra": "### KcELECTRA", "enliple": "### Enliple", "deberta": "### DeBERTa-v3"}


def recipe(heading: str) -> tuple[dict[str, str], str]:
    """(the `kcorpus pack` options in its comment, the code before `# model`) of the recipe under `heading`."""
    text = TRAINING_DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text[text.index(heading) :], re.DOTALL).group(1)
    comment = [line for line in code.splitlines() if line.startswith(("#  ", "# kcorpus pack"))]
    command = " ".join(line.lstrip("# ").rstrip("\\ ") for line in comment)
    words = shlex.split(command)
    options = {w[2:]: words[i + 1] for i, w in enumerate(words) if w.startswith("--")}
    return options, code.split("# model\n")[0]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("recipes")
    write_wordpiece_dir(str(root / "runs" / "sample" / "vocab"), kcbert_vocab())
    return root


@pytest.mark.slow
@pytest.mark.parametrize("name", RECIPES)
def test_recipe_loader_runs_on_a_real_pack(name, root, monkeypatch):
    options, code = recipe(RECIPES[name])
    assert options["out"] == f"runs/{name}/pack" and options["tokenizer"] == "runs/sample/vocab"
    if options["layout"] not in LAYOUTS:
        pytest.skip(f"this kcorpus has no `{options['layout']}` layout yet")
    build_pack(root / options["out"], root / options["tokenizer"], max_length=int(options["max-length"]),
               layout=options["layout"])
    monkeypatch.chdir(root)
    namespace: dict = {}
    exec(compile(code, str(TRAINING_DOC), "exec"), namespace)  # noqa: S102  (the docs recipe, verbatim)
    train, loader = namespace["train"], namespace["loader"]
    batches = [b for _, b in zip(range(3), loader)]
    mask_id = train.mask_id
    for batch in batches:
        ids, labels = batch["input_ids"].numpy(), batch["labels"].numpy()
        assert ids.shape[1] == int(options["max-length"])
        target = labels != -100
        predicted = target.sum(axis=1)
        if name == "kcbert":
            assert predicted.max() <= 20 and ids.shape[0] == 32
            assert set(batch["next_sentence_label"].tolist()) == {0, 1}
        if name == "kcelectra":
            assert predicted.max() <= int(0.155 * 512)
            assert np.all((ids[target] == mask_id) | (ids[target] == labels[target]))
        if name == "enliple":
            assert set(batch["sentence_order_label"].tolist()) <= {-100, 0, 1}
        if name == "deberta":
            assert np.all(ids[target] == mask_id)
    share = sum(int((b["labels"] != -100).sum()) for b in batches) / sum(
        int(((b["special_tokens_mask"] == 0) & (b["attention_mask"] == 1)).sum()) for b in batches)
    assert 0.05 < share < 0.2

