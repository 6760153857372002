"""Preparation rewrites: control characters, masks and punctuation runs, on real lines."""

import pytest

from kcorpus.transforms.text.clean import clean
from kcorpus.transforms.text.rewrites import remove_control_chars, rewrite_masks, squeeze_punctuation


def test_control_characters_are_removed_tabs_and_newlines_stay():
    assert remove_control_chars("가\x00나\x08다\x7f라\x85\x9f마") == "가나다라\x85마"  # NEL is a line break
    assert remove_control_chars("\x1b[31m빨강\x1b[0m 글씨") == "빨강 글씨"
    assert remove_control_chars("열\x1f하나\t둘\n셋") == "열 하나\t둘\n셋"
    line = "너무 재밌어요 ㅋㅋ"
    assert remove_control_chars(line) is line


def test_clean_itself_keeps_control_characters_byte_identical_to_the_reference():
    assert (
        clean("가\x00나") == "가\x00나"
    )  # the reference's whitelist is all of ASCII: preparation removes it


@pytest.mark.parametrize(
    ("text", "removed", "replaced"),
    [
        ("OOOO 네 글자", "  네 글자", "OOO 네 글자"),
        ("OOO 네 글자", "  네 글자", "OOO 네 글자"),
        ("진짜 OO같은거야", "진짜  같은거야", "진짜 OOO같은거야"),
        ("평가과 ***씨에게 처리배정", "평가과  씨에게 처리배정", "평가과 OOO씨에게 처리배정"),
        ("김**라는분에게 집을 산", "김 라는분에게 집을 산", "김OOO라는분에게 집을 산"),
        ("서비스과 ○○○님께!!", "서비스과  님께!!", "서비스과 OOO님께!!"),
        ("http://m.********", "http://m. ", "http://m.OOO"),
        ("GOOD BIGFOOT ^^* 별점 *", "GOOD BIGFOOT ^^* 별점 *", "GOOD BIGFOOT ^^* 별점 *"),
    ],
)
def test_masks_are_handled_alike_whatever_their_length(text, removed, replaced):
    assert rewrite_masks(text, "keep") == text
    assert rewrite_masks(text, "remove") == removed
    assert rewrite_masks(text, "replace", "OOO") == replaced


def test_removed_masks_do_not_depend_on_run_length_after_cleaning():
    assert (
        clean(rewrite_masks("OOOO 네 글자", "remove"))
        == clean(rewrite_masks("OOO 네 글자", "remove"))
        == "네 글자"
    )
    assert clean("OOOO 네 글자", remove_ooo=True) == "OO 네 글자"  # why masks are handled before clean()


def test_punctuation_runs_are_squeezed():
    assert (
        squeeze_punctuation("뭘 했길래...................... 입술이........", 3) == "뭘 했길래... 입술이..."
    )
    assert squeeze_punctuation("긋~!!!!!!!!!!!!!!!!!", 3) == "긋~!!!"
    assert (
        squeeze_punctuation("하.,.,.,.,.,.,.", 3) == "하.,.,.,.,.,.,."
    )  # alternating: not one character's run
    assert (
        squeeze_punctuation("ㅋㅋㅋㅋㅋ 1000000원", 3) == "ㅋㅋㅋㅋㅋ 1000000원"
    )  # letters and digits: clean()'s job
    assert squeeze_punctuation("......", 0) == "......"


def test_a_placeholder_glued_to_a_number_is_rewritten_too():
    """kowiki `AG/wiki_77` (read 12 of issue 30): `10m~20formula_1정도` kept its placeholder."""
    from kcorpus.transforms.text.rewrites import rewrite_placeholders

    assert rewrite_placeholders("평균 면적이 10m~20formula_1정도이다.", "replace") == "평균 면적이 10m~20[수식]정도이다."
