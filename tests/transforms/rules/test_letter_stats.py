"""`letter_stats`, compiled, counts exactly what `python_letter_stats` counts, and the sentence rules built on it
decide exactly as the rules did with tokens and regexes: on every code point, on every line of the bundled
samples and on strings made to break a hash table (many tokens, equal tokens far apart, long texts)."""

from __future__ import annotations

import functools
import json
import random
import re
import shutil
import sysconfig

import pytest

from kcorpus.transforms.korean import HANGUL_LETTER_CLASS
from kcorpus.transforms.rules import filters, letter_stats
from kcorpus.transforms.rules.filters import (
    FilterConfig,
    check_sentence,
    ends_in_korean_predicate,
    holds_placeholder,
    is_ooo_only,
)
from kcorpus.transforms.rules.letter_stats import python_letter_stats
from kcorpus.transforms.rules.repetition import letter_tokens, repeated_token_share, repeated_unit_share
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
_HANGUL_RUNS = re.compile(rf"[{HANGUL_LETTER_CLASS}]+")

compiled = pytest.mark.skipif(
    not letter_stats.COMPILED, reason="kcorpus was installed without its C extension"
)


def _sample_texts() -> list[str]:
    def lines(name: str) -> list[str]:
        return (SAMPLE / name).read_text(encoding="utf-8").splitlines()

    nsmc = [line.split("\t")[1] for line in lines("nsmc_ratings_test_head.txt")[1:] if line.count("\t") == 2]
    petitions = [
        json.loads(line)["content"] for line in lines("petitions_2017-08_head") if line.startswith("{")
    ]
    sentences = [s for text in petitions for s in text.split(".")]
    return nsmc + petitions + sentences + lines("wiki_00_head")


def _random_texts(count: int, seed: int, max_length: int = 60) -> list[str]:
    """Letters of several widths (ASCII, Hangul, jamo, a 4-byte Hanja), digits of other scripts, `_`, marks."""
    rng = random.Random(seed)
    alphabet = "좋아요ㅋㆎ최고ab1Z9 _!.\t\u00a0\u3000\n²Ⅻ٣\u0301\U00020000\ud800"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, max_length))) for _ in range(count)]


def _unit_runs(count: int, seed: int) -> list[str]:
    """Runs of short units with noise between them: what the spam rule drops, and near misses."""
    rng = random.Random(seed)
    letters = "가나다라마바사아자차카타파하ㅋㅎabc123"
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 6)):
            unit = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
            parts.append((unit + rng.choice(["", " ", "! "])) * rng.randint(1, 6))
        texts.append("".join(parts))
    return texts


def _hash_breakers() -> list[str]:
    """Thousands of tokens, all distinct or all alike or alike far apart: tables past the stack size."""
    rng = random.Random(7)
    distinct = " ".join(f"토큰{i}" for i in range(3000))
    alike = " ".join(["같은말"] * 3000)
    far_apart = "반복 " + " ".join(f"w{i}" for i in range(2000)) + " 반복"
    same_length = " ".join("".join(rng.choice("가나") for _ in range(8)) for _ in range(2000))
    wide = " ".join(chr(0x20000 + i) * (1 + i % 3) for i in range(1500))
    return [distinct, alike, far_apart, same_length, wide, "가" * 5000]


def _at_the_bounds() -> list[str]:
    """Runs covering exactly 80% of the letters, the rest all distinct: spam with the most distinct letters the
    bounds allow, where a bound off by one (or by a float's rounding) would keep it."""
    pool = "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허"
    texts = []
    for unit_length in range(1, 9):
        for copies in range(3, 6):
            run = pool[:unit_length] * copies
            if len(run) % 4 == 0:
                extra = pool[unit_length : unit_length + len(run) // 4]
                texts += [run + extra, run + " " + extra, extra + "!" + run]
    return texts


TEXTS = _sample_texts() + _random_texts(5000, 1) + _unit_runs(3000, 2) + _hash_breakers() + _at_the_bounds()


def test_the_texts_cover_what_they_should():
    assert len(TEXTS) > 15000
    assert max(map(len, TEXTS)) > 10000


def test_python_letter_stats_counts_letter_tokens():
    assert python_letter_stats("좋아요!좋아요! ab_1 ㅋㅋ ²") == (6, 12, 8, 8, 5)
    assert python_letter_stats("") == (0, 0, 0, 0, 0)
    assert python_letter_stats("... !!") == (0, 0, 0, 0, 0)


@pytest.mark.slow
@compiled
def test_every_code_point_is_a_letter_and_hangul_alike():
    for cp in range(0x110000):
        char = chr(cp)
        assert letter_stats.letter_stats(char) == python_letter_stats(char), hex(cp)


@compiled
def test_compiled_counts_equal_the_python_ones():
    for text in TEXTS:
        assert letter_stats.letter_stats(text) == python_letter_stats(text), text[:200]


@compiled
def test_compiled_letter_stats_takes_only_str():
    with pytest.raises(TypeError, match="takes a str"):
        letter_stats.letter_stats(b"bytes")


def test_a_machine_with_a_c_compiler_gets_the_compiled_counts():
    """The build makes the extension optional (no compiler: the Python counts); with one, it must be built."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine")
    assert letter_stats.COMPILED


def _reference_check_sentence(text: str, config: FilterConfig) -> str | None:
    """`check_sentence` as it was before `letter_stats`: tokens, a regex for Hangul, sets of tokens and letters
    (with the Korean predicate that keeps a low-Hangul sentence, which came later)."""
    if not text or text.isspace():
        return "empty"
    if holds_placeholder(text):
        return "placeholder"
    reason = (is_ooo_only(text, config.mask_token) if config.drop_ooo_only else None) or (
        "too_short" if len(text) < config.min_chars else None
    )
    if reason is None and config.max_chars and len(text) > config.max_chars:
        reason = "too_long"
    if reason or not (config.min_hangul_ratio or config.max_repeated_token_ratio):
        return reason
    tokens = letter_tokens(text)
    letters = "".join(tokens)
    hangul = (len(letters) - len(_HANGUL_RUNS.sub("", letters))) / len(letters) if letters else 0.0
    if config.min_hangul_ratio and hangul < config.min_hangul_ratio and not ends_in_korean_predicate(text):
        return "low_hangul"
    share = config.max_repeated_token_ratio
    if not share:
        return None
    n = len(tokens)
    if n >= config.repetition_min_tokens and repeated_token_share(tokens) >= share:
        return "repetitive"
    units = config.repeated_unit_min_repeats, config.repeated_unit_max_chars
    # The rule's own bound on distinct letters (a quirk of the rule, kept: see test_fast_paths).
    if (
        len(set(letters)) <= units[1] + (1 - share) * len(letters)
        and repeated_unit_share(letters, *units) >= share
    ):
        return "repetitive"
    return None


CONFIGS = [
    FilterConfig(),
    FilterConfig(min_chars=0, max_chars=0),
    FilterConfig(min_chars=0, max_chars=0, min_hangul_ratio=0.0),
    FilterConfig(min_chars=0, max_chars=0, max_repeated_token_ratio=0.5, repeated_unit_min_repeats=2),
    FilterConfig(min_chars=0, max_chars=0, max_repeated_token_ratio=0.3, repetition_min_tokens=2),
    FilterConfig(min_chars=0, max_chars=0, max_repeated_token_ratio=0.9, repeated_unit_max_chars=2),
    FilterConfig(min_chars=0, max_chars=0, max_repeated_token_ratio=0.0, min_hangul_ratio=0.9),
    # test_fast_paths' spam configurations: shares, repeats and unit lengths where the bounds round.
    FilterConfig(
        min_chars=0,
        max_chars=0,
        max_repeated_token_ratio=0.5,
        repeated_unit_min_repeats=2,
        repeated_unit_max_chars=4,
    ),
    FilterConfig(min_chars=0, max_chars=0, max_repeated_token_ratio=1.0),
    FilterConfig(
        min_chars=0,
        max_chars=0,
        max_repeated_token_ratio=0.9,
        repetition_min_tokens=5,
        repeated_unit_min_repeats=4,
        repeated_unit_max_chars=2,
    ),
]


@functools.cache
def _reference_decisions(config: FilterConfig) -> list[str | None]:
    """The reference's decisions on TEXTS, worked out once for both `counts` (60% of the test's time)."""
    return [_reference_check_sentence(text, config) for text in TEXTS]


@pytest.mark.slow
@pytest.mark.parametrize("counts", ["compiled", "python"])
@pytest.mark.parametrize("config", CONFIGS, ids=[f"config{i}" for i in range(len(CONFIGS))])
def test_check_sentence_decides_as_before(config, counts, monkeypatch):
    if counts == "compiled" and not letter_stats.COMPILED:
        pytest.skip("kcorpus was installed without its C extension")
    if counts == "python":
        monkeypatch.setattr(filters, "letter_stats", python_letter_stats)
    decided = [check_sentence(text, config) for text in TEXTS]
    assert decided == _reference_decisions(config)
    # The comparison covers every outcome the counts decide, not only kept sentences.
    assert None in decided
    assert ("low_hangul" in decided) == bool(config.min_hangul_ratio)
    assert ("repetitive" in decided) == bool(config.max_repeated_token_ratio)
