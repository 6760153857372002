"""Merging the two real vocabularies: KcBERT (base) + KoELECTRA v1, as KcELECTRA did."""

import json
import re

import pytest

from kcorpus.pipeline.cli import main as cli
from kcorpus.transforms.vocab.files import read_vocab_txt
from kcorpus.transforms.vocab.merge import merge_vocabs, to_wordpiece_convention
from testdata_paths import TESTDATA

VOCABS = TESTDATA / "vocabs"
KCBERT = VOCABS / "kcbert" / "vocab.txt"
KOELECTRA = VOCABS / "koelectra_v1" / "vocab.txt"


def _plain_lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def test_merge_keeps_base_ids_and_appends_missing_tokens_in_other_order(tmp_path):
    assert cli(["vocab-merge", str(KCBERT), str(KOELECTRA), "--out", str(tmp_path)]) == 0
    kcbert, koelectra = _plain_lines(KCBERT), _plain_lines(KOELECTRA)
    special = re.compile(r"^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$")
    seen = set(kcbert)
    expected_tail = []
    for token in koelectra:
        if not special.match(token) and token not in seen:
            seen.add(token)
            expected_tail.append(token)
    merged = read_vocab_txt(str(tmp_path / "vocab.txt"))
    assert merged == kcbert + expected_tail
    assert len(merged) == 45558 and len(set(merged)) == len(merged)
    assert [t for t in merged if special.match(t)] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    counts = json.loads((tmp_path / "manifest.json").read_text())["merge"]
    assert counts["appended"] == 15558 == len(expected_tail)
    assert counts["skipped_special"] == 205
    assert counts["skipped_present"] == 32200 - 205 - 15558


def test_merged_dir_loads_in_transformers_with_base_ids(tmp_path):
    from transformers import AutoTokenizer

    assert cli(["vocab-merge", str(KCBERT), str(KOELECTRA), "--out", str(tmp_path)]) == 0
    merged = AutoTokenizer.from_pretrained(str(tmp_path))
    assert len(merged) == 45558 and merged.mask_token_id == 4
    kcbert = _plain_lines(KCBERT)
    for token in ("영화", "##다", "ㅋㅋ"):
        assert merged.convert_tokens_to_ids(token) == kcbert.index(token)
    appended = _plain_lines(KOELECTRA)[5:]
    new = next(t for t in appended if t not in set(kcbert) and not t.startswith("["))
    assert merged.convert_tokens_to_ids(new) >= 30000


def test_sentencepiece_other_is_converted_to_wordpiece_spelling():
    assert to_wordpiece_convention("▁영화") == "영화"
    assert to_wordpiece_convention("는") == "##는"
    assert to_wordpiece_convention("▁") is None and to_wordpiece_convention("<0xEA>") is None
    result = merge_vocabs(["[PAD]", "[UNK]", "영화"], ["[UNK]", "▁영화", "는", "▁", "<0x41>", "▁보다", "는"],
                          other_is_sentencepiece=True)
    assert result.tokens == ["[PAD]", "[UNK]", "영화", "##는", "보다"]
    assert (result.appended, result.skipped_special, result.skipped_present, result.skipped_unconvertible) == (
        2, 1, 2, 2)


def test_sentencepiece_base_is_refused_clearly(tmp_path, capsys):
    spm_dir = tmp_path / "spm"
    text = TESTDATA / "vocab" / "nsmc_petitions.txt"
    assert cli(["train-vocab", "--kind", "sentencepiece", "--vocab-size", "2500", "--input", str(text),
                "--out", str(spm_dir), "--quiet"]) == 0
    assert cli(["vocab-merge", str(spm_dir), str(KCBERT), "--out", str(tmp_path / "m")]) == 2
    assert "BASE must be a WordPiece vocabulary" in capsys.readouterr().err
    assert cli(["vocab-merge", str(KCBERT), str(spm_dir), "--out", str(tmp_path / "m2")]) == 0
    merged = read_vocab_txt(str(tmp_path / "m2" / "vocab.txt"))
    assert merged[:30000] == _plain_lines(KCBERT) and len(merged) > 30000


def test_missing_vocab_is_a_clear_error(tmp_path, capsys):
    assert cli(["vocab-merge", str(tmp_path / "none.txt"), str(KCBERT), "--out", str(tmp_path / "m")]) == 2
    assert "no vocabulary at" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["[PAD]\n[UNK]\n가\n가\n"])
def test_duplicate_tokens_are_refused(tmp_path, bad, capsys):
    path = tmp_path / "vocab.txt"
    path.write_text(bad, encoding="utf-8")
    assert cli(["vocab-merge", str(path), str(KCBERT), "--out", str(tmp_path / "m")]) == 2
    assert "duplicate" in capsys.readouterr().err
