"""The WordPiece alphabet by coverage (issue 42): rare characters cut, every Hangul syllable kept, `##` forms
only where characters continue words; a tiny corpus with rare characters, trained twice, gives the same bytes."""

import json
import subprocess
import sys
from collections import Counter

import pytest

from kcorpus.transforms.vocab.alphabet import (
    ALONE,
    REMOVED,
    SPACE,
    WORD,
    char_class,
    choose_alphabet,
    is_always_kept,
)

# 30 sentences: common Hangul and Latin, a Hanja gloss, and characters that occur once (龜, ж, ☆, 뷁).
TINY = [
    "한국어 문장을 여기에 씁니다.",
    "핵반응(核反應)은 원자핵의 반응이다.",
    "거북(龜)은 파충류이다.",
    "러시아어 жук 단어와 별☆ 표시.",
    "뷁 하고 웃었다.",
] + [f"한국어 문장 {i}번째를 여기에 또 씁니다 abc." for i in range(25)]


def test_char_class_follows_bert_normalizer_and_pre_tokenizer():
    assert [char_class(c) for c in " 가a.(核\u1100\u200b\ue000"] == [
        SPACE, WORD, WORD, ALONE, ALONE, ALONE, ALONE, REMOVED, REMOVED]  # fmt: skip


def test_coverage_cuts_rare_characters_and_keeps_every_hangul_syllable():
    counts = Counter("".join(TINY))
    full = choose_alphabet(counts, coverage=1.0)
    cut = choose_alphabet(counts, coverage=0.98)  # 8 characters occur once in 580
    rare = {c for c, n in counts.items() if n == 1 and not c.isspace()}
    assert {"龜", "ж", "☆", "뷁"} <= rare <= set(full.characters)
    assert not ({"龜", "ж", "☆"} & set(cut.characters))
    assert "뷁" in cut.characters  # a Hangul syllable seen once stays
    assert {c for c in counts if "가" <= c <= "힣"} <= set(cut.characters)
    assert cut.coverage >= 0.98 and full.coverage == 1.0 and cut.cut == 8
    assert cut.cut == len(full.characters) - len(cut.characters) > 0
    assert cut.total == full.total == sum(n for c, n in counts.items() if not c.isspace())


def test_ties_at_the_cut_break_by_code_point():
    counts = {"ж": 10, "у": 1, "к": 1}
    assert choose_alphabet(counts, coverage=10.5 / 12).characters == ("ж", "к")


def test_coverage_keeps_ascii_and_punctuation_seen_once():
    counts = Counter({"가": 996, "Z": 1, "“": 1, "、": 1, "核": 1, "☆": 1})
    assert choose_alphabet(counts, coverage=0.99).characters == ("Z", "“", "、", "가")
    assert [is_always_kept(c) for c in "Z~“、가核☆ж"] == [True] * 5 + [False] * 3


def test_limit_replaces_coverage():
    counts = Counter("".join(TINY))
    ranked = sorted((c for c in counts if not c.isspace()), key=lambda c: (-counts[c], c))
    hangul = {c for c in counts if "가" <= c <= "힣"}
    assert set(choose_alphabet(counts, limit=5).characters) == set(ranked[:5]) | hangul


def test_continuation_forms_for_every_character_bert_does_not_split_off():
    alphabet = choose_alphabet(Counter("".join(TINY)), coverage=1.0)
    forms = set(alphabet.continuations)
    assert {c for c in alphabet.characters if "가" <= c <= "힣"} <= forms
    assert {"a", "ж", "☆", "1"} <= forms  # ☆ is a symbol, not punctuation: `별☆` is one word
    assert not ({"核", "(", "."} & forms)


def _train(out, *extra):
    subprocess.run([sys.executable, "-m", "kcorpus.pipeline.cli", "train-vocab", "--kind", "wordpiece",
                    "--vocab-size", "300", "--input", str(out.parent / "tiny.txt"), "--out", str(out), "--quiet",
                    *extra], check=True, capture_output=True)  # fmt: skip
    return {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")}


@pytest.mark.slow
def test_train_vocab_cuts_rare_characters_keeps_syllables_and_repeats_its_bytes(tmp_path):
    (tmp_path / "tiny.txt").write_text("\n".join(TINY) + "\n", encoding="utf-8")
    first = _train(tmp_path / "a", "--character-coverage", "0.98", "--max-sentences", "20", "--seed", "3")
    second = _train(tmp_path / "b", "--character-coverage", "0.98", "--max-sentences", "20", "--seed", "3")
    assert first == second  # manifest.json too: it names no time or folder
    vocab = set(first["vocab.txt"].decode("utf-8").split("\n"))
    manifest = json.loads(first["manifest.json"])
    assert not ({"龜", "ж", "☆"} & vocab)
    # every Hangul syllable of the sample encodes alone and inside a word (the check), rare ones included
    assert manifest["checks"]["passed"] and manifest["checks"]["unencodable_syllables"] == ""
    assert manifest["checks"]["sample_hangul_syllables"] == 31
    assert manifest["alphabet"]["coverage"] >= 0.98 and manifest["alphabet"]["cut_characters"] > 0
    assert manifest["unk_rate"]["sentences"] == 20 and manifest["config"]["character_coverage"] == 0.98
    assert _train(tmp_path / "c", "--max-sentences", "20", "--seed", "4")["vocab.txt"] != first["vocab.txt"]
