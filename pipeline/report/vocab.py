"""vocab-report's `report.md` and `report.html`, from the comparison `transforms.vocab.compare` computes."""

from __future__ import annotations

from typing import Any

from kcorpus.pipeline.report.render import (
    Block,
    Page,
    Section,
    escape,
    md_code,
    md_table,
    sections_html,
    svg_grouped_hbars,
    svg_stacked_bar,
)

TITLE = "Vocabulary comparison"
COUNT_KEYS = ("size_a", "size_b", "overlap", "only_a", "only_b", "union", "jaccard")
PER_VOCAB_KEYS = (
    "specials",
    "continuation_tokens",
    "ksx1001_syllables_in_vocab",
    "all_syllables_in_vocab",
    "jamo_tokens",
)
CORPUS_KEYS = (
    "fertility",
    "continued_words",
    "unk_rate",
    "unk_words",
    "corpus_syllables",
    "corpus_syllables_encodable",
    "corpus_syllable_occurrence_coverage",
)
EXAMPLES = 30


def _tables(report: dict[str, Any]) -> list[tuple[list[str], list[list[Any]]]]:
    """The figures as (header, rows): the three comparisons, per-vocab counts, corpus figures when present."""
    a, b = report["a"], report["b"]
    comparisons = (
        ("exact strings", report),
        ("normalized (## / ▁)", report["normalized"]),
        ("surface (no position)", report["surface"]),
    )
    tables = [
        (
            ["comparison", *COUNT_KEYS],
            [[name, *(figures[k] for k in COUNT_KEYS)] for name, figures in comparisons],
        ),
        (["per vocab", "A", "B"], [[key, a[key], b[key]] for key in PER_VOCAB_KEYS]),
    ]
    if "corpus" in report:
        ca, cb = report["corpus"]["a"], report["corpus"]["b"]
        tables.append(([_corpus_title(report), "A", "B"], [[key, ca[key], cb[key]] for key in CORPUS_KEYS]))
    return tables


def _vocab_line(name: str, vocab: dict[str, Any]) -> str:
    return f"{name}: `{vocab['path']}` ({vocab['kind']}, {vocab['size']} tokens)"


def _corpus_title(report: dict[str, Any]) -> str:
    return f"on the corpus ({report['corpus']['lines']:,} lines, {report['corpus']['a']['eojeol']:,} eojeol)"


def _examples_line(report: dict[str, Any], side: str) -> str:
    """Markdown: the tokens as code spans (the HTML renders them as `<code>`); with a corpus, the ones it uses
    most, with their counts."""
    frequent = report.get(f"frequent_only_{side.lower()}")
    if frequent is not None:
        listed = ", ".join(f"{md_code(token)} {uses:,}" for token, uses in frequent[:EXAMPLES])
        return f"Tokens only in {side}, most used on the corpus (uses): {listed or 'none used'}"
    tokens = report[f"examples_only_{side.lower()}"][:EXAMPLES]
    return f"Tokens only in {side} (first in id order): " + " ".join(map(md_code, tokens))


def _charts(report: dict[str, Any]) -> list[str]:
    a, b = report["a"], report["b"]
    lengths = sorted(set(a["token_length"]) | set(b["token_length"]), key=int)
    scripts = sorted(set(a["script"]) | set(b["script"]))
    charts = [
        svg_stacked_bar(
            f"Exact-string overlap (Jaccard {report['jaccard']})",
            [(k, report[k]) for k in ("only_a", "overlap", "only_b")],
        ),
        svg_stacked_bar(
            f"Normalized overlap (## and ▁ conventions) (Jaccard {report['normalized']['jaccard']})",
            [(k, report["normalized"][k]) for k in ("only_a", "overlap", "only_b")],
        ),
        svg_grouped_hbars(
            "Tokens by length (characters, 8 = 8 or more)",
            [f"{k} chars" for k in lengths],
            {
                "A": [a["token_length"].get(k, 0) for k in lengths],
                "B": [b["token_length"].get(k, 0) for k in lengths],
            },
        ),
        svg_grouped_hbars(
            "Tokens by script",
            scripts,
            {"A": [a["script"].get(s, 0) for s in scripts], "B": [b["script"].get(s, 0) for s in scripts]},
        ),
        svg_grouped_hbars(
            "Hangul syllables that are tokens",
            ["KS X 1001 (of 2,350)", "all (of 11,172)"],
            {
                "A": [a["ksx1001_syllables_in_vocab"], a["all_syllables_in_vocab"]],
                "B": [b["ksx1001_syllables_in_vocab"], b["all_syllables_in_vocab"]],
            },
            fmt="{:d}",
        ),
    ]
    if "corpus" in report:
        ca, cb = report["corpus"]["a"], report["corpus"]["b"]
        keys = ("fertility", "continued_words", "unk_rate")
        charts.append(
            svg_grouped_hbars(
                "On the corpus", keys, {"A": [ca[k] for k in keys], "B": [cb[k] for k in keys]}, fmt="{:.4f}"
            )
        )
    return charts


def vocab_page(report: dict[str, Any]) -> Page:
    """The comparison's page: the two vocabularies, the charts (HTML), the figure tables, example tokens only
    in one (Markdown gives the tables bare, the HTML as one section of figures)."""
    comparison, per_vocab, *corpus = _tables(report)
    examples = [_examples_line(report, "A"), _examples_line(report, "B")]
    figures = Section("Figures", tables=[comparison, per_vocab, *corpus], notes=examples)
    vocabs = (("A", report["a"]), ("B", report["b"]))
    intro = "<br>".join(
        f"{n}: <code>{escape(v['path'])}</code> ({escape(v['kind'])}, {v['size']} tokens)" for n, v in vocabs
    )
    figures_md = [*md_table(*comparison), "", *md_table(*per_vocab)]
    if corpus:
        figures_md += ["", *md_table(*corpus[0])]
    figures_md += ["", examples[0], "", examples[1], ""]
    return Page(
        TITLE,
        [
            Block([*(f"- {_vocab_line(n, v)}" for n, v in vocabs), ""], [f"<p>{intro}</p>"]),
            Block(html=_charts(report)),
            Block(figures_md, sections_html([figures])),
        ],
    )
