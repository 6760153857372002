"""Pauses inside a Korean sentence: the ellipses and glued periods `sentences.split_sentences` does not cut at.

An ellipsis after a particle or connective (`PAUSE_SYLLABLES`, but not a question's `-가`: `QUESTION_GA`) or after an
adverb or conjunction standing as a word (`ADVERB_PAUSE`) is a pause; a period glued before a conjunction that opens a
sentence (`CONJUNCTION`) and an ellipsis trailing a background ending `-ㄴ데` (`TRAILING_BACKGROUND`) still end one.
Pure Python + `re`.
"""

from __future__ import annotations

import re

from kcorpus.transforms.korean import syllables_with_final

# An ellipsis after a particle or a connective is a pause inside the sentence (`그런데..... 양이.... 어마어마 하쥬...`,
# `좋겠지만... 그렇지`); `최고...` is no particle.
PAUSE_SYLLABLES = frozenset("은는이가을를에의도로와과만서고며면께데")
# An ellipsis after an adverb or conjunction standing as a word (`정말정말... 지루하고`, `여튼.. 진짜 재밌음`,
# `그리고... 마지막`) is a pause before what it modifies, not a sentence end; not after a word that ends a sentence
# (`재미없네 진짜........ 웃기지도않고`: the adverb trails it).
# So is one after `-ㄹ 뿐(만) 아니라` ("not only ... but also": `뿐만아니라.. 2018년`), which always goes on.
ADVERB_PAUSE = re.compile(
    r"(?:^|(?<![다네요죠음함군까])\s)(?:정말|진짜|여튼|암튼|아무튼|그냥|너무|완전|근데|그래서|그리고|하지만|그런데|그러나|또|참)+$"
    r"|뿐(?:만)?\s?아니라$"
)
# `-ㄴ가`, `-는가`, `-던가` end a question (`잊고있었던건가.하하하`): that `가` is no particle.
QUESTION_GA = frozenset("건는은인던한운할을")
# A conjunction that opens a sentence (`개인적으로.그러나 추천은`): a period glued before it ends one even after a particle.
CONJUNCTION = re.compile(r"\s*(?:그러나|그런데|그래서|그리고|하지만|그러므로|따라서|근데|그럼|또한)(?![가-힣])")
# A word ending in the background ending `-ㄴ데` (`봤는데`, `없는데`, `좋은데`), not the conjunctions `그런데`, `근데`.
TRAILING_BACKGROUND = re.compile(rf"(?:^|\s)(?!그런데$|근데$)[^\s]*[{syllables_with_final(4)}]데$")
