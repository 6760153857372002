"""The Korean sentence splitter: `split_sentences(text)`, and `make_splitter(backend)` for the split stage.

kcorpus's rules (pure Python + `re`) split where a sentence ends in punctuation and where a final ending, an
emoticon or a list item starts the next sentence without any; never inside decimals, initials, dates, list numbers,
quotes or brackets; newlines always end a sentence. Kiwi and kss are optional backends (`backends`). The decision
runs in `rules`, each rule a function beside its pattern in the module of its family, in this order:

1. Where a sentence may end (`rules.CUT_RULES`; a line without a terminator, `~`, `,,`, emoticon, bare ending or
   `니다` (`rules.MAY_CUT`) asks only `learned_cuts`):
   - terminator_cuts: after a run of `.?!…` with its closing quotes, citations and trailers
     (`terminators.TERMINATOR_CANDIDATES`: terminator_runs, glued_terminators, quote_pairs, glued_before_latin,
     spaced_then_glued), if the terminator rules of 2. let it end the sentence
   - bare_ending_cuts: after a final ending before the next word (`들어왔습니다 50평인`), not in edited text
   - emoticon_cuts: after a run of laughter, tears, smiles or emoji (`재밌어요^^ 다운받아서`)
   - glued_formal_cuts: after `-ㅂ니다`/`-세요` run into the next word (`계약했습니다그래서`)
   - dialogue_cuts: before a dialogue line after a closed quotation (`…" 철수:"그래`)
   - first_item_cuts: before a numbered list's `1.` after an unterminated title
   - closed_formal_cuts: after a quotation closed right after `-ㅂ니다` (`'이걸로 비긴겁니다' 이해가`)
   - dash_item_cuts: before each `- ` item of a list of three or more
   - learned_cuts: where the learned odds of an end reach 0.5, in a line without any terminator (`odds`)
   - polite_glued_cuts: after a polite, `-죠` or `-냐` ending glued to the next sentence, in a line that punctuates
2. Whether a terminator run ends a sentence (`rules.TERMINATOR_RULES`; the first verdict decides, none: it does; a
   run that opens the line ends nothing):
   - in_brackets: `(?)`, `(!)` is a remark
   - uncertain_number: `10?초`
   - exclaimed_name: `야후! 재팬`
   - latin_title: `Where Do We Go? World Tour의`
   - bracket_after_mark: `음주운전?(상대측) VS`
   - between_list_items: `신문.방송에도`, `스즈키.가와사키`
   - non_final_period: a number, date, initial, abbreviation, reference or dotted words (`2017. 8. 25.`, `U.S.`)
   - pause: an ellipsis or glued period after a particle, adverb or conjunction goes on; one trailing a
     connective in a comment ends the sentence (the only rule that can say yes)
   - mark_quotative: `뭐지?? 하고 검색을`
   - period_quotative: `촬영하겠습니다. 하고 동의를`
   - unquoted_quotative: `법이다? 라는`
   - glued_quotative: `아닙니다.하며 전화를`
   - quoted_quotative: `"좋아." 라고 답했다`
3. Never inside quotes or brackets (`paragraph.Paragraph.outside`, `paragraph.enclosed_spans`).
4. settle (`rules.settle`): a cut moves past the terminators, emoticons and short remark that stay with the
   sentence before, and is cancelled before a comma, closing bracket, copula or quotative ending.

`segments` shapes the lines of a split paragraph (short sentences joined, long ones cut between words).
"""

from kcorpus.transforms.text.split.backends import (
    BACKENDS,
    KIWI_MISSING,
    SentenceSplitter,
    backend_problem,
    make_splitter,
)
from kcorpus.transforms.text.split.rules import split_sentences

__all__ = ["BACKENDS", "KIWI_MISSING", "SentenceSplitter", "backend_problem", "make_splitter", "split_sentences"]
