"""Scoring a sentence splitter against reference splits: boundary offsets, counts, precision/recall/F1.

Evaluation only: the splitter's tests (tests/transforms/text/test_sentences.py) and the split benches
(bench/bench_split.py, bench/bench_split_gold.py, which put tests/ on their path) use it.
"""

from __future__ import annotations


def _is_word_character(char: str) -> bool:
    """Letters, digits and syllables; not punctuation, symbols or compatibility jamo (`ㅋㅋ`, `ㅠㅠ`)."""
    return char.isalnum() and not "\u3131" <= char <= "\u318e"


def boundary_offsets(sentences: list[str], tolerant: bool = False) -> set[int]:
    """Sentence boundaries as offsets into the concatenated text with all whitespace removed.

    Two splits of the same text are comparable whatever whitespace each keeps; the end of the
    text is not a boundary. `tolerant`: each boundary moves forward past the punctuation, symbols and jamo
    that follow it, so two splits that differ only in which side of a run of them they cut
    (`했습니다. ‖ - 입점` against `했습니다. - ‖ 입점`) have the same boundary.
    """
    flat = "".join("".join(sentences).split())
    offsets = set()
    position = 0
    for sentence in sentences[:-1]:
        position += len("".join(sentence.split()))
        offset = position
        if tolerant:
            while offset < len(flat) and not _is_word_character(flat[offset]):
                offset += 1
        if offset < len(flat):
            offsets.add(offset)
    return offsets


def boundary_counts(reference: list[str], hypothesis: list[str], tolerant: bool = False) -> tuple[int, int, int]:
    """True positives, false positives, false negatives of `hypothesis`'s boundaries against `reference`."""
    ref, hyp = boundary_offsets(reference, tolerant), boundary_offsets(hypothesis, tolerant)
    return len(ref & hyp), len(hyp - ref), len(ref - hyp)


def f1_score(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from boundary counts (1.0 where nothing was expected or found)."""
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
