import re

from kcorpus.transforms.filters import FilterConfig
from kcorpus.transforms.prepare import DocumentPreparer, identity, normalize_text
from kcorpus.transforms.record import Document


def split_on_da(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=다\.)\s+", text) if s]


def test_normalize_text_nfc_breaks_spaces_and_residue():
    decomposed = "\u1112\u1161\u11ab\u1100\u1173\u11af"  # 한글 as conjoining jamo
    assert normalize_text(decomposed) == "한글"
    assert normalize_text("a\r\nb\u2028c") == "a\nb\nc"
    assert normalize_text("  가\u00a0\u3000나\t다  ") == "가 나 다"
    assert normalize_text("식 formula_12 이다", [re.compile(r"formula_\d+")]) == "식 이다"


def test_comment_source_keeps_lines_and_drops_short_ones():
    prep = DocumentPreparer(cleaner=identity, splitter=None, filters=FilterConfig())
    out = prep.prepare(
        Document("c:1", "이 영화 정말 재미있었어요\n짧다\n\n배우들 연기가 아주 좋네요", "c", {"k": 1})
    )
    assert out.document == Document(
        "c:1", "이 영화 정말 재미있었어요\n배우들 연기가 아주 좋네요", "c", {"k": 1}
    )
    assert (out.reason, out.sentences_in, out.sentences_kept, out.sentence_reasons) == (
        None,
        3,
        2,
        ("too_short",),
    )


def test_split_source_splits_paragraphs_and_cleans_each_sentence():
    prep = DocumentPreparer(
        cleaner=lambda s: s.replace("OOO", " "), splitter=split_on_da, filters=FilterConfig(min_sentences=2)
    )
    out = prep.prepare(Document("w:1", "서울은 대한민국의 수도이다. OOO는 정말 큰 도시이다.\n짧다.", "w"))
    assert out.document is not None
    assert out.document.text == "서울은 대한민국의 수도이다.\n는 정말 큰 도시이다."
    assert out.sentences_in == 3 and out.sentence_reasons == ("too_short",)


def test_document_rules_name_the_reason():
    prep = DocumentPreparer(cleaner=identity, splitter=None, filters=FilterConfig(min_sentences=2))
    one = prep.prepare(Document("c:2", "이 영화 정말 재미있었어요", "c"))
    assert (one.document, one.reason, one.sentences_kept) == (None, "too_few_sentences", 0)
    short = prep.prepare(Document("c:3", "ㅋㅋ", "c"))
    assert short.reason == "too_short"
    empty = prep.prepare(Document("c:4", " \n ", "c"))
    assert (empty.reason, empty.sentences_in) == ("empty", 0)


def test_rewrites_run_for_every_preset_and_are_named_once_per_document():
    filters = FilterConfig(masks="replace")
    prep = DocumentPreparer(cleaner=identity, splitter=None, filters=filters)
    out = prep.prepare(
        Document("c:5", "뭘 했길래...................... 입술이\x00........\nOOOO 같은 소리 하고 있네", "c")
    )
    assert out.document is not None
    assert out.document.text == "뭘 했길래... 입술이...\nOOO 같은 소리 하고 있네"
    assert out.rewrites == ("control_chars", "masks", "punctuation_runs")
    assert prep.prepare(Document("c:6", "이 영화 정말 재미있었어요", "c")).rewrites == ()


def test_masks_removed_before_cleaning_whatever_their_length():
    from kcorpus.transforms.clean import make_cleaner

    prep = DocumentPreparer(
        cleaner=make_cleaner("kcelectra"), splitter=None, filters=FilterConfig(masks="remove")
    )
    masked = ("OOOO 네 글자 그대로 남는다", "OOO 네 글자 그대로 남는다")
    texts = [prep.prepare(Document("c", t, "c")).document.text for t in masked]
    assert texts == ["네 글자 그대로 남는다", "네 글자 그대로 남는다"]


def test_document_repetition_sees_paragraphs_and_sentences():
    prep = DocumentPreparer(
        cleaner=identity, splitter=split_on_da, filters=FilterConfig(repetition_min_lines=2)
    )
    text = (
        "서울은 대한민국의 수도이다. 부산은 항구 도시이다.\n서울은 대한민국의 수도이다. 부산은 항구 도시이다."
    )
    assert prep.prepare(Document("w:2", text, "w")).reason == "dup_paragraphs"
