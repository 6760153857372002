"""The record types that flow through every stage.

`Document` is the one record type of the corpus. `DeadLetter` is a record that could not be read or processed
(with where it came from and why); `Dropped` is a record removed on purpose by a rule (with the rule's reason).
Every input record ends as exactly one of the three, which is what makes the counts reconcile.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

RAW_PREFIX_BYTES = 200
# Characters of a dropped record's text kept in rejected/ files: a long petition whole, not a 200 MB line.
DROPPED_TEXT_MAX_CHARS = 10_000
# `json.dumps(..., ensure_ascii=False)` without building an encoder per call; `_json_string` is the string
# encoder that one uses, so `Document.to_json` can write its three string fields itself.
_encode = json.JSONEncoder(ensure_ascii=False).encode
_json_string = json.encoder.encode_basestring


@dataclasses.dataclass(frozen=True)
class Document:
    """One document: a comment thread, an article, a petition, a Modu `document[]` entry."""

    id: str
    text: str
    source: str
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> str:
        """`{"id": ..., "text": ..., "source": ..., "metadata": {...}}`, as `json.dumps(ensure_ascii=False)`."""
        if type(self.id) is str and type(self.text) is str and type(self.source) is str:
            metadata = _flat_json_object(self.metadata) or _encode(dict(self.metadata))
            return (
                f'{{"id": {_json_string(self.id)}, "text": {_json_string(self.text)}, '
                f'"source": {_json_string(self.source)}, "metadata": {metadata}}}'
            )
        return _encode({"id": self.id, "text": self.text, "source": self.source, "metadata": dict(self.metadata)})

    @classmethod
    def from_json(cls, line: str) -> Document:
        obj = json.loads(line)
        return cls(id=obj["id"], text=obj["text"], source=obj["source"], metadata=obj.get("metadata") or {})


@dataclasses.dataclass(frozen=True)
class DeadLetter:
    """A record that could not be read or processed, with its location and the reason."""

    path: str
    reason: str
    line: int | None = None
    offset: int | None = None
    raw: str = ""
    stage: str = "read"

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), ensure_ascii=False)


@dataclasses.dataclass(frozen=True)
class Dropped:
    """A record removed on purpose by a named rule (a filter, dedup, a skipped redirect)."""

    id: str
    source: str
    stage: str
    reason: str
    text: str = ""
    # Evidence a rule gives for its drop (`contaminated_by: {id, match}`), written at the top level.
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> str:
        """The record as a JSON line; a text longer than `DROPPED_TEXT_MAX_CHARS` (a 200 MB line dropped as
        `too_long`) is cut to that many characters, with its length and sha256 (`text_chars`, `text_sha256`)."""
        obj = {"id": self.id, "source": self.source, "stage": self.stage, "reason": self.reason, "text": self.text}
        if len(self.text) > DROPPED_TEXT_MAX_CHARS:
            whole = self.text.encode("utf-8", errors="surrogateescape")
            obj["text"] = self.text[:DROPPED_TEXT_MAX_CHARS]
            obj["text_chars"] = len(self.text)
            obj["text_sha256"] = hashlib.sha256(whole).hexdigest()
        return _encode({**obj, **self.details})


_new_object = object.__new__


def new_document(id: str, text: str, source: str, metadata: Mapping[str, Any]) -> Document:
    """`Document(id, text, source, metadata)`, the same frozen record, built without the dataclass's
    `__init__` (one `object.__setattr__` per field): line readers and preparation make one per line."""
    doc = _new_object(Document)
    fields = doc.__dict__
    fields["id"], fields["text"], fields["source"], fields["metadata"] = id, text, source, metadata
    return doc


def _flat_json_object(obj: Mapping[str, Any]) -> str | None:
    """`obj` as `json.dumps` writes it when its keys are strings and its values strings or plain ints (most
    readers' metadata: `{"label": 1}`); None for anything else."""
    parts = []
    for key, value in obj.items():
        if type(key) is not str:
            return None
        if type(value) is str:
            parts.append(f"{_json_string(key)}: {_json_string(value)}")
        elif type(value) is int:
            parts.append(f"{_json_string(key)}: {int.__repr__(value)}")
        else:
            return None
    return "{" + ", ".join(parts) + "}"


def raw_prefix(raw: bytes | str) -> str:
    """The first 200 bytes of a raw record, made printable for a dead-letter file."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogateescape")
    return raw[:RAW_PREFIX_BYTES].decode("utf-8", errors="backslashreplace")
