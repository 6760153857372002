"""Render a vocab comparison as Markdown and as one self-contained HTML page with inline SVG charts."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

COLORS = ("#4e79a7", "#f28e2b", "#59a14f")
_COUNT_KEYS = ("size_a", "size_b", "overlap", "only_a", "only_b", "union", "jaccard")
_CORPUS_KEYS = ("fertility", "continued_words", "unk_rate", "unk_words", "corpus_syllables",
                "corpus_syllables_encodable", "corpus_syllable_occurrence_coverage")


def render_markdown(report: dict[str, Any]) -> str:
    a, b = report["a"], report["b"]
    lines = [
        "# Vocabulary comparison",
        "",
        f"- A: `{a['path']}` ({a['kind']}, {a['size']} tokens)",
        f"- B: `{b['path']}` ({b['kind']}, {b['size']} tokens)",
        "",
        "| comparison | " + " | ".join(_COUNT_KEYS) + " |",
        "|---" * (len(_COUNT_KEYS) + 1) + "|",
    ]
    for name, figures in (("exact strings", report), ("normalized (## / ▁)", report["normalized"]),
                          ("surface (no position)", report["surface"])):
        lines.append(f"| {name} | " + " | ".join(str(figures[k]) for k in _COUNT_KEYS) + " |")
    lines += ["", "| per vocab | A | B |", "|---|---|---|"]
    for key in ("specials", "continuation_tokens", "ksx1001_syllables_in_vocab", "all_syllables_in_vocab",
                "jamo_tokens"):
        lines.append(f"| {key} | {a[key]} | {b[key]} |")
    if "corpus" in report:
        ca, cb = report["corpus"]["a"], report["corpus"]["b"]
        lines += ["", f"On the corpus ({report['corpus']['lines']} lines, {ca['eojeol']} eojeol):", "",
                  "| corpus figure | A | B |", "|---|---|---|"]
        lines += [f"| {key} | {ca[key]} | {cb[key]} |" for key in _CORPUS_KEYS]
    lines += ["", "Tokens only in A (first in id order): " + " ".join(f"`{t}`" for t in report["examples_only_a"][:30]),
              "", "Tokens only in B (first in id order): " + " ".join(f"`{t}`" for t in report["examples_only_b"][:30]),
              ""]
    return "\n".join(lines)


def bar_chart(title: str, categories: Sequence[str], series: dict[str, Sequence[float]], *,
              fmt: str = "{:g}", width: int = 640) -> str:
    """Grouped horizontal bars as an inline <svg>: one group per category, one bar per series."""
    bar_h, gap, label_w = 14, 10, 170
    n = len(series)
    height = 40 + len(categories) * (n * bar_h + gap) + 20 * n
    peak = max((v for values in series.values() for v in values), default=0) or 1
    plot_w = width - label_w - 80
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">',
             f'<text x="4" y="18" font-weight="bold">{html.escape(title)}</text>']
    y = 30
    for i, category in enumerate(categories):
        parts.append(f'<text x="4" y="{y + n * bar_h / 2 + 4}" font-size="12">{html.escape(category)}</text>')
        for j, (name, values) in enumerate(series.items()):
            value = values[i]
            w = plot_w * value / peak
            parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{COLORS[j % 3]}">'
                         f'<title>{html.escape(name)}: {fmt.format(value)}</title></rect>')
            parts.append(f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 4}" font-size="11">'
                         f'{html.escape(fmt.format(value))}</text>')
            y += bar_h
        y += gap
    for j, name in enumerate(series):
        parts.append(f'<rect x="4" y="{y + 20 * j}" width="12" height="12" fill="{COLORS[j % 3]}"/>'
                     f'<text x="22" y="{y + 20 * j + 11}" font-size="12">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def overlap_bar(title: str, figures: dict[str, Any], width: int = 640) -> str:
    """One stacked bar: only in A | both | only in B."""
    total = figures["union"] or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="70" role="img">',
             f'<text x="4" y="16" font-weight="bold">{html.escape(title)} (Jaccard {figures["jaccard"]})</text>']
    x = 4.0
    for j, key in enumerate(("only_a", "overlap", "only_b")):
        w = (width - 8) * figures[key] / total
        parts.append(f'<rect x="{x:.1f}" y="24" width="{w:.1f}" height="22" fill="{COLORS[j]}">'
                     f"<title>{key}: {figures[key]}</title></rect>")
        parts.append(f'<text x="{x + 3:.1f}" y="62" font-size="11">{key} {figures[key]}</text>')
        x += w
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: dict[str, Any]) -> str:
    a, b = report["a"], report["b"]
    lengths = sorted(set(a["token_length"]) | set(b["token_length"]), key=int)
    scripts = sorted(set(a["script"]) | set(b["script"]))
    charts = [
        overlap_bar("Exact-string overlap", report),
        overlap_bar("Normalized overlap (## and ▁ conventions)", report["normalized"]),
        bar_chart("Tokens by length (characters, 8 = 8 or more)", [f"{k} chars" for k in lengths],
                  {"A": [a["token_length"].get(k, 0) for k in lengths],
                   "B": [b["token_length"].get(k, 0) for k in lengths]}),
        bar_chart("Tokens by script", scripts, {"A": [a["script"].get(s, 0) for s in scripts],
                                                "B": [b["script"].get(s, 0) for s in scripts]}),
        bar_chart("Hangul syllables that are tokens", ["KS X 1001 (of 2,350)", "all (of 11,172)"],
                  {"A": [a["ksx1001_syllables_in_vocab"], a["all_syllables_in_vocab"]],
                   "B": [b["ksx1001_syllables_in_vocab"], b["all_syllables_in_vocab"]]}, fmt="{:d}"),
    ]
    if "corpus" in report:
        ca, cb = report["corpus"]["a"], report["corpus"]["b"]
        keys = ("fertility", "continued_words", "unk_rate")
        charts.append(bar_chart("On the corpus", keys, {"A": [ca[k] for k in keys], "B": [cb[k] for k in keys]},
                                fmt="{:.4f}"))
    markdown = html.escape(render_markdown(report))
    body = "\n".join(f"<figure>{c}</figure>" for c in charts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Vocabulary comparison</title>"
        "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto}figure{margin:1em 0}"
        "pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}</style></head><body>"
        f"<h1>Vocabulary comparison</h1><p>A: <code>{html.escape(a['path'])}</code> ({a['kind']}, {a['size']})"
        f"<br>B: <code>{html.escape(b['path'])}</code> ({b['kind']}, {b['size']})</p>\n{body}\n"
        f"<h2>Figures</h2><pre>{markdown}</pre></body></html>\n"
    )
