"""Training on a real 211 KB slice of NSMC reviews and national petitions (tests/testdata/vocab)."""

import json
import subprocess
import sys

import pytest

from kcorpus.pipeline.cli import main as cli
from kcorpus.transforms.korean import SPECIAL_TOKENS, is_conjoining_jamo, is_hangul_syllable
from kcorpus.transforms.vocab.checks import check_vocab, wordpiece_spacing
from kcorpus.transforms.vocab.files import read_vocab_txt, wordpiece_tokenizer
from kcorpus.transforms.vocab.sample import read_sample
from kcorpus.transforms.vocab.text_summary import summarize
from kcorpus.transforms.vocab.train import (
    SentencePieceConfig,
    WordPieceConfig,
    _isolate_jamo,
    split_long_sentence,
    train_sentencepiece,
    train_wordpiece,
)
from testdata_paths import TESTDATA

TEXT = TESTDATA / "vocab" / "nsmc_petitions.txt"


@pytest.fixture(scope="module")
def sentences():
    return read_sample([str(TEXT)], max_sentences=10_000, seed=0)[0]


@pytest.fixture(scope="module")
def wordpiece_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("wp")
    assert cli(["train-vocab", "--kind", "wordpiece", "--vocab-size", "4000", "--unused", "20",
                "--input", str(TEXT), "--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture(scope="module")
def spm_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("spm")
    assert cli(["train-vocab", "--kind", "sentencepiece", "--vocab-size", "3000", "--input", str(TEXT),
                "--out", str(out), "--quiet"]) == 0
    return out


def _jamo(tokens):
    return [t for t in tokens if any(0x1100 <= ord(c) <= 0x11FF for c in t)]


def test_wordpiece_layout_specials_unused_and_size(wordpiece_dir):
    tokens = read_vocab_txt(str(wordpiece_dir / "vocab.txt"))
    assert len(tokens) == 4000 == len(set(tokens))
    assert tokens[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert tokens[-20:] == [f"[unused{i}]" for i in range(20)]
    assert sorted(p.name for p in wordpiece_dir.iterdir() if not p.name.startswith(".")) == [
        "manifest.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"]
    manifest = json.loads((wordpiece_dir / "manifest.json").read_text())
    assert manifest["checks"]["passed"] and manifest["checks"]["round_trip_checked"] == 1347
    assert manifest["input"]["sentences"] == manifest["input"]["sampled"] == 1347


def test_wordpiece_keeps_every_hangul_syllable_in_both_positions(wordpiece_dir):
    tokens = set(read_vocab_txt(str(wordpiece_dir / "vocab.txt")))
    syllables = {c for c in TEXT.read_text(encoding="utf-8") if is_hangul_syllable(c)}
    assert len(syllables) == 1099
    assert {s for s in syllables if s not in tokens or f"##{s}" not in tokens} == set()
    assert _jamo(tokens) == []


def test_hf_bert_wordpiece_with_lowercase_makes_jamo_and_ours_does_not(sentences, wordpiece_dir):
    from tokenizers import BertWordPieceTokenizer

    hf = BertWordPieceTokenizer(lowercase=True)  # strip_accents follows lowercase: NFD, then drop marks
    hf.train_from_iterator(sentences, vocab_size=4000, show_progress=False)
    hf_tokens = list(hf.get_vocab())
    assert len(_jamo(hf_tokens)) > 100
    assert "ᄒ" in hf_tokens and "한" not in hf_tokens
    report = check_vocab(hf._tokenizer, "wordpiece", hf_tokens, summarize(sentences, round_trip=50))
    assert report.errors and "conjoining jamo" in report.errors[0]
    assert _jamo(read_vocab_txt(str(wordpiece_dir / "vocab.txt"))) == []


def test_wordpiece_spacing_rule_and_round_trip(wordpiece_dir):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(wordpiece_dir / "tokenizer.json"))
    assert wordpiece_spacing(tok, "재밌다!!(진짜)  최고") == "재밌다 ! ! ( 진짜 ) 최고"
    for text in ("재밌다!!(진짜)  최고", "청와대 국민청원, 2017년 8월.", "ㅋㅋ 영화 보고 왔어요"):
        enc = tok.encode(text)
        assert enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]" and "[UNK]" not in enc.tokens
        assert tok.decode(enc.ids) == wordpiece_spacing(tok, text)


def test_wordpiece_limit_alphabet_never_cuts_hangul(sentences):
    tokens = train_wordpiece(sentences, WordPieceConfig(vocab_size=3000, limit_alphabet=50))
    syllables = {c for s in sentences for c in s if is_hangul_syllable(c)}
    assert syllables <= set(tokens)
    once = ["U", "乃", "＼", "–"]  # characters that occur once in the slice: below the limit, cut
    assert all(sum(s.count(c) for s in sentences) == 1 for c in once)
    assert [c for c in once if c in tokens] == []
    assert len(tokens) == 3000


def test_vocab_too_small_for_alphabet_is_a_clear_error(tmp_path, capsys):
    rc = cli(["train-vocab", "--kind", "wordpiece", "--vocab-size", "1000", "--input", str(TEXT),
              "--out", str(tmp_path), "--quiet"])
    assert rc == 2
    assert "smaller than the alphabet" in capsys.readouterr().err


def _train_in_fresh_process(kind, out, *extra):
    subprocess.run([sys.executable, "-m", "kcorpus.pipeline.cli", "train-vocab", "--kind", kind, "--vocab-size",
                    "3000", "--input", str(TEXT), "--out", str(out), "--quiet", *extra], check=True)
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wordpiece", "sentencepiece"])
def test_same_input_and_seed_give_identical_files_across_processes(tmp_path, kind):
    # HF's trainer hashes with a per-process random seed, so determinism must hold across processes.
    extra = ("--max-sentences", "900", "--seed", "5")
    first = _train_in_fresh_process(kind, tmp_path / "a", *extra)
    second = _train_in_fresh_process(kind, tmp_path / "b", *extra)
    assert first.keys() == second.keys()
    for name in first:
        if name not in ("manifest.json", ".kcorpus-owned.json"):
            assert first[name] == second[name], name
    other_seed = _train_in_fresh_process(kind, tmp_path / "c", "--max-sentences", "900", "--seed", "6")
    assert other_seed["tokenizer.json"] != first["tokenizer.json"]
    manifest = json.loads(first["manifest.json"])
    assert (manifest["input"]["sampled"], manifest["input"]["not_sampled"]) == (900, 447)


def test_sentencepiece_layout_identity_and_specials(spm_dir):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(spm_dir / "spm.model"))
    assert [sp.id_to_piece(i) for i in range(5)] == list(SPECIAL_TOKENS)
    assert sp.get_piece_size() == 3000 and sp.unk_id() == 1 and sp.pad_id() == 0
    assert sp.encode("[CLS] 재밌다 [MASK]", out_type=str)[:2] == ["▁", "[CLS]"]
    assert "ㅋㅋ" in {sp.id_to_piece(i).lstrip("▁") for i in range(3000)}
    assert _jamo(sp.id_to_piece(i) for i in range(3000)) == []
    assert sp.decode(sp.encode("ㅋㅋ 진짜 웃기다")) == "ㅋㅋ 진짜 웃기다"
    vocab_lines = (spm_dir / "spm.vocab").read_text(encoding="utf-8").splitlines()
    assert len(vocab_lines) == 3000 and vocab_lines[0] == "[PAD]\t0"


def test_sentencepiece_nfkc_default_turns_kieuk_into_conjoining_jamo(sentences):
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model, vocab_size=3000,
                                   character_coverage=1.0, minloglevel=2)  # default rule: nmt_nfkc
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    assert "\u110f" in "".join(pieces) and "\u314b" not in "".join(pieces)  # ᄏ in, ㅋ gone
    report = check_vocab(_spm_tokenizer(model.getvalue()), "sentencepiece", pieces, summarize(sentences, round_trip=10))
    assert "conjoining jamo" in report.errors[0]
    ours = train_sentencepiece(sentences, SentencePieceConfig(vocab_size=3000))
    ours_sp = spm.SentencePieceProcessor(model_proto=ours)
    assert not any(is_conjoining_jamo(c) for i in range(3000) for c in ours_sp.id_to_piece(i))


def _spm_tokenizer(proto):
    from kcorpus.transforms.vocab.files import sentencepiece_tokenizer

    return sentencepiece_tokenizer(proto)


def test_sentencepiece_low_coverage_fails_the_syllable_check_loudly(tmp_path, capsys):
    rc = cli(["train-vocab", "--kind", "sentencepiece", "--vocab-size", "3000", "--character-coverage", "0.995",
              "--input", str(TEXT), "--out", str(tmp_path), "--quiet"])
    assert rc == 1
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    missing = manifest["checks"]["unencodable_syllables"]
    assert not manifest["checks"]["passed"] and len(missing) > 0
    assert all(is_hangul_syllable(c) for c in missing)
    assert "encode to [UNK]" in capsys.readouterr().err


def test_sentencepiece_bpe_with_byte_fallback_round_trips(tmp_path, sentences):
    assert cli(["train-vocab", "--kind", "sentencepiece", "--model-type", "bpe", "--byte-fallback",
                "--vocab-size", "3000", "--input", str(TEXT), "--out", str(tmp_path), "--quiet"]) == 0
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    text = "龍 이모지 없는 희귀 글자 뷁"
    enc = tok.encode(text, add_special_tokens=False)
    assert "[UNK]" not in enc.tokens and any(t.startswith("<0x") for t in enc.tokens)
    assert tok.decode(enc.ids) == text
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["checks"]["spm_disagreements"] == 0 and manifest["checks"]["round_trip_failures"] == 0


def test_long_sentences_are_split_for_sentencepiece_not_dropped():
    assert split_long_sentence("가나 다라 마바", 7) == ["가나", "다라", "마바"]
    assert split_long_sentence("가나다라마바사", 6) == ["가나", "다라", "마바", "사"]
    assert split_long_sentence("ab cd", 5) == ["ab cd"]


@pytest.mark.parametrize("fixture, cls", [("wordpiece_dir", "PreTrainedTokenizerFast"),
                                          ("spm_dir", "DebertaV2Tokenizer")])
def test_autotokenizer_loads_and_encodes_like_tokenizer_json(request, fixture, cls, sentences):
    import transformers
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    directory = request.getfixturevalue(fixture)
    auto = AutoTokenizer.from_pretrained(str(directory))
    assert isinstance(auto, getattr(transformers, cls)) and auto.is_fast
    assert [auto.pad_token_id, auto.unk_token_id, auto.cls_token_id, auto.sep_token_id, auto.mask_token_id] == [
        0, 1, 2, 3, 4]
    raw = Tokenizer.from_file(str(directory / "tokenizer.json"))
    assert [auto(s)["input_ids"] for s in sentences] == [e.ids for e in raw.encode_batch(sentences)]
    assert _jamo(auto.tokenize("한국어 ㅋㅋ 최고")) == []


def test_merged_and_foreign_vocab_txt_build_the_same_tokenizer_as_training(wordpiece_dir):
    tokens = read_vocab_txt(str(wordpiece_dir / "vocab.txt"))
    rebuilt = wordpiece_tokenizer(tokens).to_str()
    assert json.loads(rebuilt) == json.loads((wordpiece_dir / "tokenizer.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("fixture", ["wordpiece_dir", "spm_dir"])
def test_nfd_input_encodes_like_nfc_through_autotokenizer(request, fixture, sentences):
    import unicodedata

    from transformers import AutoTokenizer

    auto = AutoTokenizer.from_pretrained(str(request.getfixturevalue(fixture)))
    hangul = [s for s in sentences if any(is_hangul_syllable(c) for c in s)][:200]
    nfd = [unicodedata.normalize("NFD", s) for s in hangul]
    assert all(any(is_conjoining_jamo(c) for c in s) for s in nfd)
    assert auto(nfd)["input_ids"] == auto(hangul)["input_ids"]
    assert auto.unk_token_id not in auto(unicodedata.normalize("NFD", "한국어 영화 재밌다"))["input_ids"]


def test_wordpiece_autotokenizer_gives_segment_ids_for_pairs(wordpiece_dir):
    from transformers import AutoTokenizer

    auto = AutoTokenizer.from_pretrained(str(wordpiece_dir))
    pair = auto("영화 재밌다", "진짜 최고")
    first, second = len(auto.tokenize("영화 재밌다")), len(auto.tokenize("진짜 최고"))
    assert pair["token_type_ids"] == [0] * (first + 2) + [1] * (second + 1)
    assert pair["input_ids"][0] == 2 and pair["input_ids"][-1] == 3 and pair["input_ids"].count(3) == 2


JAMO_COMMENTS = TESTDATA / "vocab_jamo" / "jamo_comments.txt"  # NSMC comments with genuine ᆢ ᄏ ᅠ ᆞ (see its maker)


def test_isolating_jamo_in_the_text_gives_the_words_the_jamo_split_gives():
    """Training isolates jamo in the sentences, not with the (slower) split pre-tokenizer the vocab is saved with:
    both must give the trainer the same words, on every real comment with genuine jamo."""
    from tokenizers import normalizers

    from kcorpus.transforms.vocab.files import wordpiece_pre_tokenizer

    normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False,
                                            lowercase=False)
    split, bert = wordpiece_pre_tokenizer(), wordpiece_pre_tokenizer(isolate_jamo=False)

    def words(pre_tokenizer, sentence):
        return [w for w, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(sentence))]

    sentences, _, _ = read_sample([str(JAMO_COMMENTS)], max_sentences=10**6, seed=0)
    with_jamo = [s for s in sentences if any(is_conjoining_jamo(c) for c in s)]
    assert len(with_jamo) > 100
    isolated = list(_isolate_jamo(sentences))
    assert [words(bert, s) for s in isolated] == [words(split, s) for s in sentences]
    assert isolated[sentences.index(with_jamo[0])] != with_jamo[0]


@pytest.mark.parametrize("kind, size", [("wordpiece", "2500"), ("sentencepiece", "2000")])
def test_trains_on_raw_comments_with_genuine_jamo_as_single_character_tokens(tmp_path, capsys, kind, size):
    from transformers import AutoTokenizer

    rc = cli(["train-vocab", "--kind", kind, "--vocab-size", size, "--input", str(JAMO_COMMENTS),
              "--out", str(tmp_path), "--quiet"])
    assert rc == 0
    assert "4 genuine conjoining jamo in the text (ᆢᅠᄏᆞ, 219 times): 4 tokens, 4 of them single characters" in (
        capsys.readouterr().err)
    checks = json.loads((tmp_path / "manifest.json").read_text())["checks"]
    assert checks["passed"] and checks["decomposed_jamo_tokens"] == 0 and not checks["decomposing_normalizer"]
    assert checks["genuine_jamo"] == {"characters": "ᆢᅠᄏᆞ", "occurrences": 219, "tokens": 4,
                                      "single_character_tokens": 4}
    auto = AutoTokenizer.from_pretrained(str(tmp_path))
    assert sorted(_jamo(auto.get_vocab())) == sorted("ᆢᅠᄏᆞ")
    tokens = auto.tokenize("재밌다ᆢ ᄏᄏ 굳ᅠㅋ")
    assert [t for t in tokens if _jamo([t])] == ["ᆢ", "ᄏ", "ᄏ", "ᅠ"] and auto.unk_token not in tokens


def test_decomposed_tokens_are_the_jamo_tokens_the_nfc_text_lacks():
    from kcorpus.transforms.vocab.checks import decomposed_tokens

    text = ["그래ᆢ ᄏᄏ 웃기네", "굳ᅠㅋ"]
    tokens = ["그래", "ᆢ", "##ᄏ", "▁ᄏᄏ", "ᅠ", "ᄒ", "##ᅡᆫ", "다ᆢ", "ㅋ"]
    assert decomposed_tokens(tokens, text) == ["ᄒ", "##ᅡᆫ", "다ᆢ"]
    summary = summarize(text)
    assert summary.jamo_words == {"그래ᆢ", "ᄏᄏ", "굳ᅠㅋ"}  # the words that hold jamo stand for the text
    assert decomposed_tokens(tokens, summary.jamo_words) == ["ᄒ", "##ᅡᆫ", "다ᆢ"]
    assert summary.genuine_jamo == {"ᆢ": 1, "ᄏ": 2, "ᅠ": 1}


def test_check_still_catches_real_decomposition_next_to_genuine_jamo():
    import unicodedata

    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    comments = read_sample([str(JAMO_COMMENTS)], max_sentences=10_000, seed=0)[0]
    nfd = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    nfd.normalizer = normalizers.NFD()
    nfd.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    nfd.train_from_iterator(comments, trainers.WordPieceTrainer(vocab_size=2000, special_tokens=list(SPECIAL_TOKENS),
                                                                 show_progress=False))
    tokens = list(nfd.get_vocab())
    report = check_vocab(nfd, "wordpiece", tokens, summarize(comments, round_trip=20))
    assert len(report.decomposed_tokens) > 100 and "ᄒ" in report.decomposed_tokens
    assert "ᆢ" in report.jamo_tokens and "ᆢ" not in report.decomposed_tokens  # genuine, not blamed
    assert report.errors[0].startswith(f"{len(report.decomposed_tokens)} tokens contain conjoining jamo")
    assert report.errors[0].endswith("the text was decomposed (NFD/NFKC)")
    assert report.decomposing_normalizer == unicodedata.normalize("NFD", "한국어 읽었다 ㅋㅋ")
    assert report.errors[1] == (
        "the tokenizer's normalizer decomposes Hangul into conjoining jamo: '한국어 읽었다 ㅋㅋ' -> "
        r"'\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165 \u110b\u1175\u11b0\u110b\u1165\u11bb\u1103\u1161 ㅋㅋ' "
        "(NFD/NFKD, NFKC or accent stripping)"
    )
    # decomposed tokens are shown with their code points, not as look-alike syllables
    assert r"\u11" in report.errors[0] and not [c for c in report.errors[0] if is_conjoining_jamo(c)]
    allowed = check_vocab(nfd, "wordpiece", tokens, summarize(comments, round_trip=20), allow_jamo=True)
    assert not [e for e in allowed.errors if "conjoining jamo" in e]


def test_nfkc_normalizer_is_caught_even_without_jamo_tokens():
    from tokenizers import normalizers

    from kcorpus.transforms.vocab.checks import normalizer_decomposition

    class Nfkc:
        normalizer = normalizers.NFKC()

    assert normalizer_decomposition(Nfkc()) == "한국어 읽었다 ᄏᄏ"
    ours = wordpiece_tokenizer(list(SPECIAL_TOKENS) + ["한"])
    assert normalizer_decomposition(ours) is None


def test_only_vocabs_with_jamo_tokens_isolate_jamo_when_encoding(tmp_path):
    from tokenizers import Tokenizer

    kcbert = wordpiece_tokenizer(read_vocab_txt(str(TESTDATA / "vocabs" / "kcbert" / "vocab.txt")))
    assert type(kcbert.pre_tokenizer).__name__ == "BertPreTokenizer"  # as KcBERT's own BertTokenizer splits
    assert kcbert.encode("영화ᆢ 재밌다", add_special_tokens=False).tokens[0] == "[UNK]"
    assert cli(["train-vocab", "--kind", "wordpiece", "--vocab-size", "2500", "--input", str(JAMO_COMMENTS),
                "--out", str(tmp_path), "--quiet"]) == 0
    ours = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert type(ours.pre_tokenizer).__name__ == "Sequence"
    assert ours.encode("영화ᆢ 재밌다", add_special_tokens=False).tokens[:2] == ["영화", "ᆢ"]
