import random

from kcorpus.transforms.examples import (
    DOCUMENT_DROP,
    REWRITE,
    ExampleSampler,
    excerpt,
    make_example,
    sample_key,
    smallest_per_rule,
)
from kcorpus.transforms.prepare import DocumentPreparer, rewritten
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.filters import FilterConfig


def test_sample_key_is_a_stable_digest_of_rule_and_document():
    assert sample_key(REWRITE, "clean", "nsmc:6270596", "nsmc") == sample_key(
        REWRITE, "clean", "nsmc:6270596", "nsmc"
    )
    assert sample_key(REWRITE, "clean", "nsmc:6270596", "nsmc").hex() == "d8066497e2a817e7"
    assert sample_key(REWRITE, "clean", "nsmc:6270596", "nsmc", 1) != sample_key(
        REWRITE, "clean", "nsmc:6270596", "nsmc"
    )


def test_sampler_keeps_the_smallest_keys_per_rule_whatever_the_order_and_split():
    examples = [
        make_example(DOCUMENT_DROP, rule, f"nsmc:{i}", "nsmc", f"댓글 {i}")
        for rule in ("too_short", "low_hangul")
        for i in range(100)
    ]
    whole = smallest_per_rule(examples)
    assert len(whole) == 20 and {e.rule for e in whole} == {"too_short", "low_hangul"}
    for rule in ("too_short", "low_hangul"):
        keys = sorted(e.key for e in examples if e.rule == rule)[:10]
        assert [e.key for e in whole if e.rule == rule] == keys
    shuffled = examples[:]
    random.Random(7).shuffle(shuffled)
    parts = [ExampleSampler() for _ in range(3)]
    for i, example in enumerate(shuffled):
        parts[i % 3].offer(example)
    assert smallest_per_rule(e for p in parts for e in p.drain()) == whole


def test_note_builds_only_what_it_keeps():
    sampler = ExampleSampler(per_rule=1)
    for i in range(50):
        sampler.note(REWRITE, "clean", f"c:{i}", "c", f"좋아요ㅋㅋㅋㅋ {i}", f"좋아요ㅋㅋ {i}")
    (kept,) = sampler.drain()
    assert kept.key == min(sample_key(REWRITE, "clean", f"c:{i}", "c") for i in range(50))
    assert sampler.drain() == []


def test_excerpt_cuts_long_texts_around_the_first_change():
    before = "가" * 500 + "★" + "나" * 500
    after = "가" * 500 + "나" * 500
    b, a = excerpt(before, after, width=100)
    assert b == "…" + "가" * 60 + "★" + "나" * 39 + "…"
    assert a == "…" + "가" * 60 + "나" * 40 + "…"
    assert excerpt("짧은 문장", "짧은 문장.") == ("짧은 문장", "짧은 문장.")


def test_prepare_reports_boilerplate_pii_clean_rewrites_and_dropped_sentences():
    preparer = DocumentPreparer(
        cleaner=lambda s: s.replace("★", ""),
        splitter=None,
        filters=FilterConfig(min_chars=5),
        remove_patterns=(r"\[광고\d+\]",),
    )
    doc = Document(
        "w:1",
        "★ 대한민국은 민주공화국이다\n짧다\n값은 [광고3] 이다 그렇다\n문의 010-1234-5678 로 주세요",
        "w",
    )
    prepared = preparer.prepare(doc)
    rules = [rule for rule, _, _ in prepared.examples]
    assert rules == ["boilerplate", "pii", "clean"]
    boilerplate = prepared.examples[0]
    assert "[광고3]" in boilerplate[1] and "[광고3]" not in boilerplate[2]
    assert "010-1234-5678" in prepared.examples[1][1] and "010-1234-5678" not in prepared.examples[1][2]
    assert prepared.examples[2] == ("clean", "★ 대한민국은 민주공화국이다", "대한민국은 민주공화국이다")
    assert prepared.sentence_reasons == ("too_short",) and prepared.dropped_sentences == ("짧다",)


def test_rewritten_notes_only_changes():
    examples: list = []
    assert rewritten("pii", "010-1234-5678로 연락", "<전화번호>로 연락", examples) == "<전화번호>로 연락"
    assert rewritten("pii", "연락 주세요", "연락 주세요", examples) == "연락 주세요"
    assert examples == [("pii", "010-1234-5678로 연락", "<전화번호>로 연락")]
    assert rewritten("pii", "a", "b", None) == "b"  # no list: nothing to note
