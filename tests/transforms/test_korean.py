"""The one owner of Hangul ranges, OOO masks and special tokens: each fact checked against Unicode itself."""

import unicodedata

from kcorpus.transforms import korean


def test_syllable_range_is_exactly_the_precomposed_hangul_block():
    syllables = korean.all_syllables()
    assert len(syllables) == 11172 and syllables[0] == "가" and syllables[-1] == "힣"
    assert all(unicodedata.name(c).startswith("HANGUL SYLLABLE") for c in syllables[::97])
    assert korean.is_hangul_syllable("한") and not korean.is_hangul_syllable("ㅎ")
    assert not korean.is_hangul_syllable("\uabff") and not korean.is_hangul_syllable("\ud7a4")


def test_character_classes_match_their_ranges():
    first, last = korean.COMPATIBILITY_JAMO
    assert korean.COMPATIBILITY_JAMO_CLASS == f"{chr(first)}-ㅎㅏ-{chr(last)}"
    assert korean.HANGUL_SYLLABLE_CLASS == "-".join(chr(c) for c in korean.HANGUL_SYLLABLES)
    assert korean.HANGUL_LETTER_CLASS.startswith(korean.HANGUL_SYLLABLE_CLASS)


def test_conjoining_jamo_is_what_nfd_makes_of_syllables():
    decomposed = unicodedata.normalize("NFD", "한글")
    assert len(decomposed) == 6 and all(korean.is_conjoining_jamo(c) for c in decomposed)
    assert not any(korean.is_conjoining_jamo(c) for c in "한글ㅎㄱ")


def test_syllables_with_final_b_are_the_formal_endings():
    b_final = korean.syllables_with_final(17)
    assert len(b_final) == 11172 // 28
    assert {"습", "갑", "합", "입"} <= set(b_final) and "니" not in b_final


def test_the_two_ooo_masks_mean_different_things():
    assert korean.NAVER_OOO_MASK.sub(" ", "OOO 씨가 GOOOD OOOO") == "  씨가 GOOOD OOOO"
    assert korean.MASK_RUNS.findall("OOO GOOOD ○○○○") == ["OOO", "○○○○"]


def test_mask_runs_find_every_mask_of_any_length_and_nothing_else():
    text = "OOO OO같은 OOOO기 GOOD BIGFOOT 김○○ ***씨 김**라는 chhy**** ^^* *가장 O형"
    assert korean.MASK_RUNS.findall(text) == ["OOO", "OO", "OOOO", "○○", "***", "**", "****"]


def test_special_tokens_in_id_order():
    assert korean.SPECIAL_TOKENS == (korean.PAD, korean.UNK, korean.CLS, korean.SEP, korean.MASK)
    assert korean.SPECIAL_TOKENS == ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
