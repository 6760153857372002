"""`kcorpus train-vocab` against the library it wraps, trained on the same corpus in the same bench run.

    python bench/bench_vocab_library.py --corpus /work/data/kowiki_corpus --rounds 3
    python bench/bench_vocab_library.py --corpus out/corpus --kinds wordpiece --max-sentences 5000000
    python bench/bench_vocab_library.py --corpus tests/testdata/vocab/nsmc_petitions.txt --vocab-size 3000 \\
        --spm-sentences 1000 --rounds 1                                  # a quick check

Each training runs in a fresh process whose whole tree is measured (bench/lib/measure.py: wall, CPU, peak RSS);
the library and kcorpus alternate within each round (the first to go swaps every round) so that the load of
a shared machine falls on both alike. Reported: the medians of `--rounds` runs and kcorpus over the library
(goal: wall <= 1.3x, peak RSS <= 1.25x, checks included).

- WordPiece: the library is `tokenizers` as a user would call it on the corpus files, `Tokenizer.train(files)`
  with a WordPiece model, BERT's normalizer and pre-tokenizer (cased, no accent stripping, as kcorpus
  configures them), `WordPieceTrainer(vocab_size, min_frequency=2)` and the five BERT specials, then
  `save(tokenizer.json)`. kcorpus: `kcorpus train-vocab --kind wordpiece` with `--max-sentences` (default: every
  sentence of the corpus, so both train on the same text).
- SentencePiece: the library is `sentencepiece.SentencePieceTrainer.train(input=files,
  input_sentence_size=N)` (its own reservoir sample of N sentences) with kcorpus's settings (unigram, identity
  normalization, coverage 1.0, the same specials, 8 threads); kcorpus: `train-vocab --kind sentencepiece
  --max-sentences N` (a seeded sample of N). `--spm-sentences` sets N for both; SentencePiece holds every
  sampled sentence and its suffix array in memory, so N bounds its memory on a shared machine.

The corpus is a build-corpus output (its `text/*.txt` shards) or text files; the two vocabularies' overlap is
printed as a check that both did the same work. `--kcorpus-corpus` gives kcorpus the same build without `text/`
(build-corpus's default), so that it reads the sentences from `docs/` while the library reads plain text.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from lib.measure import Figures, run_measured
from lib.run_table import run_header

KCORPUS = Path(sys.executable).parent / "kcorpus"
GOALS = {"wall": 1.3, "peak_rss": 1.25}

LIBRARY_WORDPIECE = """
import sys
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
out, vocab_size, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tokenizer.normalizer = normalizers.BertNormalizer(
    clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False)
tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=2, show_progress=False,
                                    special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
tokenizer.train(files, trainer=trainer)
tokenizer.save(out + "/tokenizer.json")
"""

LIBRARY_SENTENCEPIECE = """
import sys
import sentencepiece as spm
out, vocab_size, sentences, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
spm.SentencePieceTrainer.train(
    input=files, model_prefix=out + "/spm", model_type="unigram", vocab_size=vocab_size,
    character_coverage=1.0, normalization_rule_name="identity", remove_extra_whitespaces=True,
    split_digits=False, pad_id=0, pad_piece="[PAD]", unk_id=1, unk_piece="[UNK]", bos_id=-1, eos_id=-1,
    user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"], input_sentence_size=sentences,
    shuffle_input_sentence=True, max_sentence_length=4192, num_threads=8, hard_vocab_limit=True,
    minloglevel=2)
"""


def corpus_files(corpus: str) -> list[str]:
    """The text files of a build-corpus output dir (its `text/*.txt` shards), of a dir, or the file itself."""
    from kcorpus.transforms.vocab.sample import expand_inputs

    return expand_inputs([corpus])


def count_sentences(files: list[str]) -> int:
    from kcorpus.transforms.vocab.sample import InputStats, iter_sentences

    stats = InputStats()
    for _ in iter_sentences(files, stats):
        pass
    return stats.sentences


def library_command(kind: str, out: Path, files: list[str], args: argparse.Namespace) -> list[str]:
    if kind == "wordpiece":
        return [sys.executable, "-c", LIBRARY_WORDPIECE, str(out), str(args.vocab_size), *files]
    return [sys.executable, "-c", LIBRARY_SENTENCEPIECE, str(out), str(args.vocab_size), str(args.spm_sentences),
            *files]


def kcorpus_command(kind: str, out: Path, args: argparse.Namespace, sentences: int) -> list[str]:
    limit = args.spm_sentences if kind == "sentencepiece" else (args.max_sentences or sentences)
    return [str(KCORPUS), "train-vocab", "--kind", kind, "--vocab-size", str(args.vocab_size), "--input",
            args.kcorpus_corpus or args.corpus, "--out", str(out), "--max-sentences", str(limit), "--quiet", "--overwrite"]


def vocab_tokens(out: Path) -> set[str]:
    from kcorpus.transforms.vocab.files import load_vocab

    return set(load_vocab(str(out)).tokens)


def summarize(runs: list[Figures]) -> dict:
    return {
        "wall": statistics.median(f.wall for f in runs),
        "cpu": statistics.median(f.cpu for f in runs),
        "peak_rss_mb": statistics.median(f.peak_rss for f in runs) / 2**20,
        "runs": [{"wall": round(f.wall, 1), "cpu": round(f.cpu, 1), "peak_rss_mb": round(f.peak_rss / 2**20)}
                 for f in runs],
    }


def bench_kind(kind: str, files: list[str], sentences: int, work: Path, args: argparse.Namespace) -> dict:
    runs: dict[str, list[Figures]] = {"library": [], "kcorpus": []}
    outs = {system: work / f"{kind}-{system}" for system in runs}
    for out in outs.values():
        out.mkdir(parents=True, exist_ok=True)
    for round_ in range(args.rounds):
        order = ["library", "kcorpus"] if round_ % 2 == 0 else ["kcorpus", "library"]
        for system in order:
            if system == "library":
                cmd = library_command(kind, outs[system], files, args)
            else:
                cmd = kcorpus_command(kind, outs[system], args, sentences)
            figures = run_measured(cmd)
            runs[system].append(figures)
            print(f"{kind} round {round_ + 1} {system}: wall {figures.wall:.1f} s, CPU {figures.cpu:.1f} s, "
                  f"peak RSS {figures.peak_rss / 2**20:.0f} MB", file=sys.stderr, flush=True)
    result = {system: summarize(figures) for system, figures in runs.items()}
    lib, ours = result["library"], result["kcorpus"]
    result["ratio"] = {
        "wall": ours["wall"] / lib["wall"],
        "cpu": ours["cpu"] / lib["cpu"],
        "peak_rss": ours["peak_rss_mb"] / lib["peak_rss_mb"],
    }
    # per-round ratios: each pair ran back to back, so they share the machine's load of that moment
    result["ratio_per_round"] = [
        {"wall": round(k.wall / b.wall, 3), "peak_rss": round(k.peak_rss / b.peak_rss, 3)}
        for b, k in zip(runs["library"], runs["kcorpus"])
    ]
    manifest = json.loads((outs["kcorpus"] / "manifest.json").read_text(encoding="utf-8"))
    result["kcorpus_sentences"] = {"sampled": manifest["input"]["sampled"], "read": manifest["input"]["sentences"]}
    result["checks_passed"] = manifest["checks"]["passed"]
    ours_tokens, lib_tokens = vocab_tokens(outs["kcorpus"]), vocab_tokens(outs["library"])
    result["overlap"] = {"kcorpus": len(ours_tokens), "library": len(lib_tokens),
                         "common": len(ours_tokens & lib_tokens)}
    return result


def markdown(results: dict, args: argparse.Namespace) -> str:
    lines = [
        "| kind | system | wall s | CPU s | peak RSS MB | kcorpus / library |",
        "|---|---|---|---|---|---|",
    ]
    for kind, result in results["kinds"].items():
        ratio = result["ratio"]
        for system in ("library", "kcorpus"):
            r = result[system]
            note = (f"wall {ratio['wall']:.2f}x, CPU {ratio['cpu']:.2f}x, RSS {ratio['peak_rss']:.2f}x"
                    if system == "kcorpus" else "")
            lines.append(f"| {kind} | {system} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_rss_mb']:,.0f} | {note} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="a build-corpus output dir, a text dir or a text file")
    parser.add_argument("--kcorpus-corpus", default=None,
                        help="what kcorpus trains on, when not --corpus: the same build without text/, so that "
                             "kcorpus reads its docs/ (the default output) and the library the plain text")
    parser.add_argument("--kinds", default="wordpiece,sentencepiece")
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--max-sentences", type=int, default=None,
                        help="kcorpus WordPiece's sample (default: every sentence, as the library reads)")
    parser.add_argument("--spm-sentences", type=int, default=1_000_000,
                        help="SentencePiece's input_sentence_size, kcorpus's --max-sentences for it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="where the vocabularies go (default: a temporary dir)")
    parser.add_argument("--json", default=None, help="also write the results here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_vocab_library_"))
    files = corpus_files(args.corpus)
    sentences = count_sentences(files)
    megabytes = sum(Path(f).stat().st_size for f in files) / 1e6
    print(run_header(), file=sys.stderr)
    print(f"corpus: {len(files)} files, {megabytes:.1f} MB, {sentences:,} sentences", file=sys.stderr)
    results: dict = {"corpus": args.corpus, "mb": megabytes, "sentences": sentences, "kinds": {}}
    for kind in args.kinds.split(","):
        results["kinds"][kind] = bench_kind(kind, files, sentences, work, args)
        ratio = results["kinds"][kind]["ratio"]
        verdicts = ", ".join(
            f"{name} {ratio[name]:.2f}x (goal <= {goal}x: {'PASS' if ratio[name] <= goal else 'FAIL'})"
            for name, goal in GOALS.items()
        )
        print(f"{kind}: kcorpus / library: {verdicts}; CPU {ratio['cpu']:.2f}x", file=sys.stderr, flush=True)
    print(markdown(results, args))
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
