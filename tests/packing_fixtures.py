"""Tokenizers and corpora for the pack tests, built from the real slices in tests/testdata/pack/."""

from __future__ import annotations

import json
from pathlib import Path

from testdata_paths import TESTDATA

PACK_DATA = TESTDATA / "pack"
CORPUS = PACK_DATA / "corpus"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def kcbert_vocab() -> list[str]:
    return [line.rstrip("\n") for line in (PACK_DATA / "kcbert_vocab.txt").open(encoding="utf-8")]


def wordpiece_tokenizer(vocab: list[str]):
    """HF WordPiece like BertWordPieceTokenizer: cased, no accent stripping."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


def save_tokenizer(tok, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    tok.save(str(directory / "tokenizer.json"))
    return directory


def kcbert_tokenizer_dir(directory: Path) -> Path:
    return save_tokenizer(wordpiece_tokenizer(kcbert_vocab()), directory)


def big_vocab_tokenizer_dir(directory: Path, fillers: int = 40_000) -> Path:
    """KcBERT's vocab with `fillers` unused tokens in front of the real ones: 70,000 ids, most of the
    corpus tokens get ids above 65,535."""
    vocab = kcbert_vocab()
    big = vocab[:5] + [f"[unused{i}]" for i in range(fillers)] + vocab[5:]
    return save_tokenizer(wordpiece_tokenizer(big), directory)


def corpus_texts() -> list[str]:
    return [
        json.loads(line)["text"]
        for path in sorted((CORPUS / "docs").glob("*.jsonl"))
        for line in path.open(encoding="utf-8")
    ]


def spm_tokenizer_dir(directory: Path, vocab_size: int = 3000) -> Path:
    """A SentencePiece unigram model trained on the fixture corpus, converted to a `tokenizer.json`
    (Unigram model + Metaspace, the layout SentencePiece-derived HF tokenizers have)."""
    import sentencepiece as spm
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

    directory.mkdir(parents=True, exist_ok=True)
    sentences = [s for text in corpus_texts() for s in text.split("\n")]
    prefix = directory / "spm"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=0.9995,
        pad_id=0,
        unk_id=1,
        bos_id=-1,
        eos_id=-1,
        user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"],
        pad_piece="[PAD]",
        unk_piece="[UNK]",
        num_threads=1,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    tok = Tokenizer(models.Unigram(pieces, unk_id=sp.unk_id(), byte_fallback=False))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.add_special_tokens(SPECIALS)
    return save_tokenizer(tok, directory)


def write_text_layout(corpus: Path, out: Path) -> Path:
    """The same documents as build-corpus `text/*.txt`: sentence lines, a blank line between documents."""
    (out / "text").mkdir(parents=True, exist_ok=True)
    for path in sorted((corpus / "docs").glob("*.jsonl")):
        texts = [json.loads(line)["text"] for line in path.open(encoding="utf-8")]
        (out / "text" / path.with_suffix(".txt").name).write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return out
