"""`TrainVocabJob` and `train_vocab`: sample corpus text, train a WordPiece or SentencePiece vocab, check it.

Writes the vocab files, `manifest.json` (inputs, sample counts, config, check results, file sha256) and
raises `VocabCheckError` after writing when a post-training check fails (the files stay for inspection).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from typing import Any

from kcorpus.pipeline import progress as progress_display
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.transforms.vocab.checks import VocabCheckError, check_vocab
from kcorpus.transforms.vocab.files import (
    sentencepiece_tokenizer,
    sha256_file,
    wordpiece_tokenizer,
    write_json,
    write_sentencepiece_dir,
    write_wordpiece_dir,
)
from kcorpus.transforms.vocab.sample import expand_inputs, read_sample, text_problem
from kcorpus.transforms.vocab.train import (
    SentencePieceConfig,
    WordPieceConfig,
    spm_trainable,
    train_sentencepiece,
    train_wordpiece,
)

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class TrainVocabJob:
    """Everything one `kcorpus train-vocab` run needs.

    Attributes:
        inputs: files, globs or directories of text/jsonl.
        out: the output directory.
        config: the trainer's settings, `vocab_size` included; its type decides the kind.
        max_sentences: sample this many sentences (seeded reservoir) when the input has more.
        seed: the sampling seed.
        model_max_length: written to tokenizer_config.json.
        allow_jamo: do not fail on conjoining-jamo tokens.
        round_trip_sentences: sentences encoded and decoded by the round-trip check.
        quiet: no progress bars or trainer logs even where they would show (bars: on a terminal or with
            `kcorpus --progress`; the trainers' own logs: with `kcorpus -v`).
        overwrite: replace a previous train-vocab output in `out` (only its own files).
    """

    inputs: tuple[str, ...]
    out: str
    config: WordPieceConfig | SentencePieceConfig
    max_sentences: int = 5_000_000
    seed: int = 0
    model_max_length: int = 512
    allow_jamo: bool = False
    round_trip_sentences: int = 2000
    quiet: bool = False
    overwrite: bool = False

    @property
    def kind(self) -> str:
        """`wordpiece` or `sentencepiece`."""
        return "wordpiece" if isinstance(self.config, WordPieceConfig) else "sentencepiece"


def train_vocab(job: TrainVocabJob) -> dict[str, Any]:
    """Sample, train, write, check; returns the manifest. Raises VocabCheckError after writing on failure.

    The output folder and the inputs are checked before sampling; the folder is claimed (locked, marked,
    a previous vocab's own files removed with `overwrite`) for the rest of the run.
    """
    plan = check_output(job.out, "train-vocab", job.inputs, overwrite=job.overwrite)
    files = expand_inputs(job.inputs)  # a missing input fails here, before the folder is touched
    refuse_non_text(files)
    with claim_output(plan):
        return _train_vocab(job)


def refuse_non_text(files: list[str]) -> None:
    """ValueError naming the first input files that are binary or not UTF-8 (a pack folder, a CP949 file)."""
    bad = [(path, problem) for path in files if (problem := text_problem(path))]
    if bad:
        more = f" (and {len(bad) - 1} more such files)" if len(bad) > 1 else ""
        path, problem = bad[0]
        raise ValueError(f"--input {path}: {problem}{more}; train-vocab reads UTF-8 text or JSONL (a "
                         "build-corpus output, not a pack folder; convert other encodings with iconv)")


def _train_vocab(job: TrainVocabJob) -> dict[str, Any]:
    progress = not job.quiet and progress_display.wanted()
    trainer_logs = not job.quiet and logger.isEnabledFor(logging.INFO)
    config = job.config
    started = time.perf_counter()
    sentences, stats, files = read_sample(
        list(job.inputs), max_sentences=job.max_sentences, seed=job.seed, progress=progress
    )
    if not sentences:
        raise ValueError(f"no text in {files}")
    split_too_long = 0
    spm_processor = None
    if isinstance(config, WordPieceConfig):
        tokens = train_wordpiece(sentences, config, progress=progress)
        written = write_wordpiece_dir(job.out, tokens, model_max_length=job.model_max_length)
        tokenizer = wordpiece_tokenizer(tokens)
    else:
        import sentencepiece as spm

        trainable, split_too_long = spm_trainable(sentences, config.max_sentence_length)
        proto = train_sentencepiece(trainable, config, logs=trainer_logs)
        written = write_sentencepiece_dir(job.out, proto, model_max_length=job.model_max_length)
        tokenizer = sentencepiece_tokenizer(proto)
        tokens = [tokenizer.id_to_token(i) for i in range(tokenizer.get_vocab_size(with_added_tokens=True))]
        spm_processor = spm.SentencePieceProcessor(model_proto=proto)
    trained_s = time.perf_counter() - started
    if len(tokens) < config.vocab_size:
        logger.warning(
            "--vocab-size %s asks for more tokens than the corpus gives: the vocab has %s, "
            "every piece the trainer found; a model sized for %s ids would never use %s of them: set it to %s "
            "or lower (or train on more text)",
            f"{config.vocab_size:,}", f"{len(tokens):,}", f"{config.vocab_size:,}",
            f"{config.vocab_size - len(tokens):,}", len(tokens),
        )
    report = check_vocab(
        tokenizer,
        job.kind,
        tokens,
        sentences,
        max_round_trip=job.round_trip_sentences,
        allow_jamo=job.allow_jamo,
        spm_processor=spm_processor,
    )
    manifest = {
        "kind": job.kind,
        "vocab_size": len(tokens),
        "config": {**config.__dict__, "seed": job.seed, "max_sentences": job.max_sentences},
        "input": {
            "files": [{"path": path, "bytes": os.path.getsize(path)} for path in files],
            **{k: v for k, v in stats.__dict__.items() if k != "files"},
            "split_too_long": split_too_long,
        },
        "checks": report.to_json(),
        "files": {name: sha256_file(os.path.join(job.out, name)) for name in written},
        "versions": _versions(),
    }
    write_json(os.path.join(job.out, "manifest.json"), manifest)
    logger.info("sampled and trained in %.1fs", trained_s)
    if report.errors:
        raise VocabCheckError("\n".join(report.errors))
    return manifest


def _versions() -> dict[str, str]:
    import sentencepiece
    import tokenizers

    from kcorpus import __version__

    return {
        "kcorpus": __version__,
        "tokenizers": tokenizers.__version__,
        "sentencepiece": sentencepiece.__version__,
    }
