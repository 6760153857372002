"""Korean sentence splitting: a fast rule-based splitter (default); Kiwi and kss as optional backends.

`split_sentences` is pure Python + `re`. It splits where a sentence ends in punctuation
(`.?!…` plus closing quotes/brackets) and where a final ending (`습니다`, `십시오`, `재밌음`, ...) runs
into the next sentence without punctuation. It never splits decimals, initials (`U.S.`), URLs,
e-mails, dates (`2017. 8. 25.`), list numbers (`1.`, `가.`) or text inside quotes and brackets, and no
sentence it makes starts with punctuation or a continuing ending. Newlines are always boundaries. The
rules were tuned against kss's default backend, then Kiwi's `split_into_sents`, on real petitions, Korean
Wikipedia and NSMC comments; `bench/bench_split.py` measures agreement and speed.
"""

from __future__ import annotations

import bisect
import re
import warnings
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from typing import Any

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS, syllables_with_final
from kcorpus.transforms.text.periods import is_emphatic_period, is_non_final_period
from kcorpus.transforms.text.segments import CONTINUATION_START
from kcorpus.transforms.text.sentence_ends import (
    POLITE_GLUED_ENDINGS,
    end_log_odds_at,
    glued_cuts,
    unpunctuated_cuts,
)

BACKENDS = ("kcorpus", "kiwi", "kss", "kss-fast", "none")

_HANGUL = HANGUL_SYLLABLE_CLASS
_JAMO = COMPATIBILITY_JAMO_CLASS
_CLOSERS = "\"'”’)\\]}」』》〉»"
# After a terminator, jamo (`ㅋㅋ`, a bullet `ㅇ`) and decorative symbols stay with the sentence
# they follow, as kss does; so do `~` (`습니다.~`) and `>`/`>>`, even glued to the next word
# (`보냈습니다.. >그래서`).
_TRAILERS = rf"[{_JAMO}★☆♡♥♪^>~]*(?:\s+[{_JAMO}★☆♡♥♪^>]+)*"
# A candidate boundary: a terminator run, closing quotes/brackets, trailers, then whitespace.
# Terminators: `.?!…` and full-width forms; `~` and runs of commas (`해요,,`) only after a
# syllable that ends a sentence.
_FINAL_SYLLABLES = "다요죠까네냐나지군래자음함"
# Citation markers after the terminator (`있다.[1][2] 다음`, `[주 1]`) stay with the sentence they cite.
_CITATIONS = r"(?:\[(?:주 ?)?\d{1,3}\]|\[[a-z]\]|\[출처 필요\]|\[\])*"
# So does a short bracket glued to the terminator itself (`하다.(EG 331, GL 380) 영어판인`, `없다.(모순) 그러므로`); not
# one after a closing quote (`"…suit."(정장 없이도…) 그리고 "Work…"`: a list of quotations goes on).
_PUNCT_TAIL = (
    rf"((?:\([^()\n]{{1,40}}\)|[{_CLOSERS}]*{_CITATIONS}[{_CLOSERS}]*){_TRAILERS}(?:\s*>+)?)(?=\s|$|(?<=>))"
)
_PUNCT_CANDIDATE = re.compile(rf"([.?!…‥。？！]+|(?<=[{_FINAL_SYLLABLES}]) ?(?:~+|,{{2,}})[.?!~]*){_PUNCT_TAIL}")
# `_PUNCT_CANDIDATE` without its `~`/`,,` branch, which can only match where `_TILDE_GUARD` does: where that
# finds nothing, this gives the same matches, and `re` scans for its first character class (no lookbehind
# comes first) several times faster.
_PUNCT_ONLY_CANDIDATE = re.compile(rf"([.?!…‥。？！]+){_PUNCT_TAIL}")
_TILDE_GUARD = re.compile(rf"[{_FINAL_SYLLABLES}] ?(?:~|,,)")
# `했다.그리고`: a final ending glued to the next Hangul sentence by a terminator.
# The terminator comes first and its lookbehind after it, so that `re` scans for the terminator's character
# class (a pattern that opens with a lookbehind gets no such scan).
_GLUED_CANDIDATE = re.compile(
    rf"([.?!…‥](?<=[{_HANGUL}].)[.?!…‥]*|~(?<=[다요죠까음함네]~)~*)([{_JAMO}]*)(?=[{_HANGUL}]|(?<=[?!])\d+[^\d\s.,])"
)
# `것이었다.Coase는`: a final ending glued to a sentence that starts with a Latin name (a lost line break in
# WikiExtractor's text); group 2 (closers) is empty.
_GLUED_LATIN_CANDIDATE = re.compile(r"(\.)(?<=[다요죠까]\.)()(?=[A-Z][a-z]+[가-힣 ])")
# `폐점을 한다.""이건`: a quotation closed after a terminator and the next one opened at once.
_QUOTE_PAIR_CANDIDATE = re.compile(r"([.?!…]+)([\"”’」』])(?=[\"“‘「『][^\s\"“”‘’「」『』])")
# Final endings that end a sentence even without punctuation. Formal `-ㅂ니다`/`-십시오` end one
# before anything but punctuation (`들어왔습니다 50평인`, `있습니다(신기독`); polite `-요`/`-죠`
# before Hangul or a bullet; nominal `-음`/`-함` before a bullet, taking a jamo bullet (`있음 ㅇ`) along.
_BULLETS = "ㆍ※□■○●◆▶"
# Syllables with final ㅂ: the formal endings `-ㅂ니다`, `-ㅂ니까`, `-ㅂ시다` (`습니다`, `갑니다`, `합시다`).
_B_FINAL = syllables_with_final(17)
_B_FINAL_SET = frozenset(_B_FINAL)
# Plain `-다` after any syllable but those of the particle `보다` and the nouns and connectives `마다`, `바다`, `려다`,
# `데다`, `에다`, `까다`.
_NOT_BEFORE_DA = "보마바려데에까"
# Nor before a verb of saying that takes the clause as an unquoted quotation (`잘못이 없다 이야기하는`, `하다 함은`).
_NOT_CONTINUED = (
    r"(?!\s+(?:하|해|했|한|할|합|라|고|며|는|가|면|싶|보|시피|생각|말|전해|였|등|못|치"
    r"|함[은이을]|이야기|얘기|주장|반박|반문|대답|묻|물었|물어|물으|되물|호소))"
)
# Informal endings of comments (`대박이네`, `뭐냐`, `봐라`, `재밌더라`); nominal `-음` after a tense or
# adjective stem (`재밌음`, `좋았음`), `-됨` and `-옴` (`욕나옴`); not `-함`, `-임` (`포함`, `게임`, `취임`).
_INFORMAL_ENDINGS = (
    "(?:[가-힣](?<![동우너그저니네걔얘쟤아댁])네|[가-힣]냐|[뭐거]야|[해봐]라|더라|(?<!\\s더)(?<!^더)구[만먼나]|잖아"
    "|[니았었겠였했있없좋같]군)"
)
# Any past or tense syllable (final ㅆ: `아쉬웠음`, `됐음`, `봤음`, `있음`) or an adjective stem; not the honorific
# `셨`, whose `-셨음` is mostly the conditional `-셨으면` (`받으셨음 힘든 생활이`).
_BEFORE_EUM = "".join(sorted(set(syllables_with_final(20)) - {"셨"})) + "없같좋"
# Nor before what takes such an `-음` as the conditional `-으면` or a noun (`나왔음 좋겠어요`, `나왔음 에도`).
_NOT_CONDITIONAL = r"(?!\s+(?:좋|젛|조|에|하는|했으))"
# Nor before an adverb put after the predicate, which ends the sentence (`실감났음 개인적으로.`, `최악이다 정말..` at the
# end of a comment; `재밌다 진짜.. 장난아닌데` starts the next one).
_NOT_INVERTED = r"(?!\s+(?:[가-힣]*(?:으로|게|히)[.?!…]|(?:진짜|정말|참)[.?!…]+\s*$))"
# Nominal endings besides `-음` (`잘만듦`, `재미있게봄`, `돌려버림`, `나오게함`): after a stem or auxiliary syllable only,
# so that the nouns `봄`, `포함`, `밀림` stay.
_NOMINAL_ENDINGS = rf"(?:[{_BEFORE_EUM}]음|[됨옴듦]|[버해게어아]림|[해게어아]봄|[게안못잘]함)"
_BARE_ENDING = re.compile(
    rf"(?:[{_B_FINAL}임림](?:니다|니까|시다)|십시[오요])(?=\s+[^\s.,?!~)\]}}」』》〉>]|\s*[{_BULLETS}]|\s*\((?![^()\n]*\)\s*[.?!]))"
    rf"|(?:[아어여해봐와줘워져쳐돼네데지게래세까나군든걸대에예구고]요|[가-힣]죠)(?=\s+[{_HANGUL}{_BULLETS}\d-])"
    rf"|(?:(?<=[{_HANGUL}])(?<![{_NOT_BEFORE_DA}])다|(?<=[{_HANGUL}\s]){_INFORMAL_ENDINGS})(?=\s+[{_HANGUL}]|\s*[※□■○●◆▶]){_NOT_CONTINUED}{_NOT_INVERTED}"
    rf"|(?<=[{_HANGUL}\s])(?:있음|없음|[음함됨임])(?:\s+[{_JAMO}]+(?=\s)|(?=\s*[{_BULLETS}]))"
    rf"|(?<=[{_HANGUL}]){_NOMINAL_ENDINGS}(?=\s+[{_HANGUL}]){_NOT_CONTINUED}{_NOT_CONDITIONAL}{_NOT_INVERTED}"
)
# `-ㅂ니다` run into the next word (`계약했습니다그래서`, `합니다저도`), but not `-ㅂ니다만` and the like.
_GLUED_FORMAL = re.compile(rf"(?:니다(?<=[{_B_FINAL}]니다)|세요)(?=[{_HANGUL}])(?![만마요라다는은의란과와를을에도])")
# The last syllable of every match of `_BARE_ENDING` but those that take a jamo bullet along, and what every
# match is followed by (the bullet's space included): each match starts at most 2 characters before this.
_BARE_ENDING_HINT_CLASS = rf"[다까오요죠음함됨임옴네냐야라만먼나니군듦림봄아](?=[\s{_BULLETS}(])"
_BARE_ENDING_HINT = re.compile(_BARE_ENDING_HINT_CLASS)
# A match of `_GLUED_CANDIDATE` exists only where this (the same runs, `~` after any syllable) matches.
_GLUED_GUARD = re.compile(rf"[.?!…‥~](?<=[{_HANGUL}].)[.?!…‥~]*[{_JAMO}]*(?=[{_HANGUL}]|(?<=[?!])\d+[^\d\s.,])")
# A run of smiles or tears after a syllable or terminator ends a sentence before the next Hangul word, spaced or
# not (`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`). Not `ㅋㅋ`, `;;`, `ㅡㅡ`, `♥♥`: as often inside a sentence as at
# its end on the bench's comments.
# A run of laughter, tears, smiles, hearts, notes or emoji after a word or terminator ends the sentence before the
# next Hangul word, spaced or not (`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`, `깜놀 ㅋㅋ 정말`, `영화♥ 시리즈`); the run
# may mix marks and spaces (`드라마 ㅠ_ㅠ ♡ 아직까지`). Not after a particle or a connective of cause or condition
# (`연기력이 ㅋㅋ`, `빡쳐서ㅋㅋㅋ 무슨`, `보면 ㅎㅎ`): the sentence goes on.
_EMOTICON_MARK = r"(?:[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆]|\^[-_.o]?\^?|[\U0001F300-\U0001FAFF\u2600-\u27BF])"
_EMOTICON_RUN = re.compile(
    rf"(?<=[{_HANGUL}.?!~,])(?<![은는이가을를에의도로와과만서면])\s?(?>{_EMOTICON_MARK}+(?:[\s_.~!?-]*{_EMOTICON_MARK}+)*)[.~!?]*+"
    rf"(?=\s*[{_HANGUL}0-9])"
)
_EMOTICON_GUARD = re.compile(r"[ㅋㅎㅠㅜㄷㅡ;♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF]")
# What every paragraph with a cut holds (a terminator, `~`, `,,`, a smiles/tears run, a bare ending's last
# syllable or `니다`): where it finds nothing, none of the scans below runs (most comments are one sentence).
_MAY_CUT = re.compile(
    rf"[.?!…‥。？！~;ㅋㅎㅠㅜㄷㅡ♥♡♪♬♩★☆^\U0001F300-\U0001FAFF\u2600-\u27BF\"”]|,,|{_BARE_ENDING_HINT_CLASS}|니다"
)
# In a paragraph with a terminator, a bare `-다` ends a sentence only after a syllable with a final consonant (a tense
# or the present: `했다`, `한다`, `없다`) or the copula (`사람이다`, `별로다`): after a bare stem it is the connective `-다(가)`
# (`수술을 기다리다 돌아가신`, `일본을 여행하다 오사카에서`, `그러다 결국`), which a writer who punctuates leaves unmarked.
_COPULA_BEFORE_DA = "이로"  # `사람이다`, `별로다`
# Below these learned log-odds (0.1) a listed bare ending does not cut: `sentence_ends` has seen it continue there.
_VETO_LOG_ODDS = -2.197
# A terminator after a letter or a closing bracket: a paragraph without one is written without punctuation, and only there the learned
# odds of an unpunctuated end cut (`_boundaries`).
# (The terminator first, so that `re` scans for its class.)
_PUNCTUATED = re.compile(rf"[.?!…‥。？！](?<=[{_HANGUL}{_JAMO}A-Za-z0-9{_CLOSERS}].)")
# Regions that are never split inside: balanced quotes and brackets within one paragraph. A straight quote
# opens one only at the start of a word: the quote that closes one quotation must not open a region that runs
# to the next (`…"고 강변했습니다. 설명: 북한이 "우리는…`).
_ENCLOSED = re.compile(
    r"(?<![^\s(\[{<,:·=])(?:\"[^\"\n]{1,400}\"|'[^'\n]{1,200}')|“(?:[^“”\"\n]|\"[^“”\"\n]{0,400}\"){1,400}”|“[^“”\"\n]{1,400}\"|‘[^‘’\n]{1,200}’"
    r"|\([^()\n]{1,400}\)|\[[^\[\]\n]{1,400}\]|「[^「」\n]{1,400}」|『[^『』\n]{1,400}』"
    r"|《[^《》\n]{1,400}》|〈[^〈〉\n]{1,400}〉|<[^<>\n]{1,200}>"
)
_OPENER = re.compile("[\"'“‘(\\[「『《〈<]")
# Names spelled with `!` (`야후! 재팬 같은 회사들은`).
_EXCLAIMED_NAME = re.compile(r"(?:야후|Yahoo|YAHOO|Wham|Jeopardy)$")
# A quotation followed by a quotative particle (`"좋아." 라고 답했다`) or `등` continues the sentence.
_QUOTATIVE = re.compile(
    r"\s*(?:라고|라는|라며|라면서|하고|하며|하면서|하니|하자|하더니|했더니|했고|했는데|했지만|고\s|라\s|등(?=[의을이과도]?\s))"
)
# `라는`, `라고` never start a sentence: an unquoted question or claim before them continues (`법이다? 라는`).
_QUOTATIVE_UNQUOTED = re.compile(r"\s*(?:라고|라는|라며|라면서)")
# Nor a quotative verb glued to the period of unquoted speech (`들어주는 곳이 아닙니다.하며 전화를 끊어버리더군요`).
_QUOTATIVE_GLUED = re.compile(r"(?:하며|하면서|하고|하더니|했더니|하자|하니|하길래)(?=[\s,])")
_QUOTES = frozenset("\"'”’」』")
# An ellipsis after a particle or a connective is a pause inside the sentence (`그런데..... 양이.... 어마어마 하쥬...`,
# `좋겠지만... 그렇지`); `최고...` is no particle.
_PAUSE_SYLLABLES = frozenset("은는이가을를에의도로와과만서고며면께데")
# An ellipsis after an adverb or conjunction standing as a word (`정말정말... 지루하고`, `여튼.. 진짜 재밌음`,
# `그리고... 마지막`) is a pause before what it modifies, not a sentence end; not after a word that ends a sentence
# (`재미없네 진짜........ 웃기지도않고`: the adverb trails it).
_ADVERB_PAUSE = re.compile(r"(?:^|(?<![다네요죠음함군까])\s)(?:정말|진짜|여튼|암튼|아무튼|그냥|너무|완전|근데|그래서|그리고|하지만|그런데|그러나|또|참)+$")
# `-ㄴ가`, `-는가`, `-던가` end a question (`잊고있었던건가.하하하`): that `가` is no particle.
_QUESTION_GA = frozenset("건는은인던한운할을")
# A conjunction that opens a sentence (`개인적으로.그러나 추천은`): a period glued before it ends one even after a particle.
_CONJUNCTION = re.compile(r"\s*(?:그러나|그런데|그래서|그리고|하지만|그러므로|따라서|근데|그럼|또한)(?![가-힣])")
# A period glued between two syllables after a noun, not one of these final syllables (`했다.그리고`, `좋아요.근데`),
# separates the items of a list when the next item takes a particle (`신문.방송에도`, `어지럼증.알러지가`,
# `아들.딸들을`) or both are one syllable (`화.목 장사를`); a nominal sentence still ends there (`가족사.장대하고`,
# `머피.제이슨`).
_GLUED_FINALS = frozenset("다요죠까네냐나지군래자음함임됨옴어아야니라오게걸데")
_LIST_PARTICLES = ("에도", "에서", "에게", "가", "을", "를", "은", "는", "의", "와", "과", "도", "로")
_HANGUL_RUN = re.compile(f"[{_HANGUL}]+")
_LIST_END = re.compile(r"\s*등(?=[\s의을이과도])")
# A word ending in the background ending `-ㄴ데` (`봤는데`, `없는데`, `좋은데`), not the conjunctions `그런데`, `근데`.
_TRAILING_BACKGROUND = re.compile(rf"(?:^|\s)(?!그런데$|근데$)[^\s]*[{syllables_with_final(4)}]데$")
# A question, exclamation or ellipsis quoted by what follows (`이게 뭐지?? 하고 검색을`, `이게뭔가... 싶어서`) continues.
_MARK_QUOTATIVE = re.compile(
    r"\s*(?:하고|하는|하며|하면서|하더니|했더니|했고|했는데|했지만|하자|하길래|하니|싶|인가|인지|이라|라(?=[\s.?!~]|$))"
)
# A dialogue line `이름:"…"` after a closed quotation starts a sentence, terminator or not.
_DIALOGUE = re.compile(r'["”](?=\s*[^\s"“:]{1,10}\s?:\s?["“])')
# The first item of a numbered list after a title without a terminator (`…동물학대죄 적용 등 청원 1. 1인 가구 등`)
# starts a sentence: `1.` or `1)` after a word ending in a syllable.
_FIRST_ITEM = re.compile(rf"(?<=[{_HANGUL}])(?=\s+1[.)]\s+(?!\d+[.)])[{_HANGUL}0-9])")
# A `- ` item after a title, heading or item without a terminator (`《차례》 - 북핵위협…`, `…감시단체 활동) - 상위 글`)
# starts a sentence: after a syllable or a closing bracket, before Hangul; not a range (`서울-부산`, `3 - 2`) and not
# inside a chain of short terms joined by dashes (`도 - 시 - 군`, `주어 - 수식어 - 술어의 어순`): no dash in the 10
# characters either side. Only in a paragraph with three such items or more: a list, not a dash that sets off a phrase
# (`임명되었으며 - 아마도 헬름홀츠의 중재`).
_DASH_MARKER = re.compile(r"(?:^|\s)-\s+[가-힣]")
_BEFORE_SPACE = re.compile(r"(?=\s)")
_DASH_LABEL = re.compile(r"(?<=\S)\s+\d{1,2}[가-힣)]{0,2}$")
_DASH_ITEM = re.compile(r"(?<=[가-힣》)\]])(?=\s+-\s+[가-힣][^-\n]{9})")
# A quotation or title closed right after a formal final ending (`문자 '이걸로 비긴겁니다' 이해가`, `《…가능합니다》 홍현익
# 수석연구위원은`) ends the sentence unless a quotative particle or a continuing particle follows (`_closed_formal`).
_CLOSED_FORMAL = re.compile(r"[\"'”’》〉」』)]+(?<=니다[\"'”’》〉」』)])(?=\s+[가-힣])")
# What no sentence starts with, checked after every cut. Terminators, even spaced out (`했습니다. . . 제발`,
# `놀랍고... ...슬프다`), a separator (`주십시오.. -----`, as in kss), emoticons (`추천합니다 :-)`) and a short remark in brackets (`좋습니다. (호전사례 有)
# 그런데`; not a list number `(1)`, `(가)`) stay with the sentence before: the cut moves past them (group 1).
# A comma or a closing bracket, a copula or quotative ending (`됩니까? 였습니다.`, `…요 라는`), or a word that
# only continues one (`'…않는다.' , '다양한…'`) cancels the cut (group 2).
_AFTER_CUT = re.compile(
    rf"((?:\s*(?:[.?!…‥~;。？！]+|[:;]-?[)(DP](?![A-Za-z])|{_EMOTICON_MARK}++|[-=_]{{3,}}(?![->])|-[-_]*;+))*"
    r"(?:\s*(?!\(\w{1,2}\))\([^()\n]{1,30}\)(?=\s))?)"
    r"(\s*(?:[,，)\]}]|였|이었|이였|입니[다까]|습니[다까]|이다[\s.?!]|이라(?:고|는|며|면|서)|라고|라는|라며|라면서"
    r"|[라고](?=\s)|[요죠](?=[\s.?!~]|$)))?"
)


def hinted_finditer(
    pattern: re.Pattern[str], hint: re.Pattern[str], text: str, before: int, first: int = 0
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, trying `pattern.match` only from `before` characters before each match of
    `hint` up to its start.

    The same matches, in order, when every match of `pattern` is non-empty and starts at most `before`
    characters before the start of some match of `hint`: positions are tried in increasing order from the
    end of the previous match, as `finditer` does, and lookbehinds see the text before the position. A
    pattern whose alternatives start with lookbehinds gets no prefix scan from `re`; a character-class hint
    does, and the full pattern runs only near it. `first`: where `hint` is known to match first (or 0).
    """
    match = pattern.match
    position = 0  # the first position not tried yet (the end of the last match, or past a tried one)
    for found in hint.finditer(text, first):
        start = found.start()
        candidate = max(position, start - before)
        while candidate <= start:
            m = match(text, candidate)
            if m is None:
                candidate += 1
            else:
                yield m
                candidate = position = m.end()
        position = max(position, start + 1)


def _enclosed_spans(paragraph: str) -> list[tuple[int, int]]:
    """Quoted and bracketed regions, ordered and non-overlapping."""
    # `_ENCLOSED` starts with a lookbehind, so `re` tries it at every position; it starts scanning at the
    # first opening character instead (most comments have none). Its lookbehind still sees the text before.
    first = _OPENER.search(paragraph)
    if first is None:
        return []
    return [m.span() for m in _ENCLOSED.finditer(paragraph, first.start())]


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_left(spans, (pos, -1)) - 1
    return index >= 0 and pos < spans[index][1]


def _is_glued_mark(paragraph: str, match: re.Match[str]) -> bool:
    """Whether an emoticon run is one mark inside a word after a connective (`확정되어ㅠ있는`: a slip of the keyboard,
    no sentence end; `재마있어욯ㅎ출연자들도` ends one)."""
    start, end = match.span()
    return end - start == 1 and paragraph[start - 1] in "아어고게지" and not paragraph[end : end + 1].isspace()


def _in_item_run(paragraph: str, start: int, end: int) -> bool:
    """Whether the period at `start`, glued between two syllables, is one of a run of glued items
    (`압박감.부담감.억울함을`, `야마하.스즈키.가와사키.** 등의`) or before the last of a list (`덕양구청.강화군청 등`); a
    final syllable still ends a sentence there (`뭘한건지.위급함.긴장감은`, and so `혼다.야마하` is cut)."""
    following = _HANGUL_RUN.match(paragraph, end).group()
    after = end + len(following)
    if paragraph[after : after + 1] == "." and "가" <= paragraph[after + 1 : after + 2] <= "힣":
        return True
    if _LIST_END.match(paragraph, after):
        return True
    item = start
    while item > 0 and "가" <= paragraph[item - 1] <= "힣":
        item -= 1
    return paragraph[item - 1 : item] == "." and "가" <= paragraph[item - 2 : item - 1] <= "힣"


def _separates_items(paragraph: str, start: int, end: int) -> bool:
    """Whether the period at `start`, glued between two syllables after a noun, joins two list items (`신문.방송에도`,
    `화.목`)."""
    following = _HANGUL_RUN.match(paragraph, end).group()
    if len(following) == 1:
        return start < 2 or not "가" <= paragraph[start - 2] <= "힣"  # `화.목`: two one-syllable items
    return following.endswith(_LIST_PARTICLES)


def _ends_inner_remark(paragraph: str, start: int, spans: list[tuple[int, int]]) -> bool:
    """Whether the period (or run of periods) at `start` ends a remark in brackets opened inside a sentence (`낮을 경우
    (…쉬워진다.) 공공재가`, `않았고 (…않은듯..) 얼마전까지는`): the sentence goes on after the bracket. A bracket opened after a sentence's end is a sentence; a
    quoted question in brackets (`불친절함(“…계십니까?”) - 책임회피성`) still ends one."""
    index = bisect.bisect_left(spans, (start, -1)) - 1
    if index < 0 or not spans[index][0] < start < spans[index][1] or paragraph[spans[index][0]] != "(":
        return False
    before = paragraph[: spans[index][0]].rstrip()[-1:]
    return "가" <= before <= "힣" or before.isascii() and before.isalnum()  # not after Hanja (a translation)


def _is_boundary(paragraph: str, start: int, end: int, terminator: str, closers: str) -> bool:
    previous = paragraph[start - 1]
    if previous == "(":
        return False  # `(?)`, `(!)`: a remark inside the sentence
    if terminator[0] == "?" and previous.isdigit():
        return False  # `10?초`: an uncertain number
    if terminator == "!" and _EXCLAIMED_NAME.search(paragraph, max(0, start - 8), start):
        return False  # `야후! 재팬`: a name
    if (
        terminator == "."
        and "가" <= previous <= "힣"
        and "가" <= paragraph[end : end + 1] <= "힣"
        and previous not in _GLUED_FINALS
        and (_in_item_run(paragraph, start, end) or _separates_items(paragraph, start, end))
    ):
        return False  # `신문.방송에도`, `스즈키.가와사키`: a period between two nouns separates them
    if terminator == "." and (is_non_final_period(paragraph, start) or is_emphatic_period(paragraph, start, end)):
        return False
    is_ellipsis = len(terminator) > 1 and terminator.strip(".…‥") == "" or terminator in "…‥"
    if is_ellipsis and _ADVERB_PAUSE.search(paragraph, max(0, start - 13), start):
        return False
    if (
        previous == "데"
        and (len(terminator) > 1 and terminator.strip(".…‥") == "" or terminator in "…‥")
        and paragraph[end : end + 1].isspace()
        and _TRAILING_BACKGROUND.search(paragraph, max(0, start - 12), start)
    ):
        return True  # `봤는데... 너무 실망했다`: a background ending trailing off ends the sentence
    if (
        (
            len(terminator) > 1 and terminator.strip(".…‥") == ""
            or terminator in "…‥"
            or terminator == "." and "가" <= paragraph[end : end + 1] <= "힣"
        )
        and previous in _PAUSE_SYLLABLES
        and "가" <= paragraph[start - 2 : start - 1] <= "힣"  # a particle ends a longer word: `와..` is an interjection
        and paragraph[start - 2 : start] != "최고"
        and not (previous == "가" and paragraph[start - 2] in _QUESTION_GA)
        and not (terminator == "." and _CONJUNCTION.match(paragraph, end))
    ):
        return False  # an ellipsis, or a period glued to the next word (`사고.사건.지원`), inside the sentence
    if (len(terminator) > 1 or terminator in "?!…‥") and _MARK_QUOTATIVE.match(paragraph, end):
        return False
    if _QUOTATIVE_UNQUOTED.match(paragraph, end):
        return False
    if not closers and _QUOTATIVE_GLUED.match(paragraph, end):
        return False
    return not (_QUOTES.intersection(closers) and _QUOTATIVE.match(paragraph, end))


def _may_hold_tilde_ending(paragraph: str) -> bool:
    """Whether `_TILDE_GUARD` matches; substring tests first (most paragraphs have neither `~` nor `,,`)."""
    return ("~" in paragraph or ",," in paragraph) and _TILDE_GUARD.search(paragraph) is not None


def _may_hold_quote_pair(paragraph: str) -> bool:
    """False when `_QUOTE_PAIR_CANDIDATE` cannot match: it needs one of these closing quotes (a substring test
    each costs a fraction of its scan)."""
    return '"' in paragraph or "”" in paragraph or "’" in paragraph or "」" in paragraph or "』" in paragraph


def _is_bare_stem_da(paragraph: str, end: int) -> bool:
    """Whether the `다` before `end` follows a stem without a final consonant or with `ㄹ` (`기다리다`, `여행하다`, `살다`), not the
    copula (`사람이다`) or the formal `-ㅂ니다`, `-ㅂ시다`."""
    before = paragraph[end - 2 : end - 1]
    return (
        "가" <= before <= "힣"
        and (ord(before) - 0xAC00) % 28 in (0, 8)  # no final, or ㄹ (`살다 살다 겪어`: the present is `산다`)
        and before not in _COPULA_BEFORE_DA
        and not (before in "니시" and paragraph[end - 3 : end - 2] in _B_FINAL_SET)
        and paragraph[end - 3 : end - 1] != "아니"  # `…것은 아니다 따라서`: the negative copula
    )


def _boundaries(paragraph: str) -> list[int]:
    spans: list[tuple[int, int]] | None = None
    punctuated: bool | None = None  # whether the paragraph holds a terminator, found when first needed
    cuts: list[int] = []
    scans = [(_PUNCT_CANDIDATE if _may_hold_tilde_ending(paragraph) else _PUNCT_ONLY_CANDIDATE).finditer(paragraph)]
    if _GLUED_GUARD.search(paragraph):
        scans.append(_GLUED_CANDIDATE.finditer(paragraph))
    if _may_hold_quote_pair(paragraph):
        scans.append(_QUOTE_PAIR_CANDIDATE.finditer(paragraph))
    if "." in paragraph:
        scans.append(_GLUED_LATIN_CANDIDATE.finditer(paragraph))
    for matches in scans:
        for match in matches:
            start, end = match.start(1), match.end()
            if start == 0 or not _is_boundary(paragraph, start, end, match.group(1), match.group(2)):
                continue
            if match.group(2)[:1] == "(" and match.group(1) != ".":
                continue  # `음주운전?(상대측) VS 교통위반?(남편)`: a bracket glued to a question mark goes on
            if spans is None:
                spans = _enclosed_spans(paragraph)
            if not _inside(end, spans) and not (
                match.group(1).strip(".…") == "" and ")" in match.group(2) and _ends_inner_remark(paragraph, start, spans)
            ):
                cuts.append(end)
    scans = []
    hint = _BARE_ENDING_HINT.search(paragraph)  # none in most comments: no generator to start
    if hint is not None:
        for match in hinted_finditer(_BARE_ENDING, _BARE_ENDING_HINT, paragraph, 2, hint.start()):
            end = match.end()
            if paragraph[end - 1] == "다" and _is_bare_stem_da(paragraph, end) and punctuated is not False:
                if punctuated is None:
                    punctuated = _PUNCTUATED.search(paragraph) is not None
                if punctuated:
                    continue  # `기다리다 돌아가신`: the connective `-다(가)` in punctuated text
            odds = end_log_odds_at(paragraph, end)
            if odds is not None and odds < _VETO_LOG_ODDS:
                continue  # a listed ending that the learned odds say continues here (`밥먹다 우는장면`)
            if spans is None:
                spans = _enclosed_spans(paragraph)
            if not _inside(end, spans):
                cuts.append(end)
    if _EMOTICON_GUARD.search(paragraph):
        scans.append(m for m in _EMOTICON_RUN.finditer(paragraph) if not _is_glued_mark(paragraph, m))
    if "니다" in paragraph or "세요" in paragraph:
        scans.append(_GLUED_FORMAL.finditer(paragraph))
    if ":" in paragraph:
        scans.append(_DIALOGUE.finditer(paragraph))
    if "1" in paragraph:
        scans.append(_FIRST_ITEM.finditer(paragraph))
    if "니다" in paragraph:
        scans.append(_closed_formal(paragraph))
    if " - " in paragraph and len(_DASH_MARKER.findall(paragraph)) >= 2:
        scans.append(_dash_items(paragraph))
    for matches in scans:
        for match in matches:
            end = match.end()
            if spans is None:
                spans = _enclosed_spans(paragraph)
            if not _inside(end, spans):
                cuts.append(end)
    if punctuated is None:
        punctuated = _PUNCTUATED.search(paragraph) is not None
    if not punctuated:
        cuts.extend(_learned_boundaries(paragraph, spans))
    elif "요" in paragraph or "죠" in paragraph or "냐" in paragraph:
        glued = glued_cuts(paragraph, endings=POLITE_GLUED_ENDINGS)
        if glued:
            spans = _enclosed_spans(paragraph) if spans is None else spans
            cuts.extend(cut for cut in glued if not _inside(cut, spans))
    return sorted(set(cuts)) if len(cuts) > 1 else cuts


def _dash_items(paragraph: str) -> Iterator[re.Match[str]]:
    """The matches of `_DASH_ITEM` with no dash in the 10 characters before; a numbered label before the dash
    (`…해제 2단계 - 북한의`, `1) - `) belongs to the item it opens: the cut goes before it."""
    for match in _DASH_ITEM.finditer(paragraph):
        if "-" in paragraph[max(0, match.end() - 10) : match.end()]:
            continue
        label = _DASH_LABEL.search(paragraph, 0, match.end())
        yield _BEFORE_SPACE.match(paragraph, label.start()) if label else match


def _closed_formal(paragraph: str) -> Iterator[re.Match[str]]:
    """The matches of `_CLOSED_FORMAL` not followed by a quotative (`_QUOTATIVE`: `라고`, `하고`, ...) or a word that
    only continues a sentence (`CONTINUATION_START`: `라는`, `로`, `에`, ...)."""
    for match in _CLOSED_FORMAL.finditer(paragraph):
        end = match.end()
        if not _QUOTATIVE.match(paragraph, end) and not CONTINUATION_START.match(paragraph[end:].lstrip()):
            yield match


def _learned_boundaries(paragraph: str, spans: list[tuple[int, int]] | None = None) -> list[int]:
    """Where a writer who never punctuates ends a sentence by the learned odds (`sentence_ends`), at a space or
    inside a word (a final ending glued to the next sentence), outside quotes and brackets."""
    cuts = unpunctuated_cuts(paragraph)
    if "다" in paragraph or "네" in paragraph or "야" in paragraph:
        glued = glued_cuts(paragraph)
        if glued:
            cuts = sorted(cuts + glued)
    if cuts and (spans is None and _OPENER.search(paragraph) or spans):
        spans = spans or _enclosed_spans(paragraph)
        cuts = [cut for cut in cuts if not _inside(cut, spans)]
    return cuts


def _settled(paragraph: str, cuts: list[int]) -> list[int]:
    """`cuts` after `_AFTER_CUT`: moved past the terminators that follow them, or dropped where what follows
    continues the sentence (or nothing follows)."""
    settled: list[int] = []
    end = len(paragraph)
    for cut in cuts:
        after = _AFTER_CUT.match(paragraph, cut)
        if after.group(2):
            continue
        cut = after.end(1)
        if cut < end and (not settled or cut > settled[-1]):
            settled.append(cut)
    return settled


def _split_paragraph(paragraph: str) -> list[str]:
    # Without a terminator, `~`, `,,`, an emoticon or a listed bare ending, only the learned odds can cut.
    cuts = _boundaries(paragraph) if _MAY_CUT.search(paragraph) else _learned_boundaries(paragraph)
    if cuts:
        cuts = _settled(paragraph, cuts)
    if not cuts:
        return [paragraph]
    pieces = []
    previous = 0
    for cut in cuts:
        pieces.append(paragraph[previous:cut].strip())
        previous = cut
    pieces.append(paragraph[previous:].strip())
    return [piece for piece in pieces if piece]


def split_sentences(text: str) -> list[str]:
    """Split Korean text into sentences with kcorpus's rules.

    Newlines always end a sentence. Sentences are stripped; empty ones are dropped.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        paragraph = line.strip()
        if paragraph:
            sentences.extend(_split_paragraph(paragraph))
    return sentences


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


KIWI_MISSING = "split.backend kiwi needs kiwipiepy and kiwipiepy_model: pip install 'kcorpus[kiwi]'"


def backend_problem(backend: str) -> str | None:
    """Why `backend` cannot run here (its optional package is not installed), or None; imports nothing."""
    if backend == "kiwi" and (find_spec("kiwipiepy") is None or find_spec("kiwipiepy_model") is None):
        return KIWI_MISSING
    return None


class SentenceSplitter:
    """A sentence splitter for one backend, cheap to pickle; kss or Kiwi is loaded on first use.

    Backends: `kcorpus` (this module's rules), `kiwi` (kiwipiepy's `Kiwi.split_into_sents`, an optional
    dependency: the `kiwi` extra), `kss` (kss's default backend), `kss-fast` (kss's `fast` backend), `none`
    (one sentence per non-empty line).
    """

    def __init__(self, backend: str = "kcorpus") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown sentence splitter backend {backend!r}; valid: {', '.join(BACKENDS)}")
        self.backend = backend
        self._kss_split: Callable[..., Any] | None = None
        self._kiwi: Any = None

    def load(self) -> SentenceSplitter:
        """Import kss (5-7 s) or load Kiwi's model (1-3 s) now for those backends; a no-op otherwise.

        Raises:
            ImportError: `kiwi` without kiwipiepy installed (the message says what to install).
        """
        if self.backend.startswith("kss") and self._kss_split is None:
            import kss  # heavy: imported once per worker, in DoFn.setup()

            self._kss_split = kss.split_sentences
        elif self.backend == "kiwi" and self._kiwi is None:
            problem = backend_problem("kiwi")
            if problem:
                raise ImportError(problem)
            from kiwipiepy import Kiwi  # heavy: the model loads once per worker, in DoFn.setup()

            # num_workers=0: one thread (Beam runs one worker per core); Kiwi warns that 0 meant all cores
            # before 0.21, which is not news here.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self._kiwi = Kiwi(num_workers=0)
        return self

    def __call__(self, text: str) -> list[str]:
        if self.backend == "kcorpus":
            return split_sentences(text)
        if self.backend == "none":
            return _paragraphs(text)
        if self.backend == "kiwi":
            return self._split_with_kiwi(text)
        return self._split_with_kss(text)

    def _split_with_kiwi(self, text: str) -> list[str]:
        self.load()
        sentences = []
        for paragraph in _paragraphs(text):
            sentences.extend(s.text.strip() for s in self._kiwi.split_into_sents(paragraph))
        return [s for s in sentences if s]

    def _split_with_kss(self, text: str) -> list[str]:
        paragraphs = _paragraphs(text)
        if not paragraphs:
            return []
        self.load()
        kss_backend = "fast" if self.backend == "kss-fast" else "auto"
        # num_workers=1: kss's default starts a process pool per call.
        per_paragraph = self._kss_split(paragraphs, backend=kss_backend, num_workers=1)
        return [s.strip() for sentences in per_paragraph for s in sentences if s.strip()]

    def __getstate__(self) -> dict[str, Any]:
        return {"backend": self.backend, "_kss_split": None, "_kiwi": None}


def make_splitter(backend: str = "kcorpus") -> SentenceSplitter:
    """Create a ready splitter (kss imported, Kiwi's model loaded now for those backends); call it in
    `DoFn.setup()`."""
    return SentenceSplitter(backend).load()
