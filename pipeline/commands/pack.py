"""`kcorpus pack`: build-corpus output + a tokenizer -> packed Arrow datasets for pretraining."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial

from kcorpus.pipeline.pack.job import RESHUFFLE_CHOICES, PackJob
from kcorpus.pipeline.profile.defaults import LOCAL_MODES, default_of
from kcorpus.transforms.pack.blocks import LAYOUTS, NSP_RULES, PackConfig
from kcorpus.transforms.pack.stats import padding_warning


def add_arguments(parser: argparse.ArgumentParser) -> None:
    layout_default, job_default = partial(default_of, PackConfig), partial(default_of, PackJob)
    parser.add_argument(
        "--corpus", required=True, help="build-corpus output directory (docs/*.jsonl or text/*.txt)"
    )
    parser.add_argument(
        "--tokenizer", required=True, help="directory with tokenizer.json (or the file itself)"
    )
    parser.add_argument("--out", required=True, help="output directory (local or gs://)")
    parser.add_argument(
        "--max-length",
        type=int,
        default=layout_default("max_length"),
        help="sequence length incl. special tokens",
    )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default=layout_default("layout"),
        help="pair: [CLS] A [SEP] B [SEP] in one document; single: [CLS] A [SEP]; "
        "cross_document: full-length sequences across documents separated by [SEP]; "
        "full_sentences: whole sentences filled across documents (RoBERTa, DeBERTa); "
        "nsp: Google BERT's next-sentence pairs with a next_sentence_label column",
    )
    parser.add_argument(
        "--single-segment-prob",
        type=float,
        default=layout_default("single_segment_prob"),
        help="pair layout: chance a sequence has one segment (ELECTRA: 0.1)",
    )
    parser.add_argument(
        "--short-seq-prob",
        type=float,
        default=layout_default("short_seq_prob"),
        help="chance of a random shorter target length (ELECTRA: 0.05; default: 0.1 with --layout nsp, "
        "Google BERT's, else 0)",
    )
    parser.add_argument(
        "--nsp-rule",
        choices=NSP_RULES,
        default=layout_default("nsp_rule"),
        help="--layout nsp: balanced (random-next share 0.5 on any corpus: one-sentence documents chained, "
        "the coin leaning against the imbalance) or google (create_pretraining_data.py's exact rule)",
    )
    parser.add_argument("--seed", type=int, default=layout_default("seed"))
    parser.add_argument(
        "--word-start",
        action=argparse.BooleanOptionalAction,
        default=layout_default("word_start"),
        help="write the word_start column (True on the first token of every eojeol) for whole-word masking",
    )
    parser.add_argument(
        "--validation-fraction",
        type=float,
        default=job_default("validation_fraction"),
        help="share of documents (by a hash of the id) in validation/; 0 writes train only",
    )
    parser.add_argument(
        "--num-shards",
        type=int,
        default=job_default("num_shards"),
        help="train shards (default: from --shard-size-mb)",
    )
    parser.add_argument("--num-validation-shards", type=int, default=job_default("num_validation_shards"))
    parser.add_argument(
        "--shard-size-mb", type=float, default=job_default("shard_size_mb"), help="approximate shard size"
    )
    parser.add_argument(
        "--input-format", choices=("auto", "docs", "text"), default=job_default("input_format")
    )
    parser.add_argument("--cls-token", default=job_default("cls_token"))
    parser.add_argument("--sep-token", default=job_default("sep_token"))
    parser.add_argument("--pad-token", default=job_default("pad_token"))
    parser.add_argument("--mask-token", default=job_default("mask_token"))
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a previous pack in --out (only the files pack writes go)",
    )
    parser.add_argument(
        "--profile-stages",
        action="store_true",
        help="print per-stage elements, bundles, largest bundle share and CPU; write <out>/stages.json",
    )
    parser.add_argument(
        "--reshuffle-batches",
        choices=RESHUFFLE_CHOICES,
        default=job_default("reshuffle_batches"),
        help="shuffle document batches before tokenizing (auto: when the local runner has fewer "
        "than 2 corpus files per worker, and on distributed runners)",
    )
    parser.add_argument(
        "--allow-longer-than-model",
        action="store_true",
        help="allow --max-length above the tokenizer's model_max_length (tokenizer_config.json)",
    )
    parser.add_argument(
        "--local-mode",
        choices=LOCAL_MODES,
        default="multi_processing",
        help="FnApiRunner mode when no --runner is passed after --",
    )
    parser.add_argument("beam_args", nargs="*", help="Beam options after --, e.g. -- --runner DataflowRunner")


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.errors import UserError
    from kcorpus.pipeline.preflight import check, corpus_problem, output_problem, tokenizer_problem

    check([
        corpus_problem(args.corpus, args.input_format),
        tokenizer_problem(args.tokenizer),
        output_problem(args.out),
    ])
    from kcorpus.pipeline.pack.build import run  # Beam: only once the inputs are known to be usable

    try:
        job = PackJob(
            corpus=args.corpus,
            tokenizer=args.tokenizer,
            out=args.out,
            pack=PackConfig(
                max_length=args.max_length,
                layout=args.layout,
                single_segment_prob=args.single_segment_prob,
                short_seq_prob=args.short_seq_prob,
                seed=args.seed,
                word_start=args.word_start,
                nsp_rule=args.nsp_rule,
            ),
            input_format=args.input_format,
            validation_fraction=args.validation_fraction,
            num_shards=args.num_shards,
            num_validation_shards=args.num_validation_shards,
            shard_size_mb=args.shard_size_mb,
            cls_token=args.cls_token,
            sep_token=args.sep_token,
            pad_token=args.pad_token,
            mask_token=args.mask_token,
            overwrite=args.overwrite,
            reshuffle_batches=args.reshuffle_batches,
            profile_stages=args.profile_stages,
            allow_longer_than_model=args.allow_longer_than_model,
        )
        manifest = run(job, args.beam_args, local_mode=args.local_mode)
    except (ValueError, FileNotFoundError, FileExistsError) as err:
        raise UserError(str(err)) from err
    counts = {k: v for k, v in manifest["counts"].items() if k != "splits"}
    print(json.dumps(counts, ensure_ascii=False))
    left_out = counts.get("nsp", {}).get("left_out_documents", 0)
    if left_out:
        print(f"kcorpus pack: {left_out:,} one-sentence documents ({counts['nsp']['left_out_tokens']:,} tokens) "
              "left out to hold the random-next share at 0.5: the other documents have too few sentences to "
              "balance them (--nsp-rule google keeps them, at a higher share)", file=sys.stderr)
    warning = padding_warning(counts["padding_fraction"], job.pack.layout, job.pack.max_length)
    if warning:
        print(f"kcorpus pack: {warning}", file=sys.stderr)
    return 0
