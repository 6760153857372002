import json

import pytest

from kcorpus.transforms.rules.pii import luhn_ok, mask_pii, rrn_check_digit_ok, valid_date
from testdata_paths import TESTDATA


@pytest.mark.parametrize(
    ("text", "expected", "kind"),
    [
        ("제 번호는 010-1234-5678입니다", "제 번호는 [PHONE]입니다", "mobile"),
        ("01012345678로 연락 주세요", "[PHONE]로 연락 주세요", "mobile"),
        ("연락처 010 1234 5678 입니다", "연락처 [PHONE] 입니다", "mobile"),
        ("연락처 010.1234.5678.", "연락처 [PHONE].", "mobile"),
        ("해외에서는 +82 10-1234-5678", "해외에서는 [PHONE]", "mobile"),
        ("해외에서는 +821012345678", "해외에서는 [PHONE]", "mobile"),
        ("사무실 02-123-4567", "사무실 [PHONE]", "landline"),
        ("보건관리과(☎031-123-4567)로", "보건관리과(☎[PHONE])로", "landline"),
        ("김담당(044-200-1234, 담당)", "김담당([PHONE], 담당)", "landline"),
        ("실장 02) 6744-4222", "실장 [PHONE]", "landline"),
        ("대표번호 (02)123-4567", "대표번호 [PHONE]", "landline"),
        ("인터넷전화 070-1234-5678", "인터넷전화 [PHONE]", "landline"),
        ("주택정비과 (0442001234) 신청번호", "주택정비과 ([PHONE]) 신청번호", "landline"),
        ("주민번호 900101-1234567", "주민번호 [RRN]", "rrn"),
        ("주민번호 900101-1******", "주민번호 [RRN]", "rrn"),
        ("2020년 이후 번호 201015-3987654", "2020년 이후 번호 [RRN]", "rrn"),
        ("hong@yna.co.kr로 보내 주세요", "[EMAIL]로 보내 주세요", "email"),
        ("카드 4111-1111-1111-1111 분실", "카드 [CARD] 분실", "card"),
        ("카드 4111111111111111 분실", "카드 [CARD] 분실", "card"),
        ("계좌 110-123-456789 신한", "계좌 [ACCOUNT] 신한", "account"),
        ("국민 123456-12-123456", "국민 [ACCOUNT]", "account"),
        ("카카오 3333-01-1234567", "카카오 [ACCOUNT]", "account"),
        ("서버 192.168.0.1 접속", "서버 [IP] 접속", "ip"),
    ],
)
def test_each_type_is_masked_with_its_token(text, expected, kind):
    masked = mask_pii(text)
    assert (masked.text, dict(masked.counts)) == (expected, {kind: 1})


@pytest.mark.parametrize(
    "text",
    [
        "2017-08-25부터 2017-09-24까지",
        "2017.08.25 청원",
        "매달 15,000원씩 1,234,567회",
        "오후 12:30에 만나요",
        "앱 버전 1.2.3에서",
        "10점 만점에 0점",
        "고객센터 1588-1234",
        "ISBN 978-89-123-4567-8",
        "민원내용 1.2.3.4.번의 고충",
        "주소 평리로 164-1번지 (우편번호: 41846)",
        "991332-1234567",  # no 13th month
        "9001011234567",  # 13 bare digits whose check digit fails
        "4111-1111-1111-1112",  # Luhn fails
        "등기우편(11204-0470-7556)",  # a tracking number: 5-digit first group
        "상영시간 (0:00~0:06) 2. 영업방해 (0:07~1.09 // 1:10~1:34)",
    ],
)
def test_numbers_that_are_not_pii_survive(text):
    assert mask_pii(text).text == text


def test_urls_are_left_for_clean():
    text = "http://192.168.0.1/a?tel=01012345678 와 www.example.com/010-1234-5678"
    assert mask_pii(text).text == text


def test_email_before_phone_and_counts_per_type():
    masked = mask_pii("문의=E-mail:gildong99@naver.com h p: 010-1234-5678, 01012345678@naver.com")
    assert masked.text == "문의=E-mail:[EMAIL] h p: [PHONE], [EMAIL]"
    assert dict(masked.counts) == {"email": 2, "mobile": 1}


def test_validators():
    assert (
        valid_date("900101")
        and valid_date("000229")
        and not valid_date("901301")
        and not valid_date("900431")
    )
    assert rrn_check_digit_ok("9001011234568") and not rrn_check_digit_ok("9001011234567")
    assert luhn_ok("4111111111111111") and luhn_ok("378282246310005") and not luhn_ok("4111111111111112")


def test_real_petitions_fixture():
    rows = [json.loads(line) for line in (TESTDATA / "boilerplate" / "petitions").open(encoding="utf-8")]
    masked = {r["petition_idx"]: mask_pii(f"{r['title']}\n{r['content']}") for r in rows}
    assert {k: dict(m.counts) for k, m in masked.items() if m.counts} == {
        "680": {"email": 1, "mobile": 1},
        "895": {"email": 1, "landline": 2},
        "947": {"email": 1, "landline": 1},
        "900003": {"rrn": 1, "card": 1, "account": 1, "ip": 1},
    }
    assert "h p: [PHONE] 나이: 50세" in masked["680"].text
    assert "(0:00~0:06)" in masked["895"].text  # video times in the same petition survive
