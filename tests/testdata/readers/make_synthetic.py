"""Build the synthetic reader fixtures (run from this folder: `python make_synthetic.py`).

Real slices (copied byte for byte from the published files, see README.md here) need no script. Synthetic
fixtures exist where no redistributable sample does (Modu corpus, a raw dump small enough to commit) and for
faults. Every output is deterministic (fixed zip/gzip timestamps), so re-running changes nothing.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import zipfile
from pathlib import Path

HERE = Path(__file__).parent
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def modu_file(file_id: str, category: str, documents: list[dict]) -> dict:
    return {
        "id": file_id,
        "metadata": {"title": f"국립국어원 {category} {file_id}", "creator": "국립국어원",
                     "distributor": "국립국어원", "year": "2020", "category": f"말뭉치 > 원시 말뭉치 > {category}",
                     "annotation_level": ["원시"], "sampling": "본문 일부 추출"},
        "document": documents,
    }


def paragraphs(doc_id: str, forms: list[str]) -> list[dict]:
    return [{"id": f"{doc_id}.{i}", "form": form} for i, form in enumerate(forms, 1)]


def utterances(doc_id: str, turns: list[tuple[str, str]], messenger: bool) -> list[dict]:
    out = []
    for i, (speaker, form) in enumerate(turns, 1):
        item = {"id": f"{doc_id}.{i}", "form": form, "original_form": form, "speaker_id": speaker}
        item.update({"time": f"2020-01-01 12:{i:02d}"} if messenger else {"start": i * 2.5, "end": i * 2.5 + 2.0})
        item["note"] = ""
        out.append(item)
    return out


NEWSPAPER = modu_file("NIRW1900000001", "신문 말뭉치", [
    {"id": "NIRW1900000001.1",
     "metadata": {"title": "충북 청주 도심에 첫눈… 출근길 교통 혼잡", "author": "김기자", "publisher": "충청일보",
                  "date": "20190104", "topic": "사회", "original_topic": "사회>지역"},
     "paragraph": paragraphs("NIRW1900000001.1", [
         "충북 청주 도심에 첫눈… 출근길 교통 혼잡",
         "<p>4일 오전 충북 청주 도심에 올겨울 첫눈이 내려 출근길 차량들이 거북이걸음을 했다.</p>",
         "청주기상지청은 이날 오전까지 1∼3㎝의 눈이 더 내릴 것으로 내다봤다.",
     ])},
    {"id": "NIRW1900000001.2",
     "metadata": {"title": "도서관 야간 개방 확대", "author": "이기자", "publisher": "충청일보", "date": "20190105",
                  "topic": "문화", "original_topic": "문화"},
     "paragraph": paragraphs("NIRW1900000001.2", [
         "도서관 야간 개방 확대",
         "청주시는 시립도서관 세 곳의 야간 개방을 밤 10시까지 늘린다고 5일 밝혔다.",
     ])},
])

WRITTEN = modu_file("WARW1900000001", "문어 말뭉치", [
    {"id": "WARW1900000001.1",
     "metadata": {"title": "바다가 들려주는 이야기", "author": "박작가", "publisher": "바다출판", "date": "2005",
                  "topic": "문학", "original_topic": "소설"},
     "paragraph": paragraphs("WARW1900000001.1", [
         "바다는 언제나 같은 자리에서 우리를 기다렸다.",
         "어머니는 새벽마다 포구에 나가 배가 돌아오는 쪽을 오래 바라보셨다.",
     ])},
])

SPOKEN = modu_file("SARW1800000001", "구어 말뭉치", [
    {"id": "SARW1800000001.1",
     "metadata": {"title": "일상 대화: 주말 계획", "topic": "일상", "speaker": [
         {"id": "1", "age": "20대", "sex": "여성"}, {"id": "2", "age": "20대", "sex": "남성"}],
         "setting": {"relation": "친구"}},
     "utterance": utterances("SARW1800000001.1", [
         ("1", "이번 주말에 뭐 해?"),
         ("1", "날씨 좋다던데."),
         ("2", "음 아직 모르겠어 &name&이랑 영화 볼까 생각 중이야."),
         ("1", "나도 같이 가도 돼?"),
     ], messenger=False)},
])

MESSENGER = modu_file("MDRW1900000001", "메신저 말뭉치", [
    {"id": "MDRW1900000001.1",
     "metadata": {"topic": "여행", "speaker": [{"id": "P1", "age": "30대"}, {"id": "P2", "age": "30대"}],
                  "setting": {"relation": "동료", "intimacy": "3"}},
     "utterance": utterances("MDRW1900000001.1", [
         ("P1", "제주도 숙소 예약했어요 {emoji}"),
         ("P2", "{system: 사진을 보냈습니다}"),
         ("P2", "{share:photo} 여기 맞죠?"),
         ("P1", "네 맞아요 &name&님 번호 &tel-num& 로 연락 주세요"),
         ("P2", "{emoji}"),
     ], messenger=True)},
])

WEB = modu_file("EPRW1900000001", "웹 말뭉치", [
    {"id": "EPRW1900000001.1",
     "metadata": {"title": "초보 캠핑 준비물 정리", "author": "캠핑러", "publisher": "개인 블로그", "date": "20190720",
                  "topic": "생활", "url": "https://blog.example/123"},
     "paragraph": paragraphs("EPRW1900000001.1", [
         "<p>처음 캠핑을 간다면 텐트보다 침낭을 먼저 챙기세요.</p>",
         "밤에는 생각보다 훨씬 춥습니다.",
     ])},
])

FAMILIES = [NEWSPAPER, WRITTEN, SPOKEN, MESSENGER, WEB]


def write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")


def write_zip(path: Path, members: list[tuple[str, bytes]]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, ZIP_TIME), data, compress_type=zipfile.ZIP_DEFLATED)
    path.write_bytes(buffer.getvalue())


def build_modu() -> None:
    folder = HERE / "modu"
    folder.mkdir(exist_ok=True)
    for obj in FAMILIES:
        write_json(folder / f"{obj['id']}.json", obj)
    members = [(f"NIKL_SAMPLE_2020_v1.0/{obj['id']}.json",
                json.dumps(obj, ensure_ascii=False, indent=4).encode("utf-8")) for obj in FAMILIES]
    write_zip(HERE / "modu_release.zip", members)

    faults = HERE / "faults" / "modu"
    faults.mkdir(parents=True, exist_ok=True)
    text = json.dumps(WRITTEN, ensure_ascii=False, indent=4)
    (faults / "WARW1900000002.json").write_text(text[: len(text) // 2], encoding="utf-8")  # truncated_json
    (faults / "WARW1900000003.json").write_text('{"id": "WARW1900000003", "document": [}', encoding="utf-8")
    (faults / "WARW1900000004.json").write_text("[1, 2, 3]", encoding="utf-8")  # not_an_object
    broken = modu_file("NIRW1900000002", "신문 말뭉치", [
        {"id": "NIRW1900000002.1", "metadata": {"title": "본문 없음"}},  # missing_field: paragraph/utterance
        "문서가 아닌 문자열",  # not_an_object
        {"metadata": {}, "paragraph": paragraphs("x", ["아이디 없는 문서"])},  # missing_field: id
        {"id": "NIRW1900000002.4", "metadata": {}, "paragraph": [{"id": "p1"}]},  # missing_field: form
        {"id": "NIRW1900000002.5", "metadata": {}, "paragraph": paragraphs("NIRW1900000002.5", ["<p></p>"])},
        {"id": "NIRW1900000002.6", "metadata": {"title": "정상"},
         "paragraph": paragraphs("NIRW1900000002.6", ["정상 문서 제목", "정상 문서 본문입니다."])},
    ])
    write_json(faults / "NIRW1900000002.json", broken)
    (faults / "MDRW1900000002.json").write_bytes(
        json.dumps(MESSENGER, ensure_ascii=False).encode("utf-8").replace("여행".encode(), b"\xff\xfe"))
    (faults / "MDRW1900000003.json").write_bytes(b'{"id": "MDRW1900000003",\x00 "document": []}')

    good = json.dumps(WEB, ensure_ascii=False).encode("utf-8")
    bad = json.dumps(NEWSPAPER, ensure_ascii=False).encode("utf-8")
    write_zip(HERE / "faults" / "modu_corrupt_member.zip",
              [("EPRW1900000001.json", good), ("NIRW1900000001.json", bad)])
    data = bytearray((HERE / "faults" / "modu_corrupt_member.zip").read_bytes())
    # Flip bytes inside the second member's deflate stream: reading it fails its CRC or inflate check.
    start = data.index(b"NIRW1900000001.json") + len("NIRW1900000001.json") + 40
    for i in range(start, start + 16):
        data[i] ^= 0x5A
    (HERE / "faults" / "modu_corrupt_member.zip").write_bytes(bytes(data))


DUMP_ARTICLE = """{{위키데이터 속성 추적}}
{{정보상자 대통령
| 이름 = 지미 카터
| 그림 = Jimmy Carter.jpg
}}
'''제임스 얼 카터 주니어'''(James Earl Carter Jr., [[1924년]] [[10월 1일]] ~ )는 [[민주당 (미국)|민주당]] 출신 \
[[미국]] 39대 [[미국의 대통령|대통령]]이다.<ref>{{웹 인용|url=https://example.org|제목=카터}}</ref>

[[파일:Jimmy Carter.jpg|섬네일|왼쪽|카터의 공식 초상화]]
== 생애 ==
=== 어린 시절 ===
지미 카터는 [[조지아주]] [[섬터 카운티]] 플레인스 마을에서 태어났다.<!-- 출생지 확인 필요 -->

{| class="wikitable"
! 임기 !! 직위
|-
| 1977년 || 대통령
|}

== 같이 보기 ==
* [[미국의 대통령 목록]]

== 각주 ==
<references />

[[분류:미국의 대통령]]
[[en:Jimmy Carter]]
"""

DUMP_PAGES = [
    ("지미 카터", 0, 5, None, DUMP_ARTICLE),
    ("카터", 0, 101, "지미 카터", "#넘겨주기 [[지미 카터]]"),
    ("토론:지미 카터", 1, 102, None, "이 문서의 출생일 출처가 필요합니다. --~~~~"),
    ("분류:미국의 대통령", 14, 103, None, "[[분류:대통령]]"),
    ("틀만 있는 문서", 0, 104, None, "{{토막글}}\n[[분류:토막글]]"),
    ("수학", 0, 9, None, "'''수학'''(數學)은 [[수]], [[양]], [[구조]], [[공간]] 등의 개념을 다루는 학문이다."),
]


def build_dump() -> None:
    pages = []
    for title, ns, page_id, redirect, text in DUMP_PAGES:
        redirect_tag = f'\n    <redirect title="{redirect}" />' if redirect else ""
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        pages.append(f"""  <page>
    <title>{title}</title>
    <ns>{ns}</ns>
    <id>{page_id}</id>{redirect_tag}
    <revision>
      <id>{page_id * 1000}</id>
      <parentid>{page_id * 1000 - 1}</parentid>
      <timestamp>2024-01-01T00:00:00Z</timestamp>
      <contributor><username>예시</username><id>42</id></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="{len(text.encode())}" xml:space="preserve">{escaped}</text>
      <sha1>0</sha1>
    </revision>
  </page>
""")
    xml = f"""<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="ko">
  <siteinfo>
    <sitename>위키백과</sitename>
    <dbname>kowiki</dbname>
    <base>https://ko.wikipedia.org/wiki/</base>
  </siteinfo>
{"".join(pages)}</mediawiki>
"""
    (HERE / "kowiki-20240101-pages-articles.xml.bz2").write_bytes(bz2.compress(xml.encode("utf-8")))
    truncated = bz2.compress(xml.encode("utf-8")[: xml.encode("utf-8").index("<title>틀만".encode())])
    (HERE / "faults" / "kowiki-truncated-pages-articles.xml.bz2").write_bytes(truncated)


def build_wikiextractor() -> None:
    from kcorpus.transforms.readers.wiki import DOC_OPEN

    plain = (HERE / "kowiki_wiki_00").read_bytes()
    (HERE / "kowiki_wiki_00.bz2").write_bytes(bz2.compress(plain))
    lines, docs, current = plain.decode("utf-8").splitlines(), [], None
    for line in lines:
        match = DOC_OPEN.match(line)
        if match:
            current = {"id": match.group(1), "revid": str(int(match.group(1)) * 1000), "url": match.group(2),
                       "title": match.group(3), "body": []}
        elif line == "</doc>":
            body = current.pop("body")[2:]  # the title line and the blank line after it
            docs.append({**current, "text": "\n".join(body)})
        else:
            current["body"].append(line)
    (HERE / "kowiki_wiki_00.json").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="ascii")
    faults = HERE / "faults"
    (faults / "wikiextractor_faults").write_text(
        "stray text before any doc\n"
        '<doc id="1" url="https://ko.wikipedia.org/wiki?curid=1" title="잘린 문서">\n잘린 문서\n\n닫히지 않았다.\n'
        '<doc id="2" url="https://ko.wikipedia.org/wiki?curid=2" title="정상">\n정상\n\n본문 한 줄.\n</doc>\n'
        '<doc id="3" url="https://ko.wikipedia.org/wiki?curid=3" title="끝까지 잘림">\n끝까지 잘림\n\n본문\n',
        encoding="utf-8")


COMMENTS = [
    ("A1", "c1", "기사 잘 읽었습니다 이런 기사가 더 많아져야 함"),
    ("A1", "c2", "OOO 같은 소리 하고 있네 ㅋㅋ"),
    ("A2", "c3", "이게 나라냐..."),
    ("A1", "c4", "윗분 말씀에 동의합니다"),
    ("A2", "c5", "기자님 오타 있어요 \"정부\"가 아니라 \"정보\""),
]


def build_comments() -> None:
    (HERE / "comments_lines.txt").write_text("".join(text + "\n" for _, _, text in COMMENTS) + "\n   \n",
                                             encoding="utf-8")
    tsv = "article_id\tcomment_id\ttext\n" + "".join(f"{a}\t{c}\t{t}\n" for a, c, t in COMMENTS)
    (HERE / "comments_threads.tsv").write_text(tsv, encoding="utf-8")
    rows = [{"article_id": a, "comment_id": c, "text": t} for a, c, t in COMMENTS]
    (HERE / "comments_threads.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    csv_text = "article_id,comment_id,text\r\n" + "".join(
        f'{a},{c},"{t.replace(chr(34), chr(34) * 2)}"\r\n' for a, c, t in COMMENTS[:3]) + (
        'A2,c6,"여러 줄 댓글입니다,\n쉼표와 줄바꿈이 있어요"\r\n')
    (HERE / "comments_threads.csv").write_text(csv_text, encoding="utf-8", newline="")


def build_encodings() -> None:
    cp949_lines = ["이 영화 정말 재밌어요", "배우들 연기가 최고", "똠방각하 뷁"]  # 뷁: outside EUC-KR, inside CP949
    (HERE / "cp949_comments.txt").write_bytes("\r\n".join(cp949_lines).encode("cp949") + b"\r\n")
    nsmc = (HERE / "nsmc_ratings_test_slice.txt").read_bytes().split(b"\n")[:6]
    (HERE / "nsmc_bom_crlf.txt").write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(nsmc) + b"\r\n")


def build_line_faults() -> None:
    faults = HERE / "faults"
    petition = json.loads((HERE / "petitions_2017-08_slice").read_text(encoding="utf-8").splitlines()[3])
    good = json.dumps(petition, ensure_ascii=False)
    lines = [
        good.encode(),  # document
        good[:120].encode(),  # truncated_json
        b'{"title": "x", "content": "y",, "petition_idx": "9"}',  # invalid_json
        b'["title", "content"]',  # not_an_object
        json.dumps({"content": "제목이 없다", "petition_idx": "900"}, ensure_ascii=False).encode(),  # missing_field
        json.dumps({**petition, "petition_idx": "901"}, ensure_ascii=False).encode().replace(
            "반려동물".encode(), b"\xb9\xdd\xb7\xc1"),  # invalid_encoding (cp949 bytes in a UTF-8 file)
        json.dumps({**petition, "petition_idx": "902"}, ensure_ascii=False).encode().replace(b'"title"', b'"ti\x00tle"'),
        b"",  # empty line: dropped
        json.dumps({"title": " ", "content": "", "petition_idx": "903"}).encode(),  # dropped: empty
        json.dumps({**petition, "petition_idx": "904", "title": 7}, ensure_ascii=False).encode(),  # invalid_value
        json.dumps({**petition, "petition_idx": "905"}, ensure_ascii=False).encode() + b"\r",  # CRLF: document
    ]
    (faults / "petitions_faults.jsonl").write_bytes(b"\n".join(lines) + b"\n")

    nsmc = [
        b"id\tdocument\tlabel",
        "1001\t재밌다\t1".encode(),
        "1002\t탭이\t없는\t행\t0".encode(),  # wrong_field_count (5)
        "1003\t두 칸".encode(),  # wrong_field_count (2)
        "1004\t라벨이 이상\t5".encode(),  # invalid_value
        b"1005\t\xc0\xcc\xb0\xc5\t0",  # invalid_encoding (cp949 in a UTF-8 file)
        "1006\tNUL\x00바이트\t1".encode(),  # nul_byte
        b"1007\t\t0",  # dropped: empty
        b"\t\t",  # invalid_value: empty id
    ]
    (faults / "nsmc_faults.txt").write_bytes(b"\n".join(nsmc) + b"\n")

    tsv = ("article_id\tcomment_id\ttext\n"
           "A1\tc1\t첫 댓글\n"
           "A1\tc2\n"  # wrong_field_count
           "\tc3\t스레드 없음\n"  # invalid_value: empty thread
           "A1\tc4\t   \n"  # dropped: empty
           "A2\tc5\t다른 기사 댓글\n"
           "A1\tc6\t답글\n")
    (faults / "comments_faults.tsv").write_text(tsv, encoding="utf-8")

    jsonl = [b'{"text": "\xec\xa0\x95\xec\x83\x81"}', b'{"body": "no text field"}', b'{"text": 3}', b'{"text": null}',
             b'"just a string"', '{"text": "잘린'.encode()]
    (faults / "jsonl_faults.jsonl").write_bytes(b"\n".join(jsonl) + b"\n")

    text = "".join(f"{i}번째 줄입니다\n" for i in range(1, 2001)).encode("utf-8")
    compressed = gzip.compress(text, mtime=0)
    (faults / "text_truncated.txt.gz").write_bytes(compressed[: len(compressed) // 2])


if __name__ == "__main__":
    (HERE / "faults").mkdir(exist_ok=True)
    build_modu()
    build_dump()
    build_wikiextractor()
    build_comments()
    build_encodings()
    build_line_faults()
