"""`default_of`: a dataclass field's default, where command-line flags take theirs (one place per default).

Its own module so that a command's flags do not import the profile schema (pydantic and every section).
"""

from __future__ import annotations

import dataclasses
from typing import Any


def default_of(cls: type, name: str) -> Any:
    """The default of one dataclass field: command-line flags take their defaults from here."""
    f = cls.__dataclass_fields__[name]
    return f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
