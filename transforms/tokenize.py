"""Loading a `tokenizer.json` and turning documents into sentence token ids for the packer.

The packer inserts `[CLS]`/`[SEP]` itself, so sentences are encoded without the tokenizer's post-processor,
truncation or padding. `encode_batch_fast` (no offsets) is used when the installed `tokenizers` has it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kcorpus.transforms.packing import SpecialIds, TokenizedDoc

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TOKENIZER_FILE = "tokenizer.json"


def tokenizer_file(path: str) -> str:
    """`DIR/tokenizer.json` for a directory, the path itself for a file (local or any Beam filesystem)."""
    from apache_beam.io.filesystems import FileSystems

    if path.endswith(".json"):
        return path
    return FileSystems.join(path, TOKENIZER_FILE)


def read_tokenizer_bytes(path: str) -> bytes:
    from apache_beam.io.filesystems import FileSystems

    file = tokenizer_file(path)
    if not FileSystems.exists(file):
        raise FileNotFoundError(f"no tokenizer at {file} (expected a directory with {TOKENIZER_FILE})")
    with FileSystems.open(file) as f:
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


def special_ids(tok: Tokenizer, cls: str = "[CLS]", sep: str = "[SEP]", pad: str = "[PAD]") -> SpecialIds:
    """Ids of the tokens the packer inserts; a clear error naming the missing ones."""
    ids = {name: tok.token_to_id(name) for name in (cls, sep, pad)}
    missing = [name for name, i in ids.items() if i is None]
    if missing:
        raise ValueError(f"tokenizer has no {', '.join(missing)} token; name them with --cls-token/--sep-token/--pad-token")
    return SpecialIds(cls=ids[cls], sep=ids[sep], pad=ids[pad])


def split_sentences(text: str) -> list[str]:
    """Corpus text is one sentence per line; blank lines carry nothing."""
    return [line for line in (s.strip() for s in text.split("\n")) if line]


def tokenize_documents(
    tok: Tokenizer, docs: Sequence[tuple[str, str]], dtype: np.dtype | str = np.uint32
) -> list[TokenizedDoc]:
    """Encode the sentences of many documents in one batched call; ids as `dtype` (see `ids_dtype`)."""
    sentences: list[str] = []
    counts: list[int] = []
    for _, text in docs:
        doc_sentences = split_sentences(text)
        sentences.extend(doc_sentences)
        counts.append(len(doc_sentences))
    encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
    encodings = encode(sentences, add_special_tokens=False) if sentences else []
    id_lists = [e.ids for e in encodings]
    lengths = np.fromiter(map(len, id_lists), dtype=np.uint32, count=len(id_lists))
    flat = np.fromiter(itertools.chain.from_iterable(id_lists), dtype=dtype, count=int(lengths.sum(dtype=np.int64)))
    out: list[TokenizedDoc] = []
    sent_pos = 0
    tok_pos = 0
    for (doc_id, _), n in zip(docs, counts):
        doc_lengths = lengths[sent_pos : sent_pos + n]
        n_tokens = int(doc_lengths.sum(dtype=np.int64))
        out.append(TokenizedDoc(doc_id, flat[tok_pos : tok_pos + n_tokens], doc_lengths))
        sent_pos += n
        tok_pos += n_tokens
    return out


def source_path(path: str) -> str:
    """A local path made absolute (for the manifest); a URL unchanged."""
    return path if "://" in path else str(Path(path).resolve())
