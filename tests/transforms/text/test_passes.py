"""The compiled whitespace passes give exactly what their Python twins give: on every code point, on every line
and document of the bundled samples, and on random texts of every kind of space, line break and width."""

from __future__ import annotations

import json
import random
import shutil
import sysconfig

import pytest

from kcorpus.transforms.text import passes
from kcorpus.transforms.text.clean import EMOJI_1_2_0_RANGES, HANJA_RANGES, KCELECTRA_RANGES
from kcorpus.transforms.text.passes import (
    pack_ranges,
    python_collapse_spaces,
    python_collapse_whitespace,
    python_has_run_of_4,
    python_replace_outside,
)
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
PAIRS = [
    ("collapse_whitespace", python_collapse_whitespace),
    ("collapse_spaces", python_collapse_spaces),
    ("has_run_of_4", python_has_run_of_4),
]

compiled = pytest.mark.skipif(not passes.COMPILED, reason="kcorpus was installed without its C extension")


def _sample_texts() -> list[str]:
    def lines(name: str) -> list[str]:
        return (SAMPLE / name).read_text(encoding="utf-8").splitlines()

    nsmc = [line.split("\t")[1] for line in lines("nsmc_ratings_test_head.txt")[1:] if line.count("\t") == 2]
    petitions = [json.loads(line)["content"] for line in lines("petitions_2017-08_head") if line.startswith("{")]
    wiki = lines("wiki_00_head")
    return nsmc + petitions + wiki + ["\n".join(wiki)]


# Spaces of every kind (horizontal, zero-width, line breaks, separators, the ones only `str.split` knows),
# letters of every width, runs, and characters that look like spaces but are none.
ALPHABET = (
    "  \t\n\r\x0b\x0c\x1c\x1f\x85\u00a0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
    "가나aa!ㅋ\u0301\U00020000\ud800_"
)


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        chars = [rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))]
        texts.append("".join(c * rng.choice([1, 1, 1, 2, 4, 5]) for c in chars))
    return texts


TEXTS = _sample_texts() + _random_texts(20000, 1) + ["", " ", "\n", "\n\n", "a", "aaaa", "aaa", "a\n", "\na "]


@compiled
@pytest.mark.parametrize(("name", "twin"), PAIRS, ids=[name for name, _ in PAIRS])
def test_compiled_passes_equal_their_twins(name, twin):
    compiled_pass = getattr(passes, name)
    for text in TEXTS:
        assert compiled_pass(text) == twin(text), repr(text[:200])


@pytest.mark.slow
@compiled
@pytest.mark.parametrize(("name", "twin"), PAIRS, ids=[name for name, _ in PAIRS])
def test_every_code_point_is_a_space_or_not_alike(name, twin):
    compiled_pass = getattr(passes, name)
    for cp in range(0x110000):
        c = chr(cp)
        for text in (f" a{c}b {c}\n{c}", f"{c}{c}{c}{c}", f"a {c}{c}b\n{c} c"):
            assert compiled_pass(text) == twin(text), (hex(cp), text)


@compiled
def test_a_text_with_nothing_to_change_comes_back_as_it_is():
    for text in ["", "a", "좋은 영화\n정말 좋다", "a b c"]:
        assert passes.collapse_whitespace(text) is text or "\n" in text
        assert passes.collapse_spaces(text) is text


@compiled
def test_the_results_are_plain_strs_of_the_narrowest_width():
    # An ideographic space is the only wide character: the result is ASCII, equal and hashed as such.
    for text in ["a\u3000b", "\U00020000 a", "a \U00020000"]:
        for name, twin in PAIRS[:2]:
            result = getattr(passes, name)(text)
            assert result == twin(text) and hash(result) == hash(twin(text)) and type(result) is str


@compiled
@pytest.mark.parametrize("name", [name for name, _ in PAIRS])
def test_compiled_passes_take_only_str(name):
    with pytest.raises(TypeError, match="takes a str"):
        getattr(passes, name)(b"bytes")


def _random_ranges(seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    points = sorted(rng.sample(range(0x110000), 40) + [0, 0x10FFFF, 0x20, 0xAC00, 0xD7A3])
    return [(a, b) for a, b in zip(points[::2], points[1::2], strict=False)]


RANGES = {
    "kcelectra": KCELECTRA_RANGES,
    "emoji": KCELECTRA_RANGES + EMOJI_1_2_0_RANGES,  # hundreds of ranges, overlapping the ASCII ones
    "hanja": KCELECTRA_RANGES + HANJA_RANGES,
    "random": tuple(_random_ranges(5)),
    "single points": ((0x20, 0x20), (0xAC00, 0xAC00), (0x10FFFF, 0x10FFFF)),
    "none": (),
    "everything": ((0, 0x10FFFF),),
}


@pytest.mark.slow
@compiled
@pytest.mark.parametrize("ranges", RANGES.values(), ids=RANGES.keys())
def test_replace_outside_equals_its_twin(ranges):
    packed = pack_ranges(ranges)
    for text in TEXTS:
        assert passes.replace_outside(text, packed) == python_replace_outside(text, packed), repr(text[:200])
    everything = "".join(map(chr, range(0x110000)))
    for start in range(0, 0x110000, 0x1000):  # every code point, between kept and removed neighbours
        text = "a" + everything[start : start + 0x1000] + "\U0010ffff가"
        assert passes.replace_outside(text, packed) == python_replace_outside(text, packed), hex(start)


def test_pack_ranges_sorts_and_merges():
    assert pack_ranges([(5, 9), (0, 3), (4, 4), (8, 12)]) == pack_ranges([(0, 12)])
    assert python_replace_outside("a-b  가★c", pack_ranges([(0x61, 0x63), (0xAC00, 0xAC00)])) == "a b 가 c"
    assert python_replace_outside("abc", pack_ranges([])) == " "


@compiled
def test_replace_outside_refuses_ranges_that_are_no_pairs():
    with pytest.raises(ValueError, match="pairs"):
        passes.replace_outside("text", b"\x00" * 12)
    with pytest.raises(TypeError):
        passes.replace_outside("text", "not bytes")


def test_the_twins_do_what_they_say():
    assert python_collapse_whitespace("  a \t\n b\u3000c ") == "a b c"
    assert python_collapse_spaces(" a \u200b b \n\x1c c\u3000\u3000d \n") == "a b\nc d\n"
    assert python_has_run_of_4("ㅋㅋㅋㅋ") and python_has_run_of_4("\n\n\n\n") and not python_has_run_of_4("ㅋㅋㅋ ㅋ")


def test_a_machine_with_a_c_compiler_gets_the_compiled_passes():
    """The build makes the extension optional (no compiler: the Python passes); with one, it must be built."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine")
    assert passes.COMPILED
