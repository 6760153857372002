"""The language reason: a sentence mostly in another script is named by that script, before cleaning."""

import pytest

from kcorpus.transforms.prepare import DocumentPreparer
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.registry import reader_for
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.rules.script import script_of, script_reason
from kcorpus.transforms.text.clean import make_cleaner
from testdata_paths import TESTDATA


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("こんにちは、元気ですか", "script:kana"),  # synthetic: NSMC's only Japanese row is spam
        ("東京都知事選挙の結果", "script:kana"),  # kanji with a kana particle: Japanese
        ("我们今天去北京吃饭", "script:han"),
        ("Привет, как дела?", "script:cyrillic"),
        ("Καλημέρα κόσμε", "script:greek"),
        ("공언(公言)이 지켜지지 않았다", None),  # Korean with Hanja
        ("日本語 텍스트", None),  # half and half: not mostly another script
        ("Hello world", None),  # Latin stays `low_hangul`
        ("12345 !!!", None),  # no letter
    ],
)
def test_script_reason(text, reason):
    assert script_reason(text) == reason


def test_script_of_letters():
    assert [script_of(c) for c in "가ㅋ漢かカﾊAЖ"] == [
        "hangul", "hangul", "han", "kana", "kana", "kana", "latin", "cyrillic"
    ]


def test_real_comments_in_han_are_named_not_empty():
    """NSMC rows (tests/testdata/quality/nsmc_scripts.tsv) the KcELECTRA whitelist empties or cuts short."""
    preparer = DocumentPreparer(cleaner=make_cleaner("kcelectra"), splitter=None, filters=FilterConfig())
    path = TESTDATA / "quality" / "nsmc_scripts.tsv"
    docs = reader_for("nsmc").read(str(path), ReadOptions(), "nsmc")
    reasons = {doc.id: preparer.prepare(doc).reason for doc in docs}
    assert reasons == {
        "nsmc:6368189": "script:han",  # 最惡: was `empty`
        "nsmc:2440496": "script:han",  # 無錢有罪 有錢無罪: was `empty`
        "nsmc:9283532": None,  # 龍頭蛇尾 過猶不及 針小棒大 키리시마는 맥거핀~: Korean follows, kept (cleaned)
        "nsmc:10251648": "script:han",  # 非常好看！喜?！宋慧?喜??！: was `too_short`
    }


def test_without_a_whitelist_the_script_replaces_low_hangul():
    preparer = DocumentPreparer(cleaner=lambda t: t, splitter=None, filters=FilterConfig())
    assert preparer.prepare(Document("c:1", "Привет, как дела? 오늘", "c")).reason == "script:cyrillic"
    assert preparer.prepare(Document("c:2", "This is English only text", "c")).reason == "low_hangul"
