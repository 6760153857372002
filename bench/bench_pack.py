"""Throughput of `kcorpus pack` against plain `tokenizer.encode_batch`, and of the `kcorpus.data` loader.

Builds a corpus in build-corpus `docs/*.jsonl` layout from the real data (NSMC, petitions, Korean Wikipedia,
repeated `--copies` times with distinct document ids), a WordPiece tokenizer from the real KcBERT vocab, then:
1. ceiling: `encode_batch` (batched, all cores) over exactly the sentences pack tokenizes, in a process of its
   own, wall and CPU timed around the call (the baseline of the ratio columns), peak RSS of that process;
2. `kcorpus pack` (tokenize + pack + write Arrow shards + metadata), the command on the local FnApiRunner,
   multi-processing with `--workers` (default: one per core), its whole process tree measured
   (bench/lib/measure.py): MB/s and the throughput ratio to the ceiling (goal >= 0.6); and the fixed cost of a
   run (the same command over 16 documents: process and worker start-up, stages, metadata), with the ratio
   once that is taken off. One row per system: cores, workers, wall, CPU, CPU s per MB, peak RSS, busy
   cores, wall and CPU over the ceiling's;
3. loader: one process iterating padded numpy batches over the packed train split, tokens/s (goal >= 5M),
   plain and with MLM masking.
Medians of `--repeats` runs. Usage:
    python bench/bench_pack.py --data /work/shared/data --copies 8 --repeats 3 --json pack.json
    python bench/bench_pack.py --copies 1 --repeats 1 --intervals          # a quick check
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from lib.measure import Figures, run_measured, usable_cores
from lib.run_table import Row, format_intervals, format_rows, median_figures, run_header

KCORPUS = Path(sys.executable).parent / "kcorpus"

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


def encode_worker(sentences_file: str, tokenizer: str) -> dict:
    """The baseline, in its own process: `encode_batch` over the sentences, timed around the call only."""
    from kcorpus.transforms.pack.tokenize import tokenizer_from_bytes

    sentences = json.loads(Path(sentences_file).read_text(encoding="utf-8"))
    tok = tokenizer_from_bytes((Path(tokenizer) / "tokenizer.json").read_bytes())
    encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
    wall, cpu = time.perf_counter(), time.process_time()  # process time: every thread of this process
    encodings = encode(sentences, add_special_tokens=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "tokens": sum(len(e.ids) for e in encodings)}


def measure_encode(work: Path, tok_dir: Path, interval: float) -> tuple[Figures, int]:
    """The baseline's wall and CPU of the call itself, with its process's peak RSS; and the token count."""
    cmd = [sys.executable, __file__, "--worker", "encode", "--sentences", str(work / "sentences.json"),
           "--tokenizer", str(tok_dir)]
    process = run_measured(cmd, workers=usable_cores(), interval=interval)
    inner = json.loads(process.stdout.strip().splitlines()[-1])
    return replace(process, wall=inner["wall"], cpu=inner["cpu"], busy_per_interval=()), inner["tokens"]


def measure_pack(corpus: Path, tok_dir: Path, out: Path, args: argparse.Namespace) -> Figures:
    """`kcorpus pack` as a user runs it, the whole command and its workers measured."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(KCORPUS), "pack", "--corpus", str(corpus), "--tokenizer", str(tok_dir), "--out", str(out),
           "--max-length", str(args.max_length), "--layout", args.layout, "--num-shards", str(args.workers * 2),
           "--", f"--direct_num_workers={args.workers}"]
    return run_measured(cmd, workers=args.workers, interval=args.interval)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--layout", default="pair")
    parser.add_argument("--workers", type=int, default=usable_cores(), help="--direct_num_workers (default: cores)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--json", type=Path, help="write every run and the rows to this file")
    parser.add_argument("--intervals", action="store_true", help="print busy cores per --interval seconds")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds per busy-core figure (default 5)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--sentences", help=argparse.SUPPRESS)
    parser.add_argument("--tokenizer", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker == "encode":
        print(json.dumps(encode_worker(args.sentences, args.tokenizer)))
        return

    from kcorpus.data import MLMCollator, PackedDataLoader, PackedDataset

    work = Path(tempfile.mkdtemp(prefix="bench_pack_"))
    try:
        print(run_header())
        documents = real_documents(args.data)
        text_bytes, all_sentences = write_corpus(documents, args.copies, work / "corpus")
        (work / "sentences.json").write_text(json.dumps(all_sentences, ensure_ascii=False), encoding="utf-8")
        tok_dir = kcbert_tokenizer(args.data, work / "tok")
        mb = text_bytes / 1e6
        print(f"corpus: {mb:.1f} MB of sentence text, {len(all_sentences):,} sentences, cores={usable_cores()}, "
              f"pack workers={args.workers}")
        # the fixed cost of a pack run (process and worker start-up, stage scheduling, metadata): the same
        # command over 16 documents
        write_corpus(documents[:16], 1, work / "tiny")
        tiny_mb = sum(len(s.encode("utf-8")) for _, sents in documents[:16] for s in sents) / 1e6
        # ceiling, fixed cost and pack alternate in every round, so that the load of a shared machine weighs
        # on all three alike; the ratios are the medians of the per-round ratios
        runs: dict[str, list[Figures]] = {"encode_batch": [], "pack": [], "pack tiny": []}
        n_tokens = 0
        for _ in range(args.repeats):
            encode, n_tokens = measure_encode(work, tok_dir, args.interval)
            fixed = measure_pack(work / "tiny", tok_dir, work / "out-tiny", args)
            pack = measure_pack(work / "corpus", tok_dir, work / "out", args)
            for name, figures in (("encode_batch", encode), ("pack tiny", fixed), ("pack", pack)):
                runs[name].append(figures)
            print(f"  round: ceiling {encode.wall:.2f}s  fixed {fixed.wall:.2f}s  pack {pack.wall:.2f}s  "
                  f"ratio {encode.wall / pack.wall:.2f}", flush=True)
        medians = {name: median_figures(figures) for name, figures in runs.items()}
        rows = [Row("encode_batch", f"x{args.copies}", mb, medians["encode_batch"], medians["encode_batch"]),
                Row("pack", f"x{args.copies}", mb, medians["pack"], medians["encode_batch"]),
                Row("pack tiny", "16 docs", tiny_mb, medians["pack tiny"])]  # another input: no ratio
        print(format_rows(rows, "encode"))
        if args.intervals:
            print(format_intervals(rows[1:], args.interval))
        ratio = statistics.median(e.wall / p.wall for e, p in zip(runs["encode_batch"], runs["pack"], strict=True))
        ratio_net = statistics.median(
            e.wall / max(p.wall - f.wall, 1e-9)
            for e, p, f in zip(runs["encode_batch"], runs["pack"], runs["pack tiny"], strict=True)
        )
        manifest = json.loads((work / "out" / "manifest.json").read_text(encoding="utf-8"))
        counts = manifest["counts"]
        assert counts["corpus_tokens"] == n_tokens, (counts["corpus_tokens"], n_tokens)
        t_encode, t_pack = medians["encode_batch"].wall, medians["pack"].wall
        print(f"ceiling encode_batch: median {t_encode:.2f}s  {mb / t_encode:.2f} MB/s  "
              f"{n_tokens / t_encode / 1e6:.2f}M tokens/s  ({n_tokens:,} tokens)")
        print(f"kcorpus pack:         median {t_pack:.2f}s  {mb / t_pack:.2f} MB/s  "
              f"{n_tokens / t_pack / 1e6:.2f}M tokens/s  throughput ratio to ceiling {ratio:.2f}  "
              f"(sequences {counts['sequences']:,}, padding {counts['padding_fraction']:.3f}, "
              f"dropped tokens {counts['dropped_tokens']})")
        print(f"fixed cost (same pack over 16 documents): median {medians['pack tiny'].wall:.2f}s; "
              f"throughput ratio to ceiling without it {ratio_net:.2f}")
        if args.json:
            args.json.write_text(json.dumps({
                "header": run_header(),
                "mb": mb,
                "tokens": n_tokens,
                "runs": [{"system": name, **f.as_dict()} for name, fs in runs.items() for f in fs],
                "rows": [row.as_dict() for row in rows],
                "throughput_ratio": ratio,
                "throughput_ratio_without_fixed_cost": ratio_net,
            }, indent=1), encoding="utf-8")

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
