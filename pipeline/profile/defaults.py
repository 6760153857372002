"""`default_of`: a dataclass field's default, where command-line flags take theirs (one place per default).

Its own module so that a command's flags do not import the profile schema (pydantic and every section) nor
Beam: `kcorpus build-corpus --help`, or a profile error, answers before any Beam import.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# The FnApiRunner modes of `--local-mode`; pipeline/options.py runs them.
LOCAL_MODES = ("multi_processing", "in_memory", "multi_threading")


def default_of(cls: type, name: str) -> Any:
    """The default of one dataclass field: command-line flags take their defaults from here."""
    f = cls.__dataclass_fields__[name]
    return f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
