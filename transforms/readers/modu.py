"""Modu corpus (모두의 말뭉치, NIKL) JSON: one file object -> one record per `document[]` entry.

A folder (walked for .json[.gz|.bz2|.zst|.xz] and .zip files) or a .zip archive is one input.
Two families share the file shape `{"id", "metadata", "document": [...]}`: `paragraph` documents (newspaper
NIRW, written WARW, web EPRW) and `utterance` documents (spoken SARW, messenger MDRW).
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from typing import IO, Any

from kcorpus.transforms.files import STREAM_ERRORS, is_local_dir, is_remote, open_binary, open_raw, walk
from kcorpus.transforms.readers.base import Reader
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import Record, json_error_reason, too_deep_reason
from kcorpus.transforms.record import DeadLetter, Document, Dropped, raw_prefix

MODU_SUFFIXES = (".json", ".json.gz", ".json.bz2", ".json.zst", ".json.xz", ".zip")

# The corpus-kind letter is the first letter of the file id: NIRW1900000001 -> newspaper.
KINDS = {"N": "newspaper", "W": "written", "S": "spoken", "M": "messenger", "E": "web"}

_P_TAG = re.compile(r"</?p\s*>", re.IGNORECASE)
# Messenger markup such as {emoji}, {laughing}, {system: 사진을 보냈습니다}, {share:photo}.
_BRACE_TAG = re.compile(r"\{[^{}\n]*\}")
# De-identification placeholders such as &name&, &name2&, &tel-num&, &social-security-num&.
_DEID_TAG = re.compile(r"&[A-Za-z][A-Za-z0-9-]*&")
_SPACES = re.compile(r"[ \t]+")


def clean_form(form: str, *, remove_tags: bool, remove_deid: bool) -> str:
    """Strip stray `<p>` tags and, by option, messenger and de-identification tags from one `form`."""
    text = _P_TAG.sub("", form)
    if remove_tags:
        text = _BRACE_TAG.sub(" ", text)
    if remove_deid:
        text = _DEID_TAG.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def _scalar_metadata(meta: Any) -> dict[str, Any]:
    if not isinstance(meta, Mapping):
        return {}
    return {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))}


def _units(doc: Mapping[str, Any]) -> tuple[str, list[Any]] | None:
    for family in ("paragraph", "utterance"):
        if isinstance(doc.get(family), list):
            return family, doc[family]
    return None


def _join_turns(turns: list[tuple[Any, str]]) -> list[str]:
    lines: list[str] = []
    last_speaker: Any = object()
    for speaker, form in turns:
        if lines and speaker == last_speaker:
            lines[-1] = f"{lines[-1]} {form}"
        else:
            lines.append(form)
        last_speaker = speaker
    return lines


def modu_records(
    obj: Any,
    path: str,
    source: str,
    *,
    remove_tags: bool = True,
    remove_deid: bool = True,
    join_turns: bool = False,
    headline: bool = True,
) -> Iterator[Document | DeadLetter | Dropped]:
    """Records of one parsed Modu file: a Document per `document[]` entry, or a DeadLetter saying why not."""
    if not isinstance(obj, Mapping):
        yield DeadLetter(path, f"not_an_object: top level is {type(obj).__name__}", raw=raw_prefix(str(obj)))
        return
    documents = obj.get("document")
    if not isinstance(documents, list):
        yield DeadLetter(path, "missing_field: document", raw=raw_prefix(json.dumps(obj, ensure_ascii=False)))
        return
    file_id = str(obj.get("id", ""))
    kind = KINDS.get(file_id[:1], "unknown")
    for index, doc in enumerate(documents):
        where = f"document[{index}]"
        raw = raw_prefix(json.dumps(doc, ensure_ascii=False))
        if not isinstance(doc, Mapping):
            yield DeadLetter(path, f"not_an_object: {where} is {type(doc).__name__}", raw=raw)
            continue
        if "id" not in doc:
            yield DeadLetter(path, f"missing_field: {where}.id", raw=raw)
            continue
        units = _units(doc)
        if units is None:
            yield DeadLetter(path, f"missing_field: {where}.paragraph or {where}.utterance", raw=raw)
            continue
        family, items = units
        bad = next((i for i, u in enumerate(items) if not isinstance(u, Mapping) or
                    not isinstance(u.get("form"), str)), None)
        if bad is not None:
            yield DeadLetter(path, f"missing_field: {where}.{family}[{bad}].form", raw=raw)
            continue
        if family == "paragraph" and kind == "newspaper" and not headline:
            items = items[1:]
        turns = [(u.get("speaker_id"), clean_form(u["form"], remove_tags=remove_tags, remove_deid=remove_deid))
                 for u in items]
        turns = [(speaker, form) for speaker, form in turns if form]
        lines = _join_turns(turns) if family == "utterance" and join_turns else [form for _, form in turns]
        doc_id = f"{source}:{doc['id']}"
        if not lines:
            yield Dropped(doc_id, source, "read", "empty")
            continue
        metadata = {"file_id": file_id, "kind": kind, "family": family, **_scalar_metadata(doc.get("metadata"))}
        yield Document(doc_id, "\n".join(lines), source, metadata)


def _decode_json_file(data: bytes, path: str, options: ReadOptions) -> Any:
    def dead(reason: str) -> DeadLetter:
        return DeadLetter(path, reason, None, 0, raw_prefix(data))

    if b"\x00" in data:
        return dead("nul_byte: NUL byte in file")
    try:
        text = data.decode("utf-8-sig" if options.encoding.lower() in ("utf-8", "utf8") else options.encoding)
    except UnicodeDecodeError as err:
        return dead(f"invalid_encoding: {err}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        return dead(json_error_reason(err, text))
    except RecursionError:
        return dead(too_deep_reason())


def _modu_from_bytes(data: bytes, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    obj = _decode_json_file(data, path, options)
    if isinstance(obj, DeadLetter):
        yield obj
        return
    yield from modu_records(obj, path, source, remove_tags=options.tags == "remove",
                            remove_deid=options.deid == "remove", join_turns=options.join_turns,
                            headline=options.headline)


def _too_large(path: str, size: int | None, limit: int) -> DeadLetter:
    known = f"{size} bytes" if size is not None else "more bytes"
    return DeadLetter(path, f"too_large: {known} uncompressed, over max_whole_file_bytes={limit}")


def read_at_most(stream: IO[bytes], limit: int) -> bytes | None:
    """The whole stream if it holds at most `limit` bytes, else None (having read only `limit + 1`)."""
    data = stream.read(limit + 1)
    return None if len(data) > limit else data


def _read_modu_zip(path: str, options: ReadOptions, source: str) -> Iterator[Record]:
    try:
        archive = zipfile.ZipFile(open_raw(path) if is_remote(path) else path)
    except (zipfile.BadZipFile, *STREAM_ERRORS) as err:
        yield DeadLetter(path, f"unreadable_file: {err}")
        return
    with archive:
        for member in sorted(archive.namelist()):
            if member.endswith("/") or not member.lower().endswith(".json"):
                continue
            member_path = f"{path}!{member}"
            limit = options.max_whole_file_bytes
            # The header's size first, so a large member is never decompressed; the bounded read catches a
            # header that understates it.
            if archive.getinfo(member).file_size > limit:
                yield _too_large(member_path, archive.getinfo(member).file_size, limit)
                continue
            try:
                with archive.open(member) as stream:
                    data = read_at_most(stream, limit)
            except (zipfile.BadZipFile, *STREAM_ERRORS, NotImplementedError) as err:
                yield DeadLetter(member_path, f"corrupt_member: {err}")
                continue
            if data is None:
                yield _too_large(member_path, None, limit)
                continue
            yield from _modu_from_bytes(data, member_path, options, source)


class ModuReader(Reader):
    """`modu`: a Modu JSON file (.json[.gz|.bz2|.zst|.xz]), a .zip of them, or a folder of both."""

    name = "modu"
    fold_digits = True
    folder_is_input = True

    def boilerplate_for(self, metadata: Mapping[str, Any]) -> tuple[str, ...]:
        """News rules for the newspaper corpus (NIRW...) only: written, spoken and web text have none."""
        return ("news",) if metadata.get("kind") == "newspaper" else ()

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
        if is_local_dir(path):
            for file_path in walk(path, MODU_SUFFIXES):
                yield from self.read(file_path, options, source)
            return
        if path.endswith(".zip"):
            yield from _read_modu_zip(path, options, source)
            return
        try:
            with open_binary(path) as stream:
                data = read_at_most(stream, options.max_whole_file_bytes)
        except STREAM_ERRORS as err:
            yield DeadLetter(path, f"unreadable_file: {err}")
            return
        if data is None:
            yield _too_large(path, None, options.max_whole_file_bytes)
            return
        yield from _modu_from_bytes(data, path, options, source)
