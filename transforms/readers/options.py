"""`ReadOptions`: the per-source reader options, coerced from YAML values or the CLI's `key=value` strings."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Any

COMMENT_LAYOUTS = ("auto", "lines", "tsv", "csv", "jsonl")


@dataclasses.dataclass(frozen=True, init=False)
class ReadOptions:
    """Per-source reader options; unknown keys raise ValueError naming the valid ones.

    Attributes:
        encoding: text encoding of the files (`utf-8` handles a BOM; `cp949` for Windows Korean files).
        text_field: field/column holding the text (jsonl, comments tsv/csv/jsonl, parquet, hf-datasets).
        id_field: field/column holding the record's own id, used when present.
        title_field: if set, that field's value becomes the first line of the text.
        thread_field: comments: the thread/article id column; a comment and its replies form one document.
        layout: comments: `auto` (by extension), `lines`, `tsv`, `csv` or `jsonl`.
        tags: modu: `remove` or `keep` messenger tags such as `{emoji}`, `{system: …}`.
        deid: modu: `remove` or `keep` de-identification tags such as `&name&`, `&tel-num&`.
        join_turns: modu: join consecutive utterances of one speaker into one line.
        headline: modu: keep the newspaper headline (first paragraph) as the first line.
        title: wikiextractor/wiki-dump: the article title as the first line.
        keep_stubs: wikiextractor/wiki-dump: keep the calendar and list-less disambiguation pages that
            `transforms/rules/wiki_stubs.py` drops as `calendar_stub` / `empty_disambiguation` otherwise.
        namespaces: wiki-dump: namespaces kept (others are Dropped with reason `namespace`).
        unquote: nsmc: undo the publisher's double CSV quoting of documents that contain `"`.
        split: hf-datasets: read only this split of a DatasetDict (default: all, in name order).
        max_whole_file_bytes: the largest input read whole into memory (a Modu JSON file or zip member, after
            decompression); a larger one is a `too_large` DeadLetter and is never read past this size.
    """

    encoding: str = "utf-8"
    text_field: str = "text"
    id_field: str = "id"
    title_field: str = ""
    thread_field: str = ""
    layout: str = "auto"
    tags: str = "remove"
    deid: str = "remove"
    join_turns: bool = False
    headline: bool = True
    title: bool = True
    keep_stubs: bool = False
    namespaces: tuple[int, ...] = (0,)
    unquote: bool = True
    split: str = ""
    max_whole_file_bytes: int = 1_000_000_000

    def __init__(self, **options: Any) -> None:
        fields = {f.name: f for f in dataclasses.fields(self)}
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise ValueError(f"unknown read option(s) {', '.join(unknown)}; valid: {', '.join(fields)}")
        hints = typing.get_type_hints(type(self))
        for name, field in fields.items():
            value = _coerce(name, options[name], hints[name]) if name in options else field.default
            object.__setattr__(self, name, value)
        self._validate()

    def _validate(self) -> None:
        import codecs

        try:
            codecs.lookup(self.encoding)
        except LookupError as err:
            raise ValueError(f"unknown encoding {self.encoding!r}") from err
        if self.max_whole_file_bytes < 1:
            raise ValueError(f"max_whole_file_bytes must be >= 1, got {self.max_whole_file_bytes}")
        for name, valid in (("layout", COMMENT_LAYOUTS), ("tags", ("remove", "keep")), ("deid", ("remove", "keep"))):
            if getattr(self, name) not in valid:
                raise ValueError(f"{name} must be one of {', '.join(valid)}, got {getattr(self, name)!r}")

    @classmethod
    def from_strings(cls, pairs: Iterable[str], **extra: Any) -> ReadOptions:
        """Options from `key=value` strings (the CLI's `--option`), plus keyword options."""
        options: dict[str, Any] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(f"option {pair!r} is not key=value")
            options[key.strip()] = value.strip()
        return cls(**options, **extra)


def _coerce(name: str, value: Any, hint: Any) -> Any:
    if hint == tuple[int, ...] and isinstance(value, int):
        return (value,)
    if not isinstance(value, str) or hint is str:
        return tuple(value) if hint == tuple[int, ...] and isinstance(value, (list, tuple)) else value
    if hint is bool:
        lowered = value.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"option {name} expects true/false, got {value!r}")
    if hint is int:
        try:
            return int(value.replace("_", ""))
        except ValueError as err:
            raise ValueError(f"option {name} expects an integer, got {value!r}") from err
    if hint == tuple[int, ...]:
        try:
            return tuple(int(part) for part in value.split(",") if part.strip())
        except ValueError as err:
            raise ValueError(f"option {name} expects comma-separated integers, got {value!r}") from err
    return value


def as_options(options: ReadOptions | Mapping[str, Any] | None) -> ReadOptions:
    """`options` as `ReadOptions` (None: the defaults)."""
    if options is None:
        return ReadOptions()
    return options if isinstance(options, ReadOptions) else ReadOptions(**options)
