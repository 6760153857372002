"""`kcorpus vocab-merge BASE OTHER --out DIR`: BASE's ids kept, OTHER's missing tokens appended.

    kcorpus vocab-merge out/vocab-wp koelectra/vocab.txt --out out/vocab-merged
    kcorpus vocab-merge out/vocab-spm koelectra/vocab.txt --out out/vocab-spm-merged

BASE and OTHER are vocab dirs, vocab.txt, tokenizer.json or .model files. A WordPiece BASE gives a WordPiece
dir; a SentencePiece BASE (its .model is needed) gives a SentencePiece dir whose spm.model has the appended
pieces scored below the base's lowest (transforms/vocab/spm_model.py). A stock SentencePiece BASE (`<unk> <s>
</s>`, like KoBERT's) gets BERT's specials first, with a notice: its unknown piece is renamed `[UNK]` and the
specials it lacks are appended after its pieces (`with_bert_specials`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.profile.flags import HELP, POSITIONAL, add_flags, from_flags
from kcorpus.transforms.vocab.checks import jamo_tokens, strip_marker, visible_jamo
from kcorpus.transforms.vocab.files import (
    SENTENCEPIECE,
    SPECIAL_TOKENS,
    load_vocab,
    read_spm_model,
    sha256_file,
    write_json,
    write_sentencepiece_dir,
    write_wordpiece_dir,
)
from kcorpus.transforms.vocab.merge import MergeResult, merge_vocabs
from kcorpus.transforms.vocab.spm_model import append_pieces, bpe_reachable, with_bert_specials


@dataclasses.dataclass(frozen=True)
class VocabMergeJob:
    """What `kcorpus vocab-merge` does: each field is a flag (pipeline/profile/flags.py), its help here."""

    base: str = dataclasses.field(metadata={
        POSITIONAL: True, HELP: "any vocab: dir, vocab.txt, tokenizer.json or .model (SentencePiece)"})
    other: str = dataclasses.field(metadata={
        POSITIONAL: True, HELP: "any vocab: dir, vocab.txt, tokenizer.json or .model"})
    out: str = dataclasses.field(metadata={HELP: "output directory"})
    model_max_length: int = dataclasses.field(default=512, metadata={HELP: "written to tokenizer_config.json"})
    allow_jamo: bool = dataclasses.field(default=False, metadata={
        HELP: "append tokens of several characters with conjoining jamo (decomposed text)"})
    overwrite: bool = dataclasses.field(default=False, metadata={HELP: "replace a previous vocab-merge in --out"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `VocabMergeJob`."""
    add_flags(parser, VocabMergeJob)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.preflight import check, output_problem

    job = from_flags(VocabMergeJob, args)
    check([output_problem(job.out)])
    try:
        result = merge(job)
    except (ValueError, FileNotFoundError) as error:
        print(f"kcorpus vocab-merge: error: {error}", file=sys.stderr)
        return 2
    if "added_specials" in result:
        print(f"kcorpus vocab-merge: notice: {job.base} lacks BERT's special tokens: {result['added_specials']}",
              file=sys.stderr)
    print(f"{result['size']} tokens ({result['appended']} appended) in {job.out}", file=sys.stderr)
    return 0


def spm_model_path(path: str) -> str:
    """The .model file of a SentencePiece vocab given as a dir, a .model or a tokenizer.json beside one."""
    if path.endswith(".model"):
        return path
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    models = sorted(n for n in os.listdir(folder or ".") if n.endswith(".model"))
    if "spm.model" in models:
        return os.path.join(folder, "spm.model")
    if models:
        return os.path.join(folder, models[0])
    raise ValueError(f"{path}: a SentencePiece BASE needs its .model file (spm.model) to append pieces to")


def merge(job: VocabMergeJob) -> dict:
    """Write the merged vocabulary to `job.out`; the merge's counts (what the manifest's `merge` holds)."""
    base_path, other_path, out_dir = job.base, job.other, job.out
    plan = check_output(out_dir, "vocab-merge", [base_path, other_path], overwrite=job.overwrite)
    base = load_vocab(base_path)
    base_tokens = base.tokens
    proto = added = None
    if base.kind == SENTENCEPIECE:
        with open(spm_model_path(base_path), "rb") as f:
            proto, added = with_bert_specials(f.read())
        base_tokens = [p for p, _ in read_spm_model(proto).pieces]
    missing = [t for t in SPECIAL_TOKENS if t not in base_tokens]
    if missing:
        raise ValueError(f"{base_path}: BASE lacks the special tokens {missing}")
    other = load_vocab(other_path)
    result = merge_vocabs(base_tokens, other.tokens, other_is_sentencepiece=other.kind == SENTENCEPIECE,
                          base_is_sentencepiece=proto is not None)
    _refuse_decomposed(result, job.allow_jamo)
    if proto is not None and read_spm_model(proto).model_type == "bpe":
        result = result.keep_appended(bpe_reachable(base_tokens, result.tokens[result.base_size :]))
    with claim_output(plan):
        if proto is not None:
            written = write_sentencepiece_dir(out_dir, append_pieces(proto, result.tokens[result.base_size :]),
                                              model_max_length=job.model_max_length)
        else:
            written = write_wordpiece_dir(out_dir, result.tokens, model_max_length=job.model_max_length)
        counts = {"base": base_path, "other": other_path, "other_kind": other.kind, **result.counts()}
        if added is not None and added.notice():
            counts["added_specials"] = added.notice()
        manifest = {
            "kind": base.kind,
            "vocab_size": len(result.tokens),
            "merge": counts,
            "files": {name: sha256_file(os.path.join(out_dir, name)) for name in written},
        }
        write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest["merge"]


def _refuse_decomposed(result: MergeResult, allow_jamo: bool) -> None:
    """Single conjoining jamo (`ᆢ`, `ᄏ`: genuine characters) may be appended; longer jamo tokens mean decomposition."""
    jamo = [t for t in jamo_tokens(result.tokens[result.base_size :]) if len(strip_marker(t)) > 1]
    if jamo and not allow_jamo:
        raise ValueError(f"{len(jamo)} tokens of OTHER contain conjoining jamo in several characters (decomposed "
                         f"text), e.g. {' '.join(map(visible_jamo, jamo[:10]))}; pass --allow-jamo to append them anyway")
