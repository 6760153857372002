"""The run report's content: `Section`s built from the data `pipeline/run/report.py` collected, and its `Page`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kcorpus.pipeline.report.examples import examples_section
from kcorpus.pipeline.report.render import (
    Block,
    Page,
    Section,
    fmt_number,
    html_contents,
    md_code,
    pct,
    svg_hbars,
    svg_histogram,
)
from kcorpus.pipeline.report.run_context import (
    filters_table,
    near_duplicate_table,
    pack_sources,
    settings_section,
)
from kcorpus.transforms.pack.stats import padding_warning


def find_key(obj: Any, key: str) -> Any:
    """The first value under `key` anywhere in a nested JSON object (manifests nest their config)."""
    if isinstance(obj, Mapping):
        if key in obj:
            return obj[key]
        for value in obj.values():
            found = find_key(value, key)
            if found is not None:
                return found
    return None


def sentence_drops(total: Mapping[str, Any]) -> dict[str, int]:
    """Sentences removed inside kept documents, per rule, from the `filter:sentences_dropped:*` counters."""
    prefix = "filter:sentences_dropped:"
    counters = total.get("counters") or {}
    return {k.removeprefix(prefix): int(v) for k, v in sorted(counters.items()) if k.startswith(prefix)}


PACK_COUNT_KEYS = ("documents", "sequences", "tokens", "padding_fraction", "dropped_tokens")


def pack_counts(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The numeric counts of a pack manifest: every number under `counts` and its `nsp` labels (`nsp
    random_next_share`), else the contract keys at top level."""
    counts = manifest.get("counts")
    if isinstance(counts, Mapping):
        nsp = counts.get("nsp") if isinstance(counts.get("nsp"), Mapping) else {}  # the `nsp` layout's labels
        numbers = {**counts, **{f"nsp {k}": v for k, v in nsp.items()}}
        return {k: v for k, v in numbers.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {k: manifest[k] for k in PACK_COUNT_KEYS if k in manifest}


def pack_splits(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-split counts when the manifest has them (`splits: {train: {...}, ...}`, top level or in counts)."""
    counts = manifest.get("counts")
    splits = manifest.get("splits") or (counts.get("splits") if isinstance(counts, Mapping) else None)
    if isinstance(splits, Mapping):
        return {str(k): pack_counts(v) for k, v in splits.items() if isinstance(v, Mapping)}
    return {}


def build_sections(data: Mapping[str, Any]) -> list[Section]:
    """The report's content, shared by the HTML and Markdown renderers: the results first (a summary, the
    corpus, the vocabulary, the packed sequences), then the stages, the examples and, last, the settings."""
    sections = [summary_section(data)]
    examples = None
    if "corpus" in data:
        *corpus, examples = _corpus_sections(data["corpus"])
        sections += corpus
    else:
        sections.append(Section("Corpus", notes=["build-corpus has not completed: no corpus/stats.json."]))
    if "vocab" in data or "vocab_report" in data:
        sections.append(_vocab_section(data.get("vocab", {}), data.get("vocab_report")))
    else:
        sections.append(Section("Vocabulary", notes=["train-vocab has not completed."]))
    if "pack" in data:
        scan = data["corpus"]["scan"] if "corpus" in data else None
        sections.append(_pack_section(data["pack"], scan))
    else:
        sections.append(Section("Packed sequences", notes=["pack has not completed."]))
    sections.append(_stages_section(data["stages"]))
    if examples is not None:
        sections.append(examples)
    sections.append(settings_section(data.get("profile"), data["stages"]))
    return sections


def summary_section(data: Mapping[str, Any]) -> Section:
    """What the run made, in a few lines: stages, documents, the corpus out, the vocabulary, the sequences."""
    stages = data["stages"]
    done = sum(1 for s in stages.values() if s["status"] == "complete")
    seconds = sum(s.get("seconds") or 0 for s in stages.values())
    others = "".join(f"; {name}: {s['status']}" for name, s in stages.items() if s["status"] != "complete")
    rows = [["stages", f"{done} of {len(stages)} complete ({fmt_number(seconds)} s){others}"]]
    if "corpus" in data:
        total, scan = data["corpus"]["total"], data["corpus"]["scan"]
        n_in, kept = total.get("input", 0), total.get("kept", 0)
        share = f" ({pct(kept / n_in)})" if n_in else ""
        dropped, dead = fmt_number(total.get("dropped", 0)), fmt_number(total.get("dead_lettered", 0))
        documents = f"{fmt_number(n_in)} in, {fmt_number(kept)} kept{share}, {dropped} dropped, {dead} dead-lettered"
        rows.append(["documents", documents])
        docs, sentences = fmt_number(sum(scan.documents.values())), fmt_number(sum(scan.sentences.values()))
        chars = fmt_number(sum(scan.characters.values()))
        read = "" if scan.complete else f" (in the first {scan.shards_read} of {scan.shards_total} docs shards)"
        rows.append(["corpus out", f"{docs} documents, {sentences} sentences, {chars} characters{read}"])
    vocab = _vocab_summary_line(data.get("vocab") or {}, data.get("vocab_report"))
    if vocab:
        rows.append(["vocabulary", vocab])
    if "pack" in data:
        counts, max_length = pack_counts(data["pack"]["manifest"]), data["pack"]["max_length"]
        figures = {
            "sequences": f"{fmt_number(counts.get('sequences', 0))} sequences of up to {max_length} tokens",
            "tokens": f"{fmt_number(counts.get('tokens', 0))} tokens",
            "padding_fraction": f"padding {pct(counts.get('padding_fraction', 0))}",
            "dropped_tokens": f"{fmt_number(counts.get('dropped_tokens', 0))} tokens dropped",
        }
        rows.append(["packed", ", ".join(text for key, text in figures.items() if key in counts)])
    return Section("Summary", tables=[(["what", "result"], rows)])


def _vocab_summary_line(vocab: Mapping[str, Any], report: Mapping[str, Any] | None) -> str:
    """Kind and size of the vocabulary, and its fertility and [UNK] rate on the corpus when measured."""
    summary = vocab.get("summary") or {}
    kind = find_key(vocab.get("manifest") or {}, "kind")
    parts = [f"{kind or 'vocabulary'}, {fmt_number(summary['size'])} tokens"] if summary.get("size") else []
    corpus = report if isinstance(report, Mapping) else {}
    corpus = corpus.get("corpus") if isinstance(corpus.get("corpus"), Mapping) else corpus  # as _vocab_section
    mine = corpus.get("a")
    if isinstance(mine, Mapping) and "fertility" in mine:
        lines = corpus.get("lines")
        on = f" on {fmt_number(lines)} corpus lines" if isinstance(lines, int) else ""
        parts.append(
            f"{mine['fertility']:.2f} tokens per eojeol, [UNK] {pct(mine.get('unk_rate', 0))}{on}"
        )
    return "; ".join(parts)


def _stages_section(stages: Mapping[str, Mapping[str, Any]]) -> Section:
    rows = [
        [name, s["status"], fmt_number(s["seconds"]) if s.get("seconds") is not None else "",
         fmt_number(s["output_bytes"] / 1e6) if s.get("output_bytes") is not None else "", s.get("finished_at", "")]
        for name, s in stages.items()
    ]  # fmt: skip
    timed = [(n, s["seconds"]) for n, s in stages.items() if s.get("seconds") is not None]
    if timed:
        rows.append(["total", "", fmt_number(sum(t for _, t in timed)), "", ""])
    return Section(
        "Stages",
        tables=[(["stage", "status", "seconds", "output MB", "finished (UTC)"], rows)],
        charts=[svg_hbars("Time per stage", [n for n, _ in timed], [t for _, t in timed], " s")],
    )


def _sources_table(corpus: Mapping[str, Any], sources: list[str]) -> tuple[tuple[list[str], list[list[str]]], list[str]]:
    """Per source: the files and bytes its patterns matched, documents and characters in and out, drops; and a
    note for each pattern that matched nothing."""
    per_in, inputs, scan = corpus["per_source_in"], corpus.get("inputs") or {}, corpus["scan"]
    # a corpus built before stats.json recorded what each source matched has no files/bytes columns
    matched_keys = ("files", "bytes") if any("files" in (inputs.get(s) or {}) for s in sources) else ()
    rows = []
    for src in sources:
        counts = per_in.get(src, {})
        counters = counts.get("counters") or {}
        chars_in = counters.get("read:characters")
        matched = inputs.get(src) or {}
        rows.append([
            src, *(fmt_number(matched[k]) if k in matched else "" for k in matched_keys),
            fmt_number(counts["input"]) if "input" in counts else "",
            fmt_number(chars_in) if chars_in is not None else "",
            fmt_number(scan.documents[src]), fmt_number(scan.characters[src]), fmt_number(scan.sentences[src]),
            fmt_number(counts["dropped"]) if "dropped" in counts else "",
            fmt_number(counts["dead_lettered"]) if "dead_lettered" in counts else "",
        ])  # fmt: skip
    header = ["source", *(("files", "bytes in") if matched_keys else ()), "docs in", "chars in", "docs out",
              "chars out", "sentences out", "dropped", "dead-lettered"]  # fmt: skip
    unmatched = [
        f"Source {src}: {m['pattern']} matched no file{': ' + m['error'] if m.get('error') else ''}."
        for src in sources for m in (inputs.get(src) or {}).get("matched") or [] if m.get("files") == 0
    ]
    return (header, rows), unmatched


def _corpus_sections(corpus: Mapping[str, Any]) -> list[Section]:
    """The corpus's sections: documents in and out, drops per rule, histograms, examples."""
    return [
        _totals_section(corpus),
        _drops_section(corpus),
        _histograms_section(corpus["scan"]),
        examples_section(corpus.get("examples", [])),
    ]


def _sources(corpus: Mapping[str, Any]) -> list[str]:
    """Every source the corpus counted in or the scan read out."""
    return sorted(set(corpus["per_source_in"]) | set(corpus["scan"].documents))


def _totals_section(corpus: Mapping[str, Any]) -> Section:
    """Documents in, kept, dropped and dead-lettered (and whether they reconcile), then per source."""
    total, scan = corpus["total"], corpus["scan"]
    n_in = total.get("input", 0)
    totals = Section(
        "Corpus: documents in and out",
        tables=[(
            ["input", "kept", "dropped", "dead-lettered", "reconciles"],
            [[fmt_number(n_in), fmt_number(total.get("kept", 0)), fmt_number(total.get("dropped", 0)),
              fmt_number(total.get("dead_lettered", 0)),
              "yes" if n_in == total.get("kept", 0) + total.get("dropped", 0) + total.get("dead_lettered", 0)
              else "NO"]],
        )],
    )  # fmt: skip
    sources = _sources(corpus)
    table, unmatched = _sources_table(corpus, sources)
    totals.tables.append(table)
    totals.notes += unmatched
    totals.charts.append(svg_hbars("Documents out per source", sources, [scan.documents[s] for s in sources]))
    totals.charts.append(
        svg_hbars("Characters out per source", sources, [scan.characters[s] for s in sources])
    )
    if not scan.complete:
        totals.notes.append(
            f"Output figures (docs/chars/sentences out, histograms) come from the first {scan.shards_read} of "
            f"{scan.shards_total} docs shards (the report's read budget); stats.json counts are complete."
        )
    return totals


def _drops_section(corpus: Mapping[str, Any]) -> Section:
    """Documents dropped per rule, the filters per source, sentences dropped and what rules removed inside kept
    documents, dedup, near-duplicate pairs."""
    total = corpus["total"]
    n_in = total.get("input", 0)
    reasons = sorted((total.get("dropped_by_reason") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    drops = Section(
        "Drops per rule",
        tables=[(["reason", "documents", "share of input"],
                 [[r, fmt_number(c), pct(c / n_in) if n_in else ""] for r, c in reasons])],
        charts=[svg_hbars("Dropped documents per reason", [r for r, _ in reasons], [c for _, c in reasons])],
    )  # fmt: skip
    per_source_filters = filters_table(corpus.get("filters") or {}, corpus.get("filter_overrides") or {})
    if per_source_filters is not None:
        drops.tables.append(per_source_filters)
        drops.notes.append(
            "Filters per source: the profile's `filters:`, with a source's own `filters:` keys over them "
            "(marked `(source)`)."
        )
    sentences = sentence_drops(total)
    if sentences:
        counters = total.get("counters") or {}
        n_sent = counters.get("filter:sentences_in", 0)
        drops.tables.append((
            ["sentence rule (inside documents)", "sentences", "share of sentences in"],
            [[r, fmt_number(c), pct(c / n_sent) if n_sent else ""] for r, c in sentences.items()],
        ))  # fmt: skip
        drops.charts.append(
            svg_hbars("Dropped sentences per rule", list(sentences), list(sentences.values()))
        )
    _add_removed_inside_kept(drops, corpus)
    dedup = corpus["dedup"]
    drops.tables.append((["dedup rule", "duplicates removed", "share of input"],
                         [[r, fmt_number(c), pct(share)] for r, c, share in dedup]))  # fmt: skip
    if not dedup:
        drops.notes.append("No dedup reason among the drops (dedup off, or no duplicates found).")
    pairs = corpus.get("near_duplicate_pairs") or []
    if pairs:
        drops.tables.append(near_duplicate_table(pairs))
    return drops


def _add_removed_inside_kept(drops: Section, corpus: Mapping[str, Any]) -> None:
    """The sentences and spans rules took out of documents they kept, per source and rule (when any)."""
    per_in, scan = corpus["per_source_in"], corpus["scan"]
    sources = _sources(corpus)
    removed = [
        (src, rule, figures) for src in sources
        for rule, figures in (per_in.get(src, {}).get("removed_inside_kept") or {}).items()
    ]  # fmt: skip
    if removed:
        drops.tables.append((
            ["source", "removed inside kept documents (rule)", "sentences", "spans", "characters",
             "share of chars out"],
            [[src, rule, fmt_number(f["sentences"]) if "sentences" in f else "",
              fmt_number(f["spans"]) if "spans" in f else "", fmt_number(f.get("characters", 0)),
              pct(f.get("characters", 0) / scan.characters[src]) if scan.complete and scan.characters[src] else ""]
             for src, rule, f in removed],
        ))  # fmt: skip
        drops.notes.append(
            "Removed inside kept documents: the sentences a rule took out of a document it kept (written to "
            'rejected/ with "level": "sentence"), and the spans a rewrite, boilerplate rule or cleaner took out '
            "of one or replaced (`clean:url`, `prepare:placeholders`; one that took Hangul is written to "
            'rejected/ with "level": "span"), with the characters they took.'
        )


def _histograms_section(scan: Any) -> Section:
    """Characters per sentence, sentences and characters per document, as charts and tables."""
    return Section(
        "Sentence and length histograms",
        charts=[
            svg_histogram("Characters per sentence", scan.sentence_chars.labels(), scan.sentence_chars.counts, "characters"),
            svg_histogram("Sentences per document", scan.sentences_per_doc.labels(), scan.sentences_per_doc.counts, "sentences"),
            svg_histogram("Characters per document", scan.doc_chars.labels(), scan.doc_chars.counts, "characters"),
        ],
        tables=[(
            ["histogram", *scan.sentence_chars.labels()], [["sentences", *map(fmt_number, scan.sentence_chars.counts)]],
        ), (
            ["histogram", *scan.sentences_per_doc.labels()], [["documents", *map(fmt_number, scan.sentences_per_doc.counts)]],
        ), (
            ["histogram", *scan.doc_chars.labels()], [["documents", *map(fmt_number, scan.doc_chars.counts)]],
        )],
    )  # fmt: skip


def _vocab_section(vocab: Mapping[str, Any], report: Mapping[str, Any] | None) -> Section:
    section = Section("Vocabulary")
    summary, manifest = vocab.get("summary", {}), vocab.get("manifest", {})
    facts = [["kind", find_key(manifest, "kind") or ""], *[[k, v] for k, v in summary.items()]]
    facts += _alphabet_facts(manifest)
    section.tables.append(
        (["vocab", "value"], [[k, ", ".join(v) if isinstance(v, list) else _count(k, v)] for k, v in facts])
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
    for side in ("a", "b"):
        frequent, first = report.get(f"frequent_only_{side}"), report.get(f"examples_only_{side}")
        if frequent:  # with a corpus: the tokens only in one vocab that it uses most
            listed = ", ".join(f"{md_code(str(t))} {n:,}" for t, n in frequent[:20])
            section.notes.append(f"tokens only in {side.upper()}, most used on the corpus: {listed}")
        elif first:
            section.notes.append(f"examples only {side}: " + " ".join(md_code(str(t)) for t in first[:20]))
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


def _alphabet_facts(manifest: Mapping[str, Any]) -> list[list[Any]]:
    """What the WordPiece alphabet holds and costs: its size, the coverage reached, [UNK] on the sample."""
    facts: list[list[Any]] = []
    alphabet, unk = manifest.get("alphabet"), manifest.get("unk_rate")
    if isinstance(alphabet, Mapping):
        cut = f"{alphabet.get('cut_characters', 0):,} rare characters cut"
        facts += [
            ["alphabet_characters", alphabet.get("characters", "")],
            ["alphabet_coverage", f"{alphabet.get('coverage', 0):.4%} ({cut})"],
        ]
    if isinstance(unk, Mapping):
        on = f"on {unk.get('sentences', 0):,} sample sentences"
        facts.append(["unk_per_token", f"{unk.get('per_token', 0):.5f} {on}"])
    return facts


def _count(key: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return str(value)
    return pct(value) if key.endswith("fraction") else fmt_number(value)


def _pack_section(pack: Mapping[str, Any], scan: Any = None) -> Section:
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
    table, chart, note = pack_sources(manifest, scan.characters if scan else {}, scan.documents if scan else {})
    if table is not None:
        section.tables.append(table)
        section.charts.append(chart)
    if note:
        section.notes.append(note)
    warning = padding_warning(counts.get("padding_fraction", 0.0), find_key(manifest, "layout"), pack["max_length"])
    if warning:
        section.notes.insert(0, warning)
    section.charts.append(
        svg_histogram(
            f"Tokens per train sequence (max {pack['max_length']})",
            lengths.labels(),
            lengths.counts,
            "real tokens",
        )
    )
    return section


def run_page(data: Mapping[str, Any], sections: Sequence[Section]) -> Page:
    """The report's page: when it was made, links to the sections (HTML), the sections."""
    generated = Block([f"Generated {data['generated_at']}.", ""], [f"<p>Generated {data['generated_at']}.</p>"])
    return Page(f"kcorpus run report: {data['out']}", [generated, Block(html=[html_contents(sections)]), *sections])
