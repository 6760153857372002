"""Sentence ends without a terminator: final endings, formal endings glued to the next word, emoticon runs.

Cuts (`rules.CUT_RULES`): `bare_ending_cuts`, a formal (`-ㅂ니다`, `-십시오`), polite (`-요`, `-죠`), plain (`-다`),
informal (`대박이네`, `뭐냐`) or nominal (`재밌음`, `잘만듦`) ending before the next word or a bullet (`BARE_ENDING`),
never in edited text (`is_edited_text`), nor a connective `-다(가)` (`is_bare_stem_da`, `is_doubled_da`), nor where
the learned odds say the sentence goes on; `glued_formal_cuts`, `-ㅂ니다`/`-세요` run into the next word
(`GLUED_FORMAL`); `emoticon_cuts`, a run of marks (`^^`, `ㅠㅠ`, `ㅋㅋ`, `♥`, emoji) after a word or terminator,
before the next Hangul word, not after a particle or connective (`EMOTICON_RUN`). `EMOTICON_MARK`: one mark, which
no sentence starts with either (`rules.settle`). Pure Python + `re`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kcorpus.transforms.korean import COMPATIBILITY_JAMO_CLASS, HANGUL_SYLLABLE_CLASS, syllables_with_final
from kcorpus.transforms.text.split.odds import end_log_odds_at

if TYPE_CHECKING:
    from kcorpus.transforms.text.split.paragraph import Paragraph

_HANGUL = HANGUL_SYLLABLE_CLASS
_JAMO = COMPATIBILITY_JAMO_CLASS

# Final endings that end a sentence even without punctuation. Formal `-ㅂ니다`/`-십시오` end one before anything but
# punctuation (`들어왔습니다 50평인`, `있습니다(신기독`), a glued dash too (`막아주십시오- 존경하는`); polite `-요`/`-죠` (and `-여` and
# `-조`, as comments and petitions spell them: `좋네여`, `재밌어여`, `되조`, `사실이조`; not the connective `-(이)요` of `X도
# 아니요 Y도`) before Hangul, a bullet or a bracketed remark (`하더라고요 (작년 …) 솔직하게`); nominal `-음`/`-함`/`-짐` before
# a bullet, maybe after a bracketed heading (`참담함 [ 결론 ] ○`), taking a jamo bullet (`있음 ㅇ`) along. Plain,
# informal and nominal endings also before a Latin word (`이렇냐 tv에서`, `재밌음 OST도`), not NSMC's `OO` mask of a
# swear word, which goes with the sentence (`다문화냐 OO새끼들아`).
_BULLETS = "ㆍ※□■○●◆▶"
# The marks that open a list item or heading after a plain `-다` (`미친다 ○ 공소권이`, `한다 ‹문제점>`): not the middle
# dot `ㆍ`, which also joins two words inside one (`가ㆍ나`).
_ITEM_MARKS = "※□■○●◆▶‹"
# Syllables with final ㅂ: the formal endings `-ㅂ니다`, `-ㅂ니까`, `-ㅂ시다` (`습니다`, `갑니다`, `합시다`).
_B_FINAL = syllables_with_final(17)
# Comments and petitions also spell `-ㅂ니다` with a final ㅁ (`그렇슴니다`, `보여 짐니다`, `사업자 임니다`).
_FORMAL_BEFORE_NIDA = _B_FINAL + syllables_with_final(16)
_FORMAL_BEFORE_NIDA_SET = frozenset(_FORMAL_BEFORE_NIDA)
# Plain `-다` after any syllable but those of the particle `보다` and the nouns and connectives `마다`, `바다`, `려다`,
# `데다`, `에다`, `까다`.
_NOT_BEFORE_DA = "보마바려데에까"
# Nor before a verb of saying or a noun that takes the clause as an unquoted quotation (`잘못이 없다 이야기하는`, `하다
# 함은`, `죽는다 쇼하고`, `번다 소문이`, `없다 진술하고`, `해주겠다 약속을`, `있다 판단되어`, `많다 들었는데`), nor before a second such clause
# (`괜찮다 상관없다 이야기 하였으나`).
_NOT_CONTINUED = (
    r"(?!\s+(?:하|해|했|한|할|합|라|고|며|는|가|면|싶|보|시피|생각|말|전해|였|등|못|치"
    r"|함[은이을]|이야기|얘기|주장|반박|반문|대답|묻|물었|물어|물으|되물|호소|소문|쇼[를하]|식으로|난리"
    r"|진술|약속|답변|발언|설명|해명|변명|핑계|협박|통보|판단|여겨|사료|추정|짐작|들었|들은|듣고"
    r"|\S+다\s+(?:이야기|얘기|말[을하했]|진술|주장|하[고며다]|했)))"
)
# Informal endings of comments (`대박이네`, `뭐냐`, `봐라`, `재밌더라`); nominal `-음` after a tense or
# adjective stem (`재밌음`, `좋았음`), `-됨` and `-옴` (`욕나옴`); not `-함`, `-임` (`포함`, `게임`, `취임`); not the
# `-네`, `-냐` of nouns, names and numerals (`동네`, `우리네`, `아테네`, `베르토네`, `푸네`, `르네`, `카즈네`, `스물네`,
# `카탈루냐`, `트리스탄다쿠냐`), nor a `-냐` of alternatives (`선택하느냐 선택하지않느냐의`, `영화냐 쓰레기냐`).
_INFORMAL_ENDINGS = (
    "(?:[가-힣](?<![동우너그저니네걔얘쟤아댁테토반쇼디푸물브투즈])(?<!자기)(?<!우리)(?<!\\s르)(?<!^르)네|[가-힣](?<![루쿠])냐(?!\\s+\\S*냐)|[뭐거]야|[해봐]라|더라|(?<!\\s더)(?<!^더)구[만먼나]|잖아"
    "|[니았었겠였했있없좋같]군)"
)
# Any past or tense syllable (final ㅆ: `아쉬웠음`, `됐음`, `봤음`, `있음`), an adjective stem or `않` (`명확하지 않음`); not
# the honorific `셨`, whose `-셨음` is mostly the conditional `-셨으면` (`받으셨음 힘든 생활이`).
_BEFORE_EUM = "".join(sorted(set(syllables_with_final(20)) - {"셨"})) + "없같좋않"
# Nor before what takes such an `-음` as the conditional `-으면` or a noun (`나왔음 좋겠어요`, `나왔음 에도`).
_NOT_CONDITIONAL = r"(?!\s+(?:좋|젛|조|에|하는|했으))"
# Nor before an adverb put after the predicate, which ends the sentence (`실감났음 개인적으로.`, `최악이다 정말..` at the
# end of a comment; `재밌다 진짜.. 장난아닌데` starts the next one).
_NOT_INVERTED = r"(?!\s+(?:[가-힣]*(?:으로|게|히)[.?!…]|(?:진짜|정말|참)[.?!…]+\s*$))"
# Nominal endings besides `-음` (`잘만듦`, `재미있게봄`, `돌려버림`, `나오게함`): after a stem or auxiliary syllable only,
# so that the nouns `봄`, `포함`, `밀림` stay.
_NOMINAL_ENDINGS = rf"(?:[{_BEFORE_EUM}]음|[됨옴듦]|[버해게어아]림|[해게어아]봄|[게안못잘]함)"
BARE_ENDING = re.compile(
    rf"(?:[{_FORMAL_BEFORE_NIDA}](?:니다|니까|시다)|십시[오요])(?=\s+[^\s.,?!~)\]}}」』》〉>]|\s*[{_BULLETS}]|-\s+[{_HANGUL}]|\s*\((?![^()\n]*\)\s*[.?!]))"
    rf"|(?:[아어여해봐와줘워져쳐돼네데지게래세까나군든걸대에예구고서니]요|[인는은던건]가요|구여|[네어아봐해줘]여|[가-힣](?<![호쿠난토고도])죠|(?:[가-힣]이|되|었|았|겠|잖)조)(?<!도 아니요)(?!\s+소리[를가])"
    rf"(?=\s+[{_HANGUL}{_BULLETS}\d-]|\s+https?://|\s+\((?![^()\n]*\)\s*[.?!]))"
    rf"|(?:(?<=[{_HANGUL}])(?<![{_NOT_BEFORE_DA}])다|(?<=[{_HANGUL}\s]){_INFORMAL_ENDINGS})(?=\s+[{_HANGUL}]|\s+(?!OO)[A-Za-z]{{2}}|\s*[{_ITEM_MARKS}]|\s+-{{3,}}|\s+[a-z]\)){_NOT_CONTINUED}{_NOT_INVERTED}"
    rf"|(?<=[{_HANGUL}\s])(?:있음|없음|[음함됨임짐])(?:\s+[{_JAMO}]+(?=\s)|(?=\s*(?:\[[^\[\]\n]{{1,12}}\]\s*)?[{_BULLETS}]))"
    rf"|(?:(?<=[{_HANGUL}]){_NOMINAL_ENDINGS}|(?<=\s)(?:있음|없음|같음|않음|됨)|(?<=[을를야게]\s)함)(?=\s+[{_HANGUL}‹]|\s+(?!OO)[A-Za-z]{{2}}|\s+\d{{1,2}}[.)]\s)"
    rf"{_NOT_CONTINUED}{_NOT_CONDITIONAL}{_NOT_INVERTED}"
)
# The last syllable of every match of `BARE_ENDING` but those that take a jamo bullet along, and what every
# match is followed by (the bullet's space included): each match starts at most 2 characters before this.
BARE_ENDING_HINT_CLASS = rf"[다까오요죠조음함됨임옴짐네냐야라만먼나니군듦림봄아여](?=[\s{_BULLETS}(-])"
BARE_ENDING_HINT = re.compile(BARE_ENDING_HINT_CLASS)
# In a paragraph with a terminator, a bare `-다` ends a sentence only after a syllable with a final consonant (a tense
# or the present: `했다`, `한다`, `없다`) or the copula (`사람이다`, `별로다`): after a bare stem it is the connective `-다(가)`
# (`수술을 기다리다 돌아가신`, `일본을 여행하다 오사카에서`, `그러다 결국`), which a writer who punctuates leaves unmarked.
_COPULA_BEFORE_DA = "이로"  # `사람이다`, `별로다`


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


def is_bare_stem_da(paragraph: str, end: int) -> bool:
    """Whether the `다` before `end` follows a stem without a final consonant or with `ㄹ` (`기다리다`, `여행하다`, `살다`), not the
    copula (`사람이다`) or the formal `-ㅂ니다`, `-ㅂ시다`."""
    before = paragraph[end - 2 : end - 1]
    return (
        "가" <= before <= "힣"
        and (ord(before) - 0xAC00) % 28 in (0, 8)  # no final, or ㄹ (`살다 살다 겪어`: the present is `산다`)
        and before not in _COPULA_BEFORE_DA
        and not (before in "니시" and paragraph[end - 3 : end - 2] in _FORMAL_BEFORE_NIDA_SET)
        and paragraph[end - 3 : end - 1] != "아니"  # `…것은 아니다 따라서`: the negative copula
    )


# A word that is one short `-다` form said twice (`참다참다`, `살다살다`; not `부탁드립니다부탁드립니다`): the connective
# `-다(가)`, repeated.
_DOUBLED_DA = re.compile(r"(?<!\S)([가-힣]{1,2}(?<!니)다)\1$")


def is_doubled_da(paragraph: str, end: int) -> bool:
    """Whether the `-다` before `end` ends such a doubled word."""
    return _DOUBLED_DA.search(paragraph, max(0, end - 12), end) is not None


# Edited text: a paragraph of 150+ characters with two or more sentences ended `…다.` and no mark of speech (a question or exclamation
# mark, `~`, an ellipsis, laughter or tears, a polite or formal ending), as an encyclopedia's or a report's. There an
# unpunctuated `-다`, `-네`, `-냐` or `-함` is a name or a noun (`베르토네 추기경은`, `에스파냐 연극을`, `천안함
# 논란이`, `레이다 관제소의`), not a sentence's end: the listed bare endings are not asked about.
_EDITED_END = re.compile(r"다\.")
_SPOKEN_MARK = re.compile(r"[?!~ㅋㅎㅠㅜ^…]|\.\.|[요죠][.?!\s]|니다")
_EDITED_MIN_CHARS = 150  # longer than a comment (NSMC's and Naver's limit is 140 characters)


def is_edited_text(paragraph: str) -> bool:
    """Whether `paragraph` is edited text, where the listed bare endings are not asked about (above)."""
    first = _EDITED_END.search(paragraph) if len(paragraph) >= _EDITED_MIN_CHARS else None
    return (
        first is not None
        and _EDITED_END.search(paragraph, first.end()) is not None
        and _SPOKEN_MARK.search(paragraph) is None
    )


# Formal register: a paragraph in `-ㅂ니다` style (petitions, letters, notices), whose writers end sentences with a
# predicate and use an ellipsis or a glued period inside one (`싶은데.. 페이지`, `안전.환경에`).
_FORMAL = re.compile("니다|니까|십시오")


def is_formal_text(paragraph: str) -> bool:
    """Whether `paragraph` is written in the formal `-ㅂ니다` style (above)."""
    return _FORMAL.search(paragraph) is not None


# Below these learned log-odds (0.1) a listed bare ending does not cut: `odds` has seen it continue there.
_VETO_LOG_ODDS = -2.197


def bare_ending_cuts(p: Paragraph) -> list[int]:
    """`들어왔습니다 50평인`, `재밌음 배우`: a final ending that ends a sentence without punctuation, but in edited text."""
    paragraph = p.text
    hint = BARE_ENDING_HINT.search(paragraph)  # none in most comments: no generator to start
    if hint is None:
        return []
    cuts = []
    edited: bool | None = None  # found at the first listed ending (most paragraphs with a hint have none)
    for match in hinted_finditer(BARE_ENDING, BARE_ENDING_HINT, paragraph, 2, hint.start()):
        if edited is None:
            edited = is_edited_text(paragraph)
        if edited:
            break
        end = match.end()
        if paragraph[end - 1] == "다" and is_bare_stem_da(paragraph, end) and p.punctuated:
            continue  # `기다리다 돌아가신`: the connective `-다(가)` in punctuated text
        if is_doubled_da(paragraph, end):
            continue  # `참다참다 제가`: a connective `-다(가)` said twice
        # (not `-조` for `-죠`: the odds have seen `조` end nouns, `구조`, `강조`, never this spelling)
        odds = end_log_odds_at(paragraph, end) if paragraph[end - 1] != "조" else None
        if odds is not None and odds < _VETO_LOG_ODDS:
            continue  # a listed ending that the learned odds say continues here (`밥먹다 우는장면`)
        cuts.append(end)
    return cuts


# `-ㅂ니다` run into the next word (`계약했습니다그래서`, `합니다저도`), but not `-ㅂ니다만` and the like; `-세요` addressed to
# many (`정신차리세요들 어디서`) ends after its `들`.
GLUED_FORMAL = re.compile(
    rf"(?:니다(?<=[{_FORMAL_BEFORE_NIDA}]니다)|세요)(?=[{_HANGUL}])(?![만마요라다는은의란과와를을에도들])|세요들(?=\s+[{_HANGUL}])"
)


def glued_formal_cuts(p: Paragraph) -> list[int]:
    """`계약했습니다그래서`: a formal ending run into the next word (not `-ㅂ니다만`)."""
    text = p.text
    return [match.end() for match in GLUED_FORMAL.finditer(text)] if "니다" in text or "세요" in text else []


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


def emoticon_cuts(p: Paragraph) -> list[int]:
    """`재밌어요^^ 다운받아서`, `최고ㅠㅠ다시`: a run of laughter, tears, smiles or emoji before the next word."""
    text = p.text
    if EMOTICON_GUARD.search(text) is None:
        return []
    return [match.end() for match in EMOTICON_RUN.finditer(text) if not is_glued_mark(text, match)]
