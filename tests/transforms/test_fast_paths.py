"""The fast paths of the per-document hot loop give exactly what the plain passes they replace gave.

Each fast path (a class scan that skips a substitution, a prefix that decides a bound, one pattern for
several) is checked against its reference, the code it replaced, on every line of the bundled samples
(NSMC comments, petitions, Korean Wikipedia) and on strings made to break it.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import random
import re

import pytest

from kcorpus.transforms.korean import MASK_SYMBOLS
from kcorpus.transforms.prepare import Prepared, new_prepared, unify_line_breaks
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules import boilerplate, pii, repetition
from kcorpus.transforms.rules.boilerplate import BoilerplateRemover
from kcorpus.transforms.rules.pii import mask_pii
from kcorpus.transforms.rules.repetition import (
    document_repetition_reason,
    dup_ngram_share,
    duplicate_share,
    letter_tokens,
    ngram_repetition_reason,
    repeated_token_share,
    repeated_unit_share,
    spam_reason_of_tokens,
    top_ngram_share,
    words,
)
from kcorpus.transforms.text.clean import make_cleaner
from kcorpus.transforms.text.passes import collapse_hspace
from kcorpus.transforms.text.removals import cut_spans
from kcorpus.transforms.text.rewrites import squeeze_punctuation
from kcorpus.transforms.text.split import endings, paragraph, rules, terminators
from kcorpus.transforms.text.split.paragraph import Paragraph
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000\ufeff]+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_NOT_LETTER = re.compile(r"[\W_]+")

TRICKY = [
    "",
    " ",
    "  ",
    "좋아요  좋아요",
    " 앞에 공백",
    "뒤에 공백 ",
    "탭\t하나",
    "NBSP\u00a0하나",
    "전각\u3000공백 과 보통 공백",
    "폭 없는\u200b공백\ufeff",
    "섞인 \t\u00a0 공백",
    "줄\r\n바꿈\r혼자\u2028줄\u2029문단\x0b수직\x0c폼\x85다음",
    "\r\n\r\n",
    "좋아요!좋아요!좋아요!",
    "snake_case_이름 __init__",
    "①②③ ½ Ⅻ 12３",
    "ㅋㅋㅋㅋㅋㅋㅋㅋ",
    "최고최고최고최고",
    "abcdefghabcdefghabcdefghijklmnopijklmnopijklmnopqrstuvwxqrstuvwxqrstuvwx",
    "010-1234-5678로 연락",
    "메일 kim@example.com 으로",
    "http://example.com/12345 주소만",
    "가격 15,000원 2017-08-25",
]


def _lines(name: str) -> list[str]:
    return (SAMPLE / name).read_text(encoding="utf-8").splitlines()


def _sample_texts() -> list[str]:
    nsmc = [line.split("\t")[1] for line in _lines("nsmc_ratings_test_head.txt")[1:] if line.count("\t") == 2]
    petitions = [json.loads(line)["content"] for line in _lines("petitions_2017-08_head") if line.startswith("{")]
    wiki = _lines("wiki_00_head")
    return nsmc + petitions + wiki


TEXTS = _sample_texts() + TRICKY


def _random_texts(count: int, seed: int) -> list[str]:
    """Short strings over a small alphabet of letters, spaces, line breaks and punctuation: runs and repeats."""
    rng = random.Random(seed)
    alphabet = "좋아요ㅋ최고ab1 _!.\t\u00a0\u3000\r\n\u2028"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(count)]


def test_the_samples_are_read():
    assert len(TEXTS) > 5000


@pytest.mark.parametrize("texts", [TEXTS, _random_texts(5000, 1)], ids=["samples", "random"])
def test_collapse_hspace_equals_the_plain_substitution(texts):
    for text in texts:
        assert collapse_hspace(text) == _HSPACE.sub(" ", text), text


@pytest.mark.parametrize("texts", [TEXTS, _random_texts(5000, 2)], ids=["samples", "random"])
def test_unify_line_breaks_equals_the_plain_substitution(texts):
    for text in texts:
        assert unify_line_breaks(text) == _LINE_BREAKS.sub("\n", text), text


@pytest.mark.parametrize("texts", [TEXTS, _random_texts(5000, 3)], ids=["samples", "random"])
def test_letter_tokens_equal_substitution_then_split(texts):
    for text in texts:
        assert letter_tokens(text) == _NOT_LETTER.sub(" ", text).split(), text


def _reference_spam(tokens: list[str], max_share: float, min_tokens: int, repeats: int, unit: int) -> str | None:
    """`spam_reason_of_tokens` as it was before the distinct-letter bound."""
    if not max_share:
        return None
    n = len(tokens)
    few_tokens = n >= min_tokens and len(set(tokens)) <= n - max_share * n + 1
    if few_tokens and repeated_token_share(tokens) >= max_share:
        return "repetitive"
    compact = "".join(tokens)
    few_letters = len(set(compact)) <= unit + (1 - max_share) * len(compact)
    if few_letters and repeated_unit_share(compact, repeats, unit) >= max_share:
        return "repetitive"
    return None


def _unit_runs(count: int, seed: int) -> list[str]:
    """Texts made of runs of short units (what the rule drops) with some noise between them."""
    rng = random.Random(seed)
    letters = "가나다라마바사아자차카타파하ㅋㅎabc123"
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 6)):
            unit = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
            parts.append(unit * rng.randint(1, 6))
            if rng.random() < 0.3:
                parts.append(" " + "".join(rng.choice(letters) for _ in range(rng.randint(1, 4))) + " ")
        texts.append("".join(parts))
    return texts


@pytest.mark.slow
@pytest.mark.parametrize(
    ("max_share", "min_tokens", "repeats", "unit"),
    [(0.8, 3, 3, 8), (0.5, 3, 2, 4), (0.3, 2, 3, 8), (1.0, 3, 3, 8), (0.9, 5, 4, 2)],
)
def test_spam_rule_with_the_distinct_letter_bound_equals_the_reference(max_share, min_tokens, repeats, unit):
    texts = TEXTS + _random_texts(3000, 4) + _unit_runs(3000, 5)
    hits = 0
    for text in texts:
        tokens = letter_tokens(text)
        expected = _reference_spam(tokens, max_share, min_tokens, repeats, unit)
        assert spam_reason_of_tokens(tokens, max_share, min_tokens, repeats, unit) == expected, text
        hits += expected is not None
    assert hits > 50  # the comparison covers texts the rule drops, not only ones it keeps


def test_the_bound_keeps_many_runs_of_distinct_units():
    """Three runs of three distinct 8-letter units: more distinct letters than the rule's own bound allows,
    so the rule keeps the text (a quirk of that bound), and the fast path must keep it as well."""
    text = "abcdefgh" * 3 + "ijklmnop" * 3 + "qrstuvwx" * 3
    assert repeated_unit_share(text, 3, 8) == 1.0
    assert spam_reason_of_tokens([text], 0.8, 3, 3, 8) is None
    assert _reference_spam([text], 0.8, 3, 3, 8) is None


def _reference_mask(text: str) -> tuple[str, dict[str, int]]:
    """`mask_pii` without its pre-tests: every piece between URLs through `_mask_span`."""
    counts: collections.Counter[str] = collections.Counter()
    pieces = []
    last = 0
    for url in pii._URL.finditer(text):
        pieces += [pii._mask_span(text[last : url.start()], counts), url.group()]
        last = url.end()
    pieces.append(pii._mask_span(text[last:], counts))
    return "".join(pieces), dict(counts)


@pytest.mark.parametrize("texts", [TEXTS, _random_texts(2000, 6)], ids=["samples", "random"])
def test_pii_pre_test_changes_nothing(texts):
    for text in texts:
        masked = mask_pii(text)
        assert (masked.text, dict(masked.counts)) == _reference_mask(text), text


# The PII patterns as they were, each led by the lookbehind (no class to skip ahead with).
_START = r"(?<![0-9\-.])"
_END = r"(?![0-9]|[-.][0-9])"
_AREA = r"(?:2|3[1-3]|4[1-4]|5[1-5]|6[1-4]|70)"
_REFERENCE_PII = {
    "email": pii._PATTERNS["email"],
    "rrn": re.compile(
        _START + r"(?P<date>\d{6})(?P<sep>\s?[-–]\s?)?(?P<sex>[1-8])(?P<rest>\d{6}|[*xX]{6})" + _END
    ),
    "card": re.compile(
        _START + r"(?P<digits>[3-69]\d{3}(?P<sep>[- ]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{4}|3\d{3}-\d{6}-\d{5})" + _END
    ),
    "mobile": re.compile(
        r"(?<![0-9\-.+])(?:\+82[-\s.]?(?:\(0\))?|0)1[016789](?P<sep>[-. ]?)\d{3,4}(?P=sep)\d{4}" + _END
    ),
    "landline": re.compile(
        rf"(?<![0-9\-.+])(?:(?:\+82[-\s.]?{_AREA}[-. ]?|\(0{_AREA}\)\s?|0{_AREA}(?:\)\s?|[-. ])?)\d{{3,4}}[-.]\d{{4}}"
        rf"|0{_AREA}\d{{7,8}})" + _END
    ),
    "account": re.compile(_START + r"(?:\d{3,4}|\d{6})(?:-\d{2,7}){2,3}" + _END),
    "ip": re.compile(
        _START + r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)" + _END
    ),
}


def _number_texts(count: int, seed: int) -> list[str]:
    """Strings dense in digits, separators and the characters around numbers: matches, near misses, overlaps."""
    rng = random.Random(seed)
    pieces = ["010", "02", "+82", "(02)", "031", "070", "1234", "5678", "900101", "3", "4", "9", "25", "255",
              "1.", "-", ".", " ", ")", "(", "*", "x", "@", "가", "\n", "–", "0", "1", "7", "12", "978",
              "192.168.", "10.", "8.8", "123-", "-45", "-678901", "110-", "+", "4123", "-456789-", "12345"]
    made = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(count)]
    placed = [f"{before}{number}" for before in ("", " ", "+", "-", ".", "1", "(", "가")
              for number in ("+82 10-1234-5678", "+82 2-123-4567", "(02)123-4567", "(02) 1234-5678", "02)123-4567",
                             "010-1234-5678", "0212345678", "4123-456789-12345", "3123-456789-12345")]
    return made + placed


def _reference_mask_span(text: str, counts: collections.Counter[str]) -> str:
    """`_mask_span` with the patterns as they were and no hints."""
    if not pii._CANDIDATE.search(text):
        return text
    numbers = pii._NUMBER_RUN.search(text) is not None
    for kind, pattern in _REFERENCE_PII.items():
        if not (numbers or kind == "email") or (kind == "email" and "@" not in text):
            continue
        valid = pii._VALID.get(kind)

        def replace(m: re.Match[str], kind: str = kind, valid=valid) -> str:
            if valid is not None and not valid(m):
                return m.group()
            counts[kind] += 1
            return pii.TOKENS[kind]

        text = pattern.sub(replace, text)
    return text


@pytest.mark.slow
@pytest.mark.parametrize("texts", [TEXTS, _number_texts(20000, 12)], ids=["samples", "numbers"])
def test_pii_patterns_that_skip_ahead_find_what_the_lookbehind_first_ones_found(texts):
    found = collections.Counter()
    for text in texts:
        for kind, reference in _REFERENCE_PII.items():
            expected = [(m.span(), m.groupdict()) for m in reference.finditer(text)]
            assert [(m.span(), m.groupdict()) for m in pii._PATTERNS[kind].finditer(text)] == expected, (kind, text)
            found[kind] += len(expected)
        counts: collections.Counter[str] = collections.Counter()
        expected_counts: collections.Counter[str] = collections.Counter()
        assert pii._mask_span(text, counts) == _reference_mask_span(text, expected_counts), text
        assert counts == expected_counts, text
    if len(texts) > 20000:  # every numeric type is exercised, not only the misses
        assert all(found[kind] > 20 for kind in _REFERENCE_PII if kind != "email"), found


@pytest.mark.parametrize("options", [{}, {"keep_emoji": True}, {"keep_hanja": True}, {"keep_emoji": True,
                                     "keep_hanja": True, "remove_emails": True, "remove_ooo": True}])
def test_single_spaced_cleaners_need_no_collapse_after_them(options):
    cleaner = make_cleaner("kcelectra", **options)
    assert cleaner.single_spaced
    odd = [f"{a}{t}{b}" for t in TEXTS[::50] for a, b in (("\u3000", "\u200b"), ("\ufeff ", "\u00a0"), ("\x1c", "\u2028"))]
    for text in TEXTS + _random_texts(3000, 13) + odd:
        assert cleaner(text) == collapse_hspace(cleaner(text)).strip(), text


@pytest.mark.parametrize("max_run", [1, 2, 3, 4, 6])
def test_squeeze_punctuation_with_its_pre_test_equals_the_plain_substitution(max_run):
    rng = random.Random(14)
    runs = ["".join(rng.choice(".!?~,ㅋ가 ") * rng.randint(1, 9) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    squeezed = 0
    for text in TEXTS + _random_texts(3000, 15) + runs:
        # every punctuation run but a mask's (`***`), which stays as written
        expected = re.sub(rf"([^\w\s{re.escape(MASK_SYMBOLS)}])\1{{{max_run},}}", lambda m: m.group(1) * max_run, text)
        assert squeeze_punctuation(text, max_run) == expected, text
        squeezed += expected != text
    assert squeezed > 100


def _reference_removal(remover: BoilerplateRemover, text: str) -> tuple[str, dict[str, int], int]:
    """`BoilerplateRemover.remove` as it was: every rule tried on every line that holds one of its needles."""
    counts: collections.Counter[str] = collections.Counter()
    lines_out, removed = [], 0
    for line in text.split("\n"):
        hits = 0
        for key, pattern, replacement, needles, markers in remover.rules:
            if needles and not any(needle in line for needle in needles):
                continue
            if replacement is None:  # a cut rule: its matches go with their debris (boilerplate._apply)
                matches = [m.span() for m in pattern.finditer(line)]
                line, n = (cut_spans(line, matches, markers=markers) if matches else line), len(matches)
            else:
                line, n = pattern.subn(replacement, line)
            counts[key] += n
            hits += n
        if hits:
            line = boilerplate._SPACES.sub(" ", line).strip()
            if not boilerplate._WORD.search(line):
                removed += 1
                continue
        lines_out.append(line)
    return "\n".join(lines_out), {k: n for k, n in counts.items() if n}, removed


@pytest.mark.slow
@pytest.mark.parametrize("sets", [[name] for name in boilerplate.RULE_SETS] + [list(boilerplate.RULE_SETS)])
def test_boilerplate_rules_skipped_for_a_whole_text_change_nothing(sets):
    remover = BoilerplateRemover(sets, [r"\d{4}년"])
    rng = random.Random(16)
    lines = TEXTS + ["[[분류:한국]]", "[[서울|수도]]는", "formula_3 값", "( , 1924년 )", "AKIRA ()", "「 」", "▶ 기사"]
    docs = ["\n".join(rng.sample(lines, rng.randint(1, 6))) for _ in range(3000)] + TEXTS
    fired = 0
    for text in docs:
        removal = remover.remove(text)
        expected = _reference_removal(remover, text)
        assert (removal.text, dict(removal.counts), removal.lines_removed) == expected, text
        fired += bool(expected[1])
    assert fired > 100


def test_new_prepared_is_the_same_frozen_outcome():
    doc = Document("nsmc:1", "재밌어요 정말로", "nsmc", {"label": 1})
    values = (doc, None, 2, 1, ("too_short",), {"pii:email": 1}, ("짧다",), (("clean", "a", "b"),))
    made, plain = new_prepared(*values), Prepared(*values)
    assert type(made) is Prepared and made == plain and repr(made) == repr(plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.reason = "x"
    with pytest.raises(TypeError):
        new_prepared(doc, None)  # every field, or none of this shortcut


def _tuple_ngrams(ids: list[int], n: int) -> list[tuple[int, ...]]:
    return list(zip(*(ids[i:] for i in range(n)), strict=False))


def _covered_chars(lengths: list[int], grams: list[tuple[int, ...]], n: int, wanted: set) -> int:
    covered = [False] * len(lengths)
    for i, gram in enumerate(grams):
        if gram in wanted:
            covered[i : i + n] = [True] * n
    return sum(length for length, c in zip(lengths, covered, strict=True) if c)


def _top_share(grams: list[tuple[int, ...]], lengths: list[int], total: int, n: int) -> float:
    """Gopher's top n-gram share as plain Python: Counter over tuples, ties to the n-gram seen first."""
    counts = collections.Counter(grams)
    if len(counts) == len(grams):
        return 0.0
    top, _ = counts.most_common(1)[0]
    return _covered_chars(lengths, grams, n, {top}) / total


def _dup_share(grams: list[tuple[int, ...]], lengths: list[int], total: int, n: int) -> float:
    counts = collections.Counter(grams)
    if len(counts) == len(grams):
        return 0.0
    return _covered_chars(lengths, grams, n, {g for g, c in counts.items() if c > 1}) / total


def _reference_ngram_reason(text_words: list[str], top: tuple[float, ...], dup: tuple[float, ...]) -> str | None:
    """`ngram_repetition_reason` over tuples of word ids in plain Python, as it was before numpy."""
    index: dict[str, int] = {}
    ids = [index.setdefault(w, len(index)) for w in text_words]
    if len(index) == len(ids):
        return None
    lengths = [len(w) for w in text_words]
    total = sum(lengths)
    for n, limit in enumerate(top, start=2):
        if limit and _top_share(_tuple_ngrams(ids, n), lengths, total, n) > limit:
            return f"top_{n}gram"
    for n, limit in enumerate(dup, start=5):
        share = _dup_share(_tuple_ngrams(ids, n), lengths, total, n) if limit else 0.0
        if share > limit:
            return f"dup_{n}gram"
        if limit and not share:
            break
    return None


def _word_lists() -> list[list[str]]:
    """Every petition and Wikipedia article of the samples as words, and pasted-together repeats of them."""
    docs = [json.loads(line)["content"] for line in _lines("petitions_2017-08_head") if line.startswith("{")]
    docs += "\n".join(_lines("wiki_00_head")).split("</doc>")
    lists = [words(doc) for doc in docs]
    rng = random.Random(7)
    for _ in range(200):  # repeated stretches of one document, so that the rules fire
        ws = rng.choice(lists)
        start = rng.randrange(max(len(ws), 1))
        stretch = ws[start : start + rng.randint(2, 30)]
        lists.append(ws[:start] + stretch * rng.randint(2, 6) + ws[start:])
    return [ws for ws in lists if ws]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("top", "dup"),
    [
        ((0.20, 0.18, 0.16), (0.30, 0.28, 0.26, 0.24, 0.22, 0.20)),
        ((0.20, 0.18, 0.16), (0.15, 0.14, 0.13, 0.12, 0.11, 0.10)),
        ((0.0, 0.05, 0.0, 0.1, 0.1), (0.05, 0.0, 0.05)),  # a disabled n, and top n-grams past n = 5
    ],
)
def test_ngram_rules_over_ranked_codes_equal_the_tuples(top, dup):
    fired = 0
    for ws in _word_lists():
        expected = _reference_ngram_reason(ws, top, dup)
        assert ngram_repetition_reason(ws, top, dup) == expected
        fired += expected is not None
    assert fired > 20


@pytest.mark.slow
def test_ngram_shares_equal_the_tuples_bit_for_bit():
    rng = random.Random(11)
    lists = _word_lists() + [[rng.choice("가나다") for _ in range(rng.randint(1, 40))] for _ in range(300)]
    for ws in lists:
        index: dict[str, int] = {}
        ids = [index.setdefault(w, len(index)) for w in ws]
        lengths = [len(w) for w in ws]
        total = sum(lengths)
        for n in range(2, 11):
            grams = _tuple_ngrams(ids, n)
            assert top_ngram_share(ids, lengths, total, n) == _top_share(grams, lengths, total, n), (ws, n)
            assert dup_ngram_share(ids, lengths, total, n) == _dup_share(grams, lengths, total, n), (ws, n)


def _reference_duplicate_share(items: list[str]) -> tuple[float, float]:
    seen: set[str] = set()
    dup_items = dup_chars = 0
    for item in items:
        if item in seen:
            dup_items += 1
            dup_chars += len(item)
        else:
            seen.add(item)
    total_chars = sum(len(item) for item in items)
    return dup_items / len(items), dup_chars / total_chars if total_chars else 0.0


def test_duplicate_share_equals_the_loop_bit_for_bit():
    rng = random.Random(17)
    for _ in range(3000):
        items = [rng.choice(TEXTS[:300] + ["", "가", "가나다"]) for _ in range(rng.randint(1, 30))]
        assert duplicate_share(items) == _reference_duplicate_share(items), items


@pytest.mark.parametrize("rules", ["compiled", "python"])
@pytest.mark.parametrize("min_words", [3, 20, 100])
def test_document_repetition_reason_with_its_early_word_count_equals_counting_words(min_words, rules, monkeypatch):
    """Texts of long words (over 8 characters a word) with few of them: the split count is skipped there."""
    if rules == "compiled" and not repetition.NGRAMS_COMPILED:
        pytest.skip("kcorpus was installed without its C extension")
    if rules == "python":
        monkeypatch.setattr(repetition, "text_ngram_repetition_reason", repetition.python_text_ngram_repetition_reason)
    rng = random.Random(18)
    long_words = ["가나다라마바사아자", "abcdefghijk", "하늘과바람과별과시", "연습연습연습연습연습"]
    docs = [[" ".join(rng.choice(long_words) for _ in range(rng.randint(1, 2 * min_words))) for _ in range(3)]
            for _ in range(300)]
    docs += [ws[i : i + 40] for ws in _word_lists()[:200] for i in (0,)]
    fired = 0
    for lines in docs:
        kwargs = {"line_fractions": (0.3, 0.2), "paragraph_fractions": (0.3, 0.2), "top_fractions": (0.2, 0.18, 0.16),
                  "dup_fractions": (0.15, 0.14, 0.13, 0.12, 0.11, 0.10), "min_lines": 3, "min_words": min_words}
        joined = "\n".join(lines)
        expected = None
        if len(words(joined)) >= min_words:
            expected = ngram_repetition_reason(words(joined), kwargs["top_fractions"], kwargs["dup_fractions"])
        reason = document_repetition_reason(lines, lines, **{**kwargs, "line_fractions": (0, 0), "paragraph_fractions": (0, 0)})
        assert reason == expected, lines
        fired += expected is not None
    assert fired > 10


@pytest.mark.parametrize("texts", [TEXTS, _random_texts(3000, 8)], ids=["samples", "random"])
def test_words_of_joined_lines_equal_the_words_of_each_line(texts):
    rng = random.Random(9)
    for _ in range(500):
        lines = rng.sample(texts, rng.randint(1, 8))
        joined = "\n".join(lines)
        assert words(joined) == [w for line in lines for w in words(line)]
        assert len(joined.split()) == sum(len(line.split()) for line in lines)


def _split_texts() -> list[str]:
    """Paragraphs the splitter sees: the samples, the split golden set, and endings placed to be found."""
    golden = [json.loads(line)["text"] for line in (TESTDATA / "split" / "golden.jsonl").read_text("utf-8").splitlines()]
    endings = [
        "있습니다 50평인", "있습니다(신기독", "갑니다 ※ 참고", "하십시오 ▶다음", "좋아요 정말", "그렇죠 네",
        "했다 그리고", "있었다 하고", "있음 ㅇ 없음 ㅇ", "없음※", "함 ■ 됨 ● 임 ◆ 음 ○", "했음ㅋ 끝",
        "했다.그리고", "좋아요!ㅋㅋ그래서", "까.나", "음...다", "합니다  \t다음", "니다 니다 니다",
        "습니다습니다 습니다", "요 요 요", "다 다", "있음 ㅋ ㅋ 끝", "됨 ㅎ", "임(", "함\u3000다음",
        "재밌음 드라마", "나옴 진짜", "대박이네 진짜", "뭐냐 이게", "봐라 평점", "재밌더라 진짜", "최고다 감독",
        "좋아요^^ 다운", "최고ㅠㅠ다시", "생각안하나.이때까지", "궁금하네..그리고",
    ]
    rng = random.Random(9)
    alphabet = "습니다까시오십요죠했었다있없음함됨임옴이네냐뭐야봐라더ㅇㅋㅠ^가 .,!?~()※▶\t"
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(20000)]
    return TEXTS + golden + endings + randoms


SPLIT_TEXTS = _split_texts()


def test_hinted_bare_endings_equal_finditer():
    pattern, hint = endings.BARE_ENDING, endings.BARE_ENDING_HINT
    found = 0
    for text in SPLIT_TEXTS:
        expected = [(m.span(), m.group()) for m in pattern.finditer(text)]
        assert [(m.span(), m.group()) for m in endings.hinted_finditer(pattern, hint, text, 2)] == expected, text
        found += len(expected)
    assert found > 1000  # the texts do hold bare endings


def test_hinted_finditer_tries_every_position_near_a_hint():
    # Matches that abut and overlap hints: `ab` twice, then `b` alone (no `a` before it).
    pattern, hint = re.compile("ab|b"), re.compile("b")
    assert [m.span() for m in endings.hinted_finditer(pattern, hint, "abab b", 1)] == [(0, 2), (2, 4), (5, 6)]
    lookbehind = re.compile("(?<=x)y")
    assert [m.span() for m in endings.hinted_finditer(lookbehind, re.compile("y"), "xy y xy", 0)] == [(1, 2), (6, 7)]


def test_glued_guard_finds_every_paragraph_with_a_glued_ending():
    with_glued = 0
    for text in SPLIT_TEXTS:
        if terminators._GLUED_CANDIDATE.search(text):
            with_glued += 1
            assert terminators._GLUED_GUARD.search(text), text
    assert with_glued > 10


def test_paragraphs_without_a_may_cut_match_have_only_learned_boundaries():
    """Without a terminator, `~`, `,,`, an emoticon or a listed bare ending, no cut rule but the learned odds cuts:
    `split_paragraph` asks only those there (`rules.UNMARKED_RULES`)."""
    skipped = learned = 0
    for text in SPLIT_TEXTS:
        if rules.MAY_CUT.search(text) is None:
            skipped += 1
            expected = _reference_boundaries(text)
            assert rules.cuts(Paragraph(text, punctuated=False), rules.UNMARKED_RULES) == expected, text
            learned += len(expected)
    assert skipped > 1000 and learned > 10


def test_emoticon_guard_finds_every_paragraph_with_an_emoticon_run():
    with_run = 0
    for text in SPLIT_TEXTS:
        if endings.EMOTICON_RUN.search(text):
            with_run += 1
            assert endings.EMOTICON_GUARD.search(text), text
    assert with_run > 10


def test_punctuation_candidates_without_the_tilde_branch_equal_the_full_pattern_where_the_guard_is_silent():
    unguarded = 0
    for text in SPLIT_TEXTS + ["좋다~ 정말", "그렇죠 ~~ 네", "했어요,, 그래서", "다 ,,, 끝", "요~!! 네", "1~2 다, 라"]:
        expected = [(m.span(), m.groups()) for m in terminators._PUNCT_CANDIDATE.finditer(text)]
        if terminators._TILDE_GUARD.search(text):
            continue
        unguarded += 1
        assert [(m.span(), m.groups()) for m in terminators._PUNCT_ONLY_CANDIDATE.finditer(text)] == expected, text
    assert unguarded > 10000


@pytest.mark.parametrize("text", ["좋다~ 정말 좋다", "그렇죠 ~~ 네 맞아요", "했어요,, 그래서 갔다", "요~!! 네"])
def test_the_tilde_guard_finds_the_tilde_and_comma_endings(text):
    assert terminators._TILDE_GUARD.search(text)
    assert any(m.group(1)[0] in " ~," for m in terminators._PUNCT_CANDIDATE.finditer(text))


def _reference_is_non_final_period(paragraph: str, start: int) -> bool:
    """`_is_non_final_period` without its fast path for a syllable before the period."""
    before = paragraph[max(0, start - 40) : start]
    if not before:
        return True
    if before[-1].isspace():
        return before.rstrip()[-1:] not in terminators._SPACED_PERIOD_FINALS
    word = before.rsplit(maxsplit=1)[-1]
    last = word[-1]
    if last.isdigit() or len(word) == 1 and (last.isascii() and last.isalpha() or "ㄱ" <= last <= "ㅎ"):
        return True
    if last in terminators._MASKS and terminators._HONORIFIC.match(paragraph, start + 1):
        return True
    if len(word) == 1 and last in terminators._LIST_LETTERS:
        return last != "다" or before[:-1].rstrip()[-1:] not in terminators._BEFORE_STRAY_DA
    if last in ")]":
        return False
    if "." in word and len(word.rsplit(".", 1)[-1]) <= 1:
        return True
    return word.lower().lstrip("(") in terminators._ABBREVIATIONS or bool(
        terminators._KOREAN_REFERENCE.search(word)
    )


def test_the_syllable_fast_path_of_periods_changes_nothing():
    periods = [
        "했다. 그",
        "가.나. 다",
        "제3조. 다음",
        "15쪽. 끝",
        "U.S. 가",
        "가.",
        ".가.",
        "A.가. 다",
        "다 .",
        "1.가.",
        "나. 현재",
        "있습니 다. 그",
        "했습니다 . 결혼",
        "김**. 씨는",
        " 라. 당시",
    ]
    rng = random.Random(11)
    alphabet = "가나다조쪽항니ㄱa1. "
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(20000)]
    fast = 0
    for text in SPLIT_TEXTS + periods + randoms:
        for start in (i for i, char in enumerate(text) if char == "."):
            expected = _reference_is_non_final_period(text, start)
            assert terminators.is_non_final_period(text, start) == expected, (text, start)
            fast += "가" <= text[start - 1 : start] <= "힣"
    assert fast > 5000


def _reference_boundaries(paragraph: str) -> list[int]:
    """`rules.cuts` with every terminator candidate pattern run over every paragraph (no substring guards)."""
    saved = terminators._may_hold_quote_pair, terminators._may_hold_tilde_ending
    terminators._may_hold_quote_pair = lambda text: True
    terminators._may_hold_tilde_ending = lambda text: terminators._TILDE_GUARD.search(text) is not None
    try:
        return rules.cuts(Paragraph(paragraph))
    finally:
        terminators._may_hold_quote_pair, terminators._may_hold_tilde_ending = saved


def test_boundaries_with_substring_guards_equal_the_unguarded_scan():
    pairs = ['그렇다."“다음', "했다!」「그", '끝.""새', "좋아요~ 네", "했어요,, 그래서", "그렇죠 ~~ 네"]
    cut = 0
    for text in SPLIT_TEXTS + pairs:
        expected = _reference_boundaries(text)
        assert rules.cuts(Paragraph(text)) == expected, text
        cut += len(expected)
    assert cut > 5000


def test_enclosed_spans_from_the_first_opener_equal_a_full_scan():
    quoted = [
        'a"b" "c"', '말했다 "우리는" 그리고', "x'y' (z) [w]", "「가」『나』《다》〈라〉", "“가” ‘나’",
        '…"고 강변했습니다. 설명: 북한이 "우리는 간다"', "(괄호 안 (중첩) 끝)", "'", '"',
    ]
    rng = random.Random(11)
    alphabet = "가나 .\"'“”‘’()[]「」『』《》〈〉,:·=<{"
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(20000)]
    found = 0
    for text in SPLIT_TEXTS + quoted + randoms:
        expected = [m.span() for m in paragraph._ENCLOSED.finditer(text)]
        assert paragraph.enclosed_spans(text) == expected, text
        found += len(expected)
    assert found > 1000  # the texts do hold quoted and bracketed regions
