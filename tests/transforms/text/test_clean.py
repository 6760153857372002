"""clean(): presets, every override's effect, errors, soynlp-compatible repeat_normalize, linear regexes."""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata

import pytest

import kcorpus
from kcorpus.transforms.text.clean import (
    EMOJI_1_2_0_RANGES,
    OPTION_NAMES,
    PRESETS,
    CleanOptions,
    clean,
    make_cleaner,
    repeat_normalize,
    resolve_options,
    whitelist_ranges,
)
from kcorpus.transforms.text.passes import collapse_hspace
from testdata_paths import TESTDATA


def test_clean_is_reexported_from_the_package():
    assert kcorpus.clean is clean
    assert kcorpus.clean("ㅋㅋㅋㅋㅋ 재밌다") == "ㅋㅋ 재밌다"


def test_presets_are_named_option_sets():
    assert set(PRESETS) == {"kcelectra", "kcbert", "longform"}
    assert PRESETS["kcelectra"] == CleanOptions()
    assert PRESETS["kcbert"] == CleanOptions(keep_emoji=True)
    assert PRESETS["longform"] == CleanOptions(
        whitelist=False, keep_hanja=True, fold_fullwidth=True, repeat_only_hangul=True, tidy_removals=True
    )
    with pytest.raises(TypeError):
        PRESETS["mine"] = CleanOptions()  # read-only


@pytest.mark.parametrize(
    ("text", "kcelectra", "kcbert"),
    [
        ("ㅋㅋㅋㅋㅋㅋ 진짜 웃기네ㅎㅎㅎㅎ", "ㅋㅋ 진짜 웃기네ㅎㅎ", "ㅋㅋ 진짜 웃기네ㅎㅎ"),
        ("배우들 연기 최고😍😍 강추!!!!", "배우들 연기 최고 강추!!!!", "배우들 연기 최고😍😍 강추!!!!"),
        ("♡♡ 인생영화 ★★", "인생영화", "인생영화"),  # not emoji in emoji 1.2.0
        ("♥♥ 인생영화", "인생영화", "♥♥ 인생영화"),  # ♥ (heart suit) is
        ("❤️ 최고", "최고", "❤️ 최고"),  # ❤ + VS16 is
        ("龍頭蛇尾 키리시마는 맥거핀~", "키리시마는 맥거핀~", "키리시마는 맥거핀~"),
        ("  자세한건 https://www.naver.com/news?id=1 참고  ", "자세한건 참고", "자세한건 참고"),
        (
            "“따옴표”와 『괄호』는 ％·∼ 빼고 지워짐",
            "따옴표 와 괄호 는 ％·∼ 빼고 지워짐",
            "따옴표 와 괄호 는 ％·∼ 빼고 지워짐",
        ),
        ("탭\t과\n줄바꿈\u3000공백", "탭 과 줄바꿈 공백", "탭 과 줄바꿈 공백"),
        ("", "", ""),
        ("😀😀😀", "", "😀😀😀"),
    ],
)
def test_presets_on_korean_examples(text, kcelectra, kcbert):
    assert clean(text) == kcelectra
    assert clean(text, preset="kcelectra") == kcelectra
    assert clean(text, preset="kcbert") == kcbert


def test_keep_emoji_override():
    text = "오늘 너무 좋았다😂👍 굿"
    assert clean(text) == "오늘 너무 좋았다 굿"
    assert clean(text, keep_emoji=True) == "오늘 너무 좋았다😂👍 굿"
    assert clean(text, preset="kcbert", keep_emoji=False) == "오늘 너무 좋았다 굿"
    # Flags, keycaps and ZWJ sequences keep all their parts.
    for emoji in ("🇰🇷", "1️⃣", "👨‍👩‍👧"):
        assert clean(f"이모지 {emoji}", keep_emoji=True) == f"이모지 {emoji}"
        assert clean(f"이모지 {emoji}") == "이모지" + (" 1" if emoji == "1️⃣" else "")


def test_keep_hanja_override():
    text = "大韓民國 만세, 國家는 國民의 것"
    assert clean(text) == "만세, 는 의 것"
    assert clean(text, keep_hanja=True) == "大韓民國 만세, 國家는 國民의 것"
    assert clean("𠀀 확장B", keep_hanja=True) == "𠀀 확장B"
    # Japanese kana stay out: only Hanja are added.
    assert clean("漢字とかな", keep_hanja=True) == "漢字"


def test_remove_urls_override():
    text = "출처: http://news.naver.com/main/read.nhn?oid=001&aid=123 입니다"
    assert clean(text) == "출처: 입니다"
    assert clean(text, remove_urls=False) == text
    # The reference's rule: a scheme is required, so a bare www. address stays.
    assert clean("www.naver.com 참고") == "www.naver.com 참고"
    # ...and a URL glued to Hangul is cut where the reference cuts it.
    assert clean("https://youtu.be/abc123링크") == "링크"


def test_remove_emails_override():
    text = "문의는 kim.minsu+test@naver.com 으로 주세요"
    assert clean(text) == text
    assert clean(text, remove_emails=True) == "문의는 으로 주세요"
    assert clean("메일abc@korea.ac.kr이요", remove_emails=True) == "메일 이요"
    assert clean("골뱅이@ 하나만", remove_emails=True) == "골뱅이@ 하나만"


def test_remove_mentions_override():
    text = "@kim_0123 님 말이 맞아요 @lee.j"
    assert clean(text) == text
    assert clean(text, remove_mentions=True) == "님 말이 맞아요"
    # An e-mail address is not a mention.
    assert clean("연락 kim@naver.com", remove_mentions=True) == "연락 kim@naver.com"
    assert clean("연락 kim@naver.com @park", remove_mentions=True, remove_emails=True) == "연락"


def test_remove_ooo_override():
    text = "이런 OOO 같은 놈이 OOO를 했다"
    assert clean(text) == text
    assert clean(text, remove_ooo=True) == "이런 같은 놈이 를 했다"
    # Only a standalone OOO: not inside a Latin word, not a longer run (which collapses like any repeat).
    assert clean("GOOOD COOOL", remove_ooo=True) == "GOOOD COOOL"
    assert clean("OOOOO", remove_ooo=True) == "OO"
    assert clean("OOO씨", remove_ooo=True) == "씨"


def test_num_repeats_override():
    text = "ㅋㅋㅋㅋㅋㅋ 하하하하 ㅠㅠㅠ"
    assert clean(text) == "ㅋㅋ 하하 ㅠㅠㅠ"  # 3 in a row is left alone, as in soynlp
    assert clean(text, num_repeats=3) == "ㅋㅋㅋ 하하하 ㅠㅠㅠ"
    assert clean(text, num_repeats=1) == "ㅋ 하 ㅠㅠㅠ"
    assert clean(text, num_repeats=0) == text
    assert clean("ㅋㅋㅋㅋ", num_repeats=5) == "ㅋㅋㅋㅋㅋ"  # soynlp pads a run of 4 up to 5 too
    # Only word characters: punctuation runs stay.
    assert clean("대박....!!!!!") == "대박....!!!!!"


def test_nfc_override():
    nfd = unicodedata.normalize("NFD", "맥북에서 쓴 글")
    assert clean(nfd) == "맥북에서 쓴 글"
    assert clean(nfd, nfc=False) == ""  # the reference's Hangul range has no conjoining jamo


def test_tidy_removals_override():
    # Off in the comment presets (the reference leaves the bracket the URL emptied), on in longform.
    text = "경찰민원포탈(https://www.police.go.kr/main.do)에서 신고하세요"
    assert clean(text) == "경찰민원포탈(에서 신고하세요"
    assert clean(text, tidy_removals=True) == "경찰민원포탈에서 신고하세요"
    assert clean(text, preset="longform") == "경찰민원포탈에서 신고하세요"
    assert clean(text, preset="longform", tidy_removals=False) == "경찰민원포탈(에서 신고하세요"
    assert clean("(https://a.com/x) (https://b.com/y) 또한", tidy_removals=True) == "또한"
    # Every removal: e-mail addresses, mentions, OOO, emoji (longform) take their brackets and separators.
    options = {"remove_emails": True, "remove_mentions": True, "remove_ooo": True, "tidy_removals": True}
    assert clean("문의(kim@naver.com, @kim_01)는 여기로", **options) == "문의는 여기로"
    assert clean("이런 [OOO] 같은 말", **options) == "이런 같은 말"
    assert clean("좋아요(😀) 최고 「👍」", preset="longform") == "좋아요 최고"
    # A sentence's own period, comma or bracket is not the URL's; what points at a URL goes with it.
    assert clean("자세한 것은 https://a.com/x.", tidy_removals=True) == "자세한 것은."
    assert clean("원문보기: http://news.donga.com/3/all/1", tidy_removals=True) == "원문보기"
    assert clean("1. http://a.com/1 2. http://b.com/2 3. 기대효과", tidy_removals=True) == "3. 기대효과"
    # A balanced bracket inside a URL is the URL's.
    assert clean("위키 https://en.wikipedia.org/wiki/Foo_(bar) 참고", tidy_removals=True) == "위키 참고"
    # The comment presets' whitelist, tidied: a run a bracket holds alone goes with it, none leaves a space
    # against a bracket; elsewhere a space, as the reference makes it.
    assert clean("공약(公約)으로 수도(首都 서울) 大韓民國 만세") == "공약( )으로 수도( 서울) 만세"
    assert clean("공약(公約)으로 수도(首都 서울) 大韓民國 만세", tidy_removals=True) == "공약으로 수도(서울) 만세"


def test_every_option_has_a_test_above():
    assert set(OPTION_NAMES) == {
        "nfc",
        "whitelist",
        "keep_emoji",
        "keep_hanja",
        "fold_fullwidth",
        "remove_urls",
        "remove_emails",
        "remove_mentions",
        "remove_ooo",
        "num_repeats",
        "repeat_only_hangul",
        "tidy_removals",
    }


# --- longform: edited text keeps every script, no deletion leaves a space inside a word ---------------------


def _petition_sentences() -> list[dict[str, str]]:
    lines = (TESTDATA / "clean" / "petitions_longform.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("row", _petition_sentences(), ids=lambda row: row["petition_idx"])
def test_longform_keeps_what_kcelectra_deletes_on_real_petitions(row):
    assert clean(row["text"]) == row["kcelectra"]
    assert clean(row["text"], preset="longform") == row["longform"]


def _petition_url_sentences() -> list[dict[str, str]]:
    lines = (TESTDATA / "clean" / "petitions_urls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("row", _petition_url_sentences(), ids=lambda row: row["petition_idx"])
def test_longform_url_removal_leaves_no_debris_on_real_petitions(row):
    assert clean(row["text"]) == row["kcelectra"]  # the reference's rule, brackets left behind
    assert clean(row["text"], preset="longform") == row["longform"]
    assert "http" not in row["longform"] and "()" not in row["longform"] and "  " not in row["longform"]


def test_the_url_fixture_shows_the_reference_debris_longform_avoids():
    rows = _petition_url_sentences()
    assert len(rows) == 21
    assert sum("국민신문고(를" in row["kcelectra"] for row in rows) == 2
    assert sum("국민신문고를" in row["longform"] for row in rows) == 2
    debris = re.compile(r"[(\[]\s*[)\]]|\(\s*[를에]|:$")  # petition 511 wrote "접수 ( )" itself
    assert all(len(debris.findall(row["longform"])) <= len(debris.findall(row["text"])) for row in rows)
    assert sum(len(debris.findall(row["kcelectra"])) > len(debris.findall(row["text"])) for row in rows) == 3


@pytest.mark.parametrize(
    ("preset", "tidy"), [("kcelectra", False), ("kcelectra", True), ("kcbert", False), ("longform", True)]
)
def test_traced_cleaning_gives_the_same_text_and_names_what_it_removed(preset, tidy):
    cleaner = make_cleaner(preset, tidy_removals=tidy)
    rows = _petition_sentences() + _petition_url_sentences()
    for text in [row["text"] for row in rows] + ["좋아요😀👍🏻 ㅋㅋㅋㅋㅋ 大韓 \u200e끝"]:
        cleaned, removed = cleaner.traced(text)
        assert cleaned == cleaner(text), text
        assert all(rule in ("url", "whitelist", "repeats", "emoji", "invisible") for rule, _, _ in removed)
    cleaned, removed = make_cleaner("longform").traced("국민신문고(https://www.epeople.go.kr)를 😀 ㅋㅋㅋㅋ")
    assert cleaned == "국민신문고를 ㅋㅋ"
    assert removed == [("emoji", "😀", ""), ("url", "https://www.epeople.go.kr", ""), ("repeats", "ㅋㅋㅋㅋ", "ㅋㅋ")]
    assert make_cleaner().traced("공언(公言)이 http://a.com")[1] == [("whitelist", "公言", " "), ("url", "http://a.com", "")]


def test_the_petition_fixture_shows_kcelectra_damage_longform_avoids():
    rows = _petition_sentences()
    assert sum(row["kcelectra"] != row["longform"] for row in rows) == len(rows)
    # kcelectra detaches particles ("장소 이고") and empties brackets ("공약( )으로"); longform does neither.
    assert any(" 이고 " in row["kcelectra"] for row in rows) and any("( )" in row["kcelectra"] for row in rows)
    assert not any(" 이고 " in row["longform"] or "( )" in row["longform"] for row in rows)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("믿어 달라”고 했다", "믿어 달라”고 했다"),
        ("공언(公言)이 있었다", "공언(公言)이 있었다"),
        ("①,② 생략 ※ 참고", "①,② 생략 ※ 참고"),
        ("김○○ 씨와 ***님, OOOO 님", "김○○ 씨와 ***님, OOOO 님"),
        # Full-width ASCII folds; its digits survive (kcelectra turns every one into a space).
        ("제１２３조 ２０１７년 ＡＢＣ！ ￦５００", "제123조 2017년 ABC! ₩500"),
        # Repeats: Hangul only; digits and Latin runs are data.
        ("10000원 ㅋㅋㅋㅋㅋ AAAA 배터리 ㅠㅠㅠㅠ", "10000원 ㅋㅋ AAAA 배터리 ㅠㅠ"),
        # Pictographs, their joiner and selector deleted (no space left in the word); BMP symbols stay.
        ("좋아요😀👍🏻 최고❤️ ♥ 서울↔부산 👨‍👩‍👧가족", "좋아요 최고❤ ♥ 서울↔부산 가족"),
        ("달라\u200e”고 \u00ad했다\x01", "달라”고 했다"),
        ("줄\u200b바꿈\ufeff없음\t탭\n줄", "줄 바꿈 없음 탭 줄"),
        ("자세한 건 https://www.naver.com/a?b=1 참고", "자세한 건 참고"),
        ("𠀀 확장B 漢字とかな Кириллица", "𠀀 확장B 漢字とかな Кириллица"),
    ],
)
def test_longform_preset(text, expected):
    assert clean(text, preset="longform") == expected


def test_longform_overrides():
    assert clean("좋아요😀 굿", preset="longform", keep_emoji=True) == "좋아요😀 굿"
    assert clean("ＡＢＣ", preset="longform", fold_fullwidth=False) == "ＡＢＣ"
    assert clean("10000원 ㅋㅋㅋㅋ", preset="longform", repeat_only_hangul=False) == "100원 ㅋㅋ"
    assert clean("ㅋㅋㅋㅋ", preset="longform", num_repeats=0) == "ㅋㅋㅋㅋ"
    assert clean("https://a.com 참고", preset="longform", remove_urls=False) == "https://a.com 참고"
    # The whitelist presets take the folding and the Hangul-only repeats too.
    assert clean("제１２３조 10000원", fold_fullwidth=True, repeat_only_hangul=True) == "제123조 10000원"
    assert make_cleaner("longform").single_spaced


def test_longform_is_nfc_and_idempotent():
    nfd = unicodedata.normalize("NFD", "맥북에서 쓴 “글”이다")
    assert clean(nfd, preset="longform") == "맥북에서 쓴 “글”이다"
    for row in _petition_sentences():
        once = clean(row["text"], preset="longform")
        assert clean(once, preset="longform") == once


def test_longform_one_pass_test_agrees_with_the_plain_rules():
    """The compiled pre-test (`replace_outside` over the ordinary code points) skips exactly the texts the
    plain regexes would leave alone."""
    from kcorpus.transforms.text import clean as module

    deleted = module._FORMAT_RANGES + module._PICTOGRAPH_RANGES
    deleted_rx = re.compile(f"[{module._char_class(deleted)}]+")

    def reference(text: str) -> str:
        text = deleted_rx.sub("", text).replace("\u200b", " ").replace("\ufeff", " ")
        text = unicodedata.normalize("NFC", text.translate(module._FULLWIDTH_TABLE))
        text = module._URL.sub("", text)
        text = re.sub(r"([가-힣ㄱ-ㆎ])\1{3,}", lambda m: m.group(1) * 2, text)
        return " ".join(text.split())

    alphabet = [*_ALPHABET, "공", "言", "“", "”", "①", "※", "○", "Ａ", "１", "￦", "\u200b", "\ufeff", "\u200e",
                "\u00ad", "\x01", "\x9f", "\ue000", "\U000f0854", "\u200d", "\ufe0f", "👍🏻", "❤", "http://a.com "]
    rng = random.Random(7)
    cleaner = make_cleaner("longform", tidy_removals=False)  # the plain rules delete, they do not tidy
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) * rng.choice((1, 1, 2, 4)) for _ in range(rng.randint(0, 10)))
        assert cleaner(text) == reference(text), repr(text)
        assert cleaner(text) == collapse_hspace(cleaner(text)).strip(), repr(text)


def test_make_cleaner_equals_clean():
    cleaner = make_cleaner("kcbert", remove_ooo=True, num_repeats=3)
    text = "OOO 진짜ㅋㅋㅋㅋㅋ😀"
    assert cleaner(text) == clean(text, preset="kcbert", remove_ooo=True, num_repeats=3) == "진짜ㅋㅋㅋ😀"
    assert make_cleaner()(text) == clean(text) == "OOO 진짜ㅋㅋ"


def test_unknown_preset_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown clean preset 'kcbert2'; valid presets: kcbert, kcelectra, longform"):
        clean("텍스트", preset="kcbert2")
    with pytest.raises(ValueError, match="valid presets: kcbert, kcelectra, longform"):
        make_cleaner("KcELECTRA")


def test_unknown_option_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown clean option\(s\) 'keep_emojis'; valid options: nfc, "):
        clean("텍스트", keep_emojis=True)
    with pytest.raises(ValueError, match="'lowercase', 'remove_html'"):
        make_cleaner("kcelectra", remove_html=True, lowercase=True)


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"keep_emoji": "yes"}, TypeError, "keep_emoji must be a bool, got str"),
        ({"keep_emoji": 1}, TypeError, "keep_emoji must be a bool, got int"),
        ({"num_repeats": 2.0}, TypeError, "num_repeats must be an int, got float"),
        ({"num_repeats": True}, TypeError, "num_repeats must be an int, got bool"),
        ({"num_repeats": -1}, ValueError, "num_repeats must be >= 0"),
        ({"remove_urls": ["x"]}, TypeError, "remove_urls must be a bool, got list"),
    ],
)
def test_bad_option_values(overrides, error, message):
    with pytest.raises(error, match=re.escape(message)):
        clean("텍스트", **overrides)
    with pytest.raises(error, match=re.escape(message)):
        make_cleaner("kcelectra", **overrides)


def test_the_option_cache_does_not_confuse_true_and_1():
    assert clean("😀", keep_emoji=True) == "😀"
    with pytest.raises(TypeError):
        clean("😀", keep_emoji=1)


def test_resolve_options_applies_overrides_to_the_preset():
    assert resolve_options("kcbert", num_repeats=3) == CleanOptions(keep_emoji=True, num_repeats=3)


def test_emoji_table_is_emoji_1_2_0():
    emoji = pytest.importorskip("emoji")
    if emoji.__version__ != "1.2.0":
        pytest.skip(f"emoji {emoji.__version__} installed; the table is of 1.2.0")
    expected = {ord(c) for by_lang in emoji.UNICODE_EMOJI.values() for key in by_lang for c in key}
    table = {cp for start, end in EMOJI_1_2_0_RANGES for cp in range(start, end + 1)}
    assert table == expected
    assert len(table) == 1380


def test_whitelists():
    def kept(options):
        return {cp for start, end in whitelist_ranges(options) for cp in range(start, end + 1)}

    kcelectra = kept(PRESETS["kcelectra"])
    assert len(kcelectra) == 128 + 3 + 51 + 11172
    assert {ord(c) for c in "％·∼ㄱㅣ가힣"} <= kcelectra
    assert not {ord(c) for c in "ㆍᄀ丁♥…"} & kcelectra
    assert kept(PRESETS["kcbert"]) > kcelectra
    assert ord("丁") in kept(CleanOptions(keep_hanja=True))


# --- repeat_normalize: soynlp's semantics --------------------------------------------------------------

_ALPHABET = [
    "ㅋ",
    "ㅎ",
    "가",
    "a",
    "A",
    "1",
    "_",
    "ℹ",
    "😀",
    ".",
    "!",
    " ",
    "\t",
    "\n",
    "\x1c",
    "\u3000",
    "\x85",
]


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces = [
            rng.choice(_ALPHABET) * rng.choice((1, 1, 2, 3, 4, 5, 9)) for _ in range(rng.randint(0, 12))
        ]
        texts.append("".join(pieces))
    return texts


@pytest.mark.parametrize("num_repeats", [-1, 0, 1, 2, 3, 5])
def test_repeat_normalize_matches_soynlp_on_random_texts(num_repeats):
    soynlp = pytest.importorskip("soynlp.normalizer")
    for text in _random_texts(3000, seed=num_repeats + 10):
        assert repeat_normalize(text, num_repeats) == soynlp.repeat_normalize(text, num_repeats), text


def test_repeat_normalize_examples():
    assert repeat_normalize("와아아아아 ㅋㅋㅋㅋㅋ") == "와아아 ㅋㅋ"  # 아 x4 -> 아 x2
    assert repeat_normalize("__________") == "__"
    assert repeat_normalize("2000000원") == "200원"  # digits are word characters: soynlp does this too
    assert repeat_normalize("  a  \t b  ") == "a b"


def test_str_split_whitespace_is_re_whitespace():
    # repeat_normalize relies on this: " ".join(s.split()) == re.sub(r"\s+", " ", s).strip()
    space = re.compile(r"\s")
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        assert bool(space.match(ch)) == ch.isspace(), hex(cp)


# --- linear time (sizes only; the timing is in bench/bench_clean.py) ------------------------------------


def test_adversarial_inputs_give_the_expected_text():
    cleaner = make_cleaner("kcelectra", remove_emails=True, remove_mentions=True, remove_ooo=True)
    assert cleaner("http://" + "a." * 100_000) == ""
    assert cleaner("a." * 100_000 + "@") == "a." * 100_000 + "@"
    assert cleaner("@" + "a." * 100_000) == "."
    assert cleaner("ㅋ" * 1_000_000) == "ㅋㅋ"
    bad_url = "http://" + "a.b_" * 64 + " "
    assert cleaner(bad_url * 1000) == " ".join([bad_url.strip()] * 1000)
    # Tidy removals: a URL's trailing brackets and periods are trimmed in one walk, nested pairs widened once.
    tidy = make_cleaner("longform")
    assert tidy("가 http://a.com/" + ")" * 200_000 + " 나") == "가" + ")" * 200_000 + " 나"
    assert tidy("가 http://a.com/" + "." * 200_000) == "가" + "." * 200_000
    assert tidy("가" + "(" * 100_000 + "http://a.com" + ")" * 100_000 + "나") == "가나"
    assert tidy("가 " + "http://a.com, " * 50_000 + "나") == "가, 나"


@pytest.mark.parametrize("value", [None, b"\xea\xb5\xb3 \xe3\x85\x8b", 3])
def test_clean_of_a_non_string_is_a_clear_type_error(value):
    with pytest.raises(TypeError, match=f"^clean\\(\\) takes a str, got {type(value).__name__}$"):
        clean(value)
