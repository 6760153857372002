"""Training-side checks of issue 32 on the bundled sample: attention masks, SOP labels, the recipes' losses.

    make run   (or: kcorpus run configs/sample.yaml --out SAMPLE)
    python bench/checks/training_checks.py --sample runs/sample --out /tmp/checks [--only masks sop recipes]

- `masks`: a tiny BERT (hidden 64, 2 layers, initializer_range 0.5) on one batch of 8 rows of the sample packed
  in the `pair` layout: the padded batch's MLM loss, and the flat (`pad_to="none"`) batch's with "sdpa" and
  "eager" attention: with the bool block-diagonal mask the docs used to recommend, with the additive float mask
  (`block_diagonal_mask(cu, dtype)`), through `ModelInputs`, and raw (`model(**batch)`); max |logit difference|.
- `sop`: sentence-order labels at batch size 8 over an epoch of the sample's `pair` pack and of its comments +
  petitions part (no Wikipedia): the share of rows with a label and the batches without one, without and with
  `split_single_segments`, the tokens the cut rows add, and the Enliple recipe's tiny model for 30 steps
  (steps with a NaN loss) without and with `split_single_segments` + `min_predictions=1`.
- `recipes`: every recipe of docs/training.md verbatim: its `kcorpus pack` command run as written in OUT (where
  `runs/sample` links to SAMPLE), then its code (`tiny = True`); prints what the recipe prints.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "training.md"
KCORPUS = str(Path(sys.executable).parent / "kcorpus")  # the venv's command
RECIPES = ("### KcBERT", "### KcELECTRA", "### Enliple", "### DeBERTa-v3")
TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 256}


def recipe(heading: str) -> tuple[list[str], str]:
    """(the `kcorpus pack` command in the recipe's first comment, as argv; the recipe's code)."""
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text[text.index(heading) :], re.DOTALL).group(1)
    comment = [line for line in code.splitlines() if line.startswith(("#  ", "# kcorpus pack"))]
    return shlex.split(" ".join(line.lstrip("# ").rstrip("\\ ") for line in comment)), code


def pack(sample: Path, out: Path, layout: str, sources: tuple[str, ...] | None = None) -> Path:
    """The sample's corpus (or its documents of `sources`) packed at 512 tokens in `layout`, once."""
    name = f"{layout}-{'-'.join(sources) if sources else 'all'}"
    target = out / "packs" / name
    if (target / "manifest.json").exists():
        return target
    corpus = sample / "corpus"
    if sources:
        corpus = out / "corpora" / name
        (corpus / "docs").mkdir(parents=True, exist_ok=True)
        for path in sorted((sample / "corpus" / "docs").glob("*.jsonl")):
            lines = [line for line in path.read_text(encoding="utf-8").splitlines()
                     if json.loads(line)["source"] in sources]
            (corpus / "docs" / path.name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    subprocess.run([KCORPUS, "--no-progress", "pack", "--corpus", str(corpus),
                    "--tokenizer", str(sample / "vocab"), "--out", str(target), "--layout", layout,
                    "--max-length", "512"], check=True, stdout=subprocess.DEVNULL)
    return target


def check_masks(sample: Path, out: Path) -> None:
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from kcorpus.data import MLMCollator, ModelInputs, PackedDataLoader, PackedDataset
    from kcorpus.data.flatten import block_diagonal_mask

    ds = PackedDataset(pack(sample, out, "pair") / "train")
    collator = MLMCollator.for_dataset(ds, seed=0)

    def first(**options):
        return next(iter(PackedDataLoader(ds, 8, seed=1, collator=collator, return_tensors="pt", **options)))

    padded, flat = first(pad_to="longest"), first(pad_to="none")
    keys = ("input_ids", "token_type_ids", "position_ids", "labels")
    print(f"masks: 8 rows, {flat['input_ids'].shape[1]} tokens; BertForMaskedLM hidden 64, 2 layers, "
          "initializer_range 0.5")
    print(f"{'attention':<10}{'padded':>10}{'flat+bool':>12}{'flat+float':>12}{'ModelInputs':>13}{'raw':>10}"
          f"{'|dlogit| bool':>15}{'|dlogit| float':>16}")
    for attention in ("sdpa", "eager"):
        torch.manual_seed(0)
        model = BertForMaskedLM(BertConfig(vocab_size=ds.vocab_size, max_position_embeddings=512,
                                           initializer_range=0.5, attn_implementation=attention, **TINY)).eval()
        inputs = ModelInputs.for_model(model)
        with torch.no_grad():
            want = model(**{k: padded[k] for k in ("input_ids", "token_type_ids", "attention_mask", "labels")})
            real = want.logits[padded["attention_mask"] == 1]
            got = {}
            for name, mask in (("bool", block_diagonal_mask(flat["cu_seqlens"])),
                               ("float", block_diagonal_mask(flat["cu_seqlens"], torch.float32))):
                got[name] = model(**{k: flat[k] for k in keys}, attention_mask=mask)
            through = model(**inputs(flat)).loss
            raw = model(**flat).loss
        delta = {k: float((v.logits[0] - real).abs().max()) for k, v in got.items()}
        print(f"{attention:<10}{want.loss:>10.5f}{got['bool'].loss:>12.5f}{got['float'].loss:>12.5f}{through:>13.5f}"
              f"{raw:>10.5f}{delta['bool']:>15.3g}{delta['float']:>16.3g}")


def sop_epoch(ds, collator) -> tuple[int, int, int, int, int]:
    """(rows, rows with an SOP label, batches, batches without one, batches without an MLM target) at batch 8."""
    from kcorpus.data import PackedDataLoader

    rows = labelled = batches = no_sop = no_mlm = 0
    for batch in PackedDataLoader(ds, 8, seed=42, collator=collator, pad_to="longest"):
        labels = batch["sentence_order_label"]
        rows, labelled, batches = rows + labels.shape[0], labelled + int((labels != -100).sum()), batches + 1
        no_sop += int((labels == -100).all())
        no_mlm += int((batch["labels"] == -100).all())
    return rows, labelled, batches, no_sop, no_mlm


def enliple_steps(ds, collator, steps: int = 30) -> list[float]:
    """The Enliple recipe's tiny model (BertForPreTraining, batch 8) for `steps` steps: the losses."""
    import torch
    from transformers import BertConfig, BertForPreTraining

    from kcorpus.data import ModelInputs, PackedDataLoader

    torch.manual_seed(0)
    model = BertForPreTraining(BertConfig(vocab_size=ds.vocab_size, **TINY))
    inputs = ModelInputs.for_model(model, rename={"sentence_order_label": "next_sentence_label"})
    loader = PackedDataLoader(ds, 8, seed=42, collator=collator, return_tensors="pt", pad_to="longest",
                              model_inputs=inputs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    losses = []
    for _, batch in zip(range(steps), loader):
        loss = model(**batch).loss
        if torch.isfinite(loss):
            loss.backward()
            optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def check_sop(sample: Path, out: Path) -> None:
    from kcorpus.data import MLMCollator, PackedDataset

    for sources in (None, ("nsmc", "petitions")):
        ds = PackedDataset(pack(sample, out, "pair", sources) / "train")
        real = int(ds.content_lengths.sum() + (ds.lengths - ds.content_lengths).sum())
        print(f"sop: pair pack of the sample{' (' + ' + '.join(sources) + ')' if sources else ''}: {len(ds):,} rows, "
              f"{real:,} tokens with specials")
        common = {"tokenizer": None, "masking": "ngram", "max_ngram": 3, "mlm_probability": 0.15,
                  "sentence_order": True, "seed": 42}
        before = 0
        for label, extra in (("as before", {}),
                             ("split_single_segments + min_predictions=1",
                              {"split_single_segments": True, "min_predictions": 1})):
            collator = MLMCollator.for_dataset(ds, **common, **extra)
            rows, labelled, batches, no_sop, no_mlm = sop_epoch(ds, collator)
            print(f"  {label}: {labelled:,} of {rows:,} rows with an SOP label ({labelled / rows:.1%}); "
                  f"batches of 8 without one: {no_sop:,} of {batches:,}; without an MLM target: {no_mlm:,}")
            if extra:
                cut = labelled - before
                print(f"  cost: {cut:,} rows cut, one [SEP] each: +{cut:,} tokens, {cut / real:.2%} of the pack's "
                      "tokens (0 extra compute at pad_to='max_length': the padding takes it)")
            before = labelled
            if sources:
                losses = enliple_steps(ds, collator)
                nan = sum(not math.isfinite(x) for x in losses)
                print(f"  Enliple tiny model, 30 steps at batch 8: {nan} with a NaN loss; "
                      f"losses {' '.join(f'{x:.2f}' for x in losses[:10])} ...")


def check_recipes(sample: Path, out: Path) -> None:
    root = out / "recipes"
    (root / "runs").mkdir(parents=True, exist_ok=True)
    link = root / "runs" / "sample"
    if not link.exists():
        link.symlink_to(sample.resolve())
    os.chdir(root)
    for heading in RECIPES:
        argv, code = recipe(heading)
        target = root / argv[argv.index("--out") + 1]
        if not (target / "manifest.json").exists():
            subprocess.run([KCORPUS, "--no-progress", *argv[1:]], check=True,
                           stdout=subprocess.DEVNULL)
        print(f"recipe {heading[4:]}: {' '.join(argv)}")
        start = time.process_time()
        exec(compile(code, str(DOC), "exec"), {"__name__": "recipe"})  # noqa: S102  (the docs recipe, verbatim)
        print(f"  ({time.process_time() - start:.0f} s CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=Path, required=True, help="a `make run` folder (corpus/, vocab/)")
    parser.add_argument("--out", type=Path, required=True, help="scratch folder for packs and recipe runs")
    parser.add_argument("--only", nargs="+", choices=("masks", "sop", "recipes"), default=("masks", "sop", "recipes"))
    args = parser.parse_args()
    if not (args.sample / "corpus" / "docs").is_dir() or not (args.sample / "vocab").is_dir():
        parser.error(f"{args.sample} has no corpus/docs/ and vocab/: run `make run` (or kcorpus run) first")
    args.out.mkdir(parents=True, exist_ok=True)
    sample, out = args.sample.resolve(), args.out.resolve()
    checks = {"masks": check_masks, "sop": check_sop, "recipes": check_recipes}
    for name in ("masks", "sop", "recipes"):
        if name in args.only:
            checks[name](sample, out)


if __name__ == "__main__":
    main()
