"""Does `PackedDataLoader(device="cuda", prefetch=2)` keep the GPU busy? The table of issue 14.

For each model (BERT-base MLM; an ELECTRA-small-sized MLM: 256 hidden, 12 layers, 4 heads, 1024 FFN):
1. GPU alone: one MLM batch resident on the device, the same train step (forward, backward, AdamW) repeated;
2. fed by the loader, no prefetch: `PackedDataLoader` numpy batches moved with a blocking `.to(device)`;
3. fed by the loader with `device=..., prefetch=N`: batches copied ahead on a side stream;
and GPU busy = fed tokens/s / alone tokens/s. Tokens are batch x sequence length (padding included), medians
of `--repeats` timed windows of `--steps` steps after `--warmup` steps.

The pack is `--pack DIR` (a `kcorpus pack` output, its train split is read) or a synthetic pack of random ids
written here. Usage:
    python bench/bench_gpu_prefetch.py --device cuda --batch-size 64 --seq-len 512 --steps 50 --repeats 3
    python bench/bench_gpu_prefetch.py --device cpu --tiny     # smoke test: tiny models, a few steps
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from kcorpus.data import MLMCollator, PackedDataLoader, PackedDataset

MODELS = {
    "BERT-base MLM": {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                      "intermediate_size": 3072},
    "ELECTRA-small-sized (256 hidden, 12 layers)": {"hidden_size": 256, "num_hidden_layers": 12,
                                                   "num_attention_heads": 4, "intermediate_size": 1024},
}  # fmt: skip
TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
PAD, CLS, SEP, MASK = 0, 2, 3, 4


def write_synthetic_pack(out: Path, sequences: int, seq_len: int, vocab_size: int, seed: int = 0) -> Path:
    """A pack's train split in the columns `kcorpus pack` writes for a single-segment layout (no
    `token_type_ids`, a bool `special_tokens_mask`): full-length random sequences."""
    rng = np.random.default_rng(seed)
    split = out / "train"
    split.mkdir(parents=True)
    body = rng.integers(5, vocab_size, size=(sequences, seq_len), dtype=np.int32)
    body[:, 0], body[:, -1] = CLS, SEP
    special = np.zeros_like(body, dtype=bool)
    special[:, 0] = special[:, -1] = True
    offsets = pa.array(np.arange(0, sequences * seq_len + 1, seq_len, dtype=np.int32))
    table = pa.table({
        "input_ids": pa.ListArray.from_arrays(offsets, pa.array(body.reshape(-1))),
        "special_tokens_mask": pa.ListArray.from_arrays(offsets, pa.array(special.reshape(-1))),
    })  # fmt: skip
    with pa.ipc.new_stream(str(split / "data-00000-of-00001.arrow"), table.schema) as writer:
        writer.write_table(table, max_chunksize=1024)
    (split / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    manifest = {
        "tokenizer": {"vocab_size": vocab_size, "special_ids": {"pad": PAD, "mask": MASK}},
        "config": {"max_length": seq_len},
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    return split


def make_model(sizes: dict, vocab_size: int, seq_len: int, device):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    config = BertConfig(vocab_size=vocab_size, max_position_embeddings=max(512, seq_len), **sizes)
    model = BertForMaskedLM(config).to(device)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-4)


def train_step(model, optimizer, batch: dict, autocast) -> None:
    with autocast():
        loss = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                     token_type_ids=batch["token_type_ids"], labels=batch["labels"]).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def timed(step, batches, steps: int, warmup: int, repeats: int, sync) -> list[float]:
    """Seconds of each of `repeats` windows of `steps` steps, after `warmup` steps."""
    for _ in range(warmup):
        step(next(batches))
    sync()
    windows = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step(next(batches))
        sync()
        windows.append(time.perf_counter() - start)
    return windows


def endless(loader: PackedDataLoader):
    epoch = 0
    while True:
        loader.set_epoch(epoch)
        yield from loader
        epoch += 1


def measure(name: str, sizes: dict, dataset: PackedDataset, args) -> dict:
    import torch

    device = torch.device(args.device)
    cuda = device.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if cuda else contextlib.nullcontext
    model, optimizer = make_model(sizes, dataset.vocab_size, dataset.max_length, device)
    collator = MLMCollator.for_dataset(dataset, seed=0)
    tokens = args.steps * args.batch_size * dataset.max_length
    common = {"num_workers": args.workers, "collator": collator, "drop_last": True}

    def step(batch):
        train_step(model, optimizer, batch, autocast)

    resident = next(iter(PackedDataLoader(dataset, args.batch_size, device=args.device, **common)))
    alone = timed(step, iter(lambda: resident, None), args.steps, args.warmup, args.repeats, sync)

    plain = PackedDataLoader(dataset, args.batch_size, return_tensors="pt", pin_memory=cuda, **common)
    moved = ({k: v.to(device, non_blocking=cuda) for k, v in b.items()} for b in endless(plain))
    no_prefetch = timed(step, moved, args.steps, args.warmup, args.repeats, sync)

    fed_loader = PackedDataLoader(dataset, args.batch_size, device=args.device, prefetch=args.prefetch, **common)
    fed = timed(step, endless(fed_loader), args.steps, args.warmup, args.repeats, sync)
    alone_tps, plain_tps, fed_tps = (tokens / statistics.median(w) for w in (alone, no_prefetch, fed))
    return {"model": name, "alone": alone_tps, "no_prefetch": plain_tps, "fed": fed_tps,
            "busy": fed_tps / alone_tps, "busy_no_prefetch": plain_tps / alone_tps}  # fmt: skip


def thousands(tps: float) -> str:
    return f"{tps / 1e3:.1f}K"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--pack", help="a kcorpus pack output; default: a synthetic pack")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seq-len", type=int, default=512, help="of the synthetic pack")
    parser.add_argument("--vocab-size", type=int, default=32000, help="of the synthetic pack")
    parser.add_argument("--sequences", type=int, default=8192, help="of the synthetic pack")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--prefetch", type=int, default=2)
    parser.add_argument("--tiny", action="store_true", help="tiny models and sizes: a CPU smoke test")
    args = parser.parse_args()
    if args.tiny:
        args.batch_size, args.seq_len, args.vocab_size, args.sequences = 4, 32, 500, 64
        args.steps, args.warmup, args.repeats, args.workers = 3, 1, 1, 0
    with tempfile.TemporaryDirectory() as tmp:
        split = Path(args.pack) / "train" if args.pack else write_synthetic_pack(
            Path(tmp) / "pack", args.sequences, args.seq_len, args.vocab_size)  # fmt: skip
        dataset = PackedDataset(split)
        rows = [measure(name, TINY if args.tiny else sizes, dataset, args) for name, sizes in MODELS.items()]
    print(f"device {args.device}, batch {args.batch_size} x {dataset.max_length}, {args.workers} workers, "
          f"prefetch {args.prefetch}; medians of {args.repeats} x {args.steps} steps")  # fmt: skip
    print("| model | GPU alone (same batch resident) | fed, no prefetch | fed by `PackedDataLoader` "
          "(prefetch) | GPU busy (no prefetch) | GPU busy |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {thousands(r['alone'])} tokens/s | {thousands(r['no_prefetch'])} | "
              f"{thousands(r['fed'])} | {r['busy_no_prefetch']:.1%} | {r['busy']:.1%} |")


if __name__ == "__main__":
    main()
