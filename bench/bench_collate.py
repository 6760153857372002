"""Masking cost and padding of `kcorpus.data`: token vs whole-word vs n-gram masking, padded vs padding-free.

Packs the NSMC comments (real, one comment per document) with the KcBERT WordPiece vocab in the default
`pair` layout, in this process, then:
1. collator time per batch (`--batch-size` rows, padded to max_length) for masking="token" (the baseline),
   "whole_word" and "ngram" (max_ngram=3), and ngram + SOP: medians over `--repeats` rounds in which the
   collators alternate, so the load of a shared machine weighs on all alike; ratio to token (goal <= 2x);
2. padding share of the same batches, pad_to="max_length" vs "none" (goal <= 2% with "none"), and how full
   `max_tokens` batches are (tokens over the budget);
3. loader tokens/s over one epoch, padded vs padding-free (one process, numpy, with ngram masking).
Usage:
    python bench/bench_collate.py --data /work/shared/data --comments 20000 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from bench_pack import kcbert_tokenizer, sentences


def comments_corpus(data: Path, limit: int, out: Path) -> int:
    (out / "docs").mkdir(parents=True)
    n = 0
    with (data / "nsmc" / "ratings_test.txt").open(encoding="utf-8") as f, \
            (out / "docs" / "part-00000-of-00001.jsonl").open("w", encoding="utf-8") as w:
        next(f)
        for line in f:
            rid, text, _ = line.rstrip("\n").split("\t")
            if text.strip() and n < limit:
                record = {"id": f"nsmc:{rid}", "text": "\n".join(sentences(text)), "source": "comments",
                          "metadata": {}}
                w.write(json.dumps(record, ensure_ascii=False) + "\n")
                n += 1
    return n


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--comments", type=int, default=20_000)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--max-tokens", type=int, default=8192)
    parser.add_argument("--batches", type=int, default=20, help="batches timed per collator and round")
    parser.add_argument("--repeats", type=int, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from kcorpus.data import BatchRequest, MLMCollator, PackedDataLoader, PackedDataset
    from kcorpus.pipeline.pack.build import PackJob, run
    from kcorpus.transforms.pack.blocks import PackConfig

    work = Path(tempfile.mkdtemp(prefix="bench_collate_"))
    try:
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  {platform.processor() or platform.machine()}  "
              f"python {platform.python_version()}")
        docs = comments_corpus(args.data, args.comments, work / "corpus")
        tok = kcbert_tokenizer(args.data, work / "tok")
        run(PackJob(corpus=str(work / "corpus"), tokenizer=str(tok), out=str(work / "pack"),
                    pack=PackConfig(max_length=args.max_length), validation_fraction=0.0),
            local_mode="in_memory")
        ds = PackedDataset(work / "pack" / "train")
        print(f"pack: {docs:,} NSMC comments, pair layout, max_length {args.max_length}: {len(ds):,} sequences, "
              f"word_start column: {ds.has_word_start}")

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a pack without word_start: the ## fallback, said once elsewhere
            collators = {name: MLMCollator.for_dataset(ds, tokenizer=tok, **kw) for name, kw in {
                "token": {}, "whole_word": {"masking": "whole_word"}, "ngram": {"masking": "ngram"},
                "ngram+sop": {"masking": "ngram", "sentence_order": True}}.items()}
        order = np.random.default_rng(0).permutation(len(ds))
        size = args.batch_size
        requests = [BatchRequest(0, k, 0, order[k * size : (k + 1) * size]) for k in range(args.batches)]
        padded = [ds.batch(r.indices, word_start=True) for r in requests]
        flat = [ds.batch(r.indices, pad_to="none", word_start=True) for r in requests]
        times = {(name, mode): [] for mode in ("max_length", "none") for name in collators}
        for _ in range(args.repeats):
            for (name, mode), values in times.items():
                collator = collators[name]
                start = time.perf_counter()
                for batch, request in zip(padded if mode == "max_length" else flat, requests):
                    collator(batch, request)
                values.append((time.perf_counter() - start) / len(requests))
        print(f"\ncollator time per batch ({size} rows, max_length {args.max_length}; median of {args.repeats} rounds "
              f"of {args.batches} batches), ratio to token masking of the same batches:")
        for (name, mode), values in times.items():
            median, base = statistics.median(values), statistics.median(times["token", mode])
            print(f"  {name:<11} pad_to={mode!r:<8} {median * 1e3:7.2f} ms   {median / base:4.2f}x token")

        positions = sum(b["input_ids"].size for b in padded)
        real = sum(int(b["attention_mask"].sum()) for b in padded)
        flat_positions = sum(b["input_ids"].size for b in flat)
        print(f"\npadding share of the same {len(requests)} batches: pad_to='max_length' "
              f"{1 - real / positions:.1%} ({positions:,} positions for {real:,} tokens); pad_to='none' "
              f"{1 - real / flat_positions:.1%} ({flat_positions:,} positions)")
        budget = PackedDataLoader(ds, max_tokens=args.max_tokens, pad_to="none")
        filled = [b["input_ids"].shape[1] / args.max_tokens for b in budget]
        print(f"max_tokens={args.max_tokens}: {len(filled)} batches, median fill {statistics.median(filled):.1%} "
              f"of the budget (the last batch excluded: min {min(filled[:-1]):.1%})")

        total = int(ds.lengths.sum())
        for label, kwargs in (("pad_to='max_length'", {"batch_size": size}),
                              ("pad_to='none'", {"batch_size": size, "pad_to": "none"}),
                              (f"max_tokens={args.max_tokens}", {"max_tokens": args.max_tokens, "pad_to": "none"})):
            loader = PackedDataLoader(ds, collator=collators["ngram"], **kwargs)
            start = time.perf_counter()
            n = sum(1 for _ in loader)
            elapsed = time.perf_counter() - start
            print(f"loader epoch, ngram masking, {label:<22} {n:5d} batches  {total / elapsed / 1e6:5.2f}M tokens/s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
