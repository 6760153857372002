"""`kcorpus train-vocab`: train a WordPiece or SentencePiece vocabulary on corpus text and check it.

    kcorpus train-vocab --kind wordpiece --vocab-size 32000 --input out/corpus/text --out out/vocab-wp

Builds a `TrainVocabJob` from the flags (their defaults are the job's and the trainer configs') and exits 1
when a post-training check fails (the files stay for inspection, the manifest says why).
"""

from __future__ import annotations

import argparse
import sys
import time

from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.vocab.train import TrainVocabJob, train_vocab
from kcorpus.transforms.vocab.checks import VocabCheckError
from kcorpus.transforms.vocab.train import KINDS, SPM_MODEL_TYPES, SentencePieceConfig, WordPieceConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument(
        "--vocab-size", type=int, required=True, help="total tokens written, specials included"
    )
    parser.add_argument("--input", nargs="+", required=True, help="files, globs or directories of text/jsonl")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument(
        "--max-sentences",
        type=int,
        default=default_of(TrainVocabJob, "max_sentences"),
        help="sample this many sentences (seeded reservoir) when the input has more",
    )
    parser.add_argument("--seed", type=int, default=default_of(TrainVocabJob, "seed"))
    parser.add_argument("--model-max-length", type=int, default=default_of(TrainVocabJob, "model_max_length"))
    parser.add_argument("--allow-jamo", action="store_true", help="do not fail on decomposed (NFD/NFKC) conjoining-jamo tokens")
    parser.add_argument(
        "--round-trip-sentences", type=int, default=default_of(TrainVocabJob, "round_trip_sentences")
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bars (shown on a terminal) or trainer logs (shown with -v)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace a previous train-vocab in --out")
    wpg = parser.add_argument_group("wordpiece")
    wpg.add_argument("--min-frequency", type=int, default=default_of(WordPieceConfig, "min_frequency"))
    parser.add_argument(
        "--character-coverage",
        type=float,
        default=None,
        help="the share of the sample's character occurrences the alphabet covers (default: wordpiece "
        f"{default_of(WordPieceConfig, 'character_coverage')}, every Hangul syllable of the sample kept; "
        f"sentencepiece {default_of(SentencePieceConfig, 'character_coverage')})",
    )
    wpg.add_argument(
        "--limit-alphabet",
        type=int,
        default=default_of(WordPieceConfig, "limit_alphabet"),
        help="keep the N most frequent characters instead of --character-coverage (Hangul syllables of the "
        "sample always kept)",
    )
    wpg.add_argument(
        "--num-unused",
        "--unused",  # the older name, kept working
        dest="num_unused",
        type=int,
        default=default_of(WordPieceConfig, "num_unused"),
        help="append N [unusedN] slots (counted in --vocab-size)",
    )
    spg = parser.add_argument_group("sentencepiece")
    spg.add_argument(
        "--model-type", choices=SPM_MODEL_TYPES, default=default_of(SentencePieceConfig, "model_type")
    )
    spg.add_argument("--byte-fallback", action="store_true")
    spg.add_argument(
        "--max-sentence-length",
        type=int,
        default=default_of(SentencePieceConfig, "max_sentence_length"),
        help="bytes; longer sentences are split at spaces (and counted)",
    )
    spg.add_argument("--num-threads", type=int, default=default_of(SentencePieceConfig, "num_threads"))


def job_from_args(args: argparse.Namespace) -> TrainVocabJob:
    """The job the flags describe."""
    trainer = WordPieceConfig if args.kind == "wordpiece" else SentencePieceConfig
    coverage = args.character_coverage
    if coverage is None:
        coverage = default_of(trainer, "character_coverage")
    if args.kind == "wordpiece":
        config: WordPieceConfig | SentencePieceConfig = WordPieceConfig(
            vocab_size=args.vocab_size,
            min_frequency=args.min_frequency,
            character_coverage=coverage,
            limit_alphabet=args.limit_alphabet,
            num_unused=args.num_unused,
        )
    else:
        config = SentencePieceConfig(
            vocab_size=args.vocab_size,
            model_type=args.model_type,
            character_coverage=coverage,
            byte_fallback=args.byte_fallback,
            max_sentence_length=args.max_sentence_length,
            num_threads=args.num_threads,
        )
    return TrainVocabJob(
        inputs=tuple(args.input),
        out=args.out,
        config=config,
        max_sentences=args.max_sentences,
        seed=args.seed,
        model_max_length=args.model_max_length,
        allow_jamo=args.allow_jamo,
        round_trip_sentences=args.round_trip_sentences,
        quiet=args.quiet,
        overwrite=args.overwrite,
    )


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, input_problem, output_problem

    check([*(input_problem(p) for p in args.input), output_problem(args.out)])
    started = time.perf_counter()
    try:
        manifest = train_vocab(job_from_args(args))
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus train-vocab: error: {error}", file=sys.stderr)
        return 2
    except VocabCheckError as error:
        print(f"kcorpus train-vocab: checks failed (see {args.out}/manifest.json):\n{error}", file=sys.stderr)
        return 1
    print(
        f"{manifest['kind']} vocab of {manifest['vocab_size']} tokens in {args.out} "
        f"({manifest['input']['sampled']} of {manifest['input']['sentences']} sentences, "
        f"{time.perf_counter() - started:.1f} s); {alphabet_summary(manifest)}",
        file=sys.stderr,
    )
    genuine = manifest["checks"]["genuine_jamo"]
    if genuine["occurrences"]:
        print(
            f"{len(genuine['characters'])} genuine conjoining jamo in the text ({genuine['characters']}, "
            f"{genuine['occurrences']} times): {genuine['tokens']} tokens, "
            f"{genuine['single_character_tokens']} of them single characters",
            file=sys.stderr,
        )
    return 0


def alphabet_summary(manifest: dict) -> str:
    """What the alphabet cost: its size, the coverage reached, the [UNK] rate on sentences spread over the sample."""
    unk = manifest["unk_rate"]
    rate = f"[UNK] {unk['per_token']:.5f} per token on {unk['sentences']:,} sample sentences"
    alphabet = manifest.get("alphabet")
    if not alphabet:
        return rate
    return (
        f"alphabet {alphabet['characters']:,} characters ({alphabet['continuations']:,} with ##) covering "
        f"{alphabet['coverage']:.4%} of the sample's, {alphabet['cut_characters']:,} rare ones cut; {rate}"
    )
