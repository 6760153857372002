"""`AuditJob` and `run_audit`: read a built corpus back, sample it, diff kept documents against their inputs.

`kcorpus audit CORPUS --out DIR` writes `audit.md`, `audit.html` and `audit.json` to DIR: per source a seeded
sample of kept documents (`docs/`), each with a word diff against the record its reader gives for the same id
(the sources' formats, paths and options are in `stats.json` under `inputs`); per drop rule a seeded sample of
the records in `rejected/` (filters, dedup, decontamination, sentences removed from kept documents). Nothing
is written into the corpus.
"""

from __future__ import annotations

import dataclasses
import glob
import io
import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

from kcorpus.pipeline.errors import UserError
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.transforms import corpus_layout, matching
from kcorpus.transforms.audit import GroupSample, condensed, diff_counts, word_diff
from kcorpus.transforms.files import open_binary

AUDIT_FILES = ("audit.md", "audit.html", "audit.json")


@dataclasses.dataclass(frozen=True)
class AuditJob:
    """Everything one `kcorpus audit` run needs; a field's `metadata` is its flag's help
    (pipeline/profile/flags.py).

    Attributes:
        corpus: a build-corpus output folder (`stats.json`, `docs/`, `rejected/`).
        out: the folder the audit pages are written to.
        per_source: kept documents sampled per source.
        per_rule: dropped records sampled per rule (stage and reason).
        seed: the sampling seed: the same seed and corpus give the same pages.
        overwrite: replace a previous audit in `out` (only its own files).
    """

    corpus: str = dataclasses.field(metadata={
        "positional": True, "help": "a build-corpus output folder (stats.json, docs/, rejected/)"
    })  # fmt: skip
    out: str = dataclasses.field(metadata={"help": "folder for audit.md, audit.html and audit.json"})
    per_source: int = dataclasses.field(default=5, metadata={"help": "kept documents per source"})
    per_rule: int = dataclasses.field(default=5, metadata={"help": "dropped records per drop rule"})
    seed: int = dataclasses.field(default=0, metadata={"help": "the sampling seed"})
    overwrite: bool = dataclasses.field(default=False, metadata={"help": "replace a previous audit in --out"})


class NotACorpusError(UserError, ValueError):
    """The folder given is not a build-corpus output: one line, exit 2."""


def check_corpus(corpus: str) -> dict[str, Any]:
    """The corpus's stats.json, or NotACorpusError naming what is missing."""
    stats_path = os.path.join(corpus, corpus_layout.STATS_FILE)
    if not os.path.isdir(corpus):
        raise NotACorpusError(f"{corpus}: no such folder (give a build-corpus output folder)")
    if not os.path.isfile(stats_path) or not os.path.isdir(os.path.join(corpus, corpus_layout.DOCS_DIR)):
        raise NotACorpusError(
            f"{corpus} is not a build-corpus output (it has no {corpus_layout.STATS_FILE} and "
            f"{corpus_layout.DOCS_DIR}/); give the folder `kcorpus build-corpus --out` wrote"
        )
    try:
        with open(stats_path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        raise NotACorpusError(f"{stats_path}: unreadable ({err})") from None


def run_audit(job: AuditJob) -> dict[str, Any]:
    """Check the corpus and the output folder, sample, find the inputs, write the pages; return the audit."""
    from kcorpus.pipeline.report.audit import audit_page
    from kcorpus.pipeline.report.render import render_html, render_markdown

    if job.per_source < 0 or job.per_rule < 0:
        raise UserError("--per-source and --per-rule must be >= 0")
    stats = check_corpus(job.corpus)
    plan = check_output(job.out, "audit", [job.corpus], overwrite=job.overwrite)
    audit = build_audit(job, stats)
    with claim_output(plan):
        _write(os.path.join(job.out, "audit.json"), json.dumps(audit, ensure_ascii=False, indent=1) + "\n")
        page = audit_page(audit)
        _write(os.path.join(job.out, "audit.md"), render_markdown(page))
        _write(os.path.join(job.out, "audit.html"), render_html(page))
    return audit


def build_audit(job: AuditJob, stats: Mapping[str, Any]) -> dict[str, Any]:
    """The audit as plain data: the corpus's counts, the kept sample with diffs, the drop sample per rule."""
    kept = GroupSample(job.per_source, job.seed)
    for doc in _jsonl(job.corpus, corpus_layout.DOCS_GLOBS):
        kept.add(doc["source"], doc["id"], doc)
    by_source = kept.groups()
    inputs, notes = find_inputs(
        stats.get("inputs"), {s: {d["id"] for d in docs} for s, docs in by_source.items()}
    )
    kept_rows: dict[str, list[dict[str, Any]]] = {}
    for source, docs in by_source.items():
        rows = kept_rows[str(source)] = []
        for doc in docs:
            row = {"id": doc["id"], "metadata": doc.get("metadata") or {}, "kept_chars": len(doc["text"])}
            original = inputs.get((str(source), doc["id"]))
            if original is None:
                row.update(text=doc["text"], diff=None)
            else:
                runs = word_diff(original, doc["text"])
                row.update(input_chars=len(original), counts=diff_counts(runs), diff=condensed(runs))
            rows.append(row)
    dropped = GroupSample(job.per_rule, job.seed)
    for record in _jsonl(job.corpus, corpus_layout.REJECTED_GLOBS):
        dropped.add(drop_rule(record), f"{record.get('id', '')}\x00{record.get('source', '')}", record)
    return {
        "corpus": os.path.abspath(job.corpus),
        "seed": job.seed,
        "per_source": job.per_source,
        "per_rule": job.per_rule,
        "output": stats.get("output", {}),
        "sources": {name: _counts(block) for name, block in stats.get("sources", {}).items()},
        "kept": kept_rows,
        "kept_totals": {str(s): n for s, n in kept.seen.items()},
        "input_notes": notes,
        "dropped": {str(rule): records for rule, records in dropped.groups().items()},
        "dropped_written": {str(rule): n for rule, n in dropped.seen.items()},
    }


def drop_rule(record: Mapping[str, Any]) -> str:
    """The group of a rejected record: `stage:reason`, with its level where it is not the document
    (`filter:too_short (sentence)`), `dead_letter` for records that could not be read."""
    if "stage" not in record or "reason" not in record or "path" in record:
        return f"dead_letter:{record.get('stage', 'read')}"
    rule = f"{record['stage']}:{record['reason']}"
    level = record.get("level")
    return f"{rule} ({level})" if level and level != "document" else rule


def find_inputs(
    spec: Mapping[str, Any] | None, wanted: Mapping[Any, set[str]]
) -> tuple[dict[tuple[str, str], str], list[str]]:
    """The input text of every wanted `(source, id)`, read again with the source's reader; notes on what
    could not be found (a corpus built before `inputs` was recorded, inputs moved or changed)."""
    from kcorpus.transforms.readers import as_options, read_files
    from kcorpus.transforms.record import Document

    found: dict[tuple[str, str], str] = {}
    notes: list[str] = []
    if spec is None:
        notes.append(
            "stats.json records no inputs (a corpus built by an older kcorpus): no diffs; rebuild it"
        )
        return found, notes
    for source, ids in wanted.items():
        source = str(source)
        if not ids:
            continue
        where = spec.get(source)
        if where is None:
            notes.append(f"{source}: stats.json does not say where it was read from")
            continue
        files = _match(where["format"], where.get("paths", []))
        if not files:
            notes.append(f"{source}: its inputs {where.get('paths')} match no file any more: no diffs")
            continue
        missing = set(ids)
        for record in read_files(where["format"], files, as_options(where.get("options") or {}), source):
            if isinstance(record, Document) and record.id in missing:
                found[(source, record.id)] = record.text
                missing.discard(record.id)
                if not missing:
                    break
        if missing:
            notes.append(
                f"{source}: {len(missing)} sampled document(s) not found in its inputs (changed since?)"
            )
    return found, notes


def _match(fmt: str, patterns: list[str]) -> list[str]:
    """The files (or Modu folders) of a source's path globs, as build-corpus reads them."""
    from kcorpus.transforms.readers import reader_for

    folder_is_input = reader_for(fmt).folder_is_input
    found: list[str] = []
    for pattern in patterns:
        if "://" in pattern:
            import kcorpus.pipeline.filesystems  # noqa: F401 -- registers the opener of remote inputs
        try:
            found += [path for path, _ in matching.match(pattern, folder_is_input)]
        except (OSError, ValueError):
            continue
    return found


def _counts(block: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("input", "kept", "dropped", "dead_lettered", "dropped_by_reason")
    return {k: block.get(k) for k in keys}


def _jsonl(corpus: str, patterns: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    for path in sorted(p for pattern in patterns for p in glob.glob(os.path.join(corpus, pattern))):
        with io.TextIOWrapper(open_binary(path), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
