"""The Korean sentence splitter: one entry point, `split_sentences(text)`, and `make_splitter(backend)` for the stage.

`rules` holds the decision (candidates, the boundary judgements, settling a cut); `terminators` (periods and
pauses), `endings` (final endings and emoticons without punctuation), `quotations`, `lists` and `odds` (the learned
odds of an unpunctuated end, with its table `end_odds.tsv`) hold the judgements it asks; `segments` the lines of a
split paragraph; `backends` the Kiwi and kss alternatives.
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
