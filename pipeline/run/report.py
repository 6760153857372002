"""The run report: `<out>/report.html` and `<out>/report.md`, from the stages' own outputs.

It reads what each stage wrote (`corpus/stats.json` and `corpus/docs/*.jsonl`, `vocab/manifest.json` and the
vocabulary, `vocab-report/report.json`, `pack/manifest.json` and the Arrow shards, every `_STAGE.json`) and
renders one self-contained page: tables plus inline SVG charts, no script, no server, no network. A stage
that has not run yet is reported as missing, never guessed. Large outputs are read up to a byte budget; the
report says when a figure comes from a prefix of the shards.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import glob
import html
import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kcorpus.transforms import corpus_layout
from kcorpus.transforms.korean import SPECIAL_TOKENS, is_hangul_syllable

STAGES = ("corpus", "vocab", "vocab-report", "pack")
# Histogram bins: (label, lower bound inclusive); the last bin is open-ended.
SENTENCE_CHAR_BINS = (0, 10, 20, 40, 60, 80, 100, 150, 200, 300, 500)
SENTENCES_PER_DOC_BINS = (1, 2, 3, 4, 6, 11, 21, 51, 101)
DOC_CHAR_BINS = (0, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 50000)
DEFAULT_SCAN_BYTES = 512 << 20


@dataclasses.dataclass
class Histogram:
    """Counts in left-closed bins; `bins[i]` is the lower bound of bin i, the last bin is open."""

    bins: tuple[int, ...]
    counts: list[int]
    top: int | None = None  # the largest possible value, when there is one: closes the last bin's label

    @classmethod
    def empty(cls, bins: Sequence[int], top: int | None = None) -> Histogram:
        return cls(tuple(bins), [0] * len(bins), top)

    def add(self, value: int) -> None:
        index = 0
        for i, lower in enumerate(self.bins):
            if value >= lower:
                index = i
        self.counts[index] += 1

    def labels(self) -> list[str]:
        out = []
        for i, lower in enumerate(self.bins):
            if i + 1 == len(self.bins):
                closed = self.top is not None and self.top > lower
                out.append(
                    f"{lower}-{self.top}" if closed else str(lower) if self.top == lower else f"{lower}+"
                )
            elif self.bins[i + 1] - lower == 1:
                out.append(str(lower))
            else:
                out.append(f"{lower}-{self.bins[i + 1] - 1}")
        return out

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclasses.dataclass
class CorpusScan:
    """What the docs/*.jsonl shards hold, per source, with length histograms."""

    shards_read: int = 0
    shards_total: int = 0
    documents: Counter = dataclasses.field(default_factory=Counter)
    characters: Counter = dataclasses.field(default_factory=Counter)
    sentences: Counter = dataclasses.field(default_factory=Counter)
    sentence_chars: Histogram = dataclasses.field(default_factory=lambda: Histogram.empty(SENTENCE_CHAR_BINS))
    sentences_per_doc: Histogram = dataclasses.field(
        default_factory=lambda: Histogram.empty(SENTENCES_PER_DOC_BINS)
    )
    doc_chars: Histogram = dataclasses.field(default_factory=lambda: Histogram.empty(DOC_CHAR_BINS))

    @property
    def complete(self) -> bool:
        return self.shards_read == self.shards_total


def read_json(path: str | Path) -> dict[str, Any] | None:
    """A JSON file as a dict, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def scan_documents(corpus_dir: str | Path, max_bytes: int = DEFAULT_SCAN_BYTES) -> CorpusScan:
    """Documents, characters and sentences per source from `docs/*.jsonl`, reading whole shards up to a budget.

    Characters count the document text without the newlines between its sentences.
    """
    shards = sorted(glob.glob(os.path.join(str(corpus_dir), corpus_layout.DOCS_GLOB)))
    scan = CorpusScan(shards_total=len(shards))
    budget = max_bytes
    for shard in shards:
        if scan.shards_read and budget <= 0:
            break
        budget -= os.path.getsize(shard)
        scan.shards_read += 1
        with open(shard, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                doc = json.loads(line)
                sentences = [s for s in doc["text"].split("\n") if s]
                source = doc.get("source", "?")
                chars = sum(len(s) for s in sentences)
                scan.documents[source] += 1
                scan.characters[source] += chars
                scan.sentences[source] += len(sentences)
                scan.sentences_per_doc.add(len(sentences))
                scan.doc_chars.add(chars)
                for sentence in sentences:
                    scan.sentence_chars.add(len(sentence))
    return scan


def per_source_counts(stats: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """`{source: {input, kept, dropped, dead_lettered, ...}}` from stats.json, whatever it nests them under."""
    for key in ("sources", "per_source", "by_source"):
        value = stats.get(key)
        if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
            return {str(k): dict(v) for k, v in value.items()}
    return {}


def sentence_drops(total: Mapping[str, Any]) -> dict[str, int]:
    """Sentences removed inside kept documents, per rule, from the `filter:sentences_dropped:*` counters."""
    prefix = "filter:sentences_dropped:"
    counters = total.get("counters") or {}
    return {k.removeprefix(prefix): int(v) for k, v in sorted(counters.items()) if k.startswith(prefix)}


def dedup_rows(total: Mapping[str, Any]) -> list[tuple[str, int, float]]:
    """(reason, documents, share of input) for every dedup reason among the drops."""
    by_reason = total.get("dropped_by_reason") or {}
    n_input = total.get("input") or 0
    return [
        (reason, int(count), (count / n_input) if n_input else 0.0)
        for reason, count in sorted(by_reason.items())
        if "dup" in reason
    ]


def load_vocab_tokens(vocab_dir: str | Path) -> list[str]:
    """The tokens of a vocab folder in id order, from vocab.txt or else tokenizer.json."""
    vocab_txt = Path(vocab_dir) / "vocab.txt"
    if vocab_txt.exists():
        return vocab_txt.read_text(encoding="utf-8").splitlines()
    tok = read_json(Path(vocab_dir) / "tokenizer.json")
    if tok is None:
        return []
    vocab = tok.get("model", {}).get("vocab", [])
    if isinstance(vocab, Mapping):  # WordPiece / BPE: token -> id
        tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    else:  # Unigram: [[token, score], ...]
        tokens = [t for t, *_ in vocab]
    known = set(tokens)
    return tokens + [a["content"] for a in tok.get("added_tokens", []) if a["content"] not in known]


def vocab_summary(tokens: Sequence[str]) -> dict[str, Any]:
    """Size and make-up of a vocabulary: specials, word-continuation pieces, Hangul and Latin pieces."""
    if not tokens:
        return {}
    bare = [t.removeprefix("##").removeprefix("\u2581") for t in tokens]
    pieces = [b for t, b in zip(tokens, bare) if not (t.startswith("[") and t.endswith("]"))]
    return {
        "size": len(tokens),
        "special_tokens": [t for t in SPECIAL_TOKENS if t in set(tokens)],
        "unused_slots": sum(1 for t in tokens if t.startswith("[unused")),
        "continuation_pieces": sum(1 for t in tokens if t.startswith("##")),
        "word_start_pieces": sum(1 for t in tokens if t.startswith("\u2581")),
        "hangul_pieces": sum(1 for t in bare if t and all(is_hangul_syllable(c) for c in t)),
        "single_hangul_syllables": sum(1 for t in bare if len(t) == 1 and is_hangul_syllable(t)),
        "latin_pieces": sum(1 for t in bare if t and t.isascii() and t.isalpha()),
        "mean_piece_chars": round(sum(len(b) for b in pieces) / len(pieces), 2) if pieces else 0.0,
    }


def sequence_lengths(pack_dir: str | Path, max_length: int, max_bytes: int = DEFAULT_SCAN_BYTES) -> Histogram:
    """Real (non-padding) lengths of the train sequences, read from the Arrow shards up to a byte budget."""
    import pyarrow as pa

    step = max(1, max_length // 8)
    # The last bin holds only full-length sequences.
    hist = Histogram.empty((*range(0, max_length, step), max_length), top=max_length)
    budget = max_bytes
    for shard in sorted(glob.glob(os.path.join(str(pack_dir), "train", "*.arrow"))):
        if hist.total and budget <= 0:
            break
        budget -= os.path.getsize(shard)
        with pa.memory_map(shard) as source:
            table = pa.ipc.open_stream(source).read_all()
        for length in _lengths(table):
            hist.add(length)
    return hist


def _lengths(table: Any) -> Iterator[int]:
    names = set(table.column_names)
    if "length" in names:
        yield from table.column("length").to_pylist()
    elif "attention_mask" in names:
        for mask in table.column("attention_mask").to_pylist():
            yield sum(mask)
    elif "input_ids" in names:
        for ids in table.column("input_ids").to_pylist():
            yield len(ids)


# ---- collection --------------------------------------------------------------------------------------------


def collect(out_dir: str | Path, max_scan_bytes: int = DEFAULT_SCAN_BYTES) -> dict[str, Any]:
    """Everything the report shows, as plain data (also written as `report.json`)."""
    out = Path(out_dir)
    stages = {}
    for name in STAGES:
        manifest = read_json(out / name / "_STAGE.json")
        partial = (out / f"{name}.partial").exists()
        if manifest is None:
            stages[name] = {"status": "incomplete (killed or failed)" if partial else "not run"}
        else:
            stages[name] = {
                "status": "complete",
                "seconds": manifest.get("seconds"),
                "finished_at": manifest.get("finished_at"),
                "output_bytes": manifest.get("output_bytes"),
                "config_hash": (manifest.get("config_hash") or "")[:12],
            }
    data: dict[str, Any] = {"out": str(out), "stages": stages}

    stats = read_json(out / "corpus" / corpus_layout.STATS_FILE)
    if stats is not None:
        total = stats.get("total", {})
        scan = scan_documents(out / "corpus", max_scan_bytes)
        data["corpus"] = {
            "total": total,
            "per_source_in": per_source_counts(stats),
            "dedup": dedup_rows(total),
            "scan": scan,
        }
    vocab_manifest = read_json(out / "vocab" / "manifest.json")
    tokens = load_vocab_tokens(out / "vocab") if (out / "vocab").is_dir() else []
    if vocab_manifest is not None or tokens:
        data["vocab"] = {"manifest": vocab_manifest or {}, "summary": vocab_summary(tokens)}
    overlap = read_json(out / "vocab-report" / "report.json")
    if overlap is not None:
        data["vocab_report"] = overlap
    pack_manifest = read_json(out / "pack" / "manifest.json")
    if pack_manifest is not None:
        max_length = _find(pack_manifest, "max_length") or 512
        data["pack"] = {
            "manifest": pack_manifest,
            "lengths": sequence_lengths(out / "pack", int(max_length), max_scan_bytes),
            "max_length": int(max_length),
        }
    return data


def _find(obj: Any, key: str) -> Any:
    """The first value under `key` anywhere in a nested JSON object (manifests nest their config)."""
    if isinstance(obj, Mapping):
        if key in obj:
            return obj[key]
        for value in obj.values():
            found = _find(value, key)
            if found is not None:
                return found
    return None


PACK_COUNT_KEYS = ("documents", "sequences", "tokens", "padding_fraction", "dropped_tokens")


def pack_counts(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The numeric counts of a pack manifest: every number under `counts`, else the contract keys at top level."""
    counts = manifest.get("counts")
    if isinstance(counts, Mapping):
        return {k: v for k, v in counts.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {k: manifest[k] for k in PACK_COUNT_KEYS if k in manifest}


def pack_splits(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-split counts when the manifest has them (`splits: {train: {...}, ...}`, top level or in counts)."""
    counts = manifest.get("counts")
    splits = manifest.get("splits") or (counts.get("splits") if isinstance(counts, Mapping) else None)
    if isinstance(splits, Mapping):
        return {str(k): pack_counts(v) for k, v in splits.items() if isinstance(v, Mapping)}
    return {}


# ---- SVG charts --------------------------------------------------------------------------------------------

_PALETTE = ("#3b6ea8", "#d9822b", "#5a9e4b", "#b44b4b", "#7d5ba6", "#8c6d31")


def _fmt(value: float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3g}" if value < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def svg_hbars(title: str, labels: Sequence[str], values: Sequence[float], unit: str = "") -> str:
    """A horizontal bar chart, one bar per label, value printed at the bar's end."""
    if not labels:
        return ""
    row, left, width = 22, 170, 420
    height = 30 + row * len(labels)
    top = max(values) or 1
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 110}" height="{height}" '
            f'role="img" aria-label="{html.escape(title)}">'
        ),
        f'<text x="0" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(zip(labels, values)):
        y = 26 + i * row
        w = max(1.0, width * value / top) if value else 0
        parts += [
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{html.escape(str(label))}</text>',
            (
                f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" '
                f'fill="{_PALETTE[i % len(_PALETTE)]}"/>'
            ),
            f'<text x="{left + w + 4:.1f}" y="{y + 14}">{_fmt(value)}{html.escape(unit)}</text>',
        ]
    parts.append("</svg>")
    return "".join(parts)


def svg_histogram(title: str, hist: Histogram, x_label: str) -> str:
    """A vertical-bar histogram with bin labels under the bars."""
    if not hist.total:
        return ""
    bar, gap, height, base = 44, 6, 160, 190
    width = 60 + (bar + gap) * len(hist.counts)
    top = max(hist.counts) or 1
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{base + 44}" '
            f'role="img" aria-label="{html.escape(title)}">'
        ),
        f'<text x="0" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    for i, (label, count) in enumerate(zip(hist.labels(), hist.counts)):
        x = 40 + i * (bar + gap)
        h = height * count / top
        parts += [
            f'<rect x="{x}" y="{base - h:.1f}" width="{bar}" height="{h:.1f}" fill="{_PALETTE[0]}"/>',
            (
                f'<text x="{x + bar / 2}" y="{base - h - 3:.1f}" text-anchor="middle" font-size="10">'
                f"{_fmt(count)}</text>"
            ),
            (
                f'<text x="{x + bar / 2}" y="{base + 14}" text-anchor="middle" font-size="10">'
                f"{html.escape(label)}</text>"
            ),
        ]
    parts.append(
        f'<text x="{width / 2}" y="{base + 36}" text-anchor="middle" font-size="11">{html.escape(x_label)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


# ---- rendering ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Section:
    """One report section: a title, tables (header + rows), charts (SVG) and notes."""

    title: str
    tables: list[tuple[list[str], list[list[Any]]]] = dataclasses.field(default_factory=list)
    charts: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def build_sections(data: Mapping[str, Any]) -> list[Section]:
    """The report's content, shared by the HTML and Markdown renderers."""
    sections = [_stages_section(data["stages"])]
    if "corpus" in data:
        sections += _corpus_sections(data["corpus"])
    else:
        sections.append(Section("Corpus", notes=["build-corpus has not completed: no corpus/stats.json."]))
    if "vocab" in data or "vocab_report" in data:
        sections.append(_vocab_section(data.get("vocab", {}), data.get("vocab_report")))
    else:
        sections.append(Section("Vocabulary", notes=["train-vocab has not completed."]))
    if "pack" in data:
        sections.append(_pack_section(data["pack"]))
    else:
        sections.append(Section("Packed sequences", notes=["pack has not completed."]))
    return sections


def _stages_section(stages: Mapping[str, Mapping[str, Any]]) -> Section:
    rows = [
        [name, s["status"], _fmt(s["seconds"]) if s.get("seconds") is not None else "",
         _fmt(s["output_bytes"] / 1e6) if s.get("output_bytes") is not None else "", s.get("finished_at", "")]
        for name, s in stages.items()
    ]  # fmt: skip
    timed = [(n, s["seconds"]) for n, s in stages.items() if s.get("seconds") is not None]
    if timed:
        rows.append(["total", "", _fmt(sum(t for _, t in timed)), "", ""])
    return Section(
        "Stages",
        tables=[(["stage", "status", "seconds", "output MB", "finished (UTC)"], rows)],
        charts=[svg_hbars("Time per stage", [n for n, _ in timed], [t for _, t in timed], " s")],
    )


def _corpus_sections(corpus: Mapping[str, Any]) -> list[Section]:
    total, scan = corpus["total"], corpus["scan"]
    n_in = total.get("input", 0)
    totals = Section(
        "Corpus: documents in and out",
        tables=[(
            ["input", "kept", "dropped", "dead-lettered", "reconciles"],
            [[_fmt(n_in), _fmt(total.get("kept", 0)), _fmt(total.get("dropped", 0)),
              _fmt(total.get("dead_lettered", 0)),
              "yes" if n_in == total.get("kept", 0) + total.get("dropped", 0) + total.get("dead_lettered", 0)
              else "NO"]],
        )],
    )  # fmt: skip
    per_in = corpus["per_source_in"]
    sources = sorted(set(per_in) | set(scan.documents))
    rows = []
    for src in sources:
        counts = per_in.get(src, {})
        counters = counts.get("counters") or {}
        chars_in = counts.get("characters", counters.get("read:characters"))
        rows.append([
            src, _fmt(counts["input"]) if "input" in counts else "",
            _fmt(chars_in) if chars_in is not None else "",
            _fmt(scan.documents[src]), _fmt(scan.characters[src]), _fmt(scan.sentences[src]),
            _fmt(counts["dropped"]) if "dropped" in counts else "",
            _fmt(counts["dead_lettered"]) if "dead_lettered" in counts else "",
        ])  # fmt: skip
    totals.tables.append((
        ["source", "docs in", "chars in", "docs out", "chars out", "sentences out", "dropped", "dead-lettered"],
        rows,
    ))  # fmt: skip
    totals.charts.append(svg_hbars("Documents out per source", sources, [scan.documents[s] for s in sources]))
    totals.charts.append(
        svg_hbars("Characters out per source", sources, [scan.characters[s] for s in sources])
    )
    if not scan.complete:
        totals.notes.append(
            f"Output figures (docs/chars/sentences out, histograms) come from the first {scan.shards_read} of "
            f"{scan.shards_total} docs shards (the report's read budget); stats.json counts are complete."
        )

    reasons = sorted((total.get("dropped_by_reason") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    drops = Section(
        "Drops per rule",
        tables=[(["reason", "documents", "share of input"],
                 [[r, _fmt(c), _pct(c / n_in) if n_in else ""] for r, c in reasons])],
        charts=[svg_hbars("Dropped documents per reason", [r for r, _ in reasons], [c for _, c in reasons])],
    )  # fmt: skip
    sentences = sentence_drops(total)
    if sentences:
        counters = total.get("counters") or {}
        n_sent = counters.get("filter:sentences_in", 0)
        drops.tables.append((
            ["sentence rule (inside documents)", "sentences", "share of sentences in"],
            [[r, _fmt(c), _pct(c / n_sent) if n_sent else ""] for r, c in sentences.items()],
        ))  # fmt: skip
        drops.charts.append(
            svg_hbars("Dropped sentences per rule", list(sentences), list(sentences.values()))
        )
    dedup = corpus["dedup"]
    drops.tables.append((["dedup rule", "duplicates removed", "share of input"],
                         [[r, _fmt(c), _pct(share)] for r, c, share in dedup]))  # fmt: skip
    if not dedup:
        drops.notes.append("No dedup reason among the drops (dedup off, or no duplicates found).")
    hist = Section(
        "Sentence and length histograms",
        charts=[
            svg_histogram("Characters per sentence", scan.sentence_chars, "characters"),
            svg_histogram("Sentences per document", scan.sentences_per_doc, "sentences"),
            svg_histogram("Characters per document", scan.doc_chars, "characters"),
        ],
        tables=[(
            ["histogram", *scan.sentence_chars.labels()], [["sentences", *scan.sentence_chars.counts]],
        ), (
            ["histogram", *scan.sentences_per_doc.labels()], [["documents", *scan.sentences_per_doc.counts]],
        ), (
            ["histogram", *scan.doc_chars.labels()], [["documents", *scan.doc_chars.counts]],
        )],
    )  # fmt: skip
    return [totals, drops, hist]


def _vocab_section(vocab: Mapping[str, Any], report: Mapping[str, Any] | None) -> Section:
    section = Section("Vocabulary")
    summary, manifest = vocab.get("summary", {}), vocab.get("manifest", {})
    facts = [["kind", _find(manifest, "kind") or ""], *[[k, v] for k, v in summary.items()]]
    section.tables.append(
        (["vocab", "value"], [[k, ", ".join(v) if isinstance(v, list) else v] for k, v in facts])
    )
    if summary:
        parts = ["continuation_pieces", "word_start_pieces", "hangul_pieces", "latin_pieces", "unused_slots"]
        section.charts.append(svg_hbars("Vocabulary make-up (pieces)", parts, [summary[p] for p in parts]))
    if report is None:
        section.notes.append("No reference vocabulary in the profile: no overlap report.")
        return section
    keys = ("size_a", "size_b", "overlap", "only_a", "only_b", "union", "jaccard")
    rows = [[k, report[k]] for k in keys if k in report]
    normalized = report.get("normalized")
    if isinstance(normalized, Mapping):
        # Across the ## / ▁ conventions, so a WordPiece and a SentencePiece vocab compare fairly.
        rows += [[f"normalized {k}", normalized[k]] for k in ("overlap", "jaccard") if k in normalized]
    section.tables.append((["this vocab (A) vs the reference (B)", "value"], rows))
    present = [k for k in ("only_a", "overlap", "only_b") if isinstance(report.get(k), (int, float))]
    if present:
        section.charts.append(
            svg_hbars("This vocab (A) vs the reference (B)", present, [report[k] for k in present])
        )
    for key in ("examples_only_a", "examples_only_b"):
        if report.get(key):
            section.notes.append(f"{key.replace('_', ' ')}: " + " ".join(map(str, report[key][:20])))
    corpus = report.get("corpus") if isinstance(report.get("corpus"), Mapping) else report
    metrics = ("fertility", "continued_words", "unk_rate")
    per_vocab = [
        [name, *(corpus[name].get(m, "") if isinstance(corpus.get(name), Mapping) else "" for m in metrics)]
        for name in ("a", "b")
    ]
    if any(any(cell != "" for cell in row[1:]) for row in per_vocab):
        lines = corpus.get("lines")
        title = f"on {lines:,} corpus lines" if isinstance(lines, int) else "on the corpus"
        section.tables.append(([f"vocab ({title})", *metrics], per_vocab))
    return section


def _count(key: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return str(value)
    return _pct(value) if key.endswith("fraction") else _fmt(value)


def _pack_section(pack: Mapping[str, Any]) -> Section:
    manifest, lengths = pack["manifest"], pack["lengths"]
    counts = pack_counts(manifest)
    section = Section(
        "Packed sequences",
        tables=[
            (
                ["count", "value"],
                [[k, _count(k, v)] for k, v in counts.items()],
            )
        ],
    )
    splits = pack_splits(manifest)
    if splits:
        keys = sorted({k for c in splits.values() for k in c})
        section.tables.append(
            (["split", *keys], [[s, *(_count(k, c.get(k, "")) for k in keys)] for s, c in splits.items()])
        )
    section.charts.append(
        svg_histogram(f"Tokens per train sequence (max {pack['max_length']})", lengths, "real tokens")
    )
    return section


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


def render_markdown(data: Mapping[str, Any], sections: Sequence[Section]) -> str:
    """The report as Markdown tables (charts are in the HTML)."""
    lines = [f"# kcorpus run report: {data['out']}", "", f"Generated {data['generated_at']}.", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for header, rows in section.tables:
            lines.append("| " + " | ".join(map(_cell, header)) + " |")
            lines.append("|" + "---|" * len(header))
            lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
            lines.append("")
        lines += [f"> {note}" for note in section.notes]
        if section.notes:
            lines.append("")
    return "\n".join(lines)


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:.6em 0 1em}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right;font-size:13px}td:first-child,th:first-child{text-align:left}th{background:#f2f2f2}"
    "svg{font-family:system-ui,sans-serif;font-size:12px;margin:.4em 1.5em .8em 0;vertical-align:top}"
    ".note{color:#8a5a00}"
)


def render_html(data: Mapping[str, Any], sections: Sequence[Section]) -> str:
    """The report as one self-contained HTML page with inline SVG charts."""
    title = f"kcorpus run report: {data['out']}"
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>Generated {html.escape(data['generated_at'])}.</p>"]
    for section in sections:
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        for header, rows in section.tables:
            body.append("<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>")
            body += [
                "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
            ]
            body.append("</table>")
        body += [c for c in section.charts if c]
        body += [f'<p class="note">{html.escape(n)}</p>' for n in section.notes]
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, CorpusScan):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Histogram):
        return {"labels": obj.labels(), "counts": obj.counts}
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def write_report(out_dir: str | Path, max_scan_bytes: int = DEFAULT_SCAN_BYTES) -> tuple[Path, Path]:
    """Write `report.html`, `report.md` and `report.json` into the run folder; return the first two paths."""
    out = Path(out_dir)
    data = collect(out, max_scan_bytes)
    data["generated_at"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    sections = build_sections(data)
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(render_html(data, sections), encoding="utf-8")
    md_path.write_text(render_markdown(data, sections), encoding="utf-8")
    (out / "report.json").write_text(
        json.dumps(_jsonable(data), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    return html_path, md_path
