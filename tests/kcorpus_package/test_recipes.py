"""Every recipe of docs/training.md, verbatim and end to end (the `tiny = True` CPU trial it ships with), on a
small real pack (NSMC comments + petitions) packed as the recipe's comment says (at 64 tokens): losses finite
and falling, and each recipe's loader doing what its heading says."""

from __future__ import annotations

import contextlib
import io
import math
import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest

from kcorpus.transforms.pack.blocks import LAYOUTS

from .conftest import build_pack

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

TRAINING_DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"
TEST_LENGTH = 64
RECIPES = {"kcbert": "### KcBERT", "kcelectra": "### KcELECTRA", "enliple": "### Enliple", "deberta": "### DeBERTa-v3"}


def recipe(heading: str) -> tuple[dict[str, str], str]:
    """(the `kcorpus pack` options in its first comment, the whole code block) of the recipe under `heading`."""
    text = TRAINING_DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text[text.index(heading) :], re.DOTALL).group(1)
    comment = [line for line in code.splitlines() if line.startswith(("#  ", "# kcorpus pack"))]
    command = " ".join(line.lstrip("# ").rstrip("\\ ") for line in comment)
    words = shlex.split(command)
    options = {w[2:]: words[i + 1] for i, w in enumerate(words) if w.startswith("--")}
    return options, code


def test_every_recipe_of_the_doc_is_tested():
    headings = re.findall(r"^### (.+)$", TRAINING_DOC.read_text(encoding="utf-8").split("## Recipes\n")[1]
                          .split("\n## ")[0], re.MULTILINE)
    assert len(headings) == len(RECIPES) and all(h.startswith(tuple(v[4:] for v in RECIPES.values()))
                                                 for h in headings)


@pytest.fixture(scope="module")
def ran(tmp_path_factory, spm_dir, comments_petitions_corpus):
    """name -> the namespace each recipe left after running verbatim (run on first use)."""
    root = tmp_path_factory.mktemp("recipes")
    # a 3,000-token SentencePiece vocabulary keeps the tiny models' LM heads cheap on CPU
    shutil.copytree(spm_dir, root / "runs" / "sample" / "vocab")
    done: dict[str, dict] = {}

    def run(name: str) -> dict:
        if name not in done:
            options, code = recipe(RECIPES[name])
            assert options["out"] == f"runs/{name}/pack" and options["tokenizer"] == "runs/sample/vocab"
            assert options["layout"] in LAYOUTS and "\ntiny = True" in code
            # 64 tokens instead of the recipe's 300 / 512: the same code at a fraction of the CPU time
            build_pack(root / options["out"], root / options["tokenizer"], comments_petitions_corpus,
                       max_length=TEST_LENGTH, layout=options["layout"])
            with pytest.MonkeyPatch.context() as patch:
                patch.chdir(root)
                namespace: dict = {"__name__": f"recipe_{name}"}
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, str(TRAINING_DOC), "exec"), namespace)  # noqa: S102  (the docs recipe, verbatim)
            done[name] = {**namespace, "printed": printed.getvalue()}
        return done[name]

    return run


@pytest.mark.slow
@pytest.mark.parametrize("name", RECIPES)
def test_recipe_trains_with_finite_falling_losses(name, ran):
    losses = np.asarray(ran(name)["losses"], dtype=float).reshape(6, -1)  # columns: one per loss (gen, disc)
    assert np.isfinite(losses).all()
    assert np.all(losses[-2:].mean(axis=0) < losses[:2].mean(axis=0)), losses
    printed = ran(name)["printed"].splitlines()  # what the recipe prints: a label, then each step's loss
    assert len(printed) == losses.shape[1] and all(len(line.split()) == 7 for line in printed), printed
    assert np.allclose([[float(x) for x in line.split()[1:]] for line in printed], losses.T, atol=0.01)


def test_kcbert_loader_masks_20_tokens_at_most_with_nsp_labels(ran):
    loader = ran("kcbert")["loader"]
    for batch in [b for _, b in zip(range(3), loader)]:
        assert set(batch) == {"input_ids", "token_type_ids", "attention_mask", "labels", "next_sentence_label"}
        assert batch["input_ids"].shape == (8, TEST_LENGTH)
        assert (batch["labels"] != -100).sum(dim=1).max() <= 20
    assert set(torch.cat([b["next_sentence_label"] for b in loader]).tolist()) == {0, 1}


@pytest.mark.parametrize("name", ["kcelectra", "deberta"])
def test_rtd_recipes_mask_as_their_models_did(name, ran):
    namespace = ran(name)
    mask_id = namespace["train"].mask_id
    predicted = real = 0
    for batch in [b for _, b in zip(range(3), namespace["loader"])]:
        ids, labels = batch["input_ids"], batch["labels"]
        target = labels != -100
        if name == "kcelectra":  # 85% [MASK], 15% kept, at most int(0.155 * 512) per row
            assert target.sum(dim=1).max() <= int(0.155 * TEST_LENGTH)
            assert torch.all((ids[target] == mask_id) | (ids[target] == labels[target]))
        else:  # every predicted token is [MASK]
            assert torch.all(ids[target] == mask_id)
        predicted += int(target.sum())
        real += int(((batch["special_tokens_mask"] == 0) & (batch["attention_mask"] == 1)).sum())
    assert 0.1 < predicted / real < 0.2


def test_enliple_sop_labels_most_rows_and_every_batch(ran):
    """At batch size 8 over a whole epoch of the comments + petitions pack: every batch carries SOP (and MLM)
    labels, so BertForPreTraining's loss is never NaN, and >= 80% of rows carry one."""
    namespace = ran("enliple")
    loader = namespace["loader"]
    loader.set_epoch(1)
    labelled = rows = 0
    for batch in loader:
        sop = batch["next_sentence_label"]
        assert (sop != -100).any() and (batch["labels"] != -100).any()
        assert set(sop.tolist()) <= {-100, 0, 1}
        labelled += int((sop != -100).sum())
        rows += sop.shape[0]
    assert rows == len(namespace["train"]) and labelled / rows >= 0.8
    assert all(math.isfinite(x) for x in namespace["losses"])
