"""The `nsp` layout's two rules on a real comments + long-form corpus: labels, losses and planning CPU.

Builds a corpus with `kcorpus build-corpus` from the shared data (all 50,000 NSMC test comments, one sentence
each, beside the petitions month and, with `--wiki`, the two Wikipedia files: long-form text split into
sentences, `min_sentences: 2` for it and 1 for the comments), tokenizes it once with the KcBERT WordPiece
vocab, cuts it into `--shards` shards by a digest of the id as pack does, then plans every shard with
`--nsp-rule google` and `balanced` (interleaved, `--repeats` times) at each `--max-length`. Prints per rule:
rows, is-next and random-next rows, the random-next share (all shards, and the farthest shard from 0.5),
the documents and tokens `balanced` left out, the tokens copied into random Bs and those dropped, and the
median planning CPU seconds with the ratio to Google's. Usage:
    python bench/bench_nsp.py --data /work/shared/data --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from kcorpus.transforms.packing.blocks import DocBlock, PackConfig
from kcorpus.transforms.packing.nsp import plan_nsp
from kcorpus.transforms.packing.tokenize import tokenize_documents
from kcorpus.transforms.sharding import shard_of

KCORPUS = Path(sys.executable).parent / "kcorpus"


def build_corpus(data: Path, out: Path, wiki: bool) -> Path:
    sources = [
        {"name": "nsmc", "format": "nsmc", "paths": [str(data / "nsmc" / "ratings_test.txt")],
         "filters": {"min_sentences": 1}},
        {"name": "petitions", "format": "petitions", "preset": "longform", "split_sentences": True,
         "paths": [str(data / "petitions" / "petitions_2017-08")]},
    ]  # fmt: skip
    if wiki:
        sources.append({"name": "kowiki", "format": "wikiextractor", "preset": "longform", "split_sentences": True,
                        "paths": [str(data / "kowiki" / "wiki_*")]})  # fmt: skip
    profile = out / "profile.json"  # YAML is a superset of JSON
    profile.write_text(json.dumps({"sources": sources, "filters": {"min_sentences": 2, "max_chars": 1000},
                                   "output": {"num_shards": 1}}))  # fmt: skip
    corpus = out / "corpus"
    subprocess.run([str(KCORPUS), "build-corpus", "--config", str(profile), "--out", str(corpus),
                    "--local-mode", "in_memory"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return corpus


def shard_blocks(corpus: Path, data: Path, shards: int) -> list[DocBlock]:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = [line.rstrip("\n") for line in (data / "vocabs" / "kcbert" / "vocab.txt").open(encoding="utf-8")]
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False,
                                                lowercase=False)  # fmt: skip
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    raw = [json.loads(line) for path in sorted((corpus / "docs").glob("*.jsonl")) for line in path.open()]
    docs = tokenize_documents(tok, [(d["id"], d["text"]) for d in raw], sources=[d["source"] for d in raw])
    parts: list[list] = [[] for _ in range(shards)]
    for doc in docs:
        parts[shard_of(doc.id, shards)].append(doc)
    return [DocBlock.from_docs(sorted(p, key=lambda d: d.id)) for p in parts]


def measure(blocks: list[DocBlock], config: PackConfig) -> tuple[float, dict]:
    start = time.process_time()
    plans = [plan_nsp(block, config) for block in blocks]
    seconds = time.process_time() - start
    labels = [p.table[:, 4] for p in plans]
    counts = {k: sum(p.counts[k] for p in plans) for k in plans[0].counts}
    kept = sum(int(((p.table[:, 1] - p.table[:, 0]) + np.where(p.table[:, 4] == 0, p.table[:, 3] - p.table[:, 2], 0)
                    ).sum()) for p in plans)  # own tokens: A, and a B that follows (chained Bs: below)
    chained = sum(int((p.table[:, 3] - p.table[:, 2])[(p.table[:, 4] == 1) & (p.table[:, 2] >= b.ids.shape[0])]
                      .sum()) for p, b in zip(plans, blocks))  # fmt: skip
    corpus = sum(int(b.ids.shape[0]) for b in blocks)
    rows = sum(len(x) for x in labels)
    random_next = sum(int(x.sum()) for x in labels)
    shares = [float(x.mean()) for x in labels if len(x)]
    return seconds, {
        "rows": rows, "is_next": rows - random_next, "random_next": random_next,
        "share": random_next / rows if rows else 0.0,
        "worst_shard": max(shares, key=lambda s: abs(s - 0.5)) if shares else 0.0,
        "left_out_documents": counts["left_out_documents"], "left_out_tokens": counts["left_out_tokens"],
        "borrowed_tokens": counts["borrowed_tokens"], "dropped_tokens": corpus - kept - chained,
        "corpus_tokens": corpus,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--wiki", action="store_true", help="add the two Wikipedia files")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--max-length", type=int, nargs="+", default=[128, 512])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-nsp-") as tmp:
        corpus = build_corpus(args.data, Path(tmp), args.wiki)
        blocks = shard_blocks(corpus, args.data, args.shards)
    docs = sum(len(b.doc_ids) for b in blocks)
    tokens = sum(int(b.ids.shape[0]) for b in blocks)
    print(f"{docs:,} documents, {tokens:,} tokens, {args.shards} shards; median of {args.repeats} runs, "
          "planning CPU s (process time)")
    header = ("max_len", "rule", "rows", "is_next", "random", "share", "worst shard", "left out docs",
              "left out tokens", "borrowed", "dropped", "CPU s", "x google")
    print(" | ".join(header))
    for max_length in args.max_length:
        times: dict[str, list[float]] = {"google": [], "balanced": []}
        figures: dict[str, dict] = {}
        for _ in range(args.repeats):
            for rule in ("google", "balanced"):
                seconds, figures[rule] = measure(blocks, PackConfig(max_length=max_length, layout="nsp",
                                                                    nsp_rule=rule))
                times[rule].append(seconds)
        base = statistics.median(times["google"])
        for rule in ("google", "balanced"):
            f, cpu = figures[rule], statistics.median(times[rule])
            print(" | ".join(str(x) for x in (
                max_length, rule, f"{f['rows']:,}", f"{f['is_next']:,}", f"{f['random_next']:,}",
                f"{f['share']:.3f}", f"{f['worst_shard']:.3f}", f"{f['left_out_documents']:,}",
                f"{f['left_out_tokens']:,}", f"{f['borrowed_tokens']:,}", f"{f['dropped_tokens']:,}",
                f"{cpu:.2f}", f"{cpu / base:.2f}")))  # fmt: skip


if __name__ == "__main__":
    main()
