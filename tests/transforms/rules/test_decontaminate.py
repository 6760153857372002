import numpy as np
import pytest

from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.decontaminate import (
    DecontaminateConfig,
    Match,
    build_index,
    canonical,
    decontaminate,
    find_matches,
    redact,
)

CONFIG = DecontaminateConfig(paths=("eval.txt",), format="nsmc")
# Real NSMC test comments, one of each kind: 13+ eojeol, 30+ letters, 10+ letters, too short.
LONG = "청춘은 아름답다 그 아름다움은 이성을 흔들어 놓는다. 찰나의 아름다움을 잘 포착한 섬세하고 아름다운 수채화같은 퀴어영화이다."
MEDIUM = "나름 교훈돋기는 하지만 어쩔수없이 저평점 받을수밖에 없는 저질섹스코미디"
SHORT = "지루하지는 않은데 완전 막장임... 돈주고 보기에는...."
TINY = "최고!!!!!!!!!!!!!!!!"
EVAL = [("eval:6900881", LONG), ("eval:6829990", MEDIUM), ("eval:6825595", SHORT), ("eval:2968565", TINY)]


@pytest.fixture(scope="module")
def index():
    return build_index(EVAL, CONFIG)


def test_canonical_keeps_letters_and_digits_squeezes_runs_and_drops_masks():
    assert (
        canonical("지루하지는 않은데 완전 막장임... 돈주고 보기에는....")
        == "지루하지는 않은데 완전 막장임 돈주고 보기에는"
    )
    assert canonical("ＧＯＯＤ 영화 ㅋㅋㅋㅋㅋ 10점!!") == "god 영화 ㅋ 10점"
    assert canonical("Good 영화 ㅋㅋ 10점") == "god 영화 ㅋ 10점"
    assert canonical("OOO 감독 정말 ○○○ 최고") == "감독 정말 최고"
    # clean() shortens the mask to OO: the corpus side must still match the raw evaluation text.
    assert (
        canonical("정말 간만에 OO 영화를 봤내...")
        == canonical("정말 간만에 OOO 영화를 봤내")
        == "정말 간만에 영화를 봤내"
    )
    assert canonical("♥♥ ^^ ...") == ""


def test_each_eval_text_is_indexed_by_one_kind_by_its_length(index):
    assert index.counts == {"eojeol": 1, "chars": 1, "whole": 1, "too_short": 1}
    assert index.ids == ("eval:2968565", "eval:6825595", "eval:6829990", "eval:6900881")
    # 15 eojeol -> 3 runs of 13; 32 letters -> 3 runs of 30; the short one once.
    assert {k: len(v) for k, v in index.hashes.items()} == {"eojeol": 3, "chars": 3, "whole": 1}
    assert all(np.all(np.diff(v.astype(np.float64)) >= 0) for v in index.hashes.values())


def test_long_eval_text_matches_anywhere_in_a_document_even_edited_at_its_end(index):
    # The last eojeol changed: the first 13-gram still matches.
    edited = LONG.replace("퀴어영화이다.", "영화다.")
    doc = "청원 제목\n앞 문장입니다. " + edited + " 그리고 뒤에 이어지는 문장."
    assert find_matches([doc], index, CONFIG) == [Match("eval:6900881", "eojeol", (1,))]


def test_medium_eval_text_matches_by_letters_whatever_the_spacing(index):
    doc = "안녕하세요\n나름 교훈돋기는 하지만 어쩔 수 없이 저 평점 받을수밖에 없는 저질섹스코미디\n감사합니다"
    assert find_matches([doc], index, CONFIG) == [Match("eval:6829990", "chars", (1,))]


def test_short_eval_text_matches_whole_lines_and_runs_of_lines_only(index):
    docs = [
        "지루하지는않은데 완전 막장임. 돈주고 보기에는…",  # the whole comment, lightly edited
        "첫 줄\n지루하지는 않은데 완전 막장임...\n돈주고 보기에는\n끝 줄",  # split in two sentences
        "그 영화는 지루하지는 않은데 완전 막장임... 돈주고 보기에는 아까웠다",  # inside a sentence: no
        "최고!!",  # under min_chars: not indexed
        "지루하지는 않은데 완전 막장임",  # a part only: no
    ]
    assert find_matches(docs, index, CONFIG) == [
        Match("eval:6825595", "whole", (0,)),
        Match("eval:6825595", "whole", (1, 2)),
        None,
        None,
        None,
    ]


def test_unrelated_real_texts_do_not_match(index):
    docs = [
        "굳 ㅋ",
        "뭐야 이 평점들은.... 나쁘진 않지만 10점 짜리는 더더욱 아니잖아",
        "안녕하세요. 현재 사대, 교대 등 교원양성학교들의 예비교사들이 임용절벽에 매우 힘들어 하고 있는 줄로 압니다.",
        "",
    ]
    assert find_matches(docs, index, CONFIG) == [None, None, None, None]


def test_the_first_match_is_the_earliest_and_names_the_smallest_eval_id():
    index = build_index([("b", SHORT), ("a", SHORT), ("c", MEDIUM)], CONFIG)
    doc = MEDIUM + "\n" + SHORT
    assert find_matches([doc], index, CONFIG) == [Match("c", "chars", (0, 1))]
    assert find_matches([SHORT], index, CONFIG) == [Match("a", "whole", (0,))]


def test_a_batch_gives_the_same_matches_as_one_document_at_a_time(index, monkeypatch):
    docs = ["머리말\n" + LONG, "아무 관계 없는 문장", MEDIUM, SHORT, "꼬리\n" + SHORT]
    one_by_one = [find_matches([d], index, CONFIG)[0] for d in docs]
    assert find_matches(docs, index, CONFIG) == one_by_one
    monkeypatch.setattr("kcorpus.transforms.rules.decontaminate.CHUNK_CHARS", 40)  # hashed in several chunks
    assert find_matches(docs, index, CONFIG) == one_by_one
    chunked = build_index(EVAL, CONFIG)
    assert chunked.ids == index.ids and chunked.counts == index.counts
    for kind in index.hashes:
        assert np.array_equal(chunked.hashes[kind], index.hashes[kind])
        assert np.array_equal(chunked.owners[kind], index.owners[kind])


def test_chunks_bound_the_characters_hashed_at_once():
    from kcorpus.transforms.rules.decontaminate import _chunks

    assert list(_chunks(["가나", "다라마", "바", "사아자차카타파하"], 5)) == [
        ["가나", "다라마"],
        ["바"],
        ["사아자차카타파하"],
    ]


def test_drop_or_redact():
    index = build_index(EVAL, CONFIG)
    docs = [
        Document("p:1", "청원합니다\n" + SHORT + "\n감사합니다", "p"),
        Document("p:2", SHORT, "p"),
        Document("p:3", "깨끗한 문서입니다", "p"),
    ]
    dropped = decontaminate(docs, index, CONFIG)
    assert [d for d, _ in dropped] == [None, None, docs[2]]
    redacting = DecontaminateConfig(paths=("e",), format="nsmc", action="redact")
    redacted = decontaminate(docs, index, redacting)
    assert [d.text if d else None for d, _ in redacted] == [
        "청원합니다\n감사합니다",
        None,
        "깨끗한 문서입니다",
    ]
    assert redact("a\nb\nc", [0, 2]) == "b"


def test_evidence_quotes_the_matching_lines():
    match = Match("eval:6825595", "whole", (1,))
    assert match.evidence("청원합니다\n" + SHORT, CONFIG) == {
        "id": "eval:6825595",
        "match": "whole text",
        "text": SHORT,
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"action": "delete"}, "action must be one of"),
        ({"ngram": 0}, ">= 1"),
        ({"min_chars": 40}, "min_chars must be <= char_ngram"),
        ({"paths": ("e",), "format": "nope"}, "dedup.decontaminate.format: unknown format 'nope'"),
    ],
)
def test_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DecontaminateConfig(**kwargs)


def test_a_stock_condolence_phrase_of_an_eval_set_is_not_a_leak():
    # NSMC ratings_test.txt rows 7444279 and 9822635 (CC0): the phrase every news comment section repeats.
    evals = [("eval:7444279", "▶◀ 삼가 고인의 명복을 빕니다."), ("eval:9822635", "삼가 고인의 명복을 빕니다..")]
    comment = "삼가 고인의 명복을 빕니다"
    default = DecontaminateConfig(paths=("eval.txt",))
    assert default.min_chars == 15
    assert build_index(evals, default).counts["too_short"] == 2  # 11 letters: not indexed
    assert find_matches([comment], build_index(evals, default), default) == [None]
    before = DecontaminateConfig(paths=("eval.txt",), min_chars=10)  # the old floor called it a leak
    matches = find_matches([comment], build_index(evals, before), before)
    assert matches == [Match("eval:7444279", "whole", (0,))]
