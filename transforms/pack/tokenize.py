"""Loading a `tokenizer.json` and turning documents into sentence token ids for the packer.

The packer inserts `[CLS]`/`[SEP]` itself, so sentences are encoded without the tokenizer's post-processor,
truncation or padding. The offsets give every token's eojeol-start flag (`word_starts.py`); with the flags
off, `encode_batch_fast` (no offsets) is used when the installed `tokenizers` has it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kcorpus.transforms import files
from kcorpus.transforms.korean import CLS, PAD, SEP
from kcorpus.transforms.pack.blocks import SpecialIds, TokenizedDoc, WireDoc
from kcorpus.transforms.pack.word_starts import word_start_flags

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TOKENIZER_FILE = "tokenizer.json"


def tokenizer_file(path: str) -> str:
    """`DIR/tokenizer.json` for a directory, the path itself for a file (local, or remote through the opener
    that the pipeline registers with `transforms.files`)."""
    if path.endswith(".json"):
        return path
    return files.join(path, TOKENIZER_FILE)


def read_tokenizer_bytes(path: str) -> bytes:
    """The bytes of the `tokenizer.json` of a directory (or the file itself)."""
    file = tokenizer_file(path)
    if not files.exists(file):
        raise FileNotFoundError(f"no tokenizer at {file} (expected a directory with {TOKENIZER_FILE})")
    with files.open_raw(file) as f:
        return f.read()


def tokenizer_from_bytes(data: bytes) -> Tokenizer:
    """A `tokenizers.Tokenizer` with truncation and padding switched off."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(data.decode("utf-8"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def full_vocab_size(tok: Tokenizer) -> int:
    """Vocabulary length with added tokens: ids run from 0 to this minus one."""
    size = tok.get_vocab_size(with_added_tokens=True)
    top = max(tok.get_vocab(with_added_tokens=True).values(), default=-1) + 1
    return max(size, top)


def special_ids(tok: Tokenizer, cls: str = CLS, sep: str = SEP, pad: str = PAD) -> SpecialIds:
    """Ids of the tokens the packer inserts; a clear error naming the missing ones."""
    ids = {name: tok.token_to_id(name) for name in (cls, sep, pad)}
    missing = [name for name, i in ids.items() if i is None]
    if missing:
        raise ValueError(f"tokenizer has no {', '.join(missing)} token; name them with --cls-token/--sep-token/--pad-token")
    return SpecialIds(cls=ids[cls], sep=ids[sep], pad=ids[pad])


def sentence_lines(text: str) -> list[str]:
    """The sentences of a corpus document: its text is one sentence per line; blank lines carry nothing."""
    return [line for line in (s.strip() for s in text.split("\n")) if line]


def encode_flat(
    tok: Tokenizer, texts: Sequence[str], dtype: np.dtype | str = np.uint32, word_starts: bool = False
) -> tuple[np.ndarray, np.ndarray, list[int], np.ndarray | None]:
    """Encode the sentences of many documents in one batched call: (flat ids as `dtype`, uint32 length of
    every sentence, sentences per document, uint8 eojeol-start flag of every token or None).

    Without `word_starts` the call is `encode_batch_fast` (no offsets) where the installed `tokenizers` has it.
    """
    sentences: list[str] = []
    counts: list[int] = []
    for text in texts:
        doc_sentences = sentence_lines(text)
        sentences.extend(doc_sentences)
        counts.append(len(doc_sentences))
    encode = tok.encode_batch if word_starts else getattr(tok, "encode_batch_fast", tok.encode_batch)
    encodings = encode(sentences, add_special_tokens=False) if sentences else []
    id_lists = [e.ids for e in encodings]
    lengths = np.fromiter(map(len, id_lists), dtype=np.uint32, count=len(id_lists))
    total = int(lengths.sum(dtype=np.int64))
    flat = np.fromiter(itertools.chain.from_iterable(id_lists), dtype=dtype, count=total)
    flags = None
    if word_starts:
        # the sentences joined by "\n" (whitespace, so no eojeol crosses two), token offsets shifted to match
        bases = np.cumsum([0, *(len(s) + 1 for s in sentences)], dtype=np.int64)[:-1]
        starts = np.fromiter((o[0] for e in encodings for o in e.offsets), dtype=np.int64, count=total)
        starts += np.repeat(bases, lengths)
        firsts = (np.cumsum(lengths, dtype=np.int64) - lengths)[lengths > 0]
        flags = word_start_flags("\n".join(sentences), starts, firsts)
    return flat, lengths, counts, flags


def tokenize_documents(
    tok: Tokenizer, docs: Sequence[tuple[str, str]], dtype: np.dtype | str = np.uint32, word_starts: bool = True,
    sources: Sequence[str] | None = None,
) -> list[TokenizedDoc]:
    """Encode the sentences of many documents in one batched call; ids as `dtype` (see `ids_dtype`)."""
    return [TokenizedDoc.from_wire(w) for w in tokenize_wire(tok, docs, dtype, word_starts, sources)]


def tokenize_wire(
    tok: Tokenizer, docs: Sequence[tuple[str, str]], dtype: np.dtype | str = np.uint32, word_starts: bool = True,
    sources: Sequence[str] | None = None,
) -> list[WireDoc]:
    """`tokenize_documents` as wire tuples, cut from one bytes object per column (no array per document).
    `sources` names each document's corpus source ("" when not given); `word_starts` adds the eojeol-start
    flags (else the wire's flags are None)."""
    flat, lengths, counts, flags = encode_flat(tok, [text for _, text in docs], dtype, word_starts)
    sent_ends = np.cumsum(np.asarray(counts, dtype=np.int64))
    token_ends = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])[sent_ends]
    ids_bytes, len_bytes = flat.tobytes(), lengths.tobytes()
    flag_bytes = flags.tobytes() if flags is not None else None
    size, dtype_str = flat.dtype.itemsize, flat.dtype.str
    sources = sources if sources is not None else [""] * len(docs)
    out: list[WireDoc] = []
    sent_pos = tok_pos = 0
    for (doc_id, _), source, sent_end, tok_end in zip(docs, sources, sent_ends.tolist(), token_ends.tolist()):
        doc_flags = flag_bytes[tok_pos:tok_end] if flag_bytes is not None else None
        out.append((doc_id, ids_bytes[tok_pos * size : tok_end * size], len_bytes[sent_pos * 4 : sent_end * 4],
                    dtype_str, doc_flags, source))
        sent_pos, tok_pos = sent_end, tok_end
    return out


def source_path(path: str) -> str:
    """A local path made absolute (for the manifest); a URL unchanged."""
    return path if files.is_remote(path) else str(Path(path).resolve())
