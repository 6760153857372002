"""Merging the two real vocabularies: KcBERT (base) + KoELECTRA v1, as KcELECTRA did."""

import itertools
import json
import re

import pytest

from kcorpus.pipeline.cli import main as cli
from kcorpus.transforms.vocab.files import read_vocab_txt
from kcorpus.transforms.vocab.merge import merge_vocabs, to_sentencepiece_convention, to_wordpiece_convention
from kcorpus.transforms.vocab.spm_model import append_pieces, bpe_reachable
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


def test_wordpiece_base_takes_a_sentencepiece_other(tmp_path, spm_base):
    assert cli(["vocab-merge", str(KCBERT), str(spm_base["unigram"]), "--out", str(tmp_path / "m2")]) == 0
    merged = read_vocab_txt(str(tmp_path / "m2" / "vocab.txt"))
    assert merged[:30000] == _plain_lines(KCBERT) and len(merged) > 30000


TEXT = TESTDATA / "vocab" / "nsmc_petitions.txt"


@pytest.fixture(scope="module")
def spm_base(tmp_path_factory):
    """SentencePiece vocabs of 2,500 pieces trained on the test slice, unigram and BPE."""
    dirs = {}
    for model_type in ("unigram", "bpe"):
        out = tmp_path_factory.mktemp(f"spm-{model_type}")
        assert cli(["train-vocab", "--kind", "sentencepiece", "--model-type", model_type, "--vocab-size", "2500",
                    "--input", str(TEXT), "--out", str(out), "--quiet"]) == 0
        dirs[model_type] = out
    return dirs


def _spm_vocab(path):
    return [(piece, float(score)) for piece, score in (line.split("\t") for line in _plain_lines(path))]


def test_wordpiece_spelled_as_sentencepiece():
    assert to_sentencepiece_convention("영화") == "▁영화"
    assert to_sentencepiece_convention("##는") == "는"
    assert to_sentencepiece_convention("<0xEA>") is None
    result = merge_vocabs(["[PAD]", "[UNK]", "▁영화", "는"], ["[UNK]", "영화", "##는", "보다", "##다", "<0x41>"],
                          base_is_sentencepiece=True)
    assert result.tokens == ["[PAD]", "[UNK]", "▁영화", "는", "▁보다", "다"]
    assert (result.appended, result.skipped_special, result.skipped_present, result.skipped_unconvertible) == (
        2, 1, 2, 1)
    both = merge_vocabs(["[UNK]", "▁영화"], ["▁영화", "는", "▁"], other_is_sentencepiece=True,
                        base_is_sentencepiece=True)
    assert both.tokens == ["[UNK]", "▁영화", "는", "▁"] and both.converted == 0


def test_unigram_base_keeps_its_pieces_and_scores_and_appends_below_the_lowest(tmp_path, spm_base):
    import sentencepiece as spm
    from transformers import AutoTokenizer

    base = spm_base["unigram"]
    out = tmp_path / "merged"
    assert cli(["vocab-merge", str(base), str(KCBERT), "--out", str(out)]) == 0
    base_vocab, merged_vocab = _spm_vocab(base / "spm.vocab"), _spm_vocab(out / "spm.vocab")
    assert merged_vocab[:2500] == base_vocab
    expected_tail = merge_vocabs([p for p, _ in base_vocab], _plain_lines(KCBERT), base_is_sentencepiece=True)
    assert [p for p, _ in merged_vocab] == expected_tail.tokens
    lowest = min(score for piece, score in base_vocab[5:])
    scores = [score for _, score in merged_vocab[2500:]]
    assert scores[0] == pytest.approx(lowest - 0.001, abs=1e-4) and all(a > b for a, b in itertools.pairwise(scores))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "sentencepiece" and manifest["merge"]["appended"] == len(merged_vocab) - 2500
    assert manifest["merge"]["size"] == len(merged_vocab) == 30315

    sp = spm.SentencePieceProcessor(model_file=str(out / "spm.model"))
    auto = AutoTokenizer.from_pretrained(str(out))
    assert sp.get_piece_size() == len(auto) == 30315 and auto.mask_token_id == 4
    # 코로나 and 뷁 are not in the slice: the base spells them with [UNK], the merge with KcBERT's pieces
    text = "코로나 때문에 영화관 못 가서 뷁"
    base_sp = spm.SentencePieceProcessor(model_file=str(base / "spm.model"))
    assert 1 in base_sp.encode(text)
    assert auto.tokenize(text)[0] == "▁코로나" and auto.convert_tokens_to_ids("▁코로나") >= 2500
    assert "▁뷁" in auto.tokenize(text) and auto.unk_token_id not in auto(text)["input_ids"]
    sentences = _plain_lines(TEXT)[:300] + [text]
    assert [auto(x, add_special_tokens=False)["input_ids"] for x in sentences] == [sp.encode(x) for x in sentences]
    assert auto.decode(auto(text, add_special_tokens=False)["input_ids"]) == text


def test_bpe_base_appends_only_pieces_its_merges_can_build(tmp_path, spm_base):
    import sentencepiece as spm
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    out = tmp_path / "merged"
    assert cli(["vocab-merge", str(spm_base["bpe"]), str(KCBERT), "--out", str(out)]) == 0
    counts = json.loads((out / "manifest.json").read_text())["merge"]
    pieces = [p for p, _ in _spm_vocab(out / "spm.vocab")]
    appended = pieces[2500:]
    assert counts["appended"] == len(appended) and counts["skipped_unreachable"] > 0
    assert bpe_reachable(pieces[:2500], appended) == appended
    sp = spm.SentencePieceProcessor(model_file=str(out / "spm.model"))
    raw = Tokenizer.from_file(str(out / "tokenizer.json"))
    auto = AutoTokenizer.from_pretrained(str(out))
    sentences = _plain_lines(TEXT)[:300] + ["코로나 백신 접종 뷁"]
    assert [raw.encode(x, add_special_tokens=False).ids for x in sentences] == [sp.encode(x) for x in sentences]
    assert [auto(x, add_special_tokens=False)["input_ids"] for x in sentences] == [sp.encode(x) for x in sentences]
    assert any(i >= 2500 for x in sentences for i in sp.encode(x))


def test_append_pieces_and_bpe_reachability_on_small_cases(spm_base):
    import sentencepiece as spm

    proto = (spm_base["unigram"] / "spm.model").read_bytes()
    merged = append_pieces(proto, ["▁뷁뷁", "쀍"])
    sp = spm.SentencePieceProcessor(model_proto=merged)
    assert [sp.id_to_piece(i) for i in (2500, 2501)] == ["▁뷁뷁", "쀍"]
    assert sp.get_score(2500) > sp.get_score(2501) and sp.get_score(2500) < min(
        sp.get_score(i) for i in range(5, 2500))
    assert sp.encode("뷁뷁 쀍", out_type=str) == ["▁뷁뷁", "▁", "쀍"]
    with pytest.raises(ValueError, match="present"):
        append_pieces(proto, ["[UNK]"])
    assert bpe_reachable(["▁", "가", "나"], ["▁가", "▁가나", "다라", "다", "▁가다"]) == ["▁가", "▁가나", "다", "▁가다"]


def test_single_jamo_may_be_appended_but_decomposed_tokens_are_refused(tmp_path, capsys):
    genuine = tmp_path / "genuine.txt"
    genuine.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nᆢ\nᄏ\n영화\n", encoding="utf-8")
    assert cli(["vocab-merge", str(KCBERT), str(genuine), "--out", str(tmp_path / "ok")]) == 0
    assert read_vocab_txt(str(tmp_path / "ok" / "vocab.txt"))[30000:] == ["ᆢ", "ᄏ"]
    decomposed = tmp_path / "decomposed.txt"
    decomposed.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nᄒ\n##ᅡᆫ\n", encoding="utf-8")
    assert cli(["vocab-merge", str(KCBERT), str(decomposed), "--out", str(tmp_path / "no")]) == 2
    assert ("1 tokens of OTHER contain conjoining jamo in several characters (decomposed text), e.g. "
            r"##\u1161\u11ab; pass --allow-jamo") in capsys.readouterr().err
    assert cli(["vocab-merge", str(KCBERT), str(decomposed), "--out", str(tmp_path / "no"), "--allow-jamo"]) == 0


def test_missing_vocab_is_a_clear_error(tmp_path, capsys):
    assert cli(["vocab-merge", str(tmp_path / "none.txt"), str(KCBERT), "--out", str(tmp_path / "m")]) == 2
    assert "no vocabulary at" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["[PAD]\n[UNK]\n가\n가\n"])
def test_duplicate_tokens_are_refused(tmp_path, bad, capsys):
    path = tmp_path / "vocab.txt"
    path.write_text(bad, encoding="utf-8")
    assert cli(["vocab-merge", str(path), str(KCBERT), "--out", str(tmp_path / "m")]) == 2
    assert "duplicate" in capsys.readouterr().err


@pytest.fixture(scope="module")
def stock_spm(tmp_path_factory):
    """Stock SentencePiece models (sentencepiece's own defaults: `<unk> <s> </s>`, as KoBERT's has), unigram
    and BPE, trained on the test slice."""
    import sentencepiece as spm

    out = tmp_path_factory.mktemp("stock")
    models = {}
    for model_type in ("unigram", "bpe"):
        prefix = out / model_type
        spm.SentencePieceTrainer.train(input=str(TEXT), model_prefix=str(prefix), vocab_size=2000,
                                       model_type=model_type, character_coverage=0.9995, num_threads=1,
                                       minloglevel=2)
        models[model_type] = prefix.with_suffix(".model")
    return models


@pytest.mark.slow
@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_a_stock_sentencepiece_base_gets_bert_specials_with_a_notice(tmp_path, stock_spm, model_type, capsys):
    import sentencepiece as spm
    from transformers import AutoTokenizer

    from kcorpus.transforms.pack.tokenize import special_ids, tokenizer_from_bytes

    stock = spm.SentencePieceProcessor(model_file=str(stock_spm[model_type]))
    assert [stock.id_to_piece(i) for i in range(3)] == ["<unk>", "<s>", "</s>"]
    out = tmp_path / "merged"
    assert cli(["vocab-merge", str(stock_spm[model_type]), str(KCBERT), "--out", str(out)]) == 0
    notice = capsys.readouterr().err.splitlines()[0]
    assert notice == (f"kcorpus vocab-merge: notice: {stock_spm[model_type]} lacks BERT's special tokens: its unknown "
                      "piece <unk> is now [UNK] (same id); [PAD] [CLS] [SEP] [MASK] appended after its pieces")
    merged = spm.SentencePieceProcessor(model_file=str(out / "spm.model"))
    # the base's ids and scores stay; [UNK] is the unknown piece at <unk>'s id; the specials follow the base
    assert merged.id_to_piece(0) == "[UNK]" and merged.unk_id() == 0 and merged.is_unknown(0)
    assert all(merged.id_to_piece(i) == stock.id_to_piece(i) and merged.get_score(i) == stock.get_score(i)
               for i in range(1, 2000))
    assert [merged.id_to_piece(i) for i in range(2000, 2004)] == ["[PAD]", "[CLS]", "[SEP]", "[MASK]"]
    assert merged.is_control(2000) and merged.encode("[MASK]", out_type=str)[-1] == "[MASK]"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["merge"]["added_specials"] == notice.split("special tokens: ")[1]
    assert manifest["merge"]["appended"] > 0 and manifest["vocab_size"] == merged.get_piece_size()

    auto = AutoTokenizer.from_pretrained(str(out))
    assert (auto.unk_token_id, auto.pad_token_id, auto.cls_token_id, auto.sep_token_id, auto.mask_token_id) == (
        0, 2000, 2001, 2002, 2003)
    # the stock model's nmt_nfkc rules apply in both (ㅋ -> ᄏ); they agree but on ties of equal score, broken
    # in another order (ᄏ ᄏᄏ vs ᄏᄏ ᄏ)
    sentences = _plain_lines(TEXT)[:300] + ["코로나 때문에 영화관 못 가서 뷁"]
    differ = 0
    for x in sentences:
        ours, theirs = auto(x, add_special_tokens=False)["input_ids"], merged.encode(x)
        if ours != theirs:
            differ += 1
            assert sorted(ours) == sorted(theirs)
    assert differ < 5 and auto.tokenize("굳 ㅋ")[-1].endswith("ᄏ")
    encoded = auto("재밌어요", "최고")["input_ids"]
    assert encoded[0] == 2001 and encoded.count(2002) == 2 and encoded[-1] == 2002
    # and `kcorpus pack` finds the ids it inserts
    tok = tokenizer_from_bytes((out / "tokenizer.json").read_bytes())
    assert special_ids(tok) == special_ids(tok, "[CLS]", "[SEP]", "[PAD]")
    assert (special_ids(tok).cls, special_ids(tok).sep, special_ids(tok).pad) == (2001, 2002, 2000)


def test_a_base_with_the_specials_is_left_as_it_is(spm_base):
    from kcorpus.transforms.vocab.spm_model import with_bert_specials

    proto = (spm_base["unigram"] / "spm.model").read_bytes()
    unchanged, added = with_bert_specials(proto)
    assert unchanged == proto and added.renamed_unknown is None and added.appended == [] and added.notice() == ""
