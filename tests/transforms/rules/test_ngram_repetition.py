"""`text_ngram_repetition_reason`, compiled, decides exactly what its Python twin decides (`words` +
`ngram_repetition_reason`): on every document of the bundled samples, on repeated stretches of them pasted
back with every kind of separator, on random texts, on texts made to break a hash table, under configurations
that fire every rule; and it reads words as `words` does on every code point."""

from __future__ import annotations

import json
import random
import re
import shutil
import sysconfig

import pytest

from kcorpus.transforms.rules import repetition
from kcorpus.transforms.rules.repetition import python_text_ngram_repetition_reason
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
GOPHER = ((0.20, 0.18, 0.16), (0.15, 0.14, 0.13, 0.12, 0.11, 0.10))

compiled = pytest.mark.skipif(
    not repetition.NGRAMS_COMPILED, reason="kcorpus was installed without its C extension"
)


def _lines(name: str) -> list[str]:
    return (SAMPLE / name).read_text(encoding="utf-8").splitlines()


def _documents() -> list[str]:
    """Every petition and Wikipedia article of the samples, and the NSMC comments ten at a time."""
    docs = [json.loads(line)["content"] for line in _lines("petitions_2017-08_head") if line.startswith("{")]
    docs += "\n".join(_lines("wiki_00_head")).split("</doc>")
    comments = [line.split("\t")[1] for line in _lines("nsmc_ratings_test_head.txt")[1:] if line.count("\t") == 2]
    docs += ["\n".join(comments[i : i + 10]) for i in range(0, len(comments), 10)]
    return docs


# What may stand between words: spaces of every kind, punctuation that sticks to a word or stands alone, `_`
# (a word character to `re`, removed by `words`), a mark, a lone surrogate.
SEPARATORS = [" ", " ", " ", "\n", "\t", "\u3000", "\x1c", "\u2028", ". ", ", ", " !! ", "_", " _ ", " ... ",
              "\u0301 ", "\ud800", "-", " - "]


def _pasted_repeats(docs: list[str], count: int, seed: int) -> list[str]:
    """Documents with a stretch of their words repeated, rejoined with random separators: the rules fire."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        ws = rng.choice(docs).split()
        start = rng.randrange(max(len(ws), 1))
        stretch = ws[start : start + rng.randint(2, 30)]
        ws = ws[:start] + stretch * rng.randint(2, 6) + ws[start:]
        texts.append("".join(w + rng.choice(SEPARATORS) for w in ws))
    return texts


def _small_vocabularies(count: int, seed: int) -> list[str]:
    """Texts drawn from 2 to 200 words: every degree of repetition, from none to one word throughout."""
    rng = random.Random(seed)
    pool = [w for doc in _documents()[:50] for w in doc.split()]
    texts = []
    for _ in range(count):
        vocabulary = rng.sample(pool, rng.choice([1, 2, 3, 5, 10, 50, 200]))
        length = rng.choice([3, 20, 100, 300, 1000])
        texts.append("".join(rng.choice(vocabulary) + rng.choice(SEPARATORS) for _ in range(length)))
    return texts


def _random_texts(count: int, seed: int) -> list[str]:
    """Letters of every width (ASCII, Hangul, jamo, a 4-byte Hanja), digits of other scripts, spaces, marks."""
    rng = random.Random(seed)
    alphabet = "가나ㅋ1a _!.\t\u00a0\u3000\n²Ⅻ٣\u0301\U00020000\ud800\x1f"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400))) for _ in range(count)]


def _hash_breakers() -> list[str]:
    """Tens of thousands of words, all distinct, all alike, alike far apart, or equal in length and hash
    neighbourhood; and texts with no word at all."""
    rng = random.Random(7)
    distinct = " ".join(f"낱말{i}" for i in range(20000))
    return [
        distinct,
        distinct + " " + distinct,
        " ".join(["같은말"] * 20000),
        "반복 " + " ".join(f"w{i}" for i in range(5000)) + " 반복 " + " ".join(f"w{i}" for i in range(100)),
        " ".join("".join(rng.choice("가나") for _ in range(10)) for _ in range(5000)),
        " ".join(chr(0x20000 + i % 700) * (1 + i % 3) for i in range(6000)),
        "가 " * 10000,
        "",
        "... !!! ___ --",
    ]


TEXTS = (
    _documents() + _pasted_repeats(_documents(), 600, 1) + _small_vocabularies(600, 2) + _random_texts(600, 3)
    + _hash_breakers()
)

CONFIGS = [
    (*GOPHER, 100),
    ((0.20, 0.18, 0.16), (0.30, 0.28, 0.26, 0.24, 0.22, 0.20), 50),  # kcorpus's defaults
    ((0.0, 0.05, 0.0, 0.1, 0.1), (0.05, 0.0, 0.05), 3),  # a disabled n, and top n-grams past n = 5
    ((0.5,), (0.01,) * 12, 1),  # duplicated n-grams up to n = 16
    ((), (0.2,), 0),
    ((0.1, 0.1), (), 10),
    ((), (), 0),
]


def test_the_texts_fire_every_rule():
    top, dup, min_words = CONFIGS[1]
    reasons = {python_text_ngram_repetition_reason(text, min_words, top, dup) for text in TEXTS}
    assert reasons == {None} | {f"top_{n}gram" for n in (2, 3, 4)} | {f"dup_{n}gram" for n in range(5, 11)}
    assert max(map(len, TEXTS)) > 200_000


@pytest.mark.slow
@compiled
@pytest.mark.parametrize(("top", "dup", "min_words"), CONFIGS)
def test_compiled_reasons_equal_the_python_ones(top, dup, min_words):
    decided = [repetition.text_ngram_repetition_reason(text, min_words, top, dup) for text in TEXTS]
    assert decided == [python_text_ngram_repetition_reason(text, min_words, top, dup) for text in TEXTS]
    if top or dup:  # every configuration that has a rule keeps some texts and drops others
        assert None in decided and len(set(decided)) > 1


@compiled
def test_compiled_reasons_take_fractions_of_any_sequence_and_number_type():
    text = "정말 좋아요 정말 좋아요 정말 좋아요 진짜"  # the top 2-gram covers 15 of 17 letters
    for top, dup, expected in [([0.5], iter([]), "top_2gram"), ((0, 1), (0,), None), ((1, 0.7), [0.8], "top_3gram")]:
        assert repetition.text_ngram_repetition_reason(text, 3, top, dup) == expected
        assert python_text_ngram_repetition_reason(text, 3, top, dup) == expected


@compiled
@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((b"bytes", 3, (), ()), TypeError),
        (("text", "3", (), ()), TypeError),
        (("text", 3, 0.2, ()), TypeError),
        (("text", 3, (), ("x",)), TypeError),
    ],
)
def test_compiled_reasons_refuse_wrong_types(args, error):
    with pytest.raises(error):
        repetition.text_ngram_repetition_reason(*args)


@pytest.mark.parametrize("rules", ["compiled", "python"])
@pytest.mark.parametrize("word", ["가나", "가나다라마바사아자차카"])  # the twin counts words early only for the first
@pytest.mark.parametrize("tail", ["", "\n!!! ... _"])  # punctuation alone is no word
@pytest.mark.parametrize("words_per_line", [1, 2, 10])
def test_a_text_of_exactly_min_words_words_is_checked(rules, word, tail, words_per_line):
    if rules == "compiled" and not repetition.NGRAMS_COMPILED:
        pytest.skip("kcorpus was installed without its C extension")
    reason = repetition.text_ngram_repetition_reason if rules == "compiled" else python_text_ngram_repetition_reason
    line = " ".join([word] * words_per_line)
    for count in (3, 20, 100):
        text = "\n".join([line] * count) + tail
        words = count * words_per_line
        assert reason(text, words, (0.5,), ()) == "top_2gram"
        assert reason(text, words + 1, (0.5,), ()) is None


def _letter_probe(char: str) -> str:
    """Fires at 0.25 (top 2-gram) only if `char` is a letter: `가{char} 가` twice covers 6 of 20 letters,
    `가 가` twice 4 of 18 (with `char` removed, and likewise when it is a space)."""
    return f"가{char} 가 가{char} 가 나다 라마 바사 아자 차카 타파 하거"


def _space_probe(char: str) -> str:
    """60 words, all one 2-gram repeated, only if `char` is a space; 30 otherwise."""
    return f"가{char}나 " * 30


@pytest.mark.slow
@compiled
def test_every_code_point_is_a_letter_a_space_or_removed_as_in_words():
    everything = "".join(map(chr, range(0x110000)))
    letters = set(re.findall(r"[^\W_]", everything))
    spaces = set(re.findall(r"\s", everything))
    reason = repetition.text_ngram_repetition_reason
    for cp in range(0x110000):
        char = chr(cp)
        assert (reason(_letter_probe(char), 0, (0.25,), ()) == "top_2gram") == (char in letters), hex(cp)
        assert (reason(_space_probe(char), 31, (0.25,), ()) == "top_2gram") == (char in spaces), hex(cp)


@pytest.mark.parametrize("cp", [0x20, 0x41, 0x5F, 0xAC00, 0x3131, 0x0301, 0x3000, 0x1C, 0x2028, 0xD800, 0x20000])
def test_the_probes_tell_letters_spaces_and_removed_characters_apart(cp):
    """The probes above, on the Python twin: they fire exactly for letters (and spaces)."""
    char = chr(cp)
    is_letter = re.fullmatch(r"[^\W_]", char) is not None
    is_space = char.isspace()
    assert (python_text_ngram_repetition_reason(_letter_probe(char), 0, (0.25,), ()) == "top_2gram") == is_letter
    assert (python_text_ngram_repetition_reason(_space_probe(char), 31, (0.25,), ()) == "top_2gram") == is_space


def test_a_machine_with_a_c_compiler_gets_the_compiled_rules():
    """The build makes the extension optional (no compiler: the Python rules); with one, it must be built."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine")
    assert repetition.NGRAMS_COMPILED
