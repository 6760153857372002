"""OutputPlan: a checked output folder, what `claim_output` will do to it (below claim.py and cleanup.py, which both take one)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class OutputPlan:
    """A checked output folder: what `claim_output` will do to it.

    Attributes:
        out: the folder (local or remote).
        command: the command that writes it (a key of `OWNED_ENTRIES`).
        remove: the entries of a previous output `--overwrite` removes (relative names), nothing else.
    """

    out: str
    command: str
    remove: tuple[str, ...] = ()
    overwrite: bool = False
    resume: bool = False
