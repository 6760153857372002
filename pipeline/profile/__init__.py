"""Run profiles: one YAML file that describes a run, validated as a whole before any work starts.

The modules: `schema.py` (the one schema: every section typed, built from the dataclass it configures),
`validate.py` (a parsed profile against the schema, every problem at once: `ProfileError`), `load.py` (a
profile file read from any filesystem, `--set` overrides applied, then validated) and `defaults.py`
(`default_of`: the default a command flag takes, with no schema or Beam import).

The names below are this package's face (`from kcorpus.pipeline.profile import load_profile`). They load on
first use: `defaults.py` is imported by every command's flags, which must not pay for pydantic and the schema.
"""

from __future__ import annotations

import importlib
from typing import Any

_FACE = {
    "Profile": "schema",
    "resolve_path": "schema",
    "ProfileError": "validate",
    "profile_from_dict": "validate",
    "config_from_dict": "validate",
    "load_profile": "load",
    "load_config": "load",
    "apply_overrides": "load",
    "default_of": "defaults",
    "LOCAL_MODES": "defaults",
}

__all__ = [
    "LOCAL_MODES", "Profile", "ProfileError", "apply_overrides", "config_from_dict", "default_of", "load_config",
    "load_profile", "profile_from_dict", "resolve_path",
]


def __getattr__(name: str) -> Any:
    if name not in _FACE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FACE[name]}"), name)
