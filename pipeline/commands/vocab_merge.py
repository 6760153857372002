"""`kcorpus vocab-merge BASE OTHER --out DIR`: BASE's ids kept, OTHER's missing tokens appended.

    kcorpus vocab-merge out/vocab-wp koelectra/vocab.txt --out out/vocab-merged

BASE and OTHER are vocab dirs, vocab.txt, tokenizer.json or .model files; BASE must be WordPiece.
"""

from __future__ import annotations

import argparse
import os
import sys

from kcorpus.transforms.vocab.checks import jamo_tokens
from kcorpus.transforms.vocab.files import (
    SENTENCEPIECE,
    SPECIAL_TOKENS,
    WORDPIECE,
    load_vocab,
    sha256_file,
    write_json,
    write_wordpiece_dir,
)
from kcorpus.transforms.vocab.merge import merge_vocabs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", help="WordPiece vocab: dir, vocab.txt or tokenizer.json")
    parser.add_argument("other", help="any vocab: dir, vocab.txt, tokenizer.json or .model")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model-max-length", type=int, default=512)
    parser.add_argument("--allow-jamo", action="store_true", help="allow appending conjoining-jamo tokens")


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, output_problem

    check([output_problem(args.out)])
    try:
        result = merge(args.base, args.other, args.out, model_max_length=args.model_max_length,
                       allow_jamo=args.allow_jamo)
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus vocab-merge: error: {error}", file=sys.stderr)
        return 2
    print(f"{result['size']} tokens ({result['appended']} appended) in {args.out}", file=sys.stderr)
    return 0


def merge(base_path: str, other_path: str, out_dir: str, *, model_max_length: int = 512,
          allow_jamo: bool = False) -> dict:
    base = load_vocab(base_path)
    if base.kind != WORDPIECE:
        raise ValueError(f"{base_path}: BASE must be a WordPiece vocabulary (merging into SentencePiece is "
                         "not supported: appended pieces would need scores)")
    missing = [t for t in SPECIAL_TOKENS if t not in base.tokens]
    if missing:
        raise ValueError(f"{base_path}: BASE lacks the special tokens {missing}")
    other = load_vocab(other_path)
    result = merge_vocabs(base.tokens, other.tokens, other_is_sentencepiece=other.kind == SENTENCEPIECE)
    jamo = jamo_tokens(result.tokens[result.base_size :])
    if jamo and not allow_jamo:
        raise ValueError(f"{len(jamo)} tokens of OTHER contain conjoining jamo, e.g. {jamo[:10]}; "
                         "pass --allow-jamo to append them anyway")
    written = write_wordpiece_dir(out_dir, result.tokens, model_max_length=model_max_length)
    manifest = {
        "kind": WORDPIECE,
        "vocab_size": len(result.tokens),
        "merge": {"base": base_path, "other": other_path, "other_kind": other.kind, **result.counts()},
        "files": {name: sha256_file(os.path.join(out_dir, name)) for name in written},
    }
    write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest["merge"]
