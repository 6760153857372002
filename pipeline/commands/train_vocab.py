"""`kcorpus train-vocab`: train a WordPiece or SentencePiece vocabulary on corpus text and check it.

    kcorpus train-vocab --kind wordpiece --vocab-size 32000 --input out/corpus/text --out out/vocab-wp

Writes the vocab files, `manifest.json` (inputs, sample counts, config, check results, file sha256) and
exits 1 when a post-training check fails (the files stay for inspection, the manifest says why).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from kcorpus.transforms.vocab.checks import VocabCheckError, check_vocab
from kcorpus.transforms.vocab.files import (
    sentencepiece_tokenizer,
    sha256_file,
    wordpiece_tokenizer,
    write_json,
    write_sentencepiece_dir,
    write_wordpiece_dir,
)
from kcorpus.transforms.vocab.sample import read_sample
from kcorpus.transforms.vocab.train import (
    KINDS,
    SPM_MODEL_TYPES,
    SentencePieceConfig,
    WordPieceConfig,
    spm_trainable,
    train_sentencepiece,
    train_wordpiece,
)

DEFAULT_MAX_SENTENCES = 5_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--vocab-size", type=int, required=True, help="total tokens written, specials included")
    parser.add_argument("--input", nargs="+", required=True, help="files, globs or directories of text/jsonl")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--max-sentences", type=int, default=DEFAULT_MAX_SENTENCES,
                        help="sample this many sentences (seeded reservoir) when the input has more")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model-max-length", type=int, default=512)
    parser.add_argument("--allow-jamo", action="store_true", help="do not fail on conjoining-jamo tokens")
    parser.add_argument("--round-trip-sentences", type=int, default=2000)
    parser.add_argument("--quiet", action="store_true", help="no progress bars or trainer logs")
    wp = parser.add_argument_group("wordpiece")
    wp.add_argument("--min-frequency", type=int, default=2)
    wp.add_argument("--limit-alphabet", type=int, default=None,
                    help="keep the N most frequent characters (Hangul syllables of the sample always kept)")
    wp.add_argument("--unused", type=int, default=0, help="append N [unusedN] slots (counted in --vocab-size)")
    sp = parser.add_argument_group("sentencepiece")
    sp.add_argument("--model-type", choices=SPM_MODEL_TYPES, default="unigram")
    sp.add_argument("--character-coverage", type=float, default=1.0)
    sp.add_argument("--byte-fallback", action="store_true")
    sp.add_argument("--max-sentence-length", type=int, default=4192, help="bytes; longer sentences are split at spaces (and counted)")
    sp.add_argument("--num-threads", type=int, default=8)


def main(args: argparse.Namespace) -> int:
    try:
        manifest = train_vocab(args)
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus train-vocab: error: {error}", file=sys.stderr)
        return 2
    except VocabCheckError as error:
        print(f"kcorpus train-vocab: checks failed (see {args.out}/manifest.json):\n{error}", file=sys.stderr)
        return 1
    print(
        f"{manifest['kind']} vocab of {manifest['vocab_size']} tokens in {args.out} "
        f"({manifest['input']['sampled']} of {manifest['input']['sentences']} sentences)",
        file=sys.stderr,
    )
    return 0


def train_vocab(args: argparse.Namespace) -> dict[str, Any]:
    """Sample, train, write, check; returns the manifest. Raises VocabCheckError after writing on failure."""
    progress = not args.quiet
    if args.kind == "wordpiece":
        config: WordPieceConfig | SentencePieceConfig = WordPieceConfig(
            vocab_size=args.vocab_size, min_frequency=args.min_frequency,
            limit_alphabet=args.limit_alphabet, num_unused=args.unused,
        )
    else:
        config = SentencePieceConfig(
            vocab_size=args.vocab_size, model_type=args.model_type, character_coverage=args.character_coverage,
            byte_fallback=args.byte_fallback, max_sentence_length=args.max_sentence_length,
            num_threads=args.num_threads,
        )
    started = time.perf_counter()
    sentences, stats, files = read_sample(args.input, max_sentences=args.max_sentences, seed=args.seed,
                                          progress=progress)
    if not sentences:
        raise ValueError(f"no text in {files}")
    split_too_long = 0
    spm_processor = None
    if isinstance(config, WordPieceConfig):
        tokens = train_wordpiece(sentences, config, progress=progress)
        written = write_wordpiece_dir(args.out, tokens, model_max_length=args.model_max_length)
        tokenizer = wordpiece_tokenizer(tokens)
    else:
        import sentencepiece as spm

        trainable, split_too_long = spm_trainable(sentences, config.max_sentence_length)
        proto = train_sentencepiece(trainable, config, progress=progress)
        written = write_sentencepiece_dir(args.out, proto, model_max_length=args.model_max_length)
        tokenizer = sentencepiece_tokenizer(proto)
        tokens = [tokenizer.id_to_token(i) for i in range(tokenizer.get_vocab_size(with_added_tokens=True))]
        spm_processor = spm.SentencePieceProcessor(model_proto=proto)
    trained_s = time.perf_counter() - started
    report = check_vocab(
        tokenizer, args.kind, tokens, sentences, max_round_trip=args.round_trip_sentences,
        allow_jamo=args.allow_jamo, spm_processor=spm_processor,
    )
    manifest = {
        "kind": args.kind,
        "vocab_size": len(tokens),
        "config": {**config.__dict__, "seed": args.seed, "max_sentences": args.max_sentences},
        "input": {
            "files": [{"path": path, "bytes": os.path.getsize(path)} for path in files],
            **{k: v for k, v in stats.__dict__.items() if k != "files"},
            "split_too_long": split_too_long,
        },
        "checks": report.to_json(),
        "files": {name: sha256_file(os.path.join(args.out, name)) for name in written},
        "versions": _versions(),
    }
    write_json(os.path.join(args.out, "manifest.json"), manifest)
    if progress:
        print(f"sampled and trained in {trained_s:.1f}s", file=sys.stderr)
    if report.errors:
        raise VocabCheckError("\n".join(report.errors))
    return manifest


def _versions() -> dict[str, str]:
    import sentencepiece
    import tokenizers

    from kcorpus import __version__

    return {"kcorpus": __version__, "tokenizers": tokenizers.__version__, "sentencepiece": sentencepiece.__version__}
