"""A Modu input larger than `max_whole_file_bytes` is a `too_large` dead letter, never read whole."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zipfile

from kcorpus.transforms.readers import read_file, reason_code
from kcorpus.transforms.record import DeadLetter, Document

MEMBER_BYTES = 8_000_000
LIMIT = 100_000


def _modu(doc_id: str, form: str) -> bytes:
    return json.dumps({"id": "NIRW1900000001", "document": [{"id": doc_id, "paragraph": [{"form": form}]}]},
                      ensure_ascii=False).encode("utf-8")


def _large_modu() -> bytes:
    """A valid Modu file of MEMBER_BYTES (one long paragraph), which compresses to a few kilobytes."""
    head = _modu("NIRW1900000001.1", "")
    padding = MEMBER_BYTES - len(head)
    return head.replace(b'"form": ""', b'"form": "' + "가".encode() * (padding // 3) + b'"')


def _peak_while(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_zip_member_over_the_cap_is_dead_lettered_from_its_header(tmp_path):
    archive = tmp_path / "NIRW.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a_small.json", _modu("NIRW1900000001.1", "서울 시내 버스 노선이 바뀐다."))
        zf.writestr("b_large.json", _large_modu())
    assert archive.stat().st_size < 100_000
    records, peak = _peak_while(lambda: list(read_file("modu", str(archive), {"max_whole_file_bytes": LIMIT})))
    assert [r.text for r in records if isinstance(r, Document)] == ["서울 시내 버스 노선이 바뀐다."]
    (dead,) = [r for r in records if isinstance(r, DeadLetter)]
    assert dead.path == f"{archive}!b_large.json"
    assert reason_code(dead.reason) == "too_large"
    assert dead.reason == f"too_large: {len(_large_modu())} bytes uncompressed, over max_whole_file_bytes={LIMIT}"
    assert peak < MEMBER_BYTES / 4


def test_gzip_file_over_the_cap_is_read_only_up_to_the_cap(tmp_path):
    path = tmp_path / "NIRW1900000001.json.gz"
    path.write_bytes(gzip.compress(_large_modu()))
    records, peak = _peak_while(lambda: list(read_file("modu", str(path), {"max_whole_file_bytes": LIMIT})))
    assert [(type(r).__name__, r.reason) for r in records] == [
        ("DeadLetter", f"too_large: more bytes uncompressed, over max_whole_file_bytes={LIMIT}")
    ]
    assert peak < MEMBER_BYTES / 4


def test_default_cap_reads_the_same_file_whole(tmp_path):
    path = tmp_path / "NIRW1900000001.json.gz"
    path.write_bytes(gzip.compress(_large_modu()))
    (doc,) = read_file("modu", str(path))
    assert doc.text == "가" * ((MEMBER_BYTES - len(_modu("NIRW1900000001.1", ""))) // 3)
