"""Build jamo_comments.txt: real NSMC comments with the conjoining-jamo habits of news comments.

NSMC (CC0) has one comment with a genuine conjoining jamo (ᆞ U+119E as an interpunct), copied verbatim as the
first line. News comments use more (issue 14: `ᆢ` U+11A2 as an ellipsis 382 times in 60,000 comments, `ᄏ`
U+110F for ㅋ, the filler `ᅠ` U+1160 as a blank); NSMC has too few, so the next lines are NSMC comments with
those habits applied to the comments at even positions (`habits`): dot runs -> `ᆢ`, else in those at every
fourth position with ㅋㅋ `ㅋ` -> `ᄏ`, and the first space -> `ᅠ` in those at every tenth position. The comments
at odd positions stay untouched (ㅋ, `..` and plain spaces remain). Kept apart from tests/testdata/vocab/, whose tests read that whole folder. Deterministic:
`python make_jamo_comments.py /work/shared/data/nsmc/ratings_test.txt`.
"""

import re
import sys
from pathlib import Path

GENUINE_ID = "5405078"
COMMENTS = 600


def habits(index: int, text: str) -> str:
    if index % 2:
        return text
    if ".." in text:
        text = re.sub(r"\.{2,}", "\u11a2", text)
    elif "ㅋㅋ" in text and index % 4 == 0:
        text = text.replace("ㅋ", "\u110f")
    if index % 5 == 0 and " " in text:
        text = text.replace(" ", "\u1160", 1)
    return text


def main(nsmc: str) -> None:
    rows = [line.split("\t") for line in Path(nsmc).read_text(encoding="utf-8").splitlines()][1:]
    genuine = [r[1] for r in rows if r[0] == GENUINE_ID]
    comments = [r[1] for r in rows if len(r) == 3 and r[1].strip() and r[0] != GENUINE_ID][:COMMENTS]
    lines = genuine + [habits(i, text) for i, text in enumerate(comments)]
    Path(__file__).with_name("jamo_comments.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
