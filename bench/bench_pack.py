"""Throughput of `kcorpus pack` against plain `tokenizer.encode_batch`, and of the `kcorpus.data` loader.

Builds a corpus in build-corpus `docs/*.jsonl` layout from the real data (NSMC, petitions, Korean Wikipedia,
repeated `--copies` times with distinct document ids), a WordPiece tokenizer from the real KcBERT vocab, then:
1. ceiling: `encode_batch` (batched, all cores) over exactly the sentences pack tokenizes, in this process;
2. `kcorpus pack` (tokenize + pack + write Arrow shards + metadata) on the local FnApiRunner,
   multi-processing with one worker per core: MB/s and the ratio to the ceiling (goal >= 0.6); and the
   fixed cost of a run (the same pack over 16 documents: Beam worker start-up, stages, metadata), with the
   ratio once that is taken off;
3. loader: one process iterating padded numpy batches over the packed train split, tokens/s (goal >= 5M),
   plain and with MLM masking.
Medians of `--repeats` runs. Usage:
    python bench/bench_pack.py --data /work/shared/data --copies 8 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def real_documents(data: Path) -> list[tuple[str, list[str]]]:
    docs: list[tuple[str, list[str]]] = []
    with (data / "nsmc" / "ratings_test.txt").open(encoding="utf-8") as f:
        next(f)
        for line in f:
            rid, text, _ = line.rstrip("\n").split("\t")
            if text.strip():
                docs.append((f"nsmc:{rid}", sentences(text)))
    for line in (data / "petitions" / "petitions_2017-08").open(encoding="utf-8"):
        obj = json.loads(line)
        docs.append((f"petitions:{obj['petition_idx']}", [obj["title"].strip(), *sentences(obj["content"])]))
    for name in ("wiki_00", "wiki_01"):
        doc_id, paras = None, []
        for line in (data / "kowiki" / name).open(encoding="utf-8"):
            line = line.strip()
            if line.startswith("<doc "):
                doc_id, paras = re.search(r'id="(\d+)"', line).group(1), []
            elif line == "</doc>":
                docs.append((f"kowiki:{doc_id}", [s for p in paras[1:] for s in sentences(p)]))
            elif line:
                paras.append(line)
    return [(i, [s for s in sents if s]) for i, sents in docs if any(sents)]


def write_corpus(docs: list[tuple[str, list[str]]], copies: int, out: Path, files: int = 8) -> tuple[int, list[str]]:
    (out / "docs").mkdir(parents=True)
    handles = [(out / "docs" / f"part-{i:05d}-of-{files:05d}.jsonl").open("w", encoding="utf-8") for i in range(files)]
    all_sentences: list[str] = []
    n = 0
    for copy in range(copies):
        for doc_id, sents in docs:
            record = {"id": f"{doc_id}#{copy}", "text": "\n".join(sents), "source": "bench", "metadata": {}}
            handles[n % files].write(json.dumps(record, ensure_ascii=False) + "\n")
            all_sentences.extend(sents)
            n += 1
    for h in handles:
        h.close()
    text_bytes = sum(len(s.encode("utf-8")) for s in all_sentences)
    return text_bytes, all_sentences


def kcbert_tokenizer(data: Path, out: Path) -> Path:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = [line.rstrip("\n") for line in (data / "vocabs" / "kcbert" / "vocab.txt").open(encoding="utf-8")]
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(strip_accents=False, lowercase=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    out.mkdir(parents=True)
    tok.save(str(out / "tokenizer.json"))
    return out


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--layout", default="pair")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    from kcorpus.data import MLMCollator, PackedDataLoader, PackedDataset
    from kcorpus.pipeline.pack.build import PackJob, run
    from kcorpus.transforms.packing.packer import PackConfig
    from kcorpus.transforms.packing.tokenize import tokenizer_from_bytes

    work = Path(tempfile.mkdtemp(prefix="bench_pack_"))
    try:
        documents = real_documents(args.data)
        text_bytes, all_sentences = write_corpus(documents, args.copies, work / "corpus")
        tok_dir = kcbert_tokenizer(args.data, work / "tok")
        mb = text_bytes / 1e6
        print(f"corpus: {mb:.1f} MB of sentence text, {len(all_sentences):,} sentences, cores={os.cpu_count()}, "
              f"pack workers={args.workers}")

        tok = tokenizer_from_bytes((tok_dir / "tokenizer.json").read_bytes())
        encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
        n_tokens = sum(len(e.ids) for e in encode(all_sentences, add_special_tokens=False))

        def pack_once(corpus: str = "corpus"):
            out = work / "out"
            shutil.rmtree(out, ignore_errors=True)
            job = PackJob(corpus=str(work / corpus), tokenizer=str(tok_dir), out=str(out),
                          pack=PackConfig(max_length=args.max_length, layout=args.layout),
                          num_shards=args.workers * 2)
            return run(job, [f"--direct_num_workers={args.workers}"], local_mode="multi_processing")

        # the fixed cost of a pack run (worker start-up, stage scheduling, metadata): the same pipeline over
        # 16 documents
        write_corpus(documents[:16], 1, work / "tiny")
        # ceiling, fixed cost and pack alternate in every round, so that the load of a shared machine weighs
        # on all three alike; the ratio is the median of the per-round ratios
        rounds = []
        for _ in range(args.repeats):
            t_encode, _ = median_time(lambda: encode(all_sentences, add_special_tokens=False), 1)
            t_fixed, _ = median_time(lambda: pack_once("tiny"), 1)
            t_pack, manifest = median_time(pack_once, 1)
            rounds.append((t_encode, t_fixed, t_pack))
            print(f"  round: ceiling {t_encode:.2f}s  fixed {t_fixed:.2f}s  pack {t_pack:.2f}s  "
                  f"ratio {t_encode / t_pack:.2f}", flush=True)
        t_encode, t_fixed, t_pack = (statistics.median(r[i] for r in rounds) for i in range(3))
        ratio = statistics.median(e / p for e, _, p in rounds)
        ratio_net = statistics.median(e / max(p - f, 1e-9) for e, f, p in rounds)
        counts = manifest["counts"]
        assert counts["corpus_tokens"] == n_tokens, (counts["corpus_tokens"], n_tokens)
        print(f"ceiling encode_batch: median {t_encode:.2f}s  {mb / t_encode:.2f} MB/s  "
              f"{n_tokens / t_encode / 1e6:.2f}M tokens/s  ({n_tokens:,} tokens)")
        print(f"kcorpus pack:         median {t_pack:.2f}s  {mb / t_pack:.2f} MB/s  "
              f"{n_tokens / t_pack / 1e6:.2f}M tokens/s  ratio to ceiling {ratio:.2f}  "
              f"(sequences {counts['sequences']:,}, padding {counts['padding_fraction']:.3f}, "
              f"dropped tokens {counts['dropped_tokens']})")
        print(f"fixed cost (same pack over 16 documents): median {t_fixed:.2f}s; ratio to ceiling without it "
              f"{ratio_net:.2f}")

        ds = PackedDataset(work / "out" / "train")
        real_tokens = int(ds.lengths.sum())

        def epoch(collator=None):
            loader = PackedDataLoader(ds, args.batch_size, seed=0, collator=collator)
            for _ in loader:
                pass

        t_load, _ = median_time(epoch, args.repeats)
        t_mlm, _ = median_time(lambda: epoch(MLMCollator.for_dataset(ds)), args.repeats)
        positions = len(ds) * ds.max_length
        print(f"loader (1 process, batch {args.batch_size}, padded numpy): {real_tokens / t_load / 1e6:.1f}M tokens/s "
              f"({positions / t_load / 1e6:.1f}M positions/s); with MLM masking {real_tokens / t_mlm / 1e6:.1f}M "
              f"tokens/s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
