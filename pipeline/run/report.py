"""The run report: `<out>/report.html` and `<out>/report.md`, from the stages' own outputs.

It reads what each stage wrote (`corpus/stats.json` and `corpus/docs/*.jsonl`, `vocab/manifest.json` and the
vocabulary, `vocab-report/report.json`, `pack/manifest.json` and the Arrow shards, every `_STAGE.json`) and
renders one self-contained page: tables plus inline SVG charts, no script, no server, no network. A stage
that has not run yet is reported as missing, never guessed. The run folder may be local or remote (gs://):
every read and write goes through `kcorpus.pipeline.filesystems`. Large outputs are read up to a byte budget; the
report says when a figure comes from a prefix of the shards.

This module collects (plain data, also written as `report.json`); `kcorpus.pipeline.report.run` turns the data
into sections and `kcorpus.pipeline.report.render` renders them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.report.render import render_html, render_markdown
from kcorpus.pipeline.report.run import build_sections, find_key, run_page
from kcorpus.pipeline.report.run_context import near_duplicate_pairs, near_duplicate_survivors
from kcorpus.transforms import corpus_layout, files
from kcorpus.transforms.dedup import EXACT, NEAR
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
    # The texts of the documents asked for by (id, source); not written to report.json.
    texts: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.shards_read == self.shards_total


def read_json(path: str | Path) -> dict[str, Any] | None:
    """A JSON file as a dict, or None when it does not exist."""
    try:
        return json.loads(fs.read_bytes(str(path)))
    except FileNotFoundError:
        return None


def scan_documents(
    corpus_dir: str | Path, max_bytes: int = DEFAULT_SCAN_BYTES, keep: Collection[tuple[str, str]] = ()
) -> CorpusScan:
    """Documents, characters and sentences per source from `docs/` (plain or .zst), reading whole shards up to a
    budget (of stored bytes),
    and the texts of the documents `keep` names by (id, source) among those read.

    Characters count the document text without the newlines between its sentences.
    """
    shards = _files_matching(str(corpus_dir), corpus_layout.DOCS_GLOBS)
    scan = CorpusScan(shards_total=len(shards))
    budget = max_bytes
    for shard, size in shards.items():
        if scan.shards_read and budget <= 0:
            break
        budget -= size
        scan.shards_read += 1
        with io.TextIOWrapper(files.open_binary(shard), encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                doc = json.loads(line)
                sentences = [s for s in doc["text"].split("\n") if s]
                source = doc.get("source", "?")
                if keep and (doc.get("id"), source) in keep:
                    scan.texts[(doc["id"], source)] = doc["text"]
                chars = sum(len(s) for s in sentences)
                scan.documents[source] += 1
                scan.characters[source] += chars
                scan.sentences[source] += len(sentences)
                scan.sentences_per_doc.add(len(sentences))
                scan.doc_chars.add(chars)
                for sentence in sentences:
                    scan.sentence_chars.add(len(sentence))
    return scan


def _files_matching(folder: str, patterns: tuple[str, ...]) -> dict[str, int]:
    """Path -> size of the files of a local or remote folder matching one-level globs (`docs/*.jsonl`), sorted."""
    return {
        fs.join(folder, rel): size
        for rel, size in sorted(fs.list_files(folder).items())
        if corpus_layout.matches(rel, patterns)
    }


def read_examples(corpus_dir: str | Path) -> list[dict[str, Any]]:
    """The build's sampled examples (`examples/examples.jsonl`), or [] for a corpus built without them."""
    try:
        data = fs.read_bytes(fs.join(str(corpus_dir), corpus_layout.EXAMPLES_FILE))
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def per_source_counts(stats: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """`{source: {input, kept, dropped, dead_lettered, ...}}` from stats.json, whatever it nests them under."""
    for key in ("sources", "per_source", "by_source"):
        value = stats.get(key)
        if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
            return {str(k): dict(v) for k, v in value.items()}
    return {}


def dedup_rows(total: Mapping[str, Any]) -> list[tuple[str, int, float]]:
    """(reason, documents, share of input) for each dedup pass's reason among the drops (not Gopher's `dup_*`
    repetition rules, which judge one document alone)."""
    by_reason = total.get("dropped_by_reason") or {}
    n_input = total.get("input") or 0
    return [
        (reason, int(count), (count / n_input) if n_input else 0.0)
        for reason, count in sorted(by_reason.items())
        if reason in (EXACT, NEAR)
    ]


def load_vocab_tokens(vocab_dir: str | Path) -> list[str]:
    """The tokens of a vocab folder in id order, from vocab.txt or else tokenizer.json."""
    try:
        return fs.read_bytes(fs.join(str(vocab_dir), "vocab.txt")).decode("utf-8").splitlines()
    except FileNotFoundError:
        pass
    tok = read_json(fs.join(str(vocab_dir), "tokenizer.json"))
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
    for shard, size in _files_matching(str(pack_dir), ("train/*.arrow",)).items():
        if hist.total and budget <= 0:
            break
        budget -= size
        if fs.is_remote(shard):
            table = pa.ipc.open_stream(pa.BufferReader(fs.read_bytes(shard))).read_all()
        else:
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


def collect(
    out_dir: str | Path, max_scan_bytes: int = DEFAULT_SCAN_BYTES, profile: str | None = None
) -> dict[str, Any]:
    """Everything the report shows, as plain data (also written as `report.json`); `profile`: the profile of
    the run, when known."""
    out = str(out_dir)
    stages = {}
    for name in STAGES:
        manifest = read_json(fs.join(out, name, "_STAGE.json"))
        partial = fs.folder_exists(fs.join(out, f"{name}.partial"))
        if manifest is None:
            stages[name] = {"status": "incomplete (killed or failed)" if partial else "not run"}
        else:
            stages[name] = {
                "status": "complete",
                "seconds": manifest.get("seconds"),
                "finished_at": manifest.get("finished_at"),
                "output_bytes": manifest.get("output_bytes"),
                "config_hash": (manifest.get("config_hash") or "")[:12],
                "config": manifest.get("config") or {},
            }
    data: dict[str, Any] = {"out": out, "profile": profile, "stages": stages}

    stats = read_json(fs.join(out, "corpus", corpus_layout.STATS_FILE))
    if stats is not None:
        total = stats.get("total", {})
        examples = read_examples(fs.join(out, "corpus"))
        scan = scan_documents(fs.join(out, "corpus"), max_scan_bytes, keep=near_duplicate_survivors(examples))
        data["corpus"] = {
            "total": total,
            "per_source_in": per_source_counts(stats),
            "dedup": dedup_rows(total),
            "scan": scan,
            "examples": examples,
            "near_duplicate_pairs": near_duplicate_pairs(examples, scan.texts),
            "filters": stats.get("filters") or {},
            "filter_overrides": stats.get("filter_overrides") or {},
            "inputs": stats.get("inputs") or {},
        }
    vocab_manifest = read_json(fs.join(out, "vocab", "manifest.json"))
    tokens = load_vocab_tokens(fs.join(out, "vocab"))
    if vocab_manifest is not None or tokens:
        data["vocab"] = {"manifest": vocab_manifest or {}, "summary": vocab_summary(tokens)}
    overlap = read_json(fs.join(out, "vocab-report", "report.json"))
    if overlap is not None:
        data["vocab_report"] = overlap
    pack_manifest = read_json(fs.join(out, "pack", "manifest.json"))
    if pack_manifest is not None:
        max_length = find_key(pack_manifest, "max_length") or 512
        data["pack"] = {
            "manifest": pack_manifest,
            "lengths": sequence_lengths(fs.join(out, "pack"), int(max_length), max_scan_bytes),
            "max_length": int(max_length),
        }
    return data


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, CorpusScan):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name != "texts"}
    if isinstance(obj, Histogram):
        return {"labels": obj.labels(), "counts": obj.counts}
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def write_report(
    out_dir: str | Path, max_scan_bytes: int = DEFAULT_SCAN_BYTES, profile: str | None = None
) -> tuple[str, str]:
    """Write `report.html`, `report.md` and `report.json` into the run folder; return the first two paths."""
    out = str(out_dir)
    data = collect(out, max_scan_bytes, profile)
    data["generated_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    page = run_page(data, build_sections(data))
    html_path, md_path = fs.join(out, "report.html"), fs.join(out, "report.md")
    fs.write_bytes(html_path, render_html(page).encode("utf-8"))
    fs.write_bytes(md_path, render_markdown(page).encode("utf-8"))
    blob = json.dumps(_jsonable(data), ensure_ascii=False, indent=2) + "\n"
    fs.write_bytes(fs.join(out, "report.json"), blob.encode("utf-8"))
    return html_path, md_path
