"""Does a tokenizer belong to a pack? Its `tokenizer.json` digest and vocabulary size against the manifest."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any


def _backend(tokenizer: Any) -> Any:
    """A `tokenizers.Tokenizer` from a folder, a `tokenizer.json` path, a transformers fast tokenizer or itself."""
    if isinstance(tokenizer, (str, Path)):
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(_tokenizer_file(tokenizer)))
    return getattr(tokenizer, "backend_tokenizer", tokenizer)


def _tokenizer_file(path: str | Path) -> Path:
    path = Path(path)
    file = path / "tokenizer.json" if path.is_dir() else path
    if not file.is_file():
        raise ValueError(f"no tokenizer at {file} (expected a folder with tokenizer.json, or the file)")
    return file


def load_vocab(tokenizer: Any) -> list[str]:
    """Token strings by id (added tokens included)."""
    backend = _backend(tokenizer)
    vocab = backend.get_vocab(with_added_tokens=True)
    tokens = [""] * (max(vocab.values(), default=-1) + 1)
    for token, index in vocab.items():
        tokens[index] = token
    return tokens


def check_tokenizer(manifest: dict[str, Any], tokenizer: Any, where: str) -> None:
    """ValueError when `tokenizer` is not the one the pack at `where` was written with."""
    expected = manifest.get("tokenizer", {})
    if not expected:
        raise ValueError(f"{where} has no manifest.json with its tokenizer: cannot check the tokenizer given")
    if isinstance(tokenizer, (str, Path)):
        digest = hashlib.sha256(_tokenizer_file(tokenizer).read_bytes()).hexdigest()
        if expected.get("sha256") and digest != expected["sha256"]:
            raise ValueError(
                f"tokenizer {tokenizer} does not belong to the pack {where}: its tokenizer.json sha256 is "
                f"{digest[:12]}..., the pack was written with {expected['sha256'][:12]}... ({expected.get('path')})"
            )
    backend = _backend(tokenizer)
    size = backend.get_vocab_size(with_added_tokens=True)
    if expected.get("vocab_size") is not None and size != expected["vocab_size"]:
        raise ValueError(f"tokenizer has {size} tokens, the pack {where} was written with a vocabulary of "
                         f"{expected['vocab_size']} ({expected.get('path')})")
    for name, token in expected.get("special_tokens", {}).items():
        want = expected.get("special_ids", {}).get(name)
        if want is not None and backend.token_to_id(token) != want:
            raise ValueError(f"tokenizer maps {token} to {backend.token_to_id(token)}, the pack {where} to {want}")
