"""`TrainVocabJob` and `train_vocab`: sample corpus text, train a WordPiece or SentencePiece vocab, check it.

Writes the vocab files, `manifest.json` (inputs, sample counts, config, check results, file sha256) and
raises `VocabCheckError` after writing when a post-training check fails (the files stay for inspection).

The text streams from the input files and is never held: text files are counted first when they may hold more
than `max_sentences` (newlines, then the lines that are not blank), so the first pass summarizes the seeded
sample (characters, jamo words, the first sentences: `text_summary`) while it reads everything; JSONL must be
read once before the sample is known, and a second pass summarizes it; the trainer reads the sample last.
So memory is the trainer's own, and the checks read the summary, whatever the corpus size.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from kcorpus.pipeline import progress as progress_display
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.process import interrupt
from kcorpus.pipeline.vocab.text_pass import SCRATCH_PREFIX, TrainingText, read_training_text
from kcorpus.transforms.korean import is_conjoining_jamo
from kcorpus.transforms.vocab.alphabet import Alphabet
from kcorpus.transforms.vocab.checks import CheckReport, VocabCheckError, check_vocab, unk_rate
from kcorpus.transforms.vocab.files import (
    sentencepiece_tokenizer,
    sha256_file,
    wordpiece_tokenizer,
    write_json,
    write_sentencepiece_dir,
    write_wordpiece_dir,
)
from kcorpus.transforms.vocab.sample import expand_inputs, text_problem
from kcorpus.transforms.vocab.sample_files import decompressed_pipe, written_sentences
from kcorpus.transforms.vocab.train import (
    SentencePieceConfig,
    WordPieceConfig,
    spm_pieces,
    train_sentencepiece,
    train_wordpiece_files,
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

    inputs: tuple[str, ...] = dataclasses.field(
        metadata={"name": "input", "help": "files, globs or directories of text/jsonl"}
    )
    out: str = dataclasses.field(metadata={"help": "output directory"})
    config: WordPieceConfig | SentencePieceConfig = dataclasses.field(metadata={"flag": False})
    max_sentences: int = dataclasses.field(
        default=5_000_000,
        metadata={"help": "sample this many sentences (seeded reservoir) when the input has more"},
    )
    seed: int = dataclasses.field(default=0, metadata={"help": "the sampling seed"})
    model_max_length: int = dataclasses.field(
        default=512, metadata={"help": "written to tokenizer_config.json"}
    )
    allow_jamo: bool = dataclasses.field(
        default=False, metadata={"help": "do not fail on decomposed (NFD/NFKC) conjoining-jamo tokens"}
    )
    round_trip_sentences: int = dataclasses.field(
        default=2000, metadata={"help": "sentences encoded and decoded by the round-trip check"}
    )
    quiet: bool = dataclasses.field(
        default=False,
        metadata={"help": "no progress bars (shown on a terminal) or trainer logs (shown with -v)"},
    )
    overwrite: bool = dataclasses.field(
        default=False, metadata={"help": "replace a previous train-vocab in --out"}
    )

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
        return _train_vocab(job, files)


def refuse_non_text(files: list[str]) -> None:
    """ValueError naming the first input files that are binary or not UTF-8 (a pack folder, a CP949 file)."""
    bad = [(path, problem) for path in files if (problem := text_problem(path))]
    if bad:
        more = f" (and {len(bad) - 1} more such files)" if len(bad) > 1 else ""
        path, problem = bad[0]
        raise ValueError(f"--input {path}: {problem}{more}; train-vocab reads UTF-8 text or JSONL (a "
                         "build-corpus output, not a pack folder; convert other encodings with iconv)")


def _train_vocab(job: TrainVocabJob, files: list[str]) -> dict[str, Any]:
    progress = not job.quiet and progress_display.wanted()
    trainer_logs = not job.quiet and logger.isEnabledFor(logging.INFO)
    config = job.config
    clock = PhaseClock()
    spm_processor = None
    alphabet = None
    with _scratch(job.out) as scratch:
        text = _read_text(job, files, scratch, progress, space_jamo=isinstance(config, WordPieceConfig))
        if not text.stats.sentences:
            raise ValueError(f"no text in {files}")
        clock.mark("read")
        if isinstance(config, WordPieceConfig):
            alphabet = config.alphabet(text.summary.char_counts)
            if not alphabet.text_has_jamo and any(is_conjoining_jamo(c) for c in text.summary.char_counts):
                # the only jamo are code points BERT's normalizer removes (unassigned): the trainer has always
                # seen them unspaced (`train_wordpiece`), so the files are written again that way
                text = _read_text(job, files, scratch, progress, space_jamo=False)
            with decompressed_pipe(text.files) as sample:
                tokens = interrupt.in_thread(
                    train_wordpiece_files, [sample], config, alphabet=alphabet, progress=progress
                )
        else:
            proto = interrupt.in_thread(_train_sentencepiece, text, config, progress=progress, logs=trainer_logs)
        clock.mark("train")
    if isinstance(config, WordPieceConfig):
        written = write_wordpiece_dir(job.out, tokens, model_max_length=job.model_max_length)
        tokenizer = wordpiece_tokenizer(tokens)
    else:
        import sentencepiece as spm

        written = write_sentencepiece_dir(job.out, proto, model_max_length=job.model_max_length)
        tokenizer = sentencepiece_tokenizer(proto)
        tokens = [tokenizer.id_to_token(i) for i in range(tokenizer.get_vocab_size(with_added_tokens=True))]
        spm_processor = spm.SentencePieceProcessor(model_proto=proto)
    _warn_if_short(config.vocab_size, len(tokens))
    report = check_vocab(
        tokenizer, job.kind, tokens, text.summary,
        allow_jamo=job.allow_jamo, spm_processor=spm_processor, progress=progress,
    )
    manifest = _manifest(job, files, text, alphabet, tokenizer, report, written, len(tokens))
    write_json(os.path.join(job.out, "manifest.json"), manifest)
    clock.mark("check and write")
    logger.info("train-vocab: %s", clock)
    if report.errors:
        raise VocabCheckError("\n".join(report.errors))
    return manifest


def _read_text(job: TrainVocabJob, files: list[str], scratch: str, progress: bool, *, space_jamo: bool) -> TrainingText:
    spm = isinstance(job.config, SentencePieceConfig)
    return read_training_text(
        files, scratch, max_sentences=job.max_sentences, seed=job.seed, round_trip=job.round_trip_sentences,
        max_sentence_bytes=job.config.max_sentence_length if spm else None, space_jamo=space_jamo, progress=progress,
    )


class PhaseClock:
    """Each phase's wall and CPU seconds (every thread of this process and its reaped workers): `-v` logs
    them, so what runs on one core shows (CPU close to wall on a machine of many)."""

    def __init__(self) -> None:
        self.last = self._now()
        self.phases: list[tuple[str, float, float]] = []

    @staticmethod
    def _now() -> tuple[float, float]:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter(), own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def mark(self, name: str) -> None:
        """The phase `name` ends now."""
        now = self._now()
        self.phases.append((name, now[0] - self.last[0], now[1] - self.last[1]))
        self.last = now

    def __str__(self) -> str:
        return ", ".join(f"{name} {wall:.1f} s ({cpu:.1f} CPU s)" for name, wall, cpu in self.phases)


@contextlib.contextmanager
def _scratch(out: str) -> Iterator[str]:
    """A folder in `out` for the sample's files, removed after training (`--overwrite` removes one a killed run
    left: `pipeline/outputs/marker.py`)."""
    folder = tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=out)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _warn_if_short(asked: int, got: int) -> None:
    """One warning when the corpus gives fewer tokens than `--vocab-size` asks for."""
    if got < asked:
        logger.warning(
            "--vocab-size %s asks for more tokens than the corpus gives: the vocab has %s, "
            "every piece the trainer found; a model sized for %s ids would never use %s of them: set it to %s "
            "or lower (or train on more text)",
            f"{asked:,}", f"{got:,}", f"{asked:,}", f"{asked - got:,}", got,
        )


def _manifest(
    job: TrainVocabJob, files: list[str], text: TrainingText, alphabet: Alphabet | None,
    tokenizer: Any, report: CheckReport, written: list[str], vocab_size: int,
) -> dict[str, Any]:
    """manifest.json: what was trained, on what, what the checks found, the files' digests."""
    config = job.config
    return {
        "kind": job.kind,
        "vocab_size": vocab_size,
        "config": {**config.__dict__, "seed": job.seed, "max_sentences": job.max_sentences},
        "input": {
            "files": [{"path": path, "bytes": os.path.getsize(path)} for path in files],
            **{k: v for k, v in text.stats.__dict__.items() if k != "files"},
            "split_too_long": text.summary.long_sentences,
        },
        "alphabet": alphabet.to_json() if alphabet is not None else None,
        "unk_rate": unk_rate(tokenizer, text.summary.spread),
        "checks": report.to_json(),
        "files": {name: sha256_file(os.path.join(job.out, name)) for name in written},
        "versions": _versions(),
    }


def _train_sentencepiece(text: TrainingText, config: SentencePieceConfig, *, progress: bool, logs: bool) -> bytes:
    """SentencePiece on the sample, streamed (long sentences split); with `progress`, a bar from its logs."""
    if not progress:
        pieces = spm_pieces(written_sentences(text.files), config.max_sentence_length)
        return train_sentencepiece(pieces, config, known=text.summary.spm_input(), logs=logs)
    from kcorpus.pipeline.vocab.spm_progress import spm_progress_bar

    with spm_progress_bar(config.vocab_size, config.model_type, logs=logs):
        # the trainer reads every sentence first: the read bar shows that, the training bar the rest
        pieces = spm_pieces(written_sentences(text.files, progress=True), config.max_sentence_length)
        return train_sentencepiece(pieces, config, known=text.summary.spm_input(), logs=True)


def _versions() -> dict[str, str]:
    import sentencepiece
    import tokenizers

    from kcorpus import __version__

    return {
        "kcorpus": __version__,
        "tokenizers": tokenizers.__version__,
        "sentencepiece": sentencepiece.__version__,
    }
