"""`kcorpus audit CORPUS --out DIR`: read a built corpus as a user would before betting a run on it.

kcorpus audit out/corpus --out out/audit --per-source 20 --per-rule 10
"""

from __future__ import annotations

import argparse
import sys

from kcorpus.pipeline.profile.defaults import default_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from kcorpus.pipeline.corpus.audit import AuditJob

    parser.add_argument("corpus", help="a build-corpus output folder (stats.json, docs/, rejected/)")
    parser.add_argument("--out", required=True, help="folder for audit.md, audit.html and audit.json")
    parser.add_argument(
        "--per-source", type=int, default=default_of(AuditJob, "per_source"), help="kept documents per source"
    )
    parser.add_argument(
        "--per-rule", type=int, default=default_of(AuditJob, "per_rule"), help="dropped records per drop rule"
    )
    parser.add_argument("--seed", type=int, default=default_of(AuditJob, "seed"), help="the sampling seed")
    parser.add_argument("--overwrite", action="store_true", help="replace a previous audit in --out")


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.corpus.audit import AuditJob, run_audit

    job = AuditJob(
        corpus=args.corpus,
        out=args.out,
        per_source=args.per_source,
        per_rule=args.per_rule,
        seed=args.seed,
        overwrite=args.overwrite,
    )
    audit = run_audit(job)
    kept = sum(len(rows) for rows in audit["kept"].values())
    dropped = sum(len(rows) for rows in audit["dropped"].values())
    print(
        f"audit: {kept} kept documents ({len(audit['kept'])} sources), {dropped} dropped records "
        f"({len(audit['dropped'])} rules) in {args.out}/audit.html and audit.md",
        file=sys.stderr,
    )
    return 0
