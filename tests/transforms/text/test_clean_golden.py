"""clean() against the published KcELECTRA/KcBERT functions on every NSMC and petitions text.

The goldens were made by bench/generators/make_goldens.py, running the published code (loaded from REFERENCE.md) in
separate venvs: kcelectra under emoji 2.x, kcbert under emoji 1.2.0.
"""

from __future__ import annotations

import gzip
import json
import sys
import unicodedata
from functools import cache

import pytest

from kcorpus import clean
from kcorpus.transforms.text.clean import make_cleaner, repeat_normalize
from testdata_paths import TESTDATA

GOLDEN = TESTDATA / "golden"


def _read_jsonl_gz(name: str) -> list:
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8", newline="\n") as f:
        return [json.loads(line) for line in f]


@cache
def manifest() -> dict:
    return json.loads((GOLDEN / "manifest.json").read_text(encoding="utf-8"))


@cache
def inputs() -> list[str]:
    return _read_jsonl_gz("inputs.jsonl.gz")


@cache
def expected(preset: str) -> list[str]:
    """The reference output of every input (the files store null for 'same as the input/kcelectra')."""
    kcelectra = [t if o is None else o for o, t in zip(_read_jsonl_gz("kcelectra.jsonl.gz"), inputs())]
    if preset == "kcelectra":
        return kcelectra
    return [e if o is None else o for o, e in zip(_read_jsonl_gz("kcbert.jsonl.gz"), kcelectra)]


def where(index: int) -> str:
    """The source file and line (and field) of text `index`, as the manifest lays them out."""
    for source in manifest()["sources"]:
        if index < source["texts"]:
            fields = source["fields"]
            line = source["first_line"] + index // len(fields)
            return f"{source['file']}:{line}" + (f":{fields[index % len(fields)]}" if len(fields) > 1 else "")
        index -= source["texts"]
    raise IndexError(index)


def mismatches(got: list[str], want: list[str], limit: int = 5) -> str:
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    shown = "\n".join(
        f"  text {i} ({where(i)}):\n    input    {inputs()[i][:200]!r}\n    expected {want[i][:200]!r}\n"
        f"    got      {got[i][:200]!r}"
        for i in bad[:limit]
    )
    return f"{len(bad)} of {len(want)} texts differ; first at text indices {bad[:limit]}:\n{shown}"


def test_golden_files_are_complete():
    texts = inputs()
    assert len(texts) == manifest()["texts"] == sum(s["texts"] for s in manifest()["sources"]) == 51324
    assert len(expected("kcelectra")) == len(expected("kcbert")) == len(texts)
    assert where(0) == "nsmc/ratings_test.txt:2"
    assert where(50000) == "petitions/petitions_2017-08:1:title"
    assert where(51323) == "petitions/petitions_2017-08:662:content"
    # The goldens exercise what matters: emoji, URLs, repeats, Hanja and some non-NFC input.
    assert int(manifest()["kcelectra"]["emoji"].split(".")[0]) >= 2
    assert manifest()["kcbert"]["emoji"] == "1.2.0"
    assert manifest()["kcelectra"]["emoji_surviving_whitelist"] == []
    assert manifest()["kcbert_differs_from_kcelectra"] == 270
    assert sum(not unicodedata.is_normalized("NFC", t) for t in texts) == 4
    assert sum("http" in t for t in texts) > 10


@pytest.mark.parametrize("preset", ["kcelectra", "kcbert"])
def test_clean_matches_the_reference_on_every_golden_text(preset):
    want = expected(preset)
    got = [clean(t, preset=preset) for t in inputs()]
    assert got == want, mismatches(got, want)


@pytest.mark.parametrize("preset", ["kcelectra", "kcbert"])
def test_make_cleaner_matches_the_reference_without_nfc(preset):
    # Without NFC as well: the reference never normalizes, and the 4 non-NFC texts only differ in Hanja.
    cleaner = make_cleaner(preset, nfc=False)
    want = expected(preset)
    got = [cleaner(t) for t in inputs()]
    assert got == want, mismatches(got, want)


def test_nfd_input_cleans_like_nfc_input():
    cleaner = make_cleaner("kcelectra")
    texts = inputs()[::7]
    nfd = [unicodedata.normalize("NFD", t) for t in texts]
    assert sum(a != b for a, b in zip(nfd, texts)) > 5000
    assert [cleaner(t) for t in nfd] == [cleaner(t) for t in texts]
    # What NFC is for: without it the Hangul whitelist wipes decomposed syllables.
    assert clean(unicodedata.normalize("NFD", "재밌어요"), nfc=False) == ""


def test_repeat_normalize_matches_soynlp_on_every_golden_text():
    soynlp = pytest.importorskip("soynlp.normalizer")
    want = [soynlp.repeat_normalize(t, num_repeats=2) for t in inputs()]
    got = [repeat_normalize(t, 2) for t in inputs()]
    assert got == want, mismatches(got, want)


@pytest.mark.parametrize("preset", ["kcelectra", "kcbert"])
def test_every_code_point_is_kept_or_removed_like_the_reference(preset):
    golden = json.loads((GOLDEN / "code_points.json").read_text(encoding="utf-8"))[preset]
    assert golden["other"] == {}  # the reference gives "x{c}x" or "x x", nothing else
    want = {cp for start, end in golden["kept"] for cp in range(start, end + 1)}
    cleaner = make_cleaner(preset, nfc=False)  # the reference does not normalize
    # All code points in one call, each between \x01 separators (kept, not a word character, not a space),
    # so each piece is the character itself or the space it was replaced by.
    code_points = [cp for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF and cp != 1]
    pieces = cleaner("\x01" + "\x01".join(map(chr, code_points)) + "\x01").split("\x01")[1:-1]
    assert len(pieces) == len(code_points)
    assert {p for cp, p in zip(code_points, pieces) if p != chr(cp)} == {" "}
    got = {cp for cp, piece in zip(code_points, pieces) if piece == chr(cp)} | ({1} & want)
    assert got == want, f"kept only by clean(): {sorted(got - want)[:20]}, only by the reference: " + str(
        sorted(want - got)[:20]
    )
    # One call per text, as the goldens were made, on a sample (and the separator itself).
    for cp in [1, *code_points[::211]]:
        text = f"x{chr(cp)}x"
        assert (cleaner(text) == text) == (cp in want), hex(cp)
