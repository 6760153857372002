"""`kcorpus train-vocab`: train a WordPiece or SentencePiece vocabulary on corpus text and check it.

    kcorpus train-vocab --kind wordpiece --vocab-size 32000 --input out/corpus/text --out out/vocab-wp

Builds a `TrainVocabJob` from the flags (made from its fields and the trainer configs': their defaults and
help are there, where the profile's `vocab:` section takes its keys) and exits 1
when a post-training check fails (the files stay for inspection, the manifest says why).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.profile.flags import CHOICES, HELP, add_flags, from_flags
from kcorpus.pipeline.vocab.train import TrainVocabJob, train_vocab
from kcorpus.transforms.vocab.checks import VocabCheckError
from kcorpus.transforms.vocab.train import KINDS, SentencePieceConfig, WordPieceConfig

# The trainer settings both kinds have: their flags are `Trainer`'s.
SHARED = ("vocab_size", "character_coverage")


@dataclasses.dataclass(frozen=True)
class Trainer:
    """The trainer and the settings both kinds have (`--character-coverage` defaults by kind); the profile's
    `vocab:` section declares the same three itself (pipeline/profile/schema.py)."""

    kind: str = dataclasses.field(metadata={CHOICES: KINDS, HELP: "the vocabulary's trainer"})
    vocab_size: int = dataclasses.field(metadata={HELP: "total tokens written, specials included"})
    character_coverage: float | None = dataclasses.field(default=None, metadata={HELP: (
        "the share of the sample's character occurrences the alphabet covers (default: wordpiece "
        f"{default_of(WordPieceConfig, 'character_coverage')}, every Hangul syllable of the sample kept; "
        f"sentencepiece {default_of(SentencePieceConfig, 'character_coverage')})")})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags made from `Trainer`, `TrainVocabJob` and each trainer's config (the help is on their fields),
    the trainers' in a group of their own."""
    add_flags(parser, Trainer)
    add_flags(parser, TrainVocabJob)
    add_flags(parser.add_argument_group("wordpiece"), WordPieceConfig, exclude=SHARED)
    add_flags(parser.add_argument_group("sentencepiece"), SentencePieceConfig, exclude=SHARED)


def job_from_args(args: argparse.Namespace) -> TrainVocabJob:
    """The job the flags describe."""
    chosen = from_flags(Trainer, args)
    trainer = WordPieceConfig if chosen.kind == "wordpiece" else SentencePieceConfig
    coverage = chosen.character_coverage
    if coverage is None:
        coverage = default_of(trainer, "character_coverage")
    config = from_flags(trainer, args, vocab_size=chosen.vocab_size, character_coverage=coverage)
    return from_flags(TrainVocabJob, args, config=config)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, input_problem, output_problem

    check([*(input_problem(p) for p in args.inputs), output_problem(args.out)])
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
