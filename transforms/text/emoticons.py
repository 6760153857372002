"""Emoticon runs that end a Korean sentence: the laughter, tears, smiles and emoji `sentences.split_sentences` cuts after.

`EMOTICON_RUN`: a run of marks (`^^`, `ㅠㅠ`, `ㅋㅋ`, `♥`, emoji) after a word or terminator, before the next Hangul word,
not after a particle or connective; `EMOTICON_GUARD`: a character every run holds (no scan without one);
`EMOTICON_MARK`: one mark, which no sentence starts with either; `is_glued_mark`: a single mark inside a word after a
connective, a slip of the keyboard. Pure Python + `re`.
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import HANGUL_SYLLABLE_CLASS

_HANGUL = HANGUL_SYLLABLE_CLASS

# A run of laughter, tears, smiles, hearts, notes or emoji after a word or terminator ends the sentence before the
# next Hangul word, spaced or not (`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`, `깜놀 ㅋㅋ 정말`, `영화♥ 시리즈`); the run
# may mix marks and spaces (`드라마 ㅠ_ㅠ ♡ 아직까지`). Not after a particle or a connective of cause or condition
# (`연기력이 ㅋㅋ`, `빡쳐서ㅋㅋㅋ 무슨`, `보면 ㅎㅎ`): the sentence goes on.
EMOTICON_MARK = r"(?:[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆]|\^[-_.o]?\^?|[\U0001F300-\U0001FAFF\u2600-\u27BF])"
EMOTICON_RUN = re.compile(
    rf"(?<=[{_HANGUL}.?!~,])(?<![은는이가을를에의도로와과만서면])\s?(?>{EMOTICON_MARK}+(?:[\s_.~!?-]*{EMOTICON_MARK}+)*)[.~!?]*+"
    rf"(?=\s*[{_HANGUL}0-9])"
)
EMOTICON_GUARD = re.compile(r"[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF]")


def is_glued_mark(paragraph: str, match: re.Match[str]) -> bool:
    """Whether an emoticon run is one mark inside a word after a connective (`확정되어ㅠ있는`: a slip of the keyboard,
    no sentence end; `재마있어욯ㅎ출연자들도` ends one)."""
    start, end = match.span()
    return end - start == 1 and paragraph[start - 1] in "아어고게지" and not paragraph[end : end + 1].isspace()
