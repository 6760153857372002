import pytest

from kcorpus.transforms.rules.filters import (
    FilterConfig,
    check_document,
    check_sentence,
    ends_in_korean_predicate,
    hangul_ratio,
    holds_placeholder,
    is_ooo_only,
    low_hangul,
    repetitive,
    too_long,
    too_short,
)
from testdata_paths import TESTDATA

CFG = FilterConfig()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("이 영화 정말 재미있었어요", None),
        ("", "empty"),
        ("   ", "empty"),
        ("OOO OOO!!", "ooo_only"),
        ("OOO 같은 놈들이 문제다 진짜로", None),
        ("재밌어요", "too_short"),
        ("123456789 ㅋ", "low_hangul"),
        ("This movie was great, 강추", "low_hangul"),
        ("최고 최고 최고 최고 좋아", "repetitive"),
        ("ㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋ", "repetitive"),
        ("좋아요좋아요좋아요좋아요", "repetitive"),
        ("가" * 2001, "too_long"),
        ("서울은 대한민국의 수도이며 최대 도시이다.", None),
        # kowiki wiki_00 line 1470: the formula behind each placeholder is lost.
        ("정규분포는 2개의 매개 변수 평균 formula_2과 표준편차 formula_10에 대해 모양이 결정되고,", "placeholder"),
        ("formula_3", "placeholder"),
        ("함수 codice_1는 값을 돌려준다.", "placeholder"),
        ("변수 이름 my_formula_1 과 formula_x 는 흔히 쓰는 이름이다", None),
    ],
)
def test_check_sentence_reasons(text, reason):
    assert check_sentence(text, CFG) == reason


def test_min_length_is_ten_characters_spaces_included():
    assert too_short("가나다라마 바사아자", 10) is None  # 10 characters
    assert too_short("가나다라마바사아자", 10) == "too_short"  # 9


def test_max_length_zero_disables():
    assert too_long("가" * 10_000, 0) is None
    assert too_long("가" * 11, 10) == "too_long"


def test_hangul_ratio_ignores_spaces():
    assert hangul_ratio("가나 ab") == 0.5
    assert hangul_ratio("   ") == 0.0


def test_ooo_only_needs_a_mask():
    assert is_ooo_only("!!!") is None
    assert is_ooo_only("○○○ ...") == "ooo_only"


def test_repetition_below_min_tokens_is_kept():
    assert repetitive("최고 최고 좋아", CFG) is None
    assert repetitive("최고 최고 최고 최고", FilterConfig(max_repeated_token_ratio=0.0)) is None  # disabled


def test_hangul_ratio_counts_letters_not_punctuation():
    assert hangul_ratio("뭘 했길래...................... 입술이........") == 1.0
    assert hangul_ratio("박시후 is very good.") == pytest.approx(3 / 13)
    assert hangul_ratio("!!! ...") == 0.0
    assert check_sentence("뭘 했길래...................... 입술이........", CFG) is None


def test_ooo_only_knows_every_mask_and_the_mask_token():
    assert is_ooo_only("OO!! ***") == "ooo_only"
    assert is_ooo_only("[MASK] [MASK]...", "[MASK]") == "ooo_only"
    assert is_ooo_only("GOOD!!") is None


def test_check_sentence_thresholds_come_from_config():
    loose = FilterConfig(min_chars=2, min_hangul_ratio=0.0)
    assert check_sentence("재밌어요", loose) is None
    assert check_sentence("123456789 ㅋ", loose) is None


def test_document_rule_takes_most_frequent_sentence_reason():
    assert check_document([], ["too_short"], CFG) == "too_short"
    assert check_document([], ["low_hangul", "too_short", "too_short"], CFG) == "too_short"
    assert check_document([], ["low_hangul", "too_short"], CFG) == "low_hangul"  # tie: first seen
    assert check_document([], [], CFG) == "empty"
    assert check_document(["한 문장"], [], FilterConfig(min_sentences=2)) == "too_few_sentences"
    assert check_document(["한 문장", "두 문장"], ["too_short"], FilterConfig(min_sentences=2)) is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_chars": -1},
        {"max_chars": 5, "min_chars": 10},
        {"min_hangul_ratio": 1.5},
        {"max_repeated_token_ratio": -0.1},
        {"dup_line_fraction": 1.5},
        {"top_ngram_char_fractions": (0.2, -1.0)},
        {"repeated_unit_min_repeats": 1},
        {"masks": "hide"},
        {"mask_token": "O O"},
        {"max_punctuation_run": -1},
    ],
)
def test_bad_thresholds_raise(kwargs):
    with pytest.raises(ValueError):
        FilterConfig(**kwargs)


# Real lines (NSMC, petitions, Wikipedia) and edge cases for the shared-pass `check_sentence`.
EQUIVALENCE_LINES = [
    "이 영화 정말 재미있었어요",
    "굳 ㅋ",
    "GDNTOPCLASSINTHECLUB",
    "뭐야 이 평점들은.... 나쁘진 않지만 10점 짜리는 더더욱 아니잖아",
    "좋아요 좋아요 좋아요 좋아요",
    "최고최고최고최고최고",
    "ㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋ",
    "OOO 같은 놈",
    "OOO",
    "김○○ 씨의 ***",
    "GOOOD movie!!",
    "박시후 is very good.",
    "지미 카터(Jimmy Carter, 1924년 10월 1일 ~ )는 미국 39대 대통령이다.",
    "!!! ...",
    "_ _ _ 가나다라마바사",
    "",
    "   ",
    "\u3000\t\u00a0",
    "\u200b",
]


@pytest.mark.parametrize(
    "config",
    [
        FilterConfig(),
        FilterConfig(min_chars=0, min_hangul_ratio=0.0),
        FilterConfig(min_chars=0, max_repeated_token_ratio=0.0),
        FilterConfig(min_chars=0, min_hangul_ratio=0.9, mask_token="XX"),
        FilterConfig(min_chars=0, drop_ooo_only=False),
        FilterConfig(min_chars=0, max_chars=12),
    ],
)
def test_check_sentence_is_the_rules_in_order(config):
    def in_order(text: str) -> str | None:
        return (
            (None if text.strip() else "empty")
            or holds_placeholder(text)
            or (is_ooo_only(text, config.mask_token) if config.drop_ooo_only else None)
            or too_short(text, config.min_chars)
            or too_long(text, config.max_chars)
            or low_hangul(text, config.min_hangul_ratio)
            or repetitive(text, config)
        )

    assert [check_sentence(t, config) for t in EQUIVALENCE_LINES] == [in_order(t) for t in EQUIVALENCE_LINES]


def _wiki_low_hangul() -> list[tuple[str, str]]:
    lines = (TESTDATA / "quality" / "wiki_low_hangul.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [(row.split("\t")[2], row.split("\t")[0]) for row in lines]


@pytest.mark.parametrize(("text", "reason"), _wiki_low_hangul())
def test_low_hangul_keeps_korean_sentences_whatever_their_latin_share(text, reason):
    # Real Wikipedia lines, every one under 30% Hangul: a Korean predicate at the end makes a Korean sentence.
    assert hangul_ratio(text) < 0.3
    assert (check_sentence(text, CFG) or "keep") == reason
    assert (low_hangul(text, 0.3) or "keep") == reason
    assert ends_in_korean_predicate(text) == (reason == "keep")


def test_the_low_hangul_fixture_keeps_and_drops():
    reasons = [reason for _, reason in _wiki_low_hangul()]
    assert (reasons.count("keep"), reasons.count("low_hangul")) == (7, 8)


def test_ooo_fast_path_agrees_with_the_mask_pattern():
    assert is_ooo_only("OO", "XX") == "ooo_only"
    assert is_ooo_only("〇〇 !!", "XX") == "ooo_only"
    assert is_ooo_only("XX", "XX") == "ooo_only"
    assert is_ooo_only("O O", "XX") is None
    assert is_ooo_only("** 가나", "XX") is None
