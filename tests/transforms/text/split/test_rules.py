import json
import pickle
import re
import time

import pytest
from split_scoring import boundary_counts, boundary_offsets, f1_score

from kcorpus.transforms.text.split import (
    BACKENDS,
    KIWI_MISSING,
    SentenceSplitter,
    backend_problem,
    backends,
    make_splitter,
    rules,
    split_sentences,
    terminators,
)
from kcorpus.transforms.text.split import __doc__ as package_doc


def _listed(section: str) -> list[str]:
    """The rule names the package docstring lists under `section` (`1.` or `2.`), in order."""
    text = package_doc.split(f"\n{section} ", 1)[1].split("\n" + str(int(section[0]) + 1) + ". ", 1)[0]
    return re.findall(r"^   - (\w+):", text, flags=re.MULTILINE)


def test_the_package_docstring_lists_the_rules_in_the_order_they_apply():
    assert _listed("1.") == [rule.__name__ for rule in rules.CUT_RULES]
    assert _listed("2.") == [rule.__name__ for rule in rules.TERMINATOR_RULES]
    candidates = ", ".join(candidate.__name__ for candidate in terminators.TERMINATOR_CANDIDATES)
    assert candidates in " ".join(package_doc.split())
    # Each rule says why in one line of its docstring.
    for rule in (*rules.CUT_RULES, *rules.TERMINATOR_RULES, *terminators.TERMINATOR_CANDIDATES):
        assert rule.__doc__ and rule.__doc__.strip(), rule.__name__


# tests/testdata/split/golden.jsonl: real paragraphs with kss 6.0.6's default-backend (pecab) splits.
# kowiki: the first 25 KB of bench_split.py's held-out sample (odd-index articles), F1 0.992 when made;
# petitions: 16 KB of tuning documents (even index; long paragraphs cut after "다. " to keep kss fast),
# F1 0.962 when made, 0.983 after the split2 rules (bare formal/plain endings, quote pairs), 0.975 once Kiwi
# became the reference (issue 24: an ellipsis ends a sentence, spaced terminators stay with theirs). The floors
# sit just below, so a rule change that loses agreement with kss fails here. Petitions 0.939 after issue 30's
# `- ` list items (8 cuts between unterminated items, `…한 경우 | - 연가 “1일” 생성`, that kss does not make).
GOLDEN_F1_FLOOR = {"kowiki": 0.98, "petitions": 0.93}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "안녕하세요. 반갑습니다! 오늘 날씨는 어떤가요? 좋네요.",
            ["안녕하세요.", "반갑습니다!", "오늘 날씨는 어떤가요?", "좋네요."],
            id="terminators",
        ),
        pytest.param(
            "원주율은 약 3.14이다. 다음 문장이다.", ["원주율은 약 3.14이다.", "다음 문장이다."], id="decimal"
        ),
        pytest.param(
            "그는 U.S. 대통령이다. 조지 W. 부시가 당선되었다.",
            ["그는 U.S. 대통령이다.", "조지 W. 부시가 당선되었다."],
            id="initials",
        ),
        pytest.param(
            "J. R. R. 톨킨은 작가이다. 그는 영국 사람이다.",
            ["J. R. R. 톨킨은 작가이다.", "그는 영국 사람이다."],
            id="initials-run",
        ),
        pytest.param(
            "Mr. Kim은 Dr. Lee를 만났다. 둘은 친구다. 이 방법은 e.g. 예시이다.",
            ["Mr. Kim은 Dr. Lee를 만났다.", "둘은 친구다.", "이 방법은 e.g. 예시이다."],
            id="abbreviations",
        ),
        pytest.param(
            "자세한 내용은 https://ko.wikipedia.org/wiki/대한민국 에서 볼 수 있다. 메일은 help@example.co.kr 로 보낸다.",
            [
                "자세한 내용은 https://ko.wikipedia.org/wiki/대한민국 에서 볼 수 있다.",
                "메일은 help@example.co.kr 로 보낸다.",
            ],
            id="url-email",
        ),
        pytest.param(
            "청원 시작일은 2017. 8. 25. 입니다. 마감은 9월이다.",
            ["청원 시작일은 2017. 8. 25. 입니다.", "마감은 9월이다."],
            id="date",
        ),
        pytest.param(
            "요구 사항은 다음과 같습니다. 1. 임금 인상 2. 근무 시간 단축",
            ["요구 사항은 다음과 같습니다.", "1. 임금 인상 2. 근무 시간 단축"],
            id="numbered-list",
        ),
        pytest.param(
            "1990년대에 인구는 1,234,567명이었다. 2000년에는 늘었다. 득점은 25. 다음 경기는 내일이다.",
            [
                "1990년대에 인구는 1,234,567명이었다.",
                "2000년에는 늘었다.",
                "득점은 25. 다음 경기는 내일이다.",
            ],
            id="numbers",
        ),
        pytest.param(
            "제3조. 이 법은 공포한 날부터 시행한다.",
            ["제3조. 이 법은 공포한 날부터 시행한다."],
            id="article-ref",
        ),
        pytest.param(
            "정책에서도... 부동산에서도... 국민들이 놀랐다. 정말 그럴까... 모르겠다.",
            ["정책에서도... 부동산에서도... 국민들이 놀랐다.", "정말 그럴까...", "모르겠다."],
            id="ellipsis",  # an ellipsis after a particle is a pause (issue 30); after an ending it ends the sentence
        ),
        pytest.param("그럴까… 아니다.", ["그럴까…", "아니다."], id="ellipsis-char"),
        pytest.param(
            '그는 "밥 먹었다. 잘 잤다."라고 말했다. 그리고 떠났다.',
            ['그는 "밥 먹었다. 잘 잤다."라고 말했다.', "그리고 떠났다."],
            id="quote-inside",
        ),
        pytest.param(
            '그녀는 말했다. "이제 끝이야." 모두 조용해졌다.',
            ["그녀는 말했다.", '"이제 끝이야."', "모두 조용해졌다."],
            id="quote-sentence",
        ),
        pytest.param('그는 "좋아." 라고 답했다.', ['그는 "좋아." 라고 답했다.'], id="quotative"),
        pytest.param(
            "(이 문장은 괄호 안이다. 계속된다.) 밖의 문장이다.",
            ["(이 문장은 괄호 안이다. 계속된다.)", "밖의 문장이다."],
            id="brackets",
        ),
        pytest.param("역사가(?) 왜곡되었다. 다음이다.", ["역사가(?) 왜곡되었다.", "다음이다."], id="remark"),
        pytest.param("잘 부탁드립니다 감사합니다", ["잘 부탁드립니다", "감사합니다"], id="bare-polite"),
        pytest.param(
            "사람 것만은 아니잖아요 동물과도 살아야죠 주요 인사가 왔어요 필요 없어요",
            ["사람 것만은 아니잖아요", "동물과도 살아야죠", "주요 인사가 왔어요", "필요 없어요"],
            id="bare-yo",
        ),
        pytest.param(
            "개선이 필요함 ※ 초과근무를 줄인다.", ["개선이 필요함", "※ 초과근무를 줄인다."], id="bare-nominal"
        ),
        pytest.param(
            "그 가게가 들어왔습니다 50평인 이유는 담배입니다 가 봅시다 매장이 있습니다(병원 건너편에).",
            ["그 가게가 들어왔습니다", "50평인 이유는 담배입니다", "가 봅시다", "매장이 있습니다(병원 건너편에)."],
            id="bare-formal",
        ),
        pytest.param(
            "다른 길이 있습니다 , 그럼 갑니다.", ["다른 길이 있습니다 , 그럼 갑니다."], id="bare-formal-punct"
        ),
        pytest.param(  # petitions: `-ㅂ니다` run into the next word; `-ㅂ니다만` continues
            "13분이 집을 계약했습니다그래서 소송을 걸었습니다만 졌습니다라고 썼다.",
            ["13분이 집을 계약했습니다", "그래서 소송을 걸었습니다만 졌습니다라고 썼다."],
            id="bare-formal-glued",
        ),
        pytest.param(  # petitions: a polite ending before a list number
            "보조금을 지원해 주세요 2. 모든 교사가 평등한 대우를 받게 해 주세요",
            ["보조금을 지원해 주세요", "2. 모든 교사가 평등한 대우를 받게 해 주세요"],
            id="bare-yo-number",
        ),
        pytest.param(
            "그때 상황은 관심이 없다 위탁점포가 중요하다. 주겠다 하더니 떠났다 했다.",
            ["그때 상황은 관심이 없다", "위탁점포가 중요하다.", "주겠다 하더니 떠났다 했다."],
            id="bare-da",
        ),
        pytest.param(
            "발생할 수 있음 ㅇ 최근 도입됨 ㅇ 보완하는 역할을 함※ 초과근무",
            ["발생할 수 있음 ㅇ", "최근 도입됨 ㅇ", "보완하는 역할을 함", "※ 초과근무"],
            id="bare-nominal-bullet",
        ),
        pytest.param(
            '그는 "비싸다. 폐점을 한다.""이건 잘못된 점포다." 하지만 아니다.',
            ['그는 "비싸다. 폐점을 한다."', '"이건 잘못된 점포다."', "하지만 아니다."],
            id="quote-pair",
        ),
        pytest.param(
            "많이 싸웠습니다..>> 올 추석이 걱정입니다.. >그래서 보냈습니다.~ 감사합니다",
            ["많이 싸웠습니다..>>", "올 추석이 걱정입니다.. >", "그래서 보냈습니다.~", "감사합니다"],
            id="trailing-marks",
        ),
        pytest.param(
            "제발 도와주십시오.. ---------- 여러분께.... 걸어서 10? 초도 안 됩니다.",
            # the separator stays with the sentence before and the next one starts after it; `께....`: a particle
            # before the ellipsis, so no cut there
            ["제발 도와주십시오.. ----------", "여러분께.... 걸어서 10? 초도 안 됩니다."],
            id="separator-particle-number",
        ),
        pytest.param(
            '큰 법이다? 라는 말이 있다. "애국자다~" 등의 말씀을 하신다. 기회입니다." 라 말씀하셨다.',
            ['큰 법이다? 라는 말이 있다.', '"애국자다~" 등의 말씀을 하신다.', '기회입니다." 라 말씀하셨다.'],
            id="quotative-continues",
        ),
        pytest.param(
            "경기에서 이겼다.그리고 축하했다. 그랬습니까?그렇다면 좋다.",
            ["경기에서 이겼다.", "그리고 축하했다.", "그랬습니까?", "그렇다면 좋다."],
            id="glued",
        ),
        pytest.param(
            "좋아요!!! 최고예요~ 또 올게요", ["좋아요!!!", "최고예요~", "또 올게요"], id="repeated-marks"
        ),
        # Real NSMC reviews (`ratings_test.txt`): a question or exclamation glued to a sentence that starts with a
        # number; a `!1` slip at the end is no sentence.
        pytest.param(
            "아저씨가 지하철에서 꺼내시면서 20년가지고 계신 수첩 부분에서 감동!!10점남깁니다.",
            ["아저씨가 지하철에서 꺼내시면서 20년가지고 계신 수첩 부분에서 감동!!", "10점남깁니다."],
            id="glued-before-number",
        ),
        # Nominal `-ㅆ음` after any past syllable ends a sentence (NSMC); the conditional `-ㅆ음 좋을` and a particle
        # after it (petitions_2017-08: `있었음 에도 불구하고`) go on.
        pytest.param("난 오히려 예지원의 오버연기가 거슬렸음 비추", ["난 오히려 예지원의 오버연기가 거슬렸음", "비추"], id="past-nominal"),
        pytest.param("공포 영화보다는 그냥 기묘한이야기에 넣었음 좋을법한..", ["공포 영화보다는 그냥 기묘한이야기에 넣었음 좋을법한.."], id="eum-conditional"),
        pytest.param(
            "법적인 문제가 없다는것을 알고 있었음 에도 불구하고 법적인 문제를 들먹이면서 협박 하였습니다.",
            ["법적인 문제가 없다는것을 알고 있었음 에도 불구하고 법적인 문제를 들먹이면서 협박 하였습니다."],
            id="eum-particle",
        ),
        # Real petitions of `petitions_2019-07` (a read of the kept documents, issue 30): the adverb `더구나` is no
        # `-구나`; `아니다` and `-잖아` end a sentence; a bracket that the writer's period follows stays with its
        # sentence, and the period after it ends one; `-다` before a list bullet ends one; `…)` closes a remark
        # inside the sentence; an arrow `===>` is no separator.
        pytest.param(
            "금융감독원 등 관련기관과 더구나 직접적인 수사와 단속을 해야할 주무관청인 경찰이 나서야 합니다.",
            ["금융감독원 등 관련기관과 더구나 직접적인 수사와 단속을 해야할 주무관청인 경찰이 나서야 합니다."],
            id="adverb-deoguna",
        ),
        pytest.param(
            "처벌의 공백이 생기는 것은 아니다 따라서, 처벌해야 한다.",
            ["처벌의 공백이 생기는 것은 아니다", "따라서, 처벌해야 한다."],
            id="negative-copula",
        ),
        pytest.param(
            "이 몸이 너무 아깝잖아 그 놈은 떵떵거리며 잘사는데..난 뭐하는거지...",
            ["이 몸이 너무 아깝잖아", "그 놈은 떵떵거리며 잘사는데..", "난 뭐하는거지..."],
            id="informal-janha",
        ),
        pytest.param(
            "전화로도 통화하였습니다(2018년 형제*****호, 문자 증거자료 ). 이에 대해 이메일로 받았습니다(2017. 2. 8.). 이와 관련하여 연락을 했습니다.",
            ["전화로도 통화하였습니다(2018년 형제*****호, 문자 증거자료 ).", "이에 대해 이메일로 받았습니다(2017. 2. 8.).",
             "이와 관련하여 연락을 했습니다."],
            id="formal-bracket-period",
        ),
        pytest.param(
            "재판에 영향을 미친다 ○ 공소권이 없다 ※ 본건에 대하여 봅니다.",
            ["재판에 영향을 미친다", "○ 공소권이 없다", "※ 본건에 대하여 봅니다."],
            id="da-before-bullet",
        ),
        pytest.param(
            "상대방의 조직적인 (뒤따라 와서 일방적으로 폭행하는 …) 행위들이 약도에서 보입니다.",
            ["상대방의 조직적인 (뒤따라 와서 일방적으로 폭행하는 …) 행위들이 약도에서 보입니다."],
            id="ellipsis-closes-remark",
        ),
        pytest.param(
            "만난다는 기사와 객관적 의심. ===>재판 1년여정도 지나도록 안 했다.",
            ["만난다는 기사와 객관적 의심.", "===>재판 1년여정도 지나도록 안 했다."],
            id="arrow",
        ),
        # From a read of held-out kowiki `AJ/wiki_05` and `petitions_2019-06`, and the shared kowiki: in edited text
        # (150+ characters, two or more sentences ended `…다.`, no mark of speech) an unpunctuated `-다`, `-냐`,
        # `-네` or `-함` is a name or a noun; a period glued to an opening quote or bracket ends a sentence; polite
        # `-서요`; a polite ending before a URL.
        pytest.param(
            "좌표를 나타내는 방법 중 하나인 직교좌표계는 프랑스의 철학자이자 수학자인 르네 데카르트가 발명했다. 이후 "
            "르네 데카르트가 상상의 수라고 부른 데에서 허수라는 이름이 정착되었다. 천안함 사건으로 대북 경제협력을 단절한 "
            "이명박 정부의 5·24 조처로 북-중 경협이 남북경협의 빈자리를 채워가고 있다.",
            ["좌표를 나타내는 방법 중 하나인 직교좌표계는 프랑스의 철학자이자 수학자인 르네 데카르트가 발명했다.",
             "이후 르네 데카르트가 상상의 수라고 부른 데에서 허수라는 이름이 정착되었다.",
             "천안함 사건으로 대북 경제협력을 단절한 이명박 정부의 5·24 조처로 북-중 경협이 남북경협의 빈자리를 채워가고 있다."],
            id="edited-names",
        ),
        pytest.param(
            "회의에서 합니다.“여러분 안녕하세요” 라고 했다. 그가 말하였다.[저는] 가겠다.",
            ["회의에서 합니다.", "“여러분 안녕하세요” 라고 했다.", "그가 말하였다.", "[저는] 가겠다."],
            id="period-before-opening",
        ),
        pytest.param(
            "2016년 4월 25일, 로페스는 또다른 인도 구단 푸네 시티 감독으로 취임했다. 섬의 일부이다. 트리스탄다쿠냐 그 자체는 작다.",
            ["2016년 4월 25일, 로페스는 또다른 인도 구단 푸네 시티 감독으로 취임했다.", "섬의 일부이다.", "트리스탄다쿠냐 그 자체는 작다."],
            id="names-in-ne-nya",
        ),
        pytest.param("다 알면서요 그러면서 왜 그러세요?", ["다 알면서요", "그러면서 왜 그러세요?"], id="polite-seoyo"),
        # Held-out kowiki `AJ/wiki_06` and petitions_2019-06: Japanese names in `-죠`, a `-냐` of alternatives, a call
        # quoted by `하면`.
        pytest.param(
            "겐큐 4년 (1193년), 사촌인 히타치 다이죠씨의 타케 요시모토를 호죠 토키마사와 함께 함정에 빠져 영지를 몰수당했다.",
            ["겐큐 4년 (1193년), 사촌인 히타치 다이죠씨의 타케 요시모토를 호죠 토키마사와 함께 함정에 빠져 영지를 몰수당했다."],
            id="names-in-jyo",
        ),
        pytest.param(
            "소비자가 선택하느냐 선택하지않느냐의 따라 살아남느냐 살아남지못하느냐의 원칙을 따릅니다.",
            ["소비자가 선택하느냐 선택하지않느냐의 따라 살아남느냐 살아남지못하느냐의 원칙을 따릅니다."],
            id="nya-alternatives",
        ),
        pytest.param("엄마가 밥먹자.. 하면 신나서 달려옵니다.", ["엄마가 밥먹자.. 하면 신나서 달려옵니다."], id="quoted-by-hamyeon"),
        # ...a list number or a date after a terminator is no dotted word of an emphatic run (`전. 부. 다.`).
        pytest.param(
            "의사가 기록을 조작한 점. 4. 진료기록부와 간호기록부가 다른 점. 제출한 검찰들. 1997. 12. 8 제출했다.",
            ["의사가 기록을 조작한 점.", "4. 진료기록부와 간호기록부가 다른 점.", "제출한 검찰들.", "1997. 12. 8 제출했다."],
            id="number-after-period",
        ),
        # ...and a `-다` before a separator, a list letter or an angle-quoted heading ends a sentence.
        pytest.param(
            "리베이트를 받고 있다 ---쌍벌제도입 이후 달라졌다. 이것은 안 된다 c)에누리 문제가 있다. 처리를 한다 ‹문제점> 이것이다.",
            ["리베이트를 받고 있다 ---", "쌍벌제도입 이후 달라졌다.", "이것은 안 된다", "c)에누리 문제가 있다.", "처리를 한다",
             "‹문제점> 이것이다."],
            id="da-before-marks",
        ),
        pytest.param(
            "전기사업법 시행규칙 제 7조 3항 1. 전기설비 건설 예정지의 수용정도가 높을 것 이라는 현행법과는 달리 한다. 조작 한 점 . "
            "(증거 제 42호부터 증거 제65호까지 : 차후 추가로 제시 하겠습니다) 5. 형사고소사건을 검찰이 덮었다.",
            ["전기사업법 시행규칙 제 7조 3항 1. 전기설비 건설 예정지의 수용정도가 높을 것 이라는 현행법과는 달리 한다.",
             "조작 한 점 . (증거 제 42호부터 증거 제65호까지 : 차후 추가로 제시 하겠습니다)", "5. 형사고소사건을 검찰이 덮었다."],
            id="cited-clause-and-item-after-bracket",
        ),
        # Held-out petitions_2019-06 (a fifth read): a spaced nominal `있음`/`없음`/`됨`, and `함` after an object or
        # `-야`; `-됨` before a list number; polite `-ㄴ가요`, `-라니요`, `-구여`; `자기네` is no `-네`; a bracket closed
        # after `-니다` before a circled number. Not the colloquial `함` "once" (`안보지 말고 함 바바여`, NSMC).
        pytest.param(
            "신고를 하고 있음 신고내용은 다음과 같음. 정보를 제공해야 함 환경부 해명은 없었다. 이미 확인됨 4. 현재 상황은 이렇다.",
            ["신고를 하고 있음", "신고내용은 다음과 같음.", "정보를 제공해야 함", "환경부 해명은 없었다.", "이미 확인됨",
             "4. 현재 상황은 이렇다."],
            id="spaced-nominals",
        ),
        pytest.param(
            "그게 사람인가요 자기들 마음대로 합니다. 하라니요 저도 할만큼 했습니다. 없다구여 뭐 이런 경우가 있습니까? 자기네 "
            "병원와서 치료받으라고 했습니다.",
            ["그게 사람인가요", "자기들 마음대로 합니다.", "하라니요", "저도 할만큼 했습니다.", "없다구여",
             "뭐 이런 경우가 있습니까?", "자기네 병원와서 치료받으라고 했습니다."],
            id="polite-question-endings",
        ),
        pytest.param("넘는다 합니다) ② 12년간 변화가 없었습니다.", ["넘는다 합니다)", "② 12년간 변화가 없었습니다."], id="bracket-before-circled"),
        pytest.param("진짜 포스터보고 안보지 말고 함 바바여", ["진짜 포스터보고 안보지 말고 함 바바여"], id="ham-once"),
        # Unquoted speech before the noun that takes it (petitions_2019-06): `죽는다 쇼하고`, `번다 소문이`.
        pytest.param(
            "헤어지자하면 죽는다 쇼하고 임신때부터 그랬습니다. 한달에 500 만원을번다 1000만원을번다 소문이 돌아서 시작했습니다.",
            ["헤어지자하면 죽는다 쇼하고 임신때부터 그랬습니다.", "한달에 500 만원을번다 1000만원을번다 소문이 돌아서 시작했습니다."],
            id="unquoted-speech-noun",
        ),
        pytest.param("이미 처리가 되어 있었음 ‹문제점> 이것이 문제입니다.", ["이미 처리가 되어 있었음", "‹문제점> 이것이 문제입니다."], id="eum-before-heading"),
        pytest.param("이것 뿐만아니라.. 2018년에는 또 그랬습니다.", ["이것 뿐만아니라.. 2018년에는 또 그랬습니다."], id="not-only-pause"),
        pytest.param(
            "기어나가더라구요 https://example.com/a 그런데 또 왔어요.",
            ["기어나가더라구요", "https://example.com/a 그런데 또 왔어요."],
            id="polite-before-url",
        ),
        # Real NSMC: an adverb after the predicate at the end of a comment stays (`최악이다 정말..`).
        pytest.param("신화같은 그룹 다신없다 정말....", ["신화같은 그룹 다신없다 정말...."], id="inverted-adverb"),
        pytest.param("그냥 완벽한 영화! 감히 평가할 수 없는 영화!1", ["그냥 완벽한 영화!", "감히 평가할 수 없는 영화!1"], id="bang-one"),
        # NSMC's doubled quotes close one quotation (`조화!"""`); a sweat emoticon stays with its sentence.
        pytest.param(
            '"""우리 드라마의 """"진정한"""" 전성기에 만든 최고의 대작! 스케일과 섬세함의 완벽한 조화!"""',
            ['"""우리 드라마의 """"진정한"""" 전성기에 만든 최고의 대작!', '스케일과 섬세함의 완벽한 조화!"""'],
            id="doubled-quotes",
        ),
        pytest.param(
            "아놔..어떻게 이따위로.....근데 악마가 신부위에서 부비할땐 왜 좀 그렇지!!!! --;;",
            ["아놔..", "어떻게 이따위로.....근데 악마가 신부위에서 부비할땐 왜 좀 그렇지!!!! --;;"],
            id="sweat-emoticon",
        ),
        pytest.param(
            "왔다고 해요 ,, 누군가 신고했나 봐요. 그러던 중,, 전화가 왔다.",
            ["왔다고 해요 ,,", "누군가 신고했나 봐요.", "그러던 중,, 전화가 왔다."],
            id="double-comma",
        ),
        pytest.param(
            "진짜 웃기다. ㅋㅋㅋ 다시 보자.", ["진짜 웃기다. ㅋㅋㅋ", "다시 보자."], id="jamo-trailer"
        ),
        pytest.param(
            "첫 문단이다.\n\n둘째 문단 첫 문장\n  셋째 문단이다. 끝.  ",
            ["첫 문단이다.", "둘째 문단 첫 문장", "셋째 문단이다.", "끝."],
            id="newlines",
        ),
        # The traps of issue 24 (a kept line that starts with punctuation or a bare ending).
        pytest.param(
            "그분의 첫 질문은 몇세대나 됩니까? 였습니다. 다음이다.",
            ["그분의 첫 질문은 몇세대나 됩니까? 였습니다.", "다음이다."],
            id="copula-after-question",
        ),
        pytest.param(
            "야후! 재팬 같은 회사들은 성장했다. 좋아! 가자.",
            ["야후! 재팬 같은 회사들은 성장했다.", "좋아!", "가자."],
            id="exclaimed-name",
        ),
        pytest.param(
            "원칙은 '누구도 차별받지 않는다.' , '다양한 의견을 존중한다.' 등 두 가지다.",
            ["원칙은 '누구도 차별받지 않는다.' , '다양한 의견을 존중한다.' 등 두 가지다."],
            id="comma-after-quote",
        ),
        pytest.param(
            "피해자 김**. 씨는 다쳤다. 담당 ○○○. 님께서 말했다. 저는 ○○○입니다.",
            ["피해자 김**. 씨는 다쳤다.", "담당 ○○○. 님께서 말했다.", "저는 ○○○입니다."],
            id="masked-name",
        ),
        pytest.param(
            "형편이 어려워 내지 못했습니다. . . 제발 도와주세요. . . 놀랍고... ...슬프다. 부탁드립니다. .",
            ["형편이 어려워 내지 못했습니다. . .", "제발 도와주세요. . .", "놀랍고... ...슬프다.", "부탁드립니다. ."],
            id="spaced-terminators",
        ),
        pytest.param(
            "기대하면 안 되는 것인가요??? ???? 9월까진 쓰세요 라는 대답이었습니다. 회사. 입니다",
            ["기대하면 안 되는 것인가요??? ????", "9월까진 쓰세요 라는 대답이었습니다.", "회사. 입니다"],
            id="no-leading-punctuation-or-ending",
        ),
        pytest.param(
            "좋은 영화로 추천합니다 :-) 또 볼게요 너무 귀여웠음.. :D",
            ["좋은 영화로 추천합니다 :-)", "또 볼게요", "너무 귀여웠음.. :D"],
            id="emoticon-stays",
        ),
        pytest.param(
            "효과 또한 좋습니다. (호전사례 有) 그런데 문제가 있다. (1) 첫째 항목이다.",
            ["효과 또한 좋습니다. (호전사례 有)", "그런데 문제가 있다.", "(1) 첫째 항목이다."],
            id="remark-after-sentence",
        ),
        pytest.param(
            "꼭 만들어 주십시요 감사합니다 돈도 벌어야 하구요 지금 저희는 사업자 임니다 왜 그런가",
            ["꼭 만들어 주십시요", "감사합니다", "돈도 벌어야 하구요", "지금 저희는 사업자 임니다", "왜 그런가"],
            id="misspelled-endings",
        ),
        pytest.param(
            "가. 첫째 항목이다. 나. 둘째 항목이다 다. 셋째다. 요구합니 다. 그래서 떠났습니다 . 결혼했다.",
            ["가. 첫째 항목이다.", "나. 둘째 항목이다", "다. 셋째다.", "요구합니 다.", "그래서 떠났습니다 .", "결혼했다."],
            id="list-letters-and-spaced-period",
        ),
        pytest.param(
            '그는 "그만하라"고 강변했습니다. 설명: 북한이 "우리는 대화한다"고 했다.',
            ['그는 "그만하라"고 강변했습니다.', '설명: 북한이 "우리는 대화한다"고 했다.'],
            id="straight-quotes-pair-at-word-starts",
        ),
        pytest.param(
            "남는 사람들 생각안하나.이때까지 뭐했나 궁금하네..그리고 배우분...연기천재",
            ["남는 사람들 생각안하나.", "이때까지 뭐했나 궁금하네..", "그리고 배우분...", "연기천재"],
            id="glued-terminators",
        ),
        pytest.param(
            "너무 재밌음 드라마 전개가 흥미진진함 연기력이 대단하다 눈물이 나왔다 뭐냐 이게 최고네 또 봐라 다운받아서 봐요^^ 물론 좋았어요ㅠㅠ다시",
            ["너무 재밌음", "드라마 전개가 흥미진진함", "연기력이 대단하다", "눈물이 나왔다", "뭐냐", "이게 최고네",
             "또 봐라", "다운받아서 봐요^^", "물론 좋았어요ㅠㅠ", "다시"],
            id="comment-endings",
        ),
        pytest.param(
            "그는 바다 위에서 하루마다 게임 취임 이후 생각보다 재미없다 생각했다.",
            ["그는 바다 위에서 하루마다 게임 취임 이후 생각보다 재미없다 생각했다."],
            id="not-endings",
        ),
        # The causes of issue 30 (the gold standard's misses and false cuts).
        pytest.param(
            "이 병은 흔하다.[1][2] 치료법은 없다.[주 3] 연구가 계속된다.[5]",
            ["이 병은 흔하다.[1][2]", "치료법은 없다.[주 3]", "연구가 계속된다.[5]"],
            id="citation-markers",
        ),
        pytest.param(
            "그런데..... 양이.... 어마어마 하쥬... 근데 좋겠지만.. 모르겠다",
            ["그런데..... 양이.... 어마어마 하쥬...", "근데 좋겠지만.. 모르겠다"],
            id="ellipsis-inside",
        ),
        pytest.param(
            "이게 뭐지?? 하고 검색을 했다. 이게뭔가... 싶어서 다시 봤다.",
            ["이게 뭐지?? 하고 검색을 했다.", "이게뭔가... 싶어서 다시 봤다."],
            id="quotative-marks",
        ),
        pytest.param(
            "그는 <다시 만나요. 안녕> 이라는 노래를 불렀다. 좋았다",
            ["그는 <다시 만나요. 안녕> 이라는 노래를 불렀다.", "좋았다"],
            id="ascii-angle-quotes",
        ),
        pytest.param(
            "전. 부. 다. 요!!! 정말 좋아요. 삼성생명과. 한화생명의. 암환자. 막아. 주십시요. 다시. 부탁. 드립니다.",
            ["전. 부. 다. 요!!!", "정말 좋아요.", "삼성생명과. 한화생명의. 암환자. 막아. 주십시요.", "다시. 부탁. 드립니다."],
            id="spaced-emphasis",
        ),
        pytest.param(
            "삼성생명과. 한화생명의. 암환자. 및. 질병 관련. 보험금. 지급거부와. 막아. 주십시요. 다시 부탁드립니다.",
            ["삼성생명과. 한화생명의. 암환자. 및. 질병 관련. 보험금. 지급거부와. 막아. 주십시요.", "다시 부탁드립니다."],
            id="dotted-run-from-the-start",
        ),
        pytest.param(
            "tv에서 나오길래 봤는데... 너무 실망했다. 그런데..... 양이 많다",
            ["tv에서 나오길래 봤는데...", "너무 실망했다.", "그런데..... 양이 많다"],
            id="background-ending-trailing-off",
        ),
        # NSMC (ratings_test.txt): in a comment, an ellipsis after `-고` or `-ㄴ데` ends a sentence that trails off, glued
        # to the next word or not; in a petition in `-ㅂ니다` style (petitions_2017-08) the same ellipsis joins two clauses.
        pytest.param(
            "가끔 문득 생각나서 다시보는 영화..색감이 정말 예술이죠 강렬하고 화려하고..츠지야안나의 너무도 아름답던 리즈시절도 볼 수 있고..",
            ["가끔 문득 생각나서 다시보는 영화..", "색감이 정말 예술이죠", "강렬하고 화려하고..", "츠지야안나의 너무도 아름답던 리즈시절도 볼 수 있고.."],
            id="comment-trailing-go",
        ),
        pytest.param("재미있던데..내용이해도잘되고", ["재미있던데..", "내용이해도잘되고"], id="comment-trailing-de-glued"),
        pytest.param(
            "3. 내 청원은 바로 볼 수 있도록 해주세요. 본인 청원에 대해서 어떠한 댓글등이 달렸는지 어떻게 진행되는지 확인하고 싶은데.. 페이지"
            " 번호를 일일히 눌러서 찾아야 되니 너무 힘들어요 위 기능들은 사실 홈페이지에서 아주 기초적이고 기본적인 기능들인데.. 어떠한 목적이"
            " 있어서 빼놓은건가요? 사실 저 기능이 빠졌다는거에 참 의문입니다",
            [
                "3. 내 청원은 바로 볼 수 있도록 해주세요.",
                "본인 청원에 대해서 어떠한 댓글등이 달렸는지 어떻게 진행되는지 확인하고 싶은데.. 페이지 번호를 일일히 눌러서 찾아야 되니 너무 힘들어요",
                "위 기능들은 사실 홈페이지에서 아주 기초적이고 기본적인 기능들인데.. 어떠한 목적이 있어서 빼놓은건가요?",
                "사실 저 기능이 빠졌다는거에 참 의문입니다",
            ],
            id="formal-ellipsis-joins",
        ),
        # In formal text longer than a comment a period glued between two short nouns separates them (petitions_2017-08:
        # `이명박.박근혜`, `제재.압박`); a comment's nominal sentence still ends there (NSMC `최고의 프로그램.가장 오래`).
        pytest.param(
            "그동안 9년 동안 이명박.박근혜 정부가 mbc가 너무 망쳤습니다. 최근 mbc가 너무 망가쳤습니다 그리고 mbc 블랙리스트 사태 터지고 제가 분노"
            " 납니다. 김민석 피디님이 김장겸 물리나가 발언은 의미으로 공감합니다. 이번에 mbc 파업 하면서 국민들 대한 언론 신뢰도 회복 해야 합니다.",
            [
                "그동안 9년 동안 이명박.박근혜 정부가 mbc가 너무 망쳤습니다.",
                "최근 mbc가 너무 망가쳤습니다",
                "그리고 mbc 블랙리스트 사태 터지고 제가 분노 납니다.",
                "김민석 피디님이 김장겸 물리나가 발언은 의미으로 공감합니다.",
                "이번에 mbc 파업 하면서 국민들 대한 언론 신뢰도 회복 해야 합니다.",
            ],
            id="formal-glued-list-period",
        ),
        pytest.param("최고의 프로그램.가장 오래 지켜봐야할 프로그램!", ["최고의 프로그램.", "가장 오래 지켜봐야할 프로그램!"], id="comment-glued-nominal-end"),
        # A straight quote the writer closed with a curly one (petitions_2019-06, read 7) ends there: the sentences
        # after it are split.
        pytest.param(
            '강신원 인천도시공사 상임감사는 "최근 우리 공사를 바라보고 지지해 주는 인천시민들에게 큰 실망감을 안겨 주는 사건이 발생했다”며 우리'
            ' 임직원 스스로도 자괴감을 떨칠 수가 없다고 임직원들에게 글을 보냈다. 이어 "성 관련 비위는 매스컴으로 연일 집중 조명되고 질타를'
            ' 받고 있다며 절대로 용납되지 않는다”라고 언급했다.',
            [
                (
                    '강신원 인천도시공사 상임감사는 "최근 우리 공사를 바라보고 지지해 주는 인천시민들에게 큰 실망감을 안겨 주는 사건이 발생했다”며'
                    " 우리 임직원 스스로도 자괴감을 떨칠 수가 없다고 임직원들에게 글을 보냈다."
                ),
                '이어 "성 관련 비위는 매스컴으로 연일 집중 조명되고 질타를 받고 있다며 절대로 용납되지 않는다”라고 언급했다.',
            ],
            id="straight-quote-closed-curly",
        ),
        # NSMC comments without any terminator and without a `-다`: a polite ending glued to the next sentence is still
        # cut; an ending drawn out by its vowel is not (`대화해요오오`), a `다` before `아주` is (`한다아주`).
        pytest.param("권율 진짜 잘생겼어요천상여자 재미있어요", ["권율 진짜 잘생겼어요", "천상여자 재미있어요"], id="glued-polite-unpunctuated"),
        pytest.param("눈을 보고 대화해요오오", ["눈을 보고 대화해요오오"], id="elongated-ending"),
        pytest.param(
            "연기부터 목소리 주인공도 죽엇으면한다아주재미없고이렇게 끔직한좀비영화는처음본다",
            ["연기부터 목소리 주인공도 죽엇으면한다", "아주재미없고이렇게 끔직한좀비영화는처음본다"],
            id="glued-da-before-a",
        ),
        # A bare final ending before a Latin word ends the sentence (NSMC `이렇냐 tv에서`), not before NSMC's `OO` mask of a
        # swear word, which goes with it (`다문화냐 OO새끼들아`).
        pytest.param(
            "뭔 영화가 이렇냐 tv에서 4000원주고 봤는데 돈 아깝다cg는 게임영상보는것같고 제작비없어서 이딴식으로 만들었나?절대 보지마세요",
            ["뭔 영화가 이렇냐", "tv에서 4000원주고 봤는데 돈 아깝다cg는 게임영상보는것같고 제작비없어서 이딴식으로 만들었나?", "절대 보지마세요"],
            id="bare-ending-before-latin",
        ),
        pytest.param("대한민국 망했네 불체자가 다문화냐 OO새끼들아", ["대한민국 망했네", "불체자가 다문화냐 OO새끼들아"], id="bare-ending-before-mask"),
        # Korean Wikipedia (shared kowiki/wiki_00): a bracket holding a sentence of its own is no remark on the
        # sentence before; a citation marker glued to the next sentence still ends its own (text/AE, WikiExtractor).
        pytest.param(
            "켓을 입력으로 하고 켓을 출력으로 하는 선형 연산자를 맵이라고 한다. (\"선형\"으로 불리기 위해서는 몇가지 속성이 요구된다.)",
            ["켓을 입력으로 하고 켓을 출력으로 하는 선형 연산자를 맵이라고 한다.", "(\"선형\"으로 불리기 위해서는 몇가지 속성이 요구된다.)"],
            id="bracketed-sentence",
        ),
        pytest.param(
            "2016년에서 17일까지의 지상 예산에서 450만달러를 지출하게 될 것으로 예상된다.[10]업그레이드는 좌석 교체를 포함한다.",
            ["2016년에서 17일까지의 지상 예산에서 450만달러를 지출하게 될 것으로 예상된다.[10]", "업그레이드는 좌석 교체를 포함한다."],
            id="citation-glued-to-next",
        ),
        # NSMC: a spaced nominal `같음` ends a sentence (`이상한거 같음 솔직히`); so does the polite `-여` spelling of `-요`
        # (`재밌어여 제발`, `좋네여 대사하며`).
        pytest.param(
            "내용도 오글거리고 이거 감독마인드도 이상한거 같음 솔직히 이런영화에 9점준것들 죄다 머리빈애들 아님?",
            ["내용도 오글거리고 이거 감독마인드도 이상한거 같음", "솔직히 이런영화에 9점준것들 죄다 머리빈애들 아님?"],
            id="spaced-nominal-gateum",
        ),
        pytest.param("박신양 연기 너무 좋네여 대사하며 눈빛 까지 ㅜㅜ", ["박신양 연기 너무 좋네여", "대사하며 눈빛 까지 ㅜㅜ"], id="polite-yeo"),
        # Petitions of `petitions_2019-06` (read 8 of issue 30): `-ㅂ니다` spelled with a final ㅁ (`짐니다`, `그렇슴니다`),
        # a spaced `않음` before a list number, `-ㅂ니다 )`; no cut before a noun of saying (`없다 진술하고`, `해주겠다
        # 약속을`), nor inside a chain of unquoted speech (`괜찮다 상관없다 이야기`), nor before the noun a quoted title
        # names (`"…청원합니다" 국민청원이`); nouns in `-자` glued in a list (`운전자.주선사업자.화물화주`); an ellipsis spaced
        # off a connective of formal text (`얹고 .. 스스로에게`).
        pytest.param(
            "또 한번 올립니다. 예산 절감 할수가 있다고 보여 짐니다 인력 보강할 부처 등 고위 공직자들 반성 하시야 합니다",
            ["또 한번 올립니다.", "예산 절감 할수가 있다고 보여 짐니다", "인력 보강할 부처 등 고위 공직자들 반성 하시야 합니다"],
            id="formal-spelled-with-m",
        ),
        pytest.param(
            "안따깝고 그렇슴니다연세드신분들은 시설이 잘되어서좋지만 젊은친구들은 그렇지가 않슴니다.",
            ["안따깝고 그렇슴니다", "연세드신분들은 시설이 잘되어서좋지만 젊은친구들은 그렇지가 않슴니다."],
            id="formal-spelled-with-m-glued",
        ),
        pytest.param(
            "대행료만 지급. 기준이 명확하지 않음 2. 실제 효율성 저하 문제점",
            ["대행료만 지급.", "기준이 명확하지 않음", "2. 실제 효율성 저하 문제점"],
            id="spaced-anheum-before-item",
        ),
        pytest.param(
            "3회 적발 : 100만원 ( 처벌 조항이 너무 약합니다 ) 이러니 과적을 하고 있습니다.",
            ["3회 적발 : 100만원 ( 처벌 조항이 너무 약합니다 )", "이러니 과적을 하고 있습니다."],
            id="formal-before-spaced-bracket",
        ),
        pytest.param(
            "간호사는 절대 그런 일이 일어날 수가 없다 진술하고 말을 맞추려면 제대로 할 것 이지.",
            ["간호사는 절대 그런 일이 일어날 수가 없다 진술하고 말을 맞추려면 제대로 할 것 이지."],
            id="da-before-noun-of-saying",
        ),
        pytest.param(
            "저는 괜찮다 상관없다 이야기 하였으나 이후에 동문서답이 오갔습니다.",
            ["저는 괜찮다 상관없다 이야기 하였으나 이후에 동문서답이 오갔습니다."],
            id="chained-unquoted-speech",
        ),
        pytest.param(
            '"탄핵을 청원합니다" 국민청원이 종료되었습니다.', ['"탄핵을 청원합니다" 국민청원이 종료되었습니다.'], id="quoted-title-named"
        ),
        pytest.param(
            "화물차 과적은 모두 예비 살인자 분들 입니다. 화물차 과적 처벌 조항이 너무 약합니다. 이러니 예비 살인자님들께서는 아주 우습게 과적을 하고 있습니다. 화물차 과적 법 계정이 시급합니다. 1회 적발 : 화물차 운전자.주선사업자.화물화주 : 1회 적발 1천만원 벌금",
            [
                "화물차 과적은 모두 예비 살인자 분들 입니다.",
                "화물차 과적 처벌 조항이 너무 약합니다.",
                "이러니 예비 살인자님들께서는 아주 우습게 과적을 하고 있습니다.",
                "화물차 과적 법 계정이 시급합니다.",
                "1회 적발 : 화물차 운전자.주선사업자.화물화주 : 1회 적발 1천만원 벌금",
            ],
            id="glued-list-of-ja-nouns",
        ),
        pytest.param(
            "가슴에 손은 얹고 .. 스스로에게 묻기를 간곡히 부탁드립니다.",
            ["가슴에 손은 얹고 .. 스스로에게 묻기를 간곡히 부탁드립니다."],
            id="spaced-ellipsis-formal",
        ),
        # Read 9 of issue 30 (petitions_2019-06, kowiki `AI/wiki_20`): a period after a final ending glued to a number
        # (`있습니다.2018년`), a bracketed remark ended by `-ㅂ니다` glued to the next sentence, `-십시오-`, nominal `-짐`
        # before a bullet and `-함` before a bracketed heading end a sentence; `등....` and `X도 아니요 Y도` do not.
        pytest.param(
            "팽나무가 여러그루있습니다.2018년 10월에 남자3명이 찿아왔습니다.",
            ["팽나무가 여러그루있습니다.", "2018년 10월에 남자3명이 찿아왔습니다."],
            id="period-glued-to-number",
        ),
        pytest.param(
            "인감증명을 떼어주셨습니다.(계약서나 위임장도 안해주셨습니다)그리고 저한테로 전화가와서 군청에 알아보자고 하였습니다.",
            ["인감증명을 떼어주셨습니다.(계약서나 위임장도 안해주셨습니다)", "그리고 저한테로 전화가와서 군청에 알아보자고 하였습니다."],
            id="formal-remark-glued-to-next",
        ),
        pytest.param(
            "만행을 막아주십시오- 존경하는 문재인대통령님! 국가기관인 우정사업본부의 행태가 도를 넘어서고 있습니다.",
            ["만행을 막아주십시오-", "존경하는 문재인대통령님!", "국가기관인 우정사업본부의 행태가 도를 넘어서고 있습니다."],
            id="formal-glued-dash",
        ),
        pytest.param(
            "부모로서 대한민국 국격이 초라짐 ○ 올랜도 무더운 날씨에도 생수만 제공되어 자괴감이 들게함",
            ["부모로서 대한민국 국격이 초라짐", "○ 올랜도 무더운 날씨에도 생수만 제공되어 자괴감이 들게함"],
            id="nominal-jim-before-bullet",
        ),
        pytest.param(
            "국가대표 선수를 둔 부모로서 참담함 [ 결론 ] ○ 치어리딩 선수들과 학부모들은 다같이 노력코자함",
            ["국가대표 선수를 둔 부모로서 참담함", "[ 결론 ] ○ 치어리딩 선수들과 학부모들은 다같이 노력코자함"],
            id="nominal-before-bracketed-heading",
        ),
        pytest.param(
            "소음과 진동 비상먼지기타 등.... 몇개월째 공사장에서 발생하고 있습니다.",
            ["소음과 진동 비상먼지기타 등.... 몇개월째 공사장에서 발생하고 있습니다."],
            id="ellipsis-after-deung",
        ),
        pytest.param(
            "데커는 셰익스피어처럼 당대 최고의 인기를 누린 왕정파 작가도 아니요 벤 존슨처럼 고전문학에 정통한 작가도 아니었다.",
            ["데커는 셰익스피어처럼 당대 최고의 인기를 누린 왕정파 작가도 아니요 벤 존슨처럼 고전문학에 정통한 작가도 아니었다."],
            id="connective-aniyo",
        ),
        # Read 10 of issue 30 (petitions_2019-06, kowiki `AH/wiki_55`): in formal text an ellipsis after `-하여`, `처럼` or a
        # particle after a quoted word is a pause; speech quoted without quotes and taken by `하고`, and a quoted apology
        # before `사과를`, go on; `참다참다` is the connective said twice; a closing quote spaced off the period goes with its
        # sentence; `르네`, `우리네`, `스물네` are no `-네` ending.
        pytest.param(
            "시청의 소극적인 행정으로 인하여.. 모든 꿈이 부숴지고 있습니다.",
            ["시청의 소극적인 행정으로 인하여.. 모든 꿈이 부숴지고 있습니다."],
            id="formal-ellipsis-after-hayeo",
        ),
        pytest.param(
            "국민 삶의 기반이 되는 '집'을... 제대로 지켜주지 못한다면 미래는 희망적이지 못할 것입니다.",
            ["국민 삶의 기반이 되는 '집'을... 제대로 지켜주지 못한다면 미래는 희망적이지 못할 것입니다."],
            id="ellipsis-after-quoted-particle",
        ),
        pytest.param(
            "모습을 촬영하겠습니다. 하고 동의를 구하는 중 화를 냈습니다.",
            ["모습을 촬영하겠습니다. 하고 동의를 구하는 중 화를 냈습니다."],
            id="period-quotative-hago",
        ),
        pytest.param(
            '"죄송합니다" 거듭 사과를 했는데도 소용없었어요.', ['"죄송합니다" 거듭 사과를 했는데도 소용없었어요.'], id="quoted-apology"
        ),
        pytest.param(
            "억장이 무너집니다. 참다참다 저희쪽에서 숙소 얘기를 꺼냈습니다.",
            ["억장이 무너집니다.", "참다참다 저희쪽에서 숙소 얘기를 꺼냈습니다."],
            id="doubled-connective-da",
        ),
        pytest.param(
            '"교육감님에게 한 마디 하고 싶습니다. " 학생들을 물품취급을 하지 말아주세요.',
            ['"교육감님에게 한 마디 하고 싶습니다. "', "학생들을 물품취급을 하지 말아주세요."],
            id="spaced-closing-quote",
        ),
        pytest.param("이 영화는 로엘 르네 감독의 영화이다.", ["이 영화는 로엘 르네 감독의 영화이다."], id="name-rene"),
        pytest.param("소소하고 사랑스러운 그림과 우리네 사는 이야기를 잔잔하게 다룬 소박한애니.", ["소소하고 사랑스러운 그림과 우리네 사는 이야기를 잔잔하게 다룬 소박한애니."], id="urine"),
        # Read 11 of issue 30 (petitions_2019-06, kowiki `AH/wiki_61`): `-조` spelling `-죠`, a polite ending before a
        # bracketed remark, a bracket of up to 120 characters glued to the period, `있다 판단되어`; a `?` inside a Latin title
        # before the particle that takes it (kowiki `AH/wiki_61`); a last short bracket stays with its sentence (NSMC).
        pytest.param(
            "돈도많이주는곳이조 근대 여기서문제가 발생합니다.", ["돈도많이주는곳이조", "근대 여기서문제가 발생합니다."], id="polite-jo-spelling"
        ),
        pytest.param(
            '작년 양파시세보다 더 떨어졌다고 하더라고요 (작년 양파값시세 "한망" 8천원) 솔직하게 작년에도 저희 농민들 진짜 좌절하고 한숨밖에 안쉬었습니다.',
            [
                '작년 양파시세보다 더 떨어졌다고 하더라고요 (작년 양파값시세 "한망" 8천원)',
                "솔직하게 작년에도 저희 농민들 진짜 좌절하고 한숨밖에 안쉬었습니다.",
            ],
            id="polite-before-bracket",
        ),
        pytest.param(
            "물론 차이가 있을 수도 있습니다.(방학 때 근무하지 않는 직종은 365일 근무하는 직종에 비하여 연봉이 적어짐) 공무원의 경우,"
            " 9급 공무원의 급여가 더 적은 것이 사실입니다.",
            [
                "물론 차이가 있을 수도 있습니다.(방학 때 근무하지 않는 직종은 365일 근무하는 직종에 비하여 연봉이 적어짐)",
                "공무원의 경우, 9급 공무원의 급여가 더 적은 것이 사실입니다.",
            ],
            id="long-bracket-glued-to-period",
        ),
        pytest.param(
            "임종을 지켜보지 못할 수 있다 판단되어 부득이 병원에 머물며 부친을 모실 수밖에 없는 상황입니다.",
            ["임종을 지켜보지 못할 수 있다 판단되어 부득이 병원에 머물며 부친을 모실 수밖에 없는 상황입니다."],
            id="da-before-judging",
        ),
        pytest.param(
            "2019년 Where Do We Go? World Tour의 일정이 발표되었다.",
            ["2019년 Where Do We Go? World Tour의 일정이 발표되었다."],
            id="question-mark-in-latin-title",
        ),
        pytest.param("액션영화치고 이정도면 괜찮음~ (평점 8.0)", ["액션영화치고 이정도면 괜찮음~ (평점 8.0)"], id="last-bracket-remark"),
        # petitions_2017-08 (666): `-세요` addressed to many ends after its `들`.
        pytest.param(
            "이게 참교육입니까? 제발 정신차리세요들 어디서 임고준비하다가 스트레스 기간제한테 풉니까?",
            ["이게 참교육입니까?", "제발 정신차리세요들", "어디서 임고준비하다가 스트레스 기간제한테 풉니까?"],
            id="plural-seyo-deul",
        ),
        # petitions_2017-08 (1183): a remark in brackets after the period stays with its sentence, even one ending in `요`.
        pytest.param(
            "A 북한의 통미봉남(通美封南) 전술을 막기 위해 확고한 완벽하게 한·미 정책 조율에 나서야 합니다. (대단히 중요) B 문재인 대통령과"
            " 문재인정부가 지금부터 북·미 대화, 북미관계중재자라는 본격적으로 창조적 역할을 해야 합니다.(대단히 중요)",
            [
                "A 북한의 통미봉남(通美封南) 전술을 막기 위해 확고한 완벽하게 한·미 정책 조율에 나서야 합니다. (대단히 중요)",
                "B 문재인 대통령과 문재인정부가 지금부터 북·미 대화, 북미관계중재자라는 본격적으로 창조적 역할을 해야 합니다.(대단히 중요)",
            ],
            id="remark-in-brackets-ending-in-yo",
        ),
        # Read 12 of issue 30 (petitions_2019-06): `-다` before a verb of hearing goes on (`많다 들었는데`); an ellipsis
        # after a final ending glued to a number ends a sentence (`2019년입니다..50년대가`); so does a bracket holding a
        # sentence glued on both sides; a run of short glued items is a list whatever syllable ends them (`언니.동생`).
        pytest.param(
            "이런식으로 돈 뜯어 먹는 사람들 많다 들었는데 어쩌면 좋을까요?",
            ["이런식으로 돈 뜯어 먹는 사람들 많다 들었는데 어쩌면 좋을까요?"],
            id="da-before-hearing",
        ),
        pytest.param(
            "지금은 2019년입니다..50년대가 아니란말이지요.", ["지금은 2019년입니다..", "50년대가 아니란말이지요."], id="ellipsis-glued-to-number"
        ),
        pytest.param(
            "얘기가 끊이지 않았는데요.('여경'과 '남경'이란 표현이 성차별적 표현임을 알지만 편의를 위해 사용하겠습니다. )정의감만으로 경찰을"
            " 꿈꾸는 저로서는 마음이 아팠습니다.",
            [
                "얘기가 끊이지 않았는데요.('여경'과 '남경'이란 표현이 성차별적 표현임을 알지만 편의를 위해 사용하겠습니다. )",
                "정의감만으로 경찰을 꿈꾸는 저로서는 마음이 아팠습니다.",
            ],
            id="bracketed-sentence-glued-both-sides",
        ),
        pytest.param(
            "우리는 누군가의 자식.아내.엄마.언니.동생.친구입니다...",
            ["우리는 누군가의 자식.아내.엄마.언니.동생.친구입니다..."],
            id="glued-run-of-short-items",
        ),
        # A period spaced off a final ending and glued to the next word (NSMC) ends the sentence, as `. ` does.
        pytest.param("너무 유치하네요 .하하", ["너무 유치하네요 .", "하하"], id="spaced-glued-period"),
        pytest.param("나에겐 별로였음 . 음악이 몰입을 방해하고 스토리도 엉성하고", ["나에겐 별로였음 .", "음악이 몰입을 방해하고 스토리도 엉성하고"], id="spaced-period-nominal"),
        pytest.param(
            "과연 어떤 메세지를 전달하고자 했는가??그냥 참고 보겠다",
            ["과연 어떤 메세지를 전달하고자 했는가??", "그냥 참고 보겠다"],
            id="glued-question-after-ga",
        ),
        pytest.param(
            "동물학대죄 적용 등 청원 1. 1인 가구가 늘고 있습니다. 2. 이를 이용합니다. 날짜는 2017년 1. 15. 입니다",
            ["동물학대죄 적용 등 청원", "1. 1인 가구가 늘고 있습니다.", "2. 이를 이용합니다.", "날짜는 2017년 1. 15. 입니다"],
            id="first-list-item",
        ),
        pytest.param(
            "가족의 중요한 고려사항이다.[] AD를 가진 사람은 많다.",
            ["가족의 중요한 고려사항이다.[]", "AD를 가진 사람은 많다."],
            id="empty-citation",
        ),
        pytest.param(
            "기본급 인상에 확정되어ㅠ있는 가운데 인상은 없다 너무 재마있어욯ㅎ출연자들도 좋고",
            ["기본급 인상에 확정되어ㅠ있는 가운데 인상은 없다", "너무 재마있어욯ㅎ", "출연자들도 좋고"],
            id="glued-single-mark",
        ),
        pytest.param(
            '철수:"안녕" 영희:"응 안녕" 그리고 헤어졌다',
            ['철수:"안녕"', '영희:"응 안녕" 그리고 헤어졌다'],
            id="dialogue-lines",
        ),
        pytest.param(
            "마지막 반전 깜놀 ㅋㅋ 정말 좋았던 드라마 ㅠ_ㅠ ♡ 아직까지 좋아 연기력이 ㅋㅋ 최고였어",
            ["마지막 반전 깜놀 ㅋㅋ", "정말 좋았던 드라마 ㅠ_ㅠ ♡", "아직까지 좋아 연기력이 ㅋㅋ 최고였어"],
            id="emoticon-endings",
        ),
        pytest.param(
            "감동을 주는 영화 다시 봐도 좋다 재미잇게봄 추천함 정말 잘만듦 배우도 좋구만 그래서 또 봤네 내일도 본다",
            ["감동을 주는 영화", "다시 봐도 좋다", "재미잇게봄", "추천함", "정말 잘만듦", "배우도 좋구만", "그래서 또 봤네",
             "내일도 본다"],
            id="unpunctuated-endings",
        ),
        pytest.param(
            # Real Wikipedia (the gold's dev `wiki_citations-032`, shortened): a curly quotation closed by a straight quote.
            "“이것은 진귀한 아름다움으로 내전에 가려진 또다른 면을 보여준다. 그리고 특색있는 조연 캐릭터들의 모음을 빛나게 "
            '한다"고 언급했다.[6] TIME 지의 영화 비평가 리차드 콜리스는 이 영화를 ”전쟁에서 잃어버린 것"고 칭찬했다.',
            [('“이것은 진귀한 아름다움으로 내전에 가려진 또다른 면을 보여준다. 그리고 특색있는 조연 캐릭터들의 모음을 빛나게 '
             '한다"고 언급했다.[6]'), 'TIME 지의 영화 비평가 리차드 콜리스는 이 영화를 ”전쟁에서 잃어버린 것"고 칭찬했다.'],
            id="curly-quote-closed-straight",
        ),
        pytest.param(
            # A real petition: a straight quotation inside a curly one; the curly one runs to its own closer.
            '- “사회복무요원 "의식주 비용 제공하라" 헌법소원… 심리 중”인 것으로 알고있습니다. 사회복무요원들 말 그대로',
            ['- “사회복무요원 "의식주 비용 제공하라" 헌법소원… 심리 중”인 것으로 알고있습니다.', "사회복무요원들 말 그대로"],
            id="straight-quote-inside-curly",
        ),
        pytest.param(
            # A real petition (shared `petitions_2017-08`): `- ` items without terminators, numbered labels opening them.
            "명문화하고 있다 (4단계 해결방안) 1단계 - 북한의 미사일 발사 중지와 미국의 대북경제제재 해제 2단계 - 북한의 핵 개발 "
            "중단, 미사일 개발 중단,무력도발 중단 3단계 - 북미관계 정상화, 북일관계 정상화",
            ["명문화하고 있다 (4단계 해결방안)", "1단계 - 북한의 미사일 발사 중지와 미국의 대북경제제재 해제",
             "2단계 - 북한의 핵 개발 중단, 미사일 개발 중단,무력도발 중단", "3단계 - 북미관계 정상화, 북일관계 정상화"],
            id="dash-items",
        ),
        pytest.param(
            # Real Wikipedia (shared `kowiki/wiki_01`): a dash that sets off a phrase, a chain of short terms: no items.
            "임명되었으며 - 아마도 헬름홀츠의 중재 덕분에 - 1892년에는 정교수가 되었다.",
            ["임명되었으며 - 아마도 헬름홀츠의 중재 덕분에 - 1892년에는 정교수가 되었다."],
            id="dash-setting-off-a-phrase",
        ),
        pytest.param(
            "독자적인 인트라넷 망을 갖게 되었으며 2000년 기준으로 도 - 시 - 군까지 광케이블 공사가 부설이 완료가 되었고",
            ["독자적인 인트라넷 망을 갖게 되었으며 2000년 기준으로 도 - 시 - 군까지 광케이블 공사가 부설이 완료가 되었고"],
            id="dash-chain-of-terms",
        ),
        pytest.param(
            # Real NSMC comments and petitions (shared data; the first is the gold's dev `unpunctuated-042`): a quotation,
            # title or remark closed after a formal ending ends the sentence, unless a quotative or particle follows.
            "CIA에게 온 문자 '이걸로 비긴겁니다' 이해가 안되서 처음부터 다시보니 이해가 되네요",
            ["CIA에게 온 문자 '이걸로 비긴겁니다'", "이해가 안되서 처음부터 다시보니 이해가 되네요"],
            id="closed-after-a-formal-ending",
        ),
        pytest.param(
            # A real petition's title (shared `petitions_2017-08`), then constructed quotative cases that continue.
            "《KAMD개발되면 사드철수가능합니다》 홍현익 수석연구위원은 말했다. \"나라에 서운합니다\"라고 했다. "
            "'검토하겠습니다' 하고 끝났다",
            ["《KAMD개발되면 사드철수가능합니다》", "홍현익 수석연구위원은 말했다.", "\"나라에 서운합니다\"라고 했다.",
             "'검토하겠습니다' 하고 끝났다"],
            id="closed-formal-then-quotative",
        ),
        pytest.param(
            # A real NSMC comment (shared `ratings_test.txt`): an ellipsis after an adverb is a pause.
            "잔잔하고 그 울림이 깊다. 연기 내공은 정말... 두 손가락이 절로 치켜든다.",
            ["잔잔하고 그 울림이 깊다.", "연기 내공은 정말... 두 손가락이 절로 치켜든다."],
            id="ellipsis-after-an-adverb",
        ),
        pytest.param(
            # Real NSMC comments (shared `ratings_test.txt`; the second is the gold's dev `comments-048`, its end): a
            # question in `-는가` ends before an ellipsis, a period glued before a conjunction ends a sentence.
            "어찌 이럴 수가 있는가.. 이거 완전 걸작이구만!",
            ["어찌 이럴 수가 있는가..", "이거 완전 걸작이구만!"],
            id="question-ending-in-ga",
        ),
        pytest.param(
            "더빙이 조금 실감났음 개인적으로.그러나 추천은하고싶지 않음",
            ["더빙이 조금 실감났음 개인적으로.", "그러나 추천은하고싶지 않음"],
            id="glued-period-before-a-conjunction",
        ),
        pytest.param("", [], id="empty"),
        pytest.param(" \n\t\n", [], id="blank"),
        pytest.param("마침표 없는 한 문장", ["마침표 없는 한 문장"], id="no-terminator"),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


# tests/testdata/split/fidelity.jsonl: real paragraphs (README there) where a read of a held-out petitions month and
# Wikipedia file found a damaged sentence (issue 30): each with the split a careful reader makes.
def test_fidelity_cases_split_as_read(testdata) -> None:
    rows = [json.loads(line) for line in (testdata / "split" / "fidelity.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) == 18
    for row in rows:
        assert split_sentences(row["text"]) == row["sentences"], (row["id"], row["case"])


def test_split_keeps_every_non_space_character() -> None:
    text = '그는 "밥 먹었다."라고 했다.그리고 2017. 8. 25. 떠났다!! ㅋㅋ 끝~ 정말,, 그래요'
    assert "".join("".join(split_sentences(text)).split()) == "".join(text.split())


def test_boundary_offsets_ignore_whitespace() -> None:
    assert boundary_offsets(["가 나.", "다 라."]) == {3}
    assert boundary_offsets(["하나"]) == set()
    assert boundary_counts(["가.", "나.", "다."], ["가.", "나. 다."]) == (1, 0, 1)
    assert f1_score(1, 0, 1) == (1.0, 0.5, pytest.approx(2 / 3))
    assert f1_score(0, 0, 0) == (1.0, 1.0, 1.0)


def _golden(testdata):
    rows = [
        json.loads(line) for line in (testdata / "split" / "golden.jsonl").read_text("utf-8").splitlines()
    ]
    assert {row["source"] for row in rows} == set(GOLDEN_F1_FLOOR)
    return rows


def test_golden_f1_against_kss(testdata) -> None:
    counts = {source: [0, 0, 0] for source in GOLDEN_F1_FLOOR}
    for row in _golden(testdata):
        for i, value in enumerate(boundary_counts(row["kss"], split_sentences(row["text"]))):
            counts[row["source"]][i] += value
    for source, (tp, fp, fn) in counts.items():
        assert tp > 100, source  # the fixture has enough boundaries to mean something
        assert f1_score(tp, fp, fn)[2] >= GOLDEN_F1_FLOOR[source], (source, tp, fp, fn)


def test_unknown_backend_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="kcorpus, kiwi, kss, kss-fast, none"):
        SentenceSplitter("mecab")


def test_backends_kcorpus_and_none() -> None:
    text = "첫 문장이다. 둘째 문장이다.\n\n새 문단."
    assert make_splitter("kcorpus")(text) == ["첫 문장이다.", "둘째 문장이다.", "새 문단."]
    assert make_splitter("none")(text) == ["첫 문장이다. 둘째 문장이다.", "새 문단."]
    assert set(BACKENDS) == {"kcorpus", "kiwi", "kss", "kss-fast", "none"}


def test_kss_splitter_pickles_without_loading_kss() -> None:
    splitter = SentenceSplitter("kss")
    clone = pickle.loads(pickle.dumps(splitter))
    assert clone.backend == "kss"
    assert clone._kss_split is None


@pytest.mark.slow
def test_kss_backend_wrappers() -> None:
    pytest.importorskip("kss")
    start = time.perf_counter()
    splitters = [make_splitter("kss"), make_splitter("kss-fast")]
    if time.perf_counter() - start > 60:
        pytest.skip("importing kss took over 60 s on this machine")
    text = "회사 동료 분들과 다녀왔는데 분위기도 좋고 음식도 맛있었어요. 다음에 또 올게요.\n\n새 문단입니다."
    for splitter in splitters:
        assert splitter(text) == [
            "회사 동료 분들과 다녀왔는데 분위기도 좋고 음식도 맛있었어요.",
            "다음에 또 올게요.",
            "새 문단입니다.",
        ], splitter.backend
        assert splitter("  \n ") == []


# tests/testdata/split/kiwi_slice.jsonl: real paragraphs (README there). Agreement with Kiwi (kiwipiepy 0.24.1)
# when the slice was made: petitions F1 0.989, kowiki 0.992, nsmc 0.912; after issue 30 (the rules follow the
# hand-made gold, not Kiwi: no cut at an ellipsis after a particle, emoticon and unpunctuated endings) 0.981,
# 0.988, 0.842 (NSMC: 380 shared, 58 cuts Kiwi lacks, 85 Kiwi cuts missed). The floors sit just below.
KIWI_F1_FLOOR = {"petitions": 0.975, "kowiki": 0.98, "nsmc": 0.83}


@pytest.mark.slow
def test_f1_against_kiwi_on_a_real_slice(testdata) -> None:
    pytest.importorskip("kiwipiepy")
    kiwi = make_splitter("kiwi")
    rows = [json.loads(line) for line in (testdata / "split" / "kiwi_slice.jsonl").read_text("utf-8").splitlines()]
    counts = {source: [0, 0, 0] for source in KIWI_F1_FLOOR}
    for row in rows:
        for i, value in enumerate(boundary_counts(kiwi(row["text"]), split_sentences(row["text"]))):
            counts[row["source"]][i] += value
    for source, (tp, fp, fn) in counts.items():
        assert tp > 100, source  # enough boundaries to mean something
        assert f1_score(tp, fp, fn)[2] >= KIWI_F1_FLOOR[source], (source, tp, fp, fn)


@pytest.mark.slow
def test_kiwi_backend() -> None:
    pytest.importorskip("kiwipiepy")
    splitter = make_splitter("kiwi")
    text = "회사 동료 분들과 다녀왔는데 분위기도 좋고 음식도 맛있었어요 다음에 또 올게요\n\n새 문단입니다."
    assert splitter(text) == [
        "회사 동료 분들과 다녀왔는데 분위기도 좋고 음식도 맛있었어요",
        "다음에 또 올게요",
        "새 문단입니다.",
    ]
    assert splitter("  \n ") == []
    clone = pickle.loads(pickle.dumps(splitter))
    assert clone.backend == "kiwi" and clone._kiwi is None


def test_kiwi_backend_without_kiwipiepy_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setattr(backends, "find_spec", lambda name: None)
    assert backend_problem("kiwi") == KIWI_MISSING
    assert backend_problem("kcorpus") is None
    with pytest.raises(ImportError, match=r"pip install 'kcorpus\[kiwi\]'"):
        make_splitter("kiwi")


# tests/testdata/split/gold_{dev,test}.jsonl: the hand-made gold (README there), strict boundary F1 of kcorpus per
# part when issue 30's rules were made: dev 0.898, test 0.900 (UD Korean-KAIST 1.000 / 0.994). The floors sit just
# below, so a rule change that loses gold boundaries fails here. After round 3 (glued endings, list items, ellipsis
# rules): dev 0.935, test 0.913. gold_test2 (held out: drawn and annotated after the rules were tuned on both
# parts' errors, no UD rows) scored 0.916 when it was committed (Kiwi 0.903, kss-pecab 0.835).
GOLD_F1_FLOOR = {"dev": 0.89, "test": 0.89, "test2": 0.88}
GOLD_MIN_BOUNDARIES = {"dev": 580, "test": 580, "test2": 300}
GOLD_UD_FLOOR = 0.99


@pytest.mark.parametrize("part", sorted(GOLD_F1_FLOOR))
def test_f1_against_the_hand_made_gold(testdata, part) -> None:
    rows = [json.loads(line) for line in (testdata / "split" / f"gold_{part}.jsonl").read_text("utf-8").splitlines()]
    totals: dict[str, list[int]] = {}
    for row in rows:
        assert "".join("".join(row["sentences"]).split()) == "".join(row["text"].split()), row["id"]
        for key in ("all", row["class"]):
            total = totals.setdefault(key, [0, 0, 0])
            for i, value in enumerate(boundary_counts(row["sentences"], split_sentences(row["text"]))):
                total[i] += value
    assert totals["all"][0] + totals["all"][2] > GOLD_MIN_BOUNDARIES[part]  # gold boundaries in the part
    assert f1_score(*totals["all"])[2] >= GOLD_F1_FLOOR[part], totals["all"]
    if part == "test2":
        assert "ud_kaist" not in totals
    else:
        assert f1_score(*totals["ud_kaist"])[2] >= GOLD_UD_FLOOR, totals["ud_kaist"]
