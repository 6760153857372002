"""Pauses inside a Korean sentence: the ellipses and glued periods `sentences.split_sentences` does not cut at.

An ellipsis after a particle or connective (`PAUSE_SYLLABLES`, but not a question's `-가`: `QUESTION_GA`) or after an
adverb or conjunction standing as a word (`ADVERB_PAUSE`) is a pause; a period glued before a conjunction that opens a
sentence (`CONJUNCTION`) still ends one, and so does an ellipsis trailing a connective in informal text (`trails_off`);
in formal text one after `-하여` or `처럼` is a pause too (`CONNECTIVE_PAUSE`). `judge_pause` gives the verdict the splitter
asks. Pure Python + `re`.
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import syllables_with_final
from kcorpus.transforms.text.bare_endings import is_formal_text

# An ellipsis after a particle or a connective is a pause inside the sentence (`그런데..... 양이.... 어마어마 하쥬...`,
# `좋겠지만... 그렇지`); `최고...` is no particle.
PAUSE_SYLLABLES = frozenset("은는이가을를에의도로와과만서고며면께데")
# An ellipsis after an adverb or conjunction standing as a word (`정말정말... 지루하고`, `여튼.. 진짜 재밌음`,
# `그리고... 마지막`) is a pause before what it modifies, not a sentence end; not after a word that ends a sentence
# (`재미없네 진짜........ 웃기지도않고`: the adverb trails it).
# So is one after `-ㄹ 뿐(만) 아니라` ("not only ... but also": `뿐만아니라.. 2018년`), which always goes on, and one after
# `등` ("etc.": `비상먼지기타 등.... 몇개월째`), which closes a list inside a sentence.
ADVERB_PAUSE = re.compile(
    r"(?:^|(?<![다네요죠음함군까])\s)(?:정말|진짜|여튼|암튼|아무튼|그냥|너무|완전|근데|그래서|그리고|하지만|그런데|그러나|또|참)+$"
    r"|뿐(?:만)?\s?아니라$|(?<!\S)등$"
)
# In formal text, so is one after the connective `-하여` (`인하여.. 모든`, `위하여...`) or the particle `처럼` (`주민들처럼..
# 소송으로`), where a comment trails off (`그들도우리처럼.... 근래본`).
CONNECTIVE_PAUSE = re.compile(r"(?:하여|처럼)$")
# `-ㄴ가`, `-는가`, `-던가` end a question (`잊고있었던건가.하하하`): that `가` is no particle.
QUESTION_GA = frozenset("건는은인던한운할을")
# A conjunction that opens a sentence (`개인적으로.그러나 추천은`): a period glued before it ends one even after a particle.
CONJUNCTION = re.compile(r"\s*(?:그러나|그런데|그래서|그리고|하지만|그러므로|따라서|근데|그럼|또한)(?![가-힣])")
# A word ending in the background ending `-ㄴ데` (`봤는데`, `없는데`, `좋은데`), not the conjunctions `그런데`, `근데`.
_TRAILING_BACKGROUND = re.compile(rf"(?:^|\s)(?!그런데$|근데$)[^\s]*[{syllables_with_final(4)}]데$")


def trails_off(paragraph: str, start: int) -> bool:
    """Whether the ellipsis at `start` ends a sentence that trails off on a connective, as comments write it: a
    background `-ㄴ데` (`봤는데... 너무 실망했다`, `재미있던데..내용이해도`) or `-고` after a syllable (`좋고... 가족들과`,
    `없고.. 배우들`). Not in formal text, where the same ellipsis joins two clauses (`싶은데.. 페이지 번호를`)."""
    previous = paragraph[start - 1]
    if previous == "고":
        trailing = "가" <= paragraph[start - 2 : start - 1] <= "힣"
    elif previous == "데":
        trailing = _TRAILING_BACKGROUND.search(paragraph, max(0, start - 12), start) is not None
    else:
        return False
    return trailing and not is_formal_text(paragraph)


def judge_pause(paragraph: str, start: int, end: int, terminator: str) -> bool | None:
    """The verdict on the terminator run `terminator` at `start`..`end` of `paragraph` where a pause rule gives one: False
    where an ellipsis (or a period glued to the next word, `사고.사건.지원`) is a pause inside the sentence, True where an
    ellipsis ends a sentence that trails off (`trails_off`), None where no pause rule decides."""
    previous = paragraph[start - 1]
    is_ellipsis = len(terminator) > 1 and terminator.strip(".…‥") == "" or terminator in "…‥"
    if is_ellipsis and previous == " ":
        # `얹고 .. 스스로에게`, `있는데 ..... 힘없는`: an ellipsis spaced off its word is judged after that word.
        start = len(paragraph[:start].rstrip())
        previous = paragraph[start - 1 : start]
    if is_ellipsis and (
        ADVERB_PAUSE.search(paragraph, max(0, start - 13), start)
        or CONNECTIVE_PAUSE.search(paragraph, max(0, start - 3), start) and is_formal_text(paragraph)
    ):
        return False
    if is_ellipsis and trails_off(paragraph, start):
        return True  # `봤는데... 너무 실망했다`, `좋고... 가족들과`: a connective trailing off ends a comment's sentence
    if (
        (is_ellipsis or terminator == "." and "가" <= paragraph[end : end + 1] <= "힣")
        and previous in PAUSE_SYLLABLES
        # a particle ends a longer word (`와..` is an interjection), or follows a quoted one (`'집'을...`)
        and (start >= 2 and ("가" <= paragraph[start - 2] <= "힣" or paragraph[start - 2] in "'’\"”"))
        and paragraph[start - 2 : start] != "최고"
        and not (previous == "가" and paragraph[start - 2] in QUESTION_GA)
        and not (terminator == "." and CONJUNCTION.match(paragraph, end))
    ):
        return False  # an ellipsis, or a period glued to the next word (`사고.사건.지원`), inside the sentence
    return None
