"""Wikipedia template stubs: calendar pages and disambiguation pages that WikiExtractor left without their lists."""

import pytest

from kcorpus.transforms.rules.wiki_stubs import stub_reason


@pytest.mark.parametrize(
    ("title", "body", "reason"),
    [
        # Real leads (kowiki wiki_00/wiki_01), the whole page once WikiExtractor lost the lists.
        ("12월 19일", ["12월 19일은 그레고리력으로 353번째(윤년일 경우 354번째) 날에 해당한다."], "calendar_stub"),
        ("8월 15일", ["8월 15일은 그레고리력으로 광복절이자 227번째(윤년일 경우 228번째) 날이다."], "calendar_stub"),
        ("2003년", ["2003년은 수요일로 시작하는 평년이다."], "calendar_stub"),
        ("1950년대", ["1950년대는 1950년부터 1959년까지를 가리킨다."], "calendar_stub"),
        ("20세기", ["20세기는 1901년 1월 1일부터 2000년 12월 31일까지의 기간이다."], "calendar_stub"),
        ("네트워크", ["네트워크(network), 망(網)은 다음을 가리킨다."], "empty_disambiguation"),
        ("소수", ["소수에는 다음과 같은 뜻이 있다."], "empty_disambiguation"),
        ("위상 공간", ["위상 공간은 다음을 가리킨다."], "empty_disambiguation"),
        ("머큐리", ["머큐리는 다음 중 하나를 가리킨다:"], "empty_disambiguation"),
        # A calendar page whose lead has one short line beside it (headings aside) is a stub too: real pages of
        # kowiki text/AA (wiki_04 and others), a vandal's line, one event of a lost list, a note.
        ("5월 5일", [
            ("5월 5일은 그레고리력으로 125번째(윤년일 경우 126번째), 뒤에서부터는 241번째 날에 해당한다. 대한민국과 "
            "일본의 어린이날이며 법정 공휴일이다."), "문화.", "2020481384년 -[네버렌드]]가없어졌다",
        ], "calendar_stub"),
        ("5월 28일", ["5월 28일은 그레고리력으로 148번째(윤년일 경우 149번째) 날에 해당한다.", "사건.",
                     "1945년 나치독일이 멸망했다"], "calendar_stub"),
        ("10월 5일", ["10월 5일은 그레고리력으로 278번째(윤년일 경우 279번째) 날에 해당한다.", "기타.",
                     "그레고리력에서는 1582년 10월 5일부터 10월 14일까지 존재하지 않는다."], "calendar_stub"),
        ("254년", ["사망.", " 254년 조위의 정치가 하후현", " 254년 조위의 장군 서질"], "calendar_stub"),
        ("12월 19일", ["12월 19일은 그레고리력으로 353번째 날에 해당한다.", "1998년 - 탄핵 소추."], "calendar_stub"),
        # A calendar page with more than that, and articles, are articles.
        ("12월 19일", ["12월 19일은 그레고리력으로 353번째 날에 해당한다.", "1998년 - 탄핵 소추.",
                      "2002년 - 제16대 대통령 선거."], None),
        ("1950년대", ["1950년대는 1950년부터 1959년까지를 가리킨다.",
                     ("1950년대는 전후 경제호황에 힘입어 제2차 세계 대전으로부터의 상흔을 회복하는 기간이었다. 출생률이 "
                     "증가하고 베이비붐 세대가 나타나는 등 높은 인구성장률도 보였다.")], None),
        ("13월 1일", ["13월 1일은 없는 날이다."], None),
        ("1984 (소설)", ["1984는 조지 오웰의 소설이다."], None),
        ("소수", ["소수에는 다음과 같은 뜻이 있다.", "소수 (수론): 1과 자기 자신만으로 나누어떨어지는 수"], None),
        ("방정식", ["방정식의 해법은 다음과 같다.", "첫째, 이항한다."], None),
        ("위키", ["위키는 여러 사람이 함께 쓰는 웹사이트이다."], None),
        ("위키", [], None),
    ],
)
def test_stub_reason(title, body, reason):
    assert stub_reason(title, body) == reason


def test_blank_lines_do_not_count():
    assert stub_reason("2003년", ["", "2003년은 수요일로 시작하는 평년이다.", "  "]) == "calendar_stub"
