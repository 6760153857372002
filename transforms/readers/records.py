"""What every reader shares: the record union, a comment row, JSON objects and table rows as records."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.record import DeadLetter, Document, Dropped, new_document

Record = Document | DeadLetter | Dropped
# Builds the DeadLetter of the record being read from a reason (the location is already bound).
DeadFactory = Callable[[str], DeadLetter]


@dataclasses.dataclass(frozen=True)
class CommentRow:
    """One comment of a thread, before the thread's rows are joined into one Document."""

    thread: str
    path: str
    position: int
    text: str


def reason_code(reason: str) -> str:
    """`invalid_json: Expecting value ...` -> `invalid_json`: the part counters and tests key on."""
    return reason.split(":", 1)[0]


def json_error_reason(err: json.JSONDecodeError, text: str) -> str:
    """`truncated_json: ...` when the text ends inside the value, else `invalid_json: ...`."""
    truncated = err.msg.startswith("Unterminated string") or err.pos >= len(text.rstrip())
    return f"{'truncated_json' if truncated else 'invalid_json'}: {err}"


def too_deep_reason() -> str:
    """The reason for JSON nested deeper than the decoder's recursion limit (a hostile or broken record)."""
    return f"invalid_json: nested deeper than {sys.getrecursionlimit()} levels"


def json_object(text: str, dead: DeadFactory) -> dict | DeadLetter:
    """The JSON object in `text`, or the DeadLetter saying why it is not one."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        return dead(json_error_reason(err, text))
    except RecursionError:
        return dead(too_deep_reason())
    if not isinstance(obj, dict):
        return dead(f"not_an_object: JSON {type(obj).__name__}")
    return obj


def _scalars(obj: Mapping[str, Any], exclude: Iterable[str]) -> dict[str, Any]:
    skip = set(exclude)
    return {k: v for k, v in obj.items() if k not in skip and isinstance(v, (str, int, float, bool))}


def object_record(obj: Mapping[str, Any], fallback_id: str, options: ReadOptions, source: str,
                  dead: DeadFactory) -> Record:
    """A Document from a JSON object / table row, with text from `text_field` and id from `id_field`."""
    if options.text_field not in obj:
        return dead(f"missing_field: {options.text_field}")
    value = obj[options.text_field]
    own_id = obj.get(options.id_field)
    doc_id = f"{source}:{own_id}" if isinstance(own_id, (str, int)) and str(own_id) else fallback_id
    if value is None:
        return Dropped(doc_id, source, "read", "empty")
    if not isinstance(value, str):
        return dead(f"invalid_value: {options.text_field} is {type(value).__name__}, not a string")
    parts = [value.strip()]
    if options.title_field:
        title = obj.get(options.title_field)
        if isinstance(title, str) and title.strip():
            parts.insert(0, title.strip())
    text = "\n".join(p for p in parts if p)
    if not text:
        return Dropped(doc_id, source, "read", "empty")
    exclude = (options.text_field, options.id_field, options.title_field)
    metadata = _scalars(obj, exclude)
    if options.title_field and isinstance(obj.get(options.title_field), str):
        metadata["title"] = obj[options.title_field]
    return new_document(doc_id, text, source, metadata)
