"""Vocabulary training and encoding benchmark: WordPiece 32k vs SentencePiece 32k on ~100 MB of cleaned text.

    python bench/bench_vocab.py --mb 100            # build ~100 MB from ../shared/data, train both, encode
    python bench/bench_vocab.py --corpus out/corpus/text --vocab-size 32000
    python bench/bench_vocab.py --mb 5              # quick run

The text is built from the real data (NSMC, petitions, kowiki) by repetition with perturbation: each copy is
shuffled and ~10% of its eojeol get one syllable replaced by a corpus-frequency-weighted random syllable, so
word types keep growing like a real corpus instead of repeating. Each training runs in a fresh process
(`kcorpus train-vocab`), which reports its wall time and peak RSS. Encoding throughput is the median of
`--repeat` runs of `Tokenizer.encode_batch` over the text, against SentencePiece's own encoder as baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data"))
_KEEP = re.compile(r"[^ .,?!/@$%~％·∼()\x00-\x7Fㄱ-ㅣ가-힣]+")
_URL = re.compile(r"https?://\S+")
_REPEAT = re.compile(r"(.)\1{2,}")

CHILD = """
import json, resource, sys, time
from kcorpus.pipeline.cli import main
t = time.perf_counter()
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "seconds": time.perf_counter() - t,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def clean_line(line: str) -> str:
    """kcorpus' cleaner when installed (branch `clean`), else the published KcELECTRA regexes."""
    try:
        from kcorpus.transforms.text.clean import clean
    except ImportError:
        line = _URL.sub("", _KEEP.sub(" ", line))
        return " ".join(_REPEAT.sub(r"\1\1", line).split())
    return clean(line)


def source_sentences(shared: str) -> list[str]:
    lines: list[str] = []
    with open(os.path.join(shared, "nsmc", "ratings_test.txt"), encoding="utf-8") as f:
        next(f)
        lines += [row.split("\t")[1] for row in f if row.count("\t") >= 2]
    with open(os.path.join(shared, "petitions", "petitions_2017-08"), encoding="utf-8") as f:
        for row in f:
            obj = json.loads(row)
            lines += [obj["title"], *obj["content"].split("\n")]
    for name in ("wiki_00", "wiki_01"):
        with open(os.path.join(shared, "kowiki", name), encoding="utf-8") as f:
            lines += [row for row in f if not row.startswith(("<doc", "</doc"))]
    cleaned = (clean_line(line) for line in lines)
    return [line for line in cleaned if len(line) >= 10]


def build_text(path: str, target_mb: float, shared: str, seed: int = 0) -> int:
    """Write ~target_mb of perturbed copies of the real sentences, a blank line every 8 sentences."""
    rng = random.Random(seed)
    base = source_sentences(shared)
    syllables = [c for s in base for c in s if "가" <= c <= "힣"]
    target = int(target_mb * 1_000_000)
    written = copy = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            order = list(range(len(base)))
            rng.shuffle(order)
            for n, i in enumerate(order):
                words = base[i].split()
                if copy:
                    for w, word in enumerate(words):
                        if rng.random() < 0.1:
                            k = rng.randrange(len(word))
                            words[w] = word[:k] + rng.choice(syllables) + word[k + 1 :]
                line = " ".join(words) + ("\n\n" if n % 8 == 7 else "\n")
                out.write(line)
                written += len(line.encode("utf-8"))
                if written >= target:
                    break
            copy += 1
    return written


def train(kind: str, text: str, out: str, vocab_size: int) -> dict:
    argv = ["train-vocab", "--kind", kind, "--vocab-size", str(vocab_size), "--input", text, "--out", out,
            "--quiet", "--overwrite"]
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} training failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise RuntimeError(f"{kind} training exit {result['rc']}:\n{done.stderr[-3000:]}")
    return result


def encode_throughput(out_dir: str, lines: list[str], repeat: int) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(out_dir, "tokenizer.json"))
    mb = sum(len(s.encode("utf-8")) for s in lines) / 1e6
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        encodings = tok.encode_batch(lines, add_special_tokens=False)
        times.append(time.perf_counter() - t)
    tokens = sum(len(e.ids) for e in encodings)
    result = {"mb": round(mb, 2), "tokens": tokens, "median_s": round(statistics.median(times), 3),
              "mb_per_s": round(mb / statistics.median(times), 2)}
    spm_path = os.path.join(out_dir, "spm.model")
    if os.path.isfile(spm_path):
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=spm_path)
        base = []
        for _ in range(repeat):
            t = time.perf_counter()
            sp.encode(lines, num_threads=os.cpu_count())
            base.append(time.perf_counter() - t)
        result["sentencepiece_native_mb_per_s"] = round(mb / statistics.median(base), 2)
        result["ratio_vs_native"] = round(statistics.median(base) / statistics.median(times), 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=100.0, help="size of the text built from --shared")
    parser.add_argument("--shared", default=SHARED)
    parser.add_argument("--corpus", help="use this text (file or dir) instead of building one")
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--repeat", type=int, default=3, help="encode runs per tokenizer (median)")
    parser.add_argument("--encode-mb", type=float, default=10.0, help="encode this much of the text")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="bench_vocab_")
    os.makedirs(work, exist_ok=True)
    text = args.corpus
    if text is None:
        text = os.path.join(work, "text.txt")
        t = time.perf_counter()
        size = build_text(text, args.mb, args.shared)
        print(f"built {size / 1e6:.1f} MB of text in {time.perf_counter() - t:.0f}s: {text}", file=sys.stderr)
    from kcorpus.transforms.vocab.sample import read_sample

    lines, stats, _ = read_sample([text], max_sentences=10**9, seed=0)
    encode_lines, budget = [], args.encode_mb * 1e6
    for line in lines:
        if budget <= 0:
            break
        encode_lines.append(line)
        budget -= len(line.encode("utf-8"))
    del lines
    results = {"text_mb": round(stats.bytes / 1e6, 1), "sentences": stats.sentences, "cores": os.cpu_count()}
    for kind in ("wordpiece", "sentencepiece"):
        out = os.path.join(work, kind)
        trained = train(kind, text, out, args.vocab_size)
        results[kind] = {"train_s": round(trained["seconds"], 1), "peak_rss_mb": round(trained["peak_rss_mb"]),
                         "encode": encode_throughput(out, encode_lines, args.repeat)}
        print(f"{kind}: {json.dumps(results[kind])}", file=sys.stderr)
    wp, sp = results["wordpiece"], results["sentencepiece"]
    results["train_time_ratio_spm_over_wordpiece"] = round(sp["train_s"] / wp["train_s"], 2)
    results["peak_rss_ratio_spm_over_wordpiece"] = round(sp["peak_rss_mb"] / wp["peak_rss_mb"], 2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
