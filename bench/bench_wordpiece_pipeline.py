"""What the WordPiece tokenizer.json's NFC normalizer and jamo isolation cost in encoding time.

    python bench/bench_wordpiece_pipeline.py --data /work/shared/data --lines 20000 --repeat 5

Encodes NSMC comments with KcBERT's vocab (tests/testdata/vocabs/kcbert) through four pipelines: BERT's
normalizer and pre-tokenizer as before (`old`), NFC added (`nfc`), jamo isolated (`split`), both (`both`:
what a vocab with jamo tokens gets). Prints the median of `--repeat` runs of `encode_batch` per pipeline and
its ratio to `old`, measured in the same run (the machine is noisy), and checks that all give the same ids.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def pipelines(tokens: list[str]) -> dict:
    from tokenizers import normalizers

    from kcorpus.transforms.vocab.files import wordpiece_pre_tokenizer, wordpiece_tokenizer

    bert = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False,
                                      lowercase=False)
    nfc_bert = normalizers.Sequence([normalizers.NFC(), bert])
    variants = {"old": (bert, False), "nfc": (nfc_bert, False), "split": (bert, True), "both": (nfc_bert, True)}
    built = {}
    for name, (normalizer, isolate) in variants.items():
        tok = wordpiece_tokenizer(tokens)
        tok.normalizer, tok.pre_tokenizer = normalizer, wordpiece_pre_tokenizer(isolate)
        built[name] = tok
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data"))
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from kcorpus.transforms.vocab.files import read_vocab_txt

    tokens = read_vocab_txt(os.path.join(HERE, "..", "tests", "testdata", "vocabs", "kcbert", "vocab.txt"))
    with open(os.path.join(args.data, "nsmc", "ratings_test.txt"), encoding="utf-8") as f:
        lines = [row.split("\t")[1] for row in f.read().splitlines()[1 : args.lines + 1]]
    built = pipelines(tokens)
    ids = {name: [e.ids for e in tok.encode_batch(lines)] for name, tok in built.items()}
    assert all(v == ids["old"] for v in ids.values()), "the pipelines disagree on NFC text without jamo"
    times: dict[str, list[float]] = {name: [] for name in built}
    order = list(built)
    for repeat in range(args.repeat):
        for name in order[repeat % len(order) :] + order[: repeat % len(order)]:  # rotated: no fixed position
            tok = built[name]
            start = time.perf_counter()
            tok.encode_batch(lines)
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, seconds in median.items():
        print(f"{name:6s} {seconds:7.3f} s  {seconds / median['old']:.3f}x  {len(lines) / seconds:,.0f} lines/s")


if __name__ == "__main__":
    main()
