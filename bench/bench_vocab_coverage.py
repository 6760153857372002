"""WordPiece's alphabet by character coverage: fertility and [UNK] per token on held-out text at several values.

    # CORPUS: build-corpus of Wikipedia AB..AD with bench/mdeberta_shared.yaml's kowiki source (bench/RESULTS.md)
    python bench/bench_vocab_coverage.py --corpus CORPUS --vocab-size 32000 \\
        --heldout wiki=/work/data/kowiki/text/AA/wiki_00 \\
        --heldout petitions=/work/shared/data/petitions/petitions_2017-08 \\
        --heldout comments=/work/shared/data/nsmc/ratings_test.txt
    python bench/bench_vocab_coverage.py --raw --corpus '/work/data/kowiki/text/A[FG]/wiki_*' ...
    python bench/bench_vocab_coverage.py --corpus /work/shared/data/nsmc/ratings_test.txt --rows 0:40000 \\
        --vocab-size 8000 --heldout comments=/work/shared/data/nsmc/ratings_test.txt:40000:50000 ...

The sample is summarized once (`text_summary.summarize`, as train-vocab does); each setting trains WordPiece
on it with `train_wordpiece` (kcorpus's settings: min_frequency 2, cased BERT normalizer) and encodes every
held-out set as `vocab-report` does (tokens per whitespace word; [UNK] tokens per token). `1.0` is the alphabet
kcorpus had before issue 42: every character of the sample.
Held-out files: WikiExtractor output (paragraph lines, tags and title lines left out), petitions JSONL (`content`)
or NSMC TSV (`document`); `path:start:end` takes those records only. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time

from kcorpus.transforms.korean import is_hangul_syllable
from kcorpus.transforms.vocab.alphabet import is_cjk_ideograph
from kcorpus.transforms.vocab.files import wordpiece_tokenizer
from kcorpus.transforms.vocab.sample import prenormalize, read_sample
from kcorpus.transforms.vocab.text_summary import summarize
from kcorpus.transforms.vocab.train import WordPieceConfig, train_wordpiece

SETTINGS = "1.0,0.9999,0.9998,0.9997,0.9995,0.999,limit4000"


def read_records(spec: str) -> list[str]:
    """Paragraphs of a WikiExtractor file, petitions' `content`, NSMC's `document`; `path:start:end` slices."""
    path, _, rows = spec.partition(":")
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    if lines and lines[0].startswith("id\tdocument"):
        records = [line.split("\t")[1] for line in lines[1:] if line.count("\t") >= 2]
    elif lines and lines[0].startswith("{"):
        records = [json.loads(line)["content"] for line in lines if line.strip()]
    else:
        records, title_next = [], False
        for line in lines:
            if line.startswith("<doc"):
                title_next = True
            elif title_next:
                title_next = False
            elif line and not line.startswith("</doc>"):
                records.append(line)
    if rows:
        start, end = (int(x) for x in rows.split(":"))
        records = records[start:end]
    return [text for r in records if (text := prenormalize(r))]


def encode_figures(tokenizer, unk_id: int, lines: list[str]) -> tuple[float, float]:
    """Tokens per whitespace word and [UNK] tokens per token."""
    words = [line.split() for line in lines]
    encodings = tokenizer.encode_batch(words, is_pretokenized=True, add_special_tokens=False)
    n_words = sum(len(w) for w in words)
    n_tokens = sum(len(e.ids) for e in encodings)
    unk = sum(e.ids.count(unk_id) for e in encodings)
    return n_tokens / n_words, unk / n_tokens


def config_for(setting: str, vocab_size: int) -> WordPieceConfig:
    """`0.9999`: that coverage; `limit4000`: the 4,000 most frequent characters (every Hangul syllable kept)."""
    if setting.startswith("limit"):
        return WordPieceConfig(vocab_size=vocab_size, limit_alphabet=int(setting[5:]))
    return WordPieceConfig(vocab_size=vocab_size, character_coverage=float(setting))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="a build-corpus output, text files, or one held-out-style file")
    parser.add_argument("--rows", default="", help="start:end: train on these records of a --corpus file")
    parser.add_argument("--raw", action="store_true",
                        help="--corpus is a glob of held-out-style files (WikiExtractor paragraphs), not a corpus")
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--max-sentences", type=int, default=5_000_000)
    parser.add_argument("--settings", default=SETTINGS)
    parser.add_argument("--heldout", action="append", default=[], help="name=path[:start:end][,path...]")
    args = parser.parse_args(argv)

    if args.rows:
        sentences = read_records(f"{args.corpus}:{args.rows}")
    elif args.raw:
        sentences = [line for path in sorted(glob.glob(args.corpus)) for line in read_records(path)]
    else:
        sentences = read_sample([args.corpus], max_sentences=args.max_sentences, seed=0)[0]
    heldout = {}
    for spec in args.heldout:
        name, _, paths = spec.partition("=")
        heldout[name] = [line for p in paths.split(",") for line in read_records(p)]
    text = summarize(sentences, round_trip=0)
    syllables = {c for c in text.char_counts if is_hangul_syllable(c)}
    print(f"training sentences {len(sentences):,}; held out: "
          + ", ".join(f"{k} {len(v):,} lines" for k, v in heldout.items()), file=sys.stderr)
    head = ["setting", "alphabet", "## forms", "coverage", "Hanja tokens", "missing syllables"]
    for name in heldout:
        head += [f"fertility {name}", f"[UNK]/token {name}"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for setting in args.settings.split(","):
        started = time.perf_counter()
        config = config_for(setting, args.vocab_size)
        alphabet = config.alphabet(text.char_counts)
        tokens = train_wordpiece(sentences, config, alphabet=alphabet, length=len(sentences))
        tokenizer = wordpiece_tokenizer(tokens)
        unk_id = tokenizer.token_to_id("[UNK]")
        present = set(tokens)
        hanja = sum(1 for t in tokens if any(is_cjk_ideograph(c) for c in t))
        missing = sum(1 for s in syllables if s not in present or f"##{s}" not in present)
        row = [setting, f"{len(alphabet.characters):,}", f"{len(alphabet.continuations):,}",
               f"{alphabet.coverage:.6f}", f"{hanja:,}", str(missing)]
        for lines in heldout.values():
            fertility, unk = encode_figures(tokenizer, unk_id, lines)
            row += [f"{fertility:.4f}", f"{unk:.5f}"]
        print("| " + " | ".join(row) + " |", flush=True)
        print(f"{setting}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
