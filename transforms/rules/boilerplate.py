"""Boilerplate rule sets per source: named, small sets of line-scoped patterns, every removal counted.

A rule is a regex applied to each line of a normalized text (before sentence splitting and `clean()`), with
a replacement (a space by default). A line that held boilerplate and is left with no letter or digit is
removed whole; `BoilerplateRemover.remove` says how often each rule fired and how many lines went. The
sets were written against real text: the petitions month in the shared data, Korean Wikipedia through
WikiExtractor, Naver's comment notices and Korean news footers (KoELECTRA removed these by hand, issue #28).
A reader names the sets that are on by default for its format (`Reader.boilerplate_for`).
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence

from kcorpus.transforms.text.removals import cut_spans

# A line is left "empty" when nothing but punctuation, symbols and spaces remains.
_WORD = re.compile(r"[^\W_]")
_SPACES = re.compile(r"[ \t]{2,}")


@dataclasses.dataclass(frozen=True)
class Rule:
    """One boilerplate pattern: `name` is its counter name within its set; `replacement` may use groups.

    `needles`: substrings one of which every match contains; a line with none skips the regex (most lines).
    `cut`: each match is cut out with the brackets and separators it empties (`removals.cut_spans`) instead;
    `markers`: with a list marker or pointer before it that stood for it (a URL's `1.`, `*`, `->`), as URLs are: not
    for a notice, where a `*` before it is the writer's.
    """

    name: str
    pattern: str
    replacement: str = " "
    needles: tuple[str, ...] = ()
    cut: bool = False
    markers: bool = False


# Naver's comment notices are whole comments: only a line that is the notice and nothing else goes, so a
# comment quoting "삭제된 댓글입니다" in a sentence stays. The deletion notices are one family, whoever deleted
# ("삭제된 댓글입니다", "ⓘ 관계자에 의해 ...", "ⓘ {nickname}에 의해 ...", "운영규정 미준수로 인해 ..."):
# the agent is any 1-30 characters before "에 의해" (a nickname may hold anything).
_NOTICE_BY = r"(?:[^\n]{1,30}?(?:에게|에)? ?의해 |운영 ?규정 미준수로 인해 |규정 위반으로 )?"
_NAVER_COMMENTS = (
    Rule(
        "cleanbot",
        r"^\W*클린봇이 (?:부적절한|악성) ?(?:표현|댓글)을 감지(?:한|하여)[^\n]{0,20}?(?:댓글|답글|게시글)입니다\W*$",
        needles=("클린봇",),
    ),
    Rule(
        "deleted",
        rf"^\W*{_NOTICE_BY}(?:삭제|숨김 ?처리|블라인드 ?처리|비공개 ?처리|차단)(?:된|되어 있는) (?:댓글|답글|게시글|게시물)입니다\W*$",
        needles=("댓글", "답글", "게시"),
    ),
    Rule(
        "hidden",
        r"^\W*(?:내용을 표시할 수 없는|작성자가 (?:삭제|숨김)한|삭제 ?요청된) (?:댓글|답글)입니다\W*$",
        needles=("댓글", "답글"),
    ),
)

# Blue House petitions: the admin's edit notices (the 2017-08 month has the '숨김' variant six times) and
# URLs the archive masked with asterisks.
_PETITIONS = (
    Rule(
        "admin_notice",
        r"[\[(]\s*(?:본|해당|이)[^\[\]()\n]{0,100}?(?:관리자|운영자)에 의해\s*"
        r"['‘\"“]?(?:수정|삭제|숨김|비공개)['’\"”]?\s*(?:처리\s*)?(?:되었습니다|되었음|됨|되었습니다\.)\.?\s*[\])]",
        needles=("관리자", "운영자"),
        cut=True,
    ),
    Rule(
        "closed_notice",
        r"^\W*청원 요건에 위배되어 관리자에 의해 (?:비공개|삭제)된 청원입니다\W*$",
        needles=("청원 요건",),
    ),
    # URL characters only: `주소(http://m.****)를` loses its URL and brackets, not its particle.
    Rule(
        "masked_url",
        r"(?:https?://|www\.)[-A-Za-z0-9_@:%.+~#=/?&*]*\*{2,}[-A-Za-z0-9_@:%.+~#=/?&*]*",
        needles=("**",),
        cut=True,
        markers=True,
    ),
)

# News: datelines "[서울=뉴시스]", "(서울=연합뉴스) 홍길동 기자 =", bylines with an e-mail, copyright footers,
# photo credits and the "▶ 기사 더보기" trailers.
_REPORTER = r"(?<![가-힣])[가-힣]{2,4} ?(?:[가-힣]{2,4} ?)?(?:선임|수석|객원|인턴|전문|편집위원 겸 )?(?:기자|특파원|통신원|기상캐스터|논설위원)"
_REPORTER_WORDS = ("기자", "특파원", "통신원", "캐스터", "위원")
_EMAIL = r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
_NEWS = (
    Rule(
        "photo_credit",
        r"[\[(<]\s*(?:사진|그래픽|자료사진|이미지|영상|제공|출처)\s*[=:]\s*[^\])>\n]{1,40}[\])>]",
        needles=("=", ":"),
    ),
    Rule(
        "dateline",
        rf"[\[(【]\s*[가-힣A-Za-z]{{1,10}}\s*=\s*[^\])】\s=]{{1,15}}(?:\s[^\])】\s=]{{1,15}})?\s*[\])】]"
        rf"(?:\s*(?:{_REPORTER}(?:\s*,\s*[가-힣]{{2,4}})*\s*=))?",
        needles=("=",),
    ),
    Rule("byline_email", rf"[/=\[(<]?\s*{_REPORTER}\s*[(\[<]?\s*{_EMAIL}\s*[)\]>]?", needles=("@",)),
    Rule(
        "reporter_bracket",
        rf"[\[(]\s*(?:[가-힣A-Za-z0-9]{{1,10}}\s)?{_REPORTER}\s*[\])]",
        needles=_REPORTER_WORDS,
    ),
    Rule("reporter_line", rf"^\W*{_REPORTER}\W*$", needles=_REPORTER_WORDS),
    Rule("email_line", rf"^\W*{_EMAIL}\W*$", needles=("@",)),
    Rule(
        "copyright",
        r"[<\[(【]?\s*(?:(?:저작권자|Copyright|ⓒ|©|\(c\))[^\n]{0,60}?)?무단\s*[-·]?\s*(?:전재|복제|게재)"
        r"(?:\s*(?:[-·,/]|및)?\s*(?:재배포|배포|복제|AI\s*학습\s*(?:및\s*)?(?:이용|활용)))*\s*금지[^\n]{0,20}?[>\]）)】]?",
        needles=("금지",),
    ),
    Rule(
        "copyright_notice",
        r"(?:Copyright|ⓒ|©)\s*[^\n]{0,60}?All rights reserved\.?",
        needles=("ⓒ", "©", "opyright", "OPYRIGHT"),
    ),
    Rule("trailer", r"^\s*[▶☞▷►]\s*[^\n]*$", needles=("▶", "☞", "▷", "►")),
    Rule(
        "more_link",
        r"(?:관련\s*)?(?:기사|뉴스)\s*(?:더\s*보기|원문\s*보기|원문)\s*[>▶]*",
        needles=("보기", "원문"),
    ),
    Rule("end_mark", r"\(끝\)\s*$", needles=("(끝)",)),
)

# WikiExtractor output: links it left unconverted, category links, HTML tags it left (uncovered when the reader
# unescapes `&lt;br&gt;`), and the brackets and quotes emptied by what it removed ("AKIRA ()", "(, 1924년 10월
# 1일 ~ )", "양귀비과(楊貴妃科, )", "600/650()", "《》", "‘’"). Its `formula_N`/`codice_N` placeholders are not
# removed here: a sentence that holds one lost its formula and goes whole (`filters`, reason `placeholder`).
# Only tags of HTML and MediaWiki by name, with lower-case attributes: "<사육>", "<Thousand Dreams of You>" and
# "a < b > c" are text. Inline tags leave nothing ("H<sub>2</sub>O" -> "H2O"), block tags a space.
_INLINE_TAGS = (
    "small|big|sup|sub|span|font|math|chem|ce|b|i|u|s|strike|del|ins|tt|code|var|kbd|em|strong|cite|q|abbr|"
    "bdi|mark|ruby|rt|rp|nowiki|onlyinclude|includeonly|noinclude|section|templatestyles|syntaxhighlight|source|"
    "score|timeline|hiero|imagemap|graph|mapframe|maplink|gallery|references"
)
_BLOCK_TAGS = "br|p|div|hr|center|blockquote|poem|pre|li|ul|ol|dl|dt|dd|table|tr|td|th|caption"
# Attributes: `name`, `name=value`, `name="value"`, and WikiExtractor's `clean"all"` (it drops the "="); one
# way to read every attribute list, so a "<b" in text without its ">" fails in linear time.
_ATTRIBUTES = r"""(?:\s+(?-i:[a-z][a-z-]*)(?:\s*=\s*(?:"[^"<>\n]*"|'[^'<>\n]*'|[^\s"'<>]+)|"[^"<>\n]*")?)*\s*"""
_EMPTY_PAIRS = r"[(（]\s*[)）]|\[\s*\]|《\s*》|〈\s*〉|「\s*」|『\s*』|‘\s*’|“\s*”"
_WIKIEXTRACTOR = (
    Rule("category_link", r"\[\[(?:분류|Category):[^\]\n]*\]\]", needles=("[[",)),
    Rule("wikilink", r"\[\[(?:[^\]|\n]*\|)?([^\]|\n]*)\]\]", r"\1", needles=("[[",)),
    # A reference is not prose: its tag and text go; one left open takes the rest of its line.
    Rule("ref_tag", rf"<ref\b{_ATTRIBUTES}/>|<ref\b{_ATTRIBUTES}>(?:.*?</ref\s*>|.*)|</ref\s*>", needles=("<",)),
    Rule("html_tag", rf"</?(?:{_INLINE_TAGS})\b{_ATTRIBUTES}/?>", "", needles=("<",)),
    Rule("html_block_tag", rf"</?(?:{_BLOCK_TAGS})\b{_ATTRIBUTES}/?>", needles=("<",)),
    Rule("bracket_separators", r"([(（])\s*(?:[,;、]\s*)+", r"\1", needles=("(", "（")),
    Rule("bracket_trailing_separators", r"(?:\s*[,;、])+\s*([)）])", r"\1", needles=(")", "）")),
    # Not after a Latin letter or "_": "f()" is code. After a digit it is debris ("600/650()").
    Rule(
        "empty_brackets",
        rf"(?:[ \t]+|(?<![A-Za-z_]))(?:{_EMPTY_PAIRS})",
        "",
        needles=("(", "（", "[", "《", "〈", "「", "『", "‘", "“"),
    ),
    # Straight quotes emptied by what WikiExtractor (or `empty_brackets`: "'《》'로") removed: only a pair that
    # starts a word and is followed by Hangul or a space (`후 ""이라는`, `''의`); a pair after or before a
    # letter is italics markup (`""a" > "b"`, `"a""n"`, `"와""로`) and stays. Needles are any quote: the
    # pair may appear only once `empty_brackets` has run. The space before goes with it after a word (`후이라는`,
    # as `empty_brackets` does), not after punctuation (`이다. 의 안은`).
    Rule("empty_quotes", r"""(?:(?<=\w)[ \t]+|(?<!\S))(?:''|"")(?=[가-힣 \t]|$)""", "", needles=("'", '"')),
)

RULE_SETS: Mapping[str, tuple[Rule, ...]] = {
    "petitions": _PETITIONS,
    "naver_comments": _NAVER_COMMENTS,
    "news": _NEWS,
    "wikiextractor": _WIKIEXTRACTOR,
}
# The counter set name of a source's own `remove_patterns` (rules named by their index).
CUSTOM_SET = "remove_patterns"


def check_set_names(names: Iterable[str]) -> None:
    """ValueError naming the valid sets for any unknown name."""
    unknown = [n for n in names if n not in RULE_SETS]
    if unknown:
        raise ValueError(f"unknown boilerplate set(s) {unknown}; valid: {', '.join(RULE_SETS)}")


@dataclasses.dataclass(frozen=True)
class Removal:
    """What `BoilerplateRemover.remove` did to one text.

    Attributes:
        text: the text without its boilerplate (lines that were only boilerplate removed).
        counts: `"<set>:<rule>" -> matches` for every rule that fired.
        lines_removed: lines that held boilerplate and nothing else.
        removed: `("<set>:<rule>", match, what replaced it)` for every match, in order.
    """

    text: str
    counts: Mapping[str, int]
    lines_removed: int
    removed: tuple[tuple[str, str, str], ...] = ()


class BoilerplateRemover:
    """The compiled rules of some sets (in the order given) plus a source's own patterns."""

    def __init__(self, sets: Sequence[str] = (), extra_patterns: Sequence[str] = ()) -> None:
        check_set_names(sets)
        rules = [(f"{name}:{rule.name}", rule) for name in sets for rule in RULE_SETS[name]]
        rules += [(f"{CUSTOM_SET}:{i}", Rule(str(i), p)) for i, p in enumerate(extra_patterns)]
        self.rules = tuple(
            (key, re.compile(r.pattern, re.IGNORECASE), None if r.cut else r.replacement, r.needles, r.markers)
            for key, r in rules
        )

    def __bool__(self) -> bool:
        return bool(self.rules)

    def remove(self, text: str) -> Removal:
        """Every rule over every line of `text` ("\\n"-separated), in rule order."""
        # A rule whose needles are nowhere in the text matches no line of it.
        rules = [rule for rule in self.rules if not rule[3] or any(map(text.__contains__, rule[3]))]
        if not rules:
            return Removal(text, {}, 0)
        counts: collections.Counter[str] = collections.Counter()
        lines_out: list[str] = []
        spans: list[tuple[str, str, str]] = []
        removed = 0
        for line in text.split("\n"):
            hits = 0
            for key, pattern, replacement, needles, markers in rules:
                if needles and not any(map(line.__contains__, needles)):
                    continue
                line, n = _apply(key, pattern, replacement, line, spans, markers)
                if n:
                    counts[key] += n
                    hits += n
            if hits:
                line = _SPACES.sub(" ", line).strip()
                if not _WORD.search(line):
                    removed += 1
                    continue
            lines_out.append(line)
        return Removal("\n".join(lines_out), dict(counts), removed, tuple(spans))


def _apply(
    key: str,
    pattern: re.Pattern[str],
    replacement: str | None,
    line: str,
    spans: list[tuple[str, str, str]],
    markers: bool = False,
) -> tuple[str, int]:
    """One rule over one line: its matches replaced (`replacement`, groups expanded) or, with `None`, cut out
    with their debris (and, with `markers`, the marker before them); each noted in `spans`."""
    if replacement is None:
        matches = [m.span() for m in pattern.finditer(line)]
        spans.extend((key, line[start:end], "") for start, end in matches)
        return (cut_spans(line, matches, markers=markers) if matches else line), len(matches)

    def replace(match: re.Match[str]) -> str:
        after = match.expand(replacement)
        spans.append((key, match.group(), after))
        return after

    return pattern.subn(replace, line)
