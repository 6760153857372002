"""Train a Hangul-safe WordPiece (HF tokenizers) or SentencePiece (unigram/BPE) vocabulary on sentences.

Deterministic by construction. HF's WordPiece trainer numbers continuation pieces (`##가`) in hash-map order,
which changes merge tie-breaks from run to run; here every `##c` of the alphabet is given an id up front (as a
trainer special token), so ids, and with them all tie-breaks, are the same on every run. A side effect we want:
every character of the alphabet is encodable both word-initially and inside a word.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from kcorpus.transforms.korean import (
    CLS,
    CONJOINING_JAMO_CLASS,
    MASK,
    PAD,
    SEP,
    SPECIAL_TOKENS,
    UNK,
    is_conjoining_jamo,
)
from kcorpus.transforms.vocab.alphabet import Alphabet, choose_alphabet
from kcorpus.transforms.vocab.files import WORDPIECE_PREFIX, unused_tokens, wordpiece_pre_tokenizer

logger = logging.getLogger(__name__)

KINDS = ("wordpiece", "sentencepiece")
# WordPiece's default share of character occurrences the alphabet covers (docs/vocab.md says why this value).
WORDPIECE_COVERAGE = 0.9998
SPM_MODEL_TYPES = ("unigram", "bpe")


@dataclasses.dataclass(frozen=True)
class WordPieceConfig:
    """`vocab_size` counts every token written, `[unusedN]` slots (appended last, KoELECTRA-style) included.

    The alphabet (`alphabet.choose_alphabet`): the characters covering `character_coverage` of the sample's
    character occurrences, or with `limit_alphabet` the N most frequent; every Hangul syllable of the sample
    either way.
    """

    vocab_size: int = 32000
    min_frequency: int = dataclasses.field(
        default=2, metadata={"help": "a merge needs a pair seen at least this many times"}
    )
    character_coverage: float = WORDPIECE_COVERAGE
    limit_alphabet: int | None = dataclasses.field(  # replaces the coverage rule when set
        default=None,
        metadata={
            "help": "keep the N most frequent characters instead of --character-coverage (Hangul syllables of "
            "the sample always kept)"
        },
    )
    num_unused: int = dataclasses.field(
        default=0,
        metadata={"help": "append N [unusedN] slots (counted in --vocab-size)", "aliases": ("--unused",)},
    )

    def __post_init__(self) -> None:
        floor = len(SPECIAL_TOKENS) + self.num_unused
        if self.vocab_size <= floor:
            raise ValueError(f"vocab_size {self.vocab_size} leaves no room after {floor} special tokens")
        if self.min_frequency < 1 or (self.limit_alphabet is not None and self.limit_alphabet < 1):
            raise ValueError("min_frequency and limit_alphabet must be positive")
        if not 0.0 < self.character_coverage <= 1.0:
            raise ValueError(f"character_coverage must be in (0, 1], got {self.character_coverage}")

    def alphabet(self, counts: Mapping[str, int]) -> Alphabet:
        """The alphabet of a sample with these character `counts`."""
        return choose_alphabet(counts, coverage=self.character_coverage, limit=self.limit_alphabet)


@dataclasses.dataclass(frozen=True)
class SentencePieceConfig:
    vocab_size: int = 32000
    model_type: str = dataclasses.field(
        default="unigram", metadata={"choices": SPM_MODEL_TYPES, "help": "SentencePiece's model"}
    )
    character_coverage: float = 1.0
    byte_fallback: bool = dataclasses.field(
        default=False, metadata={"help": "encode characters outside the vocabulary as <0xNN> byte pieces"}
    )
    # SentencePiece skips longer sentences, so we count them first.
    max_sentence_length: int = dataclasses.field(
        default=4192, metadata={"help": "bytes; longer sentences are split at spaces (and counted)"}
    )
    # Stored in the model file, so fixed rather than taken from the machine.
    num_threads: int = dataclasses.field(
        default=8, metadata={"help": "the trainer's threads (stored in the model file, so fixed by default)"}
    )
    seed_sentencepiece_size: int = dataclasses.field(
        default=1_000_000, metadata={"help": "the trainer's initial seed pieces (unigram)"}
    )

    def __post_init__(self) -> None:
        if self.model_type not in SPM_MODEL_TYPES:
            raise ValueError(f"unknown model_type {self.model_type!r}; valid: {', '.join(SPM_MODEL_TYPES)}")
        if not 0.0 < self.character_coverage <= 1.0:
            raise ValueError(f"character_coverage must be in (0, 1], got {self.character_coverage}")
        if self.vocab_size <= len(SPECIAL_TOKENS):
            raise ValueError(f"vocab_size {self.vocab_size} is too small")


def char_counts(sentences: Iterable[str]) -> Counter[str]:
    """Every character of `sentences` with its count (`text_summary.summarize` counts a stream faster)."""
    counts: Counter[str] = Counter()
    for sentence in sentences:
        counts.update(sentence)
    return counts


def train_wordpiece(
    sentences: Iterable[str],
    config: WordPieceConfig,
    *,
    alphabet: Alphabet | None = None,
    length: int | None = None,
    progress: bool = False,
) -> list[str]:
    """The trained vocabulary in id order: specials, `##c`, alphabet, merges, then `[unusedN]`.

    `sentences` is read once, by the trainer; with `alphabet` (`config.alphabet` of their summary, made before)
    it may be a stream. `length`: the number of sentences, for the trainer's progress bar.
    """
    if alphabet is None:
        sentences = list(sentences)
        alphabet = config.alphabet(char_counts(sentences))
        length = len(sentences)
    tokenizer, trainer, continuations = _wordpiece_trainer(config, alphabet, progress)
    if alphabet.text_has_jamo:
        sentences = _isolate_jamo(sentences)
    tokenizer.train_from_iterator(sentences, trainer=trainer, length=length)
    return _trained_tokens(tokenizer, continuations, config)


def train_wordpiece_files(
    paths: Sequence[str], config: WordPieceConfig, *, alphabet: Alphabet, progress: bool = False
) -> list[str]:
    """`train_wordpiece` on sentences written one a line with their jamo spaced apart (`space_jamo`), read by
    `tokenizers` itself (on its own threads, the Python interpreter not involved): the same vocabulary."""
    tokenizer, trainer, continuations = _wordpiece_trainer(config, alphabet, progress)
    tokenizer.train(list(paths), trainer=trainer)
    return _trained_tokens(tokenizer, continuations, config)


def _wordpiece_trainer(config: WordPieceConfig, alphabet: Alphabet, progress: bool) -> tuple[Any, Any, list[str]]:
    """The tokenizer to train, its trainer, and the `##c` forms given ids up front."""
    from tokenizers import Tokenizer, models, normalizers, trainers

    characters = list(alphabet.characters)
    continuations = [WORDPIECE_PREFIX + c for c in alphabet.continuations]
    trained_size = config.vocab_size - config.num_unused
    fixed = len(SPECIAL_TOKENS) + len(continuations) + len(characters)
    if fixed > trained_size:
        raise ValueError(
            f"vocab_size {config.vocab_size} is smaller than the alphabet: {len(characters)} characters and "
            f"{len(continuations)} ## continuations need {fixed} ids; raise --vocab-size or lower "
            "--character-coverage"
        )
    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False
    )
    # BERT's pre-tokenizer alone: the genuine jamo are isolated in the sentences instead (`space_jamo`), which
    # gives the trainer the same words for a fraction of a regex split of every word (~15% of training's CPU)
    tokenizer.pre_tokenizer = wordpiece_pre_tokenizer(isolate_jamo=False)
    trainer = trainers.WordPieceTrainer(
        vocab_size=trained_size,
        min_frequency=config.min_frequency,
        special_tokens=list(SPECIAL_TOKENS) + continuations,
        limit_alphabet=len(characters),
        initial_alphabet=characters,
        continuing_subword_prefix=WORDPIECE_PREFIX,
        show_progress=progress,
    )
    return tokenizer, trainer, continuations


def _trained_tokens(tokenizer: Any, continuations: list[str], config: WordPieceConfig) -> list[str]:
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda item: item[1])]
    if sorted(vocab.values()) != list(range(len(tokens))):
        raise RuntimeError("WordPiece trainer returned non-contiguous ids")
    _warn_unplanned_continuations(tokens, set(continuations))
    return tokens + unused_tokens(config.num_unused)


def _warn_unplanned_continuations(tokens: Sequence[str], planned: set[str]) -> None:
    """The trainer numbers a `##c` it makes itself in hash-map order: ids could then differ from run to run."""
    extra = [t for t in tokens if len(t) == len(WORDPIECE_PREFIX) + 1 and t.startswith(WORDPIECE_PREFIX)
             and t not in planned]
    if extra:
        logger.warning(
            "the trainer made %d ## forms the alphabet did not plan (%s): their ids may differ between runs",
            len(extra), " ".join(extra[:10]),
        )


def _isolate_jamo(sentences: Iterable[str]) -> Iterator[str]:
    """The sentences with a space on each side of every conjoining jamo (`space_jamo`)."""
    for sentence in sentences:
        yield space_jamo(sentence)


def space_jamo(sentence: str) -> str:
    """`sentence` with a space on each side of every conjoining jamo: BERT's pre-tokenizer then makes each jamo a
    word of its own, as `wordpiece_pre_tokenizer`'s split does (the words, and so the vocab, are the same)."""
    return _JAMO.sub(r" \g<0> ", sentence) if _JAMO.search(sentence) else sentence


def split_long_sentence(sentence: str, max_bytes: int) -> list[str]:
    """Pieces of at most `max_bytes` UTF-8 bytes, cut at spaces where possible (SentencePiece skips longer ones)."""
    # a character is at most 4 bytes in UTF-8: most sentences need no encoding to know they fit
    if len(sentence) * 4 <= max_bytes or len(sentence.encode("utf-8")) <= max_bytes:
        return [sentence]
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        while len(word.encode("utf-8")) > max_bytes:
            cut = len(word.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore"))
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:cut])
            word = word[cut:]
        candidate = f"{current} {word}" if current else word
        if len(candidate.encode("utf-8")) > max_bytes:
            pieces.append(current)
            candidate = word
        current = candidate
    if current:
        pieces.append(current)
    return pieces


def spm_pieces(sentences: Iterable[str], max_bytes: int) -> Iterator[str]:
    """Sentences SentencePiece accepts: longer ones split at spaces (`summarize` counts them beforehand)."""
    for sentence in sentences:
        yield from split_long_sentence(sentence, max_bytes)


@dataclasses.dataclass(frozen=True)
class SpmInput:
    """What SentencePiece needs to know about its sentences before it reads them (from `summarize`).

    Attributes:
        counts: every character of the sentences with its count (for the jamo delimiter).
        pieces: sentences once the long ones are split (SentencePiece's `train_extremely_large_corpus`).
        max_isolated_bytes: the longest piece holding a jamo once the jamo are isolated (0 without jamo).
    """

    counts: Mapping[str, int]
    pieces: int
    max_isolated_bytes: int = 0


def train_sentencepiece(
    sentences: Iterable[str],
    config: SentencePieceConfig,
    *,
    known: SpmInput | None = None,
    logs: bool = False,
) -> bytes:
    """A serialized SentencePiece model: identity normalization, `[PAD]`=0, `[UNK]`=1, `[CLS] [SEP] [MASK]`=2-4.

    The text must already be NFC (see `prenormalize`) and no sentence longer than `config.max_sentence_length`
    bytes (see `spm_pieces`): SentencePiece's default NFKC would turn the compatibility jamo `ㅋ` into the
    conjoining jamo `ᄏ`. Genuine conjoining jamo of the text are isolated for training
    (`pretokenization_delimiter`), so no piece joins them to other characters. `sentences` is read once, by the
    trainer; with `known` (their summary) it may be a stream. The trainer's log lines (~90, INFO included) go
    to stderr only with `logs`; its errors raise ValueError either way.
    """
    import sentencepiece as spm

    if known is None:
        sentences = list(sentences)
        known = _spm_input(sentences)
    if not known.pieces:
        raise ValueError("no sentences to train on")
    delimiter = jamo_delimiter(known.counts)
    if delimiter is not None:
        sentences = (isolate_jamo(s, delimiter) for s in sentences)
    model = io.BytesIO()
    try:
        _spm_train(spm, sentences, model, config, logs, delimiter, known)
    except RuntimeError as error:  # SentencePiece reports bad settings (vocab too large, ...) this way
        raise ValueError(f"SentencePiece training failed: {error}") from error
    return model.getvalue()


def _spm_input(sentences: Sequence[str]) -> SpmInput:
    isolated = [
        len(s.encode("utf-8")) + 2 * DELIMITER_BYTES * len(_JAMO.findall(s)) for s in sentences if _JAMO.search(s)
    ]
    return SpmInput(char_counts(sentences), pieces=len(sentences), max_isolated_bytes=max(isolated, default=0))


_JAMO = re.compile(f"([{CONJOINING_JAMO_CLASS}])")
# Private-use characters, the first one the text lacks marks word boundaries for SentencePiece training only.
_DELIMITER_CANDIDATES = [chr(code) for code in range(0xE000, 0xE100)]
DELIMITER_BYTES = 3  # each of them in UTF-8


def jamo_delimiter(counts: Mapping[str, int]) -> str | None:
    """A delimiter to isolate the conjoining jamo of a text with (`counts`: its characters), or None when it has
    none."""
    if not any(is_conjoining_jamo(c) for c in counts):
        return None
    free = next((c for c in _DELIMITER_CANDIDATES if c not in counts), None)
    if free is None:
        raise ValueError("the text uses every private-use character U+E000-U+E0FF; cannot isolate jamo")
    return free


def isolate_jamo(sentence: str, delimiter: str) -> str:
    """`다ᆢ 굳` -> `다<d>ᆢ<d> 굳`: SentencePiece learns no piece across a delimiter."""
    return _JAMO.sub(rf"{delimiter}\1{delimiter}", sentence)


def _spm_train(
    spm: Any, sentences: Iterable[str], model: io.BytesIO, config: SentencePieceConfig, logs: bool,
    delimiter: str | None, known: SpmInput,
) -> None:
    extra: dict[str, Any] = {}
    max_bytes = config.max_sentence_length
    if delimiter is not None:
        extra["pretokenization_delimiter"] = delimiter
        # the delimiters add bytes to sentences already split to fit max_sentence_length
        max_bytes = max(max_bytes, known.max_isolated_bytes)
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=model,
        model_type=config.model_type,
        vocab_size=config.vocab_size,
        character_coverage=config.character_coverage,
        byte_fallback=config.byte_fallback,
        normalization_rule_name="identity",
        remove_extra_whitespaces=True,
        split_digits=False,
        pad_id=0,
        pad_piece=PAD,
        unk_id=1,
        unk_piece=UNK,
        bos_id=-1,
        eos_id=-1,
        user_defined_symbols=[CLS, SEP, MASK],
        input_sentence_size=0,
        shuffle_input_sentence=False,
        max_sentence_length=max_bytes,
        seed_sentencepiece_size=config.seed_sentencepiece_size,
        num_threads=config.num_threads,
        hard_vocab_limit=True,
        train_extremely_large_corpus=known.pieces > 20_000_000,
        minloglevel=0 if logs else 2,
        **extra,
    )
