"""The two ways a `kcorpus run` stops."""

from __future__ import annotations


class RunError(Exception):
    """A run that cannot proceed: a failed stage, a missing upstream stage, an unusable run folder."""


class StageFailed(RunError):
    """A stage raised; its output stays in `<stage>.partial/` and never looks complete."""
