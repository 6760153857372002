"""Vocabulary files: build `tokenizers` pipelines for WordPiece and SentencePiece, write and load vocab dirs.

The tokenizer.json written here is what `AutoTokenizer.from_pretrained` uses, so `tokenizers.Tokenizer.from_file`
and transformers give the same ids. A WordPiece dir names `PreTrainedTokenizerFast` as its class: transformers
then loads tokenizer.json as is, where `BertTokenizer` would rebuild the pipeline from vocab.txt and drop our
NFC normalizer (non-NFC input, e.g. NFD Hangul from macOS file names or pasted text, would encode to [UNK]).
A SentencePiece unigram model without byte fallback, trained with identity normalization (kcorpus's), names
`DebertaV2Tokenizer`, which rebuilds the same pipeline; other SentencePiece models load verbatim. WordPiece
never lowercases, strips accents or applies NFD: those decompose Hangul syllables into conjoining jamo.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import struct
from collections.abc import Sequence
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
from kcorpus.transforms.vocab.spm_model import (
    SPM_CONTROL,
    SPM_NORMAL,
    SPM_UNKNOWN,
    SPM_USER_DEFINED,
    SpmModel,
    read_spm_model,
)

# re-exported: vocab files' special tokens, and the model reader
__all__ = ["CLS", "MASK", "PAD", "SEP", "SPECIAL_TOKENS", "UNK", "SpmModel", "read_spm_model"]

WORDPIECE_PREFIX = "##"
SPM_SPACE = "▁"
_UNUSED = re.compile(r"^\[unused\d+\]$")
# Special tokens of other conventions, never appended by a merge and left out of normalized comparisons.
_OTHER_SPECIALS = frozenset({"<s>", "</s>", "<pad>", "<unk>", "<mask>", "<cls>", "<sep>", "<|endoftext|>"})
_BYTE_PIECE = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")

WORDPIECE = "wordpiece"
SENTENCEPIECE = "sentencepiece"


def is_special_token(token: str) -> bool:
    """The five BERT specials, `[unusedN]` slots and the `<s>`-style specials of other vocabularies."""
    return token in SPECIAL_TOKENS or bool(_UNUSED.match(token)) or token in _OTHER_SPECIALS


def is_byte_piece(token: str) -> bool:
    return bool(_BYTE_PIECE.match(token))


def unused_tokens(count: int) -> list[str]:
    return [f"[unused{i}]" for i in range(count)]


# --------------------------------------------------------------------------------------------- WordPiece


def wordpiece_pre_tokenizer(isolate_jamo: bool = True):
    """BERT's pre-tokenizer, then (with `isolate_jamo`) every conjoining jamo (U+1100-U+11FF, ...) as a word.

    NFC leaves only genuine jamo in the text (`ᆢ` as an ellipsis, `ᄏ`, the filler `ᅠ`); isolating them keeps
    them single-character tokens, like punctuation, instead of merging into `다ᆢ` or `ᄏᄏ`.
    """
    from tokenizers import Regex, pre_tokenizers

    if not isolate_jamo:
        return pre_tokenizers.BertPreTokenizer()
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.BertPreTokenizer(),
            pre_tokenizers.Split(Regex(f"[{CONJOINING_JAMO_CLASS}]"), behavior="isolated"),
        ]
    )


def has_jamo_tokens(tokens: Sequence[str]) -> bool:
    """Whether a vocabulary holds single conjoining jamo: trained (by kcorpus) on text with genuine jamo."""
    return any(len(t) == 1 and is_conjoining_jamo(t) for t in tokens)


def wordpiece_tokenizer(tokens: Sequence[str]):
    """A cased BERT WordPiece tokenizer over `tokens` (ids = positions); `[UNK]` must be present."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers

    vocab = _ids(tokens)
    for token in (UNK, CLS, SEP):
        if token not in vocab:
            raise ValueError(f"WordPiece vocabulary lacks {token}")
    tok = Tokenizer(models.WordPiece(vocab, unk_token=UNK, max_input_chars_per_word=100))
    # NFC first: the vocab holds precomposed syllables, so decomposed (NFD) input must be composed to match.
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.NFC(),
            normalizers.BertNormalizer(
                clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False
            ),
        ]
    )
    # Isolating jamo costs 5-16% of encoding time (bench/RESULTS.md), so only vocabs with jamo tokens pay it;
    # others (KcBERT's) pre-tokenize exactly as BERT does.
    tok.pre_tokenizer = wordpiece_pre_tokenizer(has_jamo_tokens(tokens))
    # cleanup=False: the BERT cleanup rewrites " do not" as " don't" and glues punctuation.
    tok.decoder = decoders.WordPiece(prefix=WORDPIECE_PREFIX, cleanup=False)
    tok.post_processor = _template(vocab)
    specials = [t for t in tokens if t in SPECIAL_TOKENS or _UNUSED.match(t)]
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    return tok


def write_wordpiece_dir(out_dir: str, tokens: Sequence[str], *, model_max_length: int = 512) -> list[str]:
    """vocab.txt, tokenizer.json, tokenizer_config.json and special_tokens_map.json; returns the names."""
    os.makedirs(out_dir, exist_ok=True)
    for token in tokens:
        if "\n" in token or not token:
            raise ValueError(f"token {token!r} cannot be written to vocab.txt")
    with open(os.path.join(out_dir, "vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(f"{t}\n" for t in tokens))
    wordpiece_tokenizer(tokens).save(os.path.join(out_dir, "tokenizer.json"))
    config = {
        # loaded from tokenizer.json as is (BertTokenizer would rebuild it without the NFC normalizer)
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
        "do_lower_case": False,
        "strip_accents": False,
        "tokenize_chinese_chars": True,
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length,
        **_special_map(),
    }
    write_json(os.path.join(out_dir, "tokenizer_config.json"), config)
    write_json(os.path.join(out_dir, "special_tokens_map.json"), _special_map())
    return ["vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]


# ----------------------------------------------------------------------------------------- SentencePiece


def spm_special_tokens(model: SpmModel) -> list[str]:
    kinds = (SPM_UNKNOWN, SPM_CONTROL, SPM_USER_DEFINED)
    return [p for (p, _), t in zip(model.pieces, model.piece_types) if t in kinds and p not in ("<s>", "</s>")]


def sentencepiece_tokenizer(model_proto: bytes):
    """The `tokenizers` equivalent of a SentencePiece model trained with identity normalization."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    spm = read_spm_model(model_proto)
    vocab = _ids([p for p, _ in spm.pieces])
    unk_id = spm.piece_types.index(SPM_UNKNOWN) if SPM_UNKNOWN in spm.piece_types else vocab.get(UNK, 0)
    if spm.model_type == "bpe":
        tok = Tokenizer(
            models.BPE(
                vocab=vocab,
                merges=_spm_bpe_merges(spm, vocab),
                unk_token=spm.pieces[unk_id][0],
                fuse_unk=True,
                byte_fallback=spm.byte_fallback,
            )
        )
    else:
        tok = Tokenizer(models.Unigram(spm.pieces, unk_id=unk_id, byte_fallback=spm.byte_fallback))
    # Mirrors transformers' DebertaV2Tokenizer so both loaders agree; SentencePiece itself is fed NFC text.
    # A model trained with another normalization (a stock model's nmt_nfkc) carries its rules as a compiled
    # character map: applied instead of NFC, as SentencePiece applies it (transformers' converters do the same).
    unicode = normalizers.Precompiled(spm.precompiled_charsmap) if spm.precompiled_charsmap else normalizers.NFC()
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex(r"\s{2,}|[\n\r\t]"), " "),
            unicode,
            normalizers.Strip(left=False, right=True),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=SPM_SPACE, prepend_scheme="always")
    if spm.byte_fallback:
        tok.decoder = decoders.Sequence(
            [
                decoders.Replace(SPM_SPACE, " "),
                decoders.ByteFallback(),
                decoders.Fuse(),
                decoders.Strip(" ", 1, 0),
            ]
        )
    else:
        tok.decoder = decoders.Metaspace(replacement=SPM_SPACE, prepend_scheme="always")
    if CLS in vocab and SEP in vocab:
        tok.post_processor = _template(vocab)
    specials = spm_special_tokens(spm)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    return tok


def _spm_bpe_merges(spm: SpmModel, vocab: dict[str, int]) -> list[tuple[str, str]]:
    """Merges of a SentencePiece BPE model: every split of a piece into two pieces, ranked by piece id."""
    ranked: list[tuple[int, int, int, str, str]] = []
    for piece_id, ((piece, _), kind) in enumerate(zip(spm.pieces, spm.piece_types)):
        if kind != SPM_NORMAL:
            continue
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in vocab and right in vocab:
                ranked.append((piece_id, vocab[left], vocab[right], left, right))
    ranked.sort()
    return [(left, right) for _, _, _, left, right in ranked]


def write_sentencepiece_dir(out_dir: str, model_proto: bytes, *, model_max_length: int = 512) -> list[str]:
    """spm.model, spm.vocab, tokenizer.json, tokenizer_config.json, special_tokens_map.json."""
    os.makedirs(out_dir, exist_ok=True)
    spm = read_spm_model(model_proto)
    with open(os.path.join(out_dir, "spm.model"), "wb") as f:
        f.write(model_proto)
    with open(os.path.join(out_dir, "spm.vocab"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(f"{piece}\t{_spm_score(score)}\n" for piece, score in spm.pieces))
    sentencepiece_tokenizer(model_proto).save(os.path.join(out_dir, "tokenizer.json"))
    # transformers' DebertaV2Tokenizer rebuilds a unigram model without byte fallback (with NFC: not a stock
    # model's nmt_nfkc rules); anything else is loaded verbatim from tokenizer.json by the generic fast tokenizer.
    deberta = spm.model_type == "unigram" and not spm.byte_fallback and not spm.precompiled_charsmap
    config = {
        "tokenizer_class": "DebertaV2Tokenizer" if deberta else "PreTrainedTokenizerFast",
        "do_lower_case": False,
        "split_by_punct": False,
        "add_prefix_space": True,
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length,
        "unk_id": [p for p, _ in spm.pieces].index(UNK),
        "bos_token": CLS,
        "eos_token": SEP,
        **_special_map(),
    }
    write_json(os.path.join(out_dir, "tokenizer_config.json"), config)
    write_json(os.path.join(out_dir, "special_tokens_map.json"), {"bos_token": CLS, "eos_token": SEP, **_special_map()})
    return ["spm.model", "spm.vocab", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]


def _spm_score(score: float) -> str:
    # spm.vocab as SentencePiece writes it: integral scores without a fraction.
    return str(int(score)) if float(score).is_integer() else repr(float(score))


# ------------------------------------------------------------------------------------------------ loading


@dataclasses.dataclass
class LoadedVocab:
    """Any vocabulary, as tokens in id order, its convention and a `tokenizers.Tokenizer` to encode with."""

    path: str
    kind: str  # WORDPIECE (## continuations) or SENTENCEPIECE (▁ word starts)
    tokens: list[str]
    tokenizer: Any

    @property
    def unk_id(self) -> int | None:
        for token in (UNK, "<unk>"):
            token_id = self.tokenizer.token_to_id(token)
            if token_id is not None:
                return token_id
        return None


def read_vocab_txt(path: str) -> list[str]:
    """One token a line; ValueError naming the file and line when it is not UTF-8."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not UTF-8 (byte {data[err.start]:#04x}); a vocab.txt is UTF-8") from None
    tokens = text.replace("\r\n", "\n").split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()
    return tokens


def load_vocab(path: str) -> LoadedVocab:
    """Load a vocab dir (tokenizer.json, vocab.txt or *.model inside), a vocab.txt, a .model or a tokenizer.json."""
    if os.path.isdir(path):
        for name in ("tokenizer.json", "vocab.txt", "spm.model"):
            if os.path.isfile(os.path.join(path, name)):
                return load_vocab(os.path.join(path, name))
        models = sorted(n for n in os.listdir(path) if n.endswith(".model"))
        if models:
            return load_vocab(os.path.join(path, models[0]))
        raise FileNotFoundError(f"{path}: no tokenizer.json, vocab.txt or .model file in this directory")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no vocabulary at {path!r}")
    if path.endswith(".model"):
        with open(path, "rb") as f:
            proto = f.read()
        try:
            spm = read_spm_model(proto)
        except (ValueError, UnicodeDecodeError, struct.error) as error:
            raise ValueError(f"{path}: not a SentencePiece model ({error})") from error
        return LoadedVocab(path, SENTENCEPIECE, [p for p, _ in spm.pieces], sentencepiece_tokenizer(proto))
    if path.endswith(".json"):
        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(path)
        except Exception as error:  # noqa: BLE001 (tokenizers raises a bare Exception for a file it cannot parse)
            raise ValueError(f"{path}: not a tokenizers JSON file ({error})") from None
        model_type = json.loads(tokenizer.model.__getstate__())["type"]
        vocab = tokenizer.get_vocab(with_added_tokens=True)
        tokens = [t for t, _ in sorted(vocab.items(), key=lambda item: item[1])]
        kind = WORDPIECE if model_type == "WordPiece" else SENTENCEPIECE
        return LoadedVocab(path, kind, tokens, tokenizer)
    tokens = read_vocab_txt(path)
    duplicates = len(tokens) - len(set(tokens))
    if duplicates:
        raise ValueError(f"{path}: {duplicates} duplicate tokens; ids would be ambiguous")
    return LoadedVocab(path, WORDPIECE, tokens, wordpiece_tokenizer(tokens))


# ------------------------------------------------------------------------------------------------ helpers


def _ids(tokens: Sequence[str]) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token in vocab:
            raise ValueError(f"duplicate token {token!r} at ids {vocab[token]} and {i}")
        vocab[token] = i
    return vocab


def _template(vocab: dict[str, int]):
    from tokenizers import processors

    return processors.TemplateProcessing(
        single=f"{CLS}:0 $A:0 {SEP}:0",
        pair=f"{CLS}:0 $A:0 {SEP}:0 $B:1 {SEP}:1",
        special_tokens=[(CLS, vocab[CLS]), (SEP, vocab[SEP])],
    )


def _special_map() -> dict[str, str]:
    return {"unk_token": UNK, "sep_token": SEP, "pad_token": PAD, "cls_token": CLS, "mask_token": MASK}


def write_json(path: str, obj: Any) -> None:
    """JSON with sorted keys and a final newline, so equal content gives equal bytes."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
