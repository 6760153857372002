"""`kcorpus audit CORPUS --out DIR`: read a built corpus as a user would before betting a run on it.

kcorpus audit out/corpus --out out/audit --per-source 20 --per-rule 10
"""

from __future__ import annotations

import argparse
import sys

from kcorpus.pipeline.profile.flags import add_flags, from_flags


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The job's flags, made from `AuditJob` (the help is on its fields)."""
    from kcorpus.pipeline.corpus.audit import AuditJob

    add_flags(parser, AuditJob)


def main(args: argparse.Namespace) -> int:
    from kcorpus.pipeline.corpus.audit import AuditJob, run_audit

    job = from_flags(AuditJob, args)
    audit = run_audit(job)
    kept = sum(len(rows) for rows in audit["kept"].values())
    dropped = sum(len(rows) for rows in audit["dropped"].values())
    print(
        f"audit: {kept} kept documents ({len(audit['kept'])} sources), {dropped} dropped records "
        f"({len(audit['dropped'])} rules) in {args.out}/audit.html and audit.md",
        file=sys.stderr,
    )
    return 0
