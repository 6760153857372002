"""vocab-report on the two real vocabularies, with figures recomputed here independently."""

import html
import json
import re
import unicodedata
from collections import Counter
from xml.etree import ElementTree

import pytest
from report_checks import korean_without_lang, labels_outside, literal_markdown, overlapping_labels

from kcorpus.pipeline.cli import main as cli
from kcorpus.transforms.korean import all_syllables
from kcorpus.transforms.vocab.compare import ks_x_1001_syllables
from testdata_paths import TESTDATA

DATA = TESTDATA
KCBERT = DATA / "vocabs" / "kcbert" / "vocab.txt"
KOELECTRA = DATA / "vocabs" / "koelectra_v1" / "vocab.txt"
TEXT = DATA / "vocab" / "nsmc_petitions.txt"
SPECIAL = re.compile(r"^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert cli(["vocab-report", str(KCBERT), str(KOELECTRA), "--corpus", str(TEXT), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def report(report_dir):
    return json.loads((report_dir / "report.json").read_text(encoding="utf-8"))


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def test_exact_string_comparison_matches_plain_sets(report):
    a, b = set(_lines(KCBERT)), set(_lines(KOELECTRA))
    expected = {
        "size_a": len(a), "size_b": len(b), "overlap": len(a & b), "only_a": len(a - b),
        "only_b": len(b - a), "union": len(a | b), "jaccard": round(len(a & b) / len(a | b), 6),
    }
    assert {k: report[k] for k in expected} == expected
    assert (expected["size_a"], expected["size_b"], expected["overlap"]) == (30000, 32200, 16442)
    assert report["examples_only_a"][0] == next(t for t in _lines(KCBERT) if t not in b)
    assert all(t in b and t not in a for t in report["examples_only_b"])


def test_normalized_comparison_ignores_specials_and_maps_markers(report):
    def norm(tokens):
        return {t[2:] if t.startswith("##") and len(t) > 2 else "▁" + t for t in tokens if not SPECIAL.match(t)}

    a, b = norm(_lines(KCBERT)), norm(_lines(KOELECTRA))
    assert report["normalized"]["overlap"] == len(a & b) == 16437
    assert report["normalized"]["union"] == len(a | b)
    assert report["surface"]["overlap"] == len({t.lstrip("▁") for t in a} & {t.lstrip("▁") for t in b})


def test_syllable_sets_and_vocab_coverage(report):
    ks = ks_x_1001_syllables()
    assert len(ks) == len(set(ks)) == 2350 and ks[0] == "가" and ks[-1] == "힝"
    assert all(unicodedata.name(s).startswith("HANGUL SYLLABLE") for s in ks)
    assert len(all_syllables()) == 11172
    singles = {t.removeprefix("##") for t in _lines(KCBERT)}
    assert report["a"]["ksx1001_syllables_in_vocab"] == sum(s in singles for s in ks) == 2143
    assert report["b"]["ksx1001_syllables_in_vocab"] == 2350
    assert report["a"]["all_syllables_in_vocab"] == sum(s in singles for s in all_syllables())
    assert report["a"]["jamo_tokens"] == report["b"]["jamo_tokens"] == 0


def _greedy_wordpiece(word, vocab):
    """Reference longest-match-first WordPiece (BERT's algorithm) for one pre-tokenized word."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def _bert_split(eojeol):
    """BERT basic tokenization of one whitespace word: punctuation and CJK ideographs stand alone."""
    words, current = [], ""
    for char in eojeol:
        code = ord(char)
        punct = 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126 or \
            unicodedata.category(char).startswith("P") or 0x4E00 <= code <= 0x9FFF
        if punct:
            words += [current, char] if current else [char]
            current = ""
        elif unicodedata.category(char) in ("Cc", "Cf") or char == "\ufffd":
            continue
        else:
            current += char
    return words + [current] if current else words


def test_corpus_figures_match_a_reference_wordpiece(report):
    vocab = set(_lines(KCBERT))
    lines = [line for line in _lines(TEXT) if line.strip()]
    eojeol = tokens = continued = unk = 0
    for line in lines:
        for word in line.split():
            pieces = [p for w in _bert_split(word) for p in _greedy_wordpiece(w, vocab)]
            eojeol += 1
            tokens += len(pieces)
            continued += len(pieces) > 1
            unk += pieces.count("[UNK]")
    figures = report["corpus"]["a"]
    assert (figures["eojeol"], figures["tokens"]) == (eojeol, tokens)
    assert (eojeol, tokens) == (18531, 39492)
    assert figures["fertility"] == round(tokens / eojeol, 6)
    assert figures["continued_words"] == round(continued / eojeol, 6)
    assert figures["unk_rate"] == round(unk / tokens, 6)
    assert report["corpus"]["lines"] == len(lines) == 1347


def test_tokens_only_in_one_vocab_are_listed_by_their_uses_on_the_corpus(report):
    a, b = _lines(KCBERT), set(_lines(KOELECTRA))
    vocab = set(a)
    uses = Counter(
        p for line in _lines(TEXT) for word in line.split() for w in _bert_split(word) for p in _greedy_wordpiece(w, vocab)
    )
    only_a = sorted((t for t in uses if t not in b and not SPECIAL.match(t)), key=lambda t: (-uses[t], a.index(t)))
    assert report["frequent_only_a"] == [[t, uses[t]] for t in only_a[:50]]
    assert report["frequent_only_a"][0][1] > report["frequent_only_a"][-1][1] > 0
    assert all(t in b and t not in vocab and n > 0 for t, n in report["frequent_only_b"])


def test_markdown_and_html_are_self_contained(report_dir, report):
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    assert f"| exact strings | 30000 | 32200 | {report['overlap']} |" in md
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 6 and "<script" not in page
    assert not re.search(r"(src|href)=", page) and "@import" not in page
    assert "Jaccard 0.359325" in page
    for svg in re.findall(r"<svg.*?</svg>", page, re.DOTALL):
        ElementTree.fromstring(svg)  # well-formed XML, so browsers render it inline
        assert overlapping_labels(svg) == [] and labels_outside(svg) == []


def test_html_shows_tokens_as_code_and_marks_korean(report_dir, report):
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    first, uses = report["frequent_only_a"][0]
    assert f"Tokens only in A, most used on the corpus (uses): `{first}` {uses:,}, " in md
    assert f"Tokens only in A, most used on the corpus (uses): <code>{html.escape(first)}</code> {uses:,}, " in page
    assert literal_markdown(page) == [] and korean_without_lang(page) == []
    assert f"<th>on the corpus (1,347 lines, {report['corpus']['a']['eojeol']:,} eojeol)</th>" in page


@pytest.mark.slow
def test_any_kinds_compare_and_wordpiece_vs_spm_normalizes(tmp_path):
    spm_dir = tmp_path / "spm"
    assert cli(["train-vocab", "--kind", "sentencepiece", "--vocab-size", "2500", "--input", str(TEXT),
                "--out", str(spm_dir), "--quiet"]) == 0
    out = tmp_path / "r"
    assert cli(["vocab-report", str(KCBERT), str(spm_dir / "spm.model"), "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    pieces = [line.split("\t")[0] for line in _lines(spm_dir / "spm.vocab")]
    kc = {t[2:] if t.startswith("##") and len(t) > 2 else "▁" + t for t in _lines(KCBERT) if not SPECIAL.match(t)}
    sp = {p for p in pieces if not SPECIAL.match(p) and p != "▁" and not p.startswith("<0x")}
    assert report["overlap"] == len(set(_lines(KCBERT)) & set(pieces))
    assert report["normalized"]["overlap"] == len(kc & sp)
    assert report["normalized"]["overlap"] > report["overlap"]
    assert "corpus" not in report
    assert cli(["vocab-report", str(spm_dir / "tokenizer.json"), str(spm_dir), "--out", str(out)]) == 2
    assert cli(["vocab-report", str(spm_dir / "tokenizer.json"), str(spm_dir), "--out", str(out), "--overwrite"]) == 0
    same = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert same["jaccard"] == 1.0 and same["only_a"] == same["only_b"] == 0
