"""The typed build-corpus profile: YAML -> frozen dataclasses, with `--set key=value` overrides.

Top-level keys owned by build-corpus: `sources, filters, dedup, split, output`. Keys reserved for
`kcorpus run` (`vocab, vocab_report, pack, run`) are ignored here; any other key is a ValueError naming the
valid ones, so a typo never silently falls back to a default. Relative paths resolve against the directory
of the config file.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from kcorpus.transforms.dedup import ExactDedupConfig, NearDedupConfig
from kcorpus.transforms.filters import FilterConfig

OWNED_KEYS = ("sources", "filters", "dedup", "split", "output")
RESERVED_KEYS = ("vocab", "vocab_report", "pack", "run")
SPLIT_BACKENDS = ("kcorpus", "kss", "kss-fast", "none")
DROPPED_MODES = ("all", "sample", "none")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


@dataclasses.dataclass(frozen=True)
class SourceConfig:
    """One input: a reader format, path globs, and how its text is prepared.

    Attributes:
        name: the source name stored in every document and used in stats.json.
        format: a reader name (`nsmc`, `wikiextractor`, `petitions`, `modu`, `comments`, `jsonl`, ...).
        paths: globs, local or any Beam filesystem (`gs://...`).
        preset: a `clean()` preset (`kcelectra`, `kcbert`) or `none`.
        split_sentences: split paragraphs into sentences (articles, petitions), or keep lines (comments).
        options: reader options (`ReadOptions` keywords).
        clean_options: overrides passed to `make_cleaner(preset, **clean_options)`.
        remove_patterns: regexes deleted from the text before splitting (markup residue of this source).
    """

    name: str
    format: str
    paths: tuple[str, ...]
    preset: str = "kcelectra"
    split_sentences: bool = False
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    clean_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    remove_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("sources: every source needs a non-empty `name`")
        if not self.paths:
            raise ValueError(f"sources[{self.name}]: `paths` must list at least one glob")
        for pattern in self.remove_patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(
                    f"sources[{self.name}]: bad remove_patterns regex {pattern!r}: {exc}"
                ) from exc


@dataclasses.dataclass(frozen=True)
class DedupConfig:
    """`dedup:` exact dedup then near dedup."""

    exact: ExactDedupConfig = dataclasses.field(default_factory=ExactDedupConfig)
    near: NearDedupConfig = dataclasses.field(default_factory=NearDedupConfig)


@dataclasses.dataclass(frozen=True)
class SplitConfig:
    """`split:` the sentence splitter backend for sources with `split_sentences: true`."""

    backend: str = "kcorpus"

    def __post_init__(self) -> None:
        if self.backend not in SPLIT_BACKENDS:
            raise ValueError(f"split.backend must be one of {SPLIT_BACKENDS}, got {self.backend!r}")


@dataclasses.dataclass(frozen=True)
class OutputConfig:
    """`output:` where and how the corpus is written.

    Attributes:
        dir: output directory (local or `gs://`); `--out` overrides it.
        num_shards: shards of text/ and docs/ (documents go to shard blake2b(id) mod num_shards).
        dropped: write every dropped record (`all`), a deterministic sample (`sample`), or none (`none`).
            Counts in stats.json are always complete.
        dropped_sample_rate: the share of dropped records kept by `sample`.
    """

    dir: str | None = None
    num_shards: int = 4
    dropped: str = "all"
    dropped_sample_rate: float = 0.01

    def __post_init__(self) -> None:
        if self.num_shards < 1:
            raise ValueError(f"output.num_shards must be >= 1, got {self.num_shards}")
        if self.dropped not in DROPPED_MODES:
            raise ValueError(f"output.dropped must be one of {DROPPED_MODES}, got {self.dropped!r}")
        if not 0.0 <= self.dropped_sample_rate <= 1.0:
            raise ValueError("output.dropped_sample_rate must be in [0, 1]")


@dataclasses.dataclass(frozen=True)
class CorpusConfig:
    """A whole build-corpus profile."""

    sources: tuple[SourceConfig, ...]
    filters: FilterConfig = dataclasses.field(default_factory=FilterConfig)
    dedup: DedupConfig = dataclasses.field(default_factory=DedupConfig)
    split: SplitConfig = dataclasses.field(default_factory=SplitConfig)
    output: OutputConfig = dataclasses.field(default_factory=OutputConfig)

    def __post_init__(self) -> None:
        if not self.sources:
            raise ValueError("sources: a profile needs at least one source")
        names = [s.name for s in self.sources]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"sources: duplicate source names {duplicated}")


def _build(cls: type, data: Any, where: str) -> Any:
    """A dataclass from a mapping, rejecting unknown keys with the list of valid ones."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise TypeError(f"{where}: expected a mapping, got {type(data).__name__}")
    valid = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(data) - set(valid))
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; valid keys: {', '.join(valid)}")
    try:
        return cls(**data)
    except TypeError as exc:
        raise ValueError(f"{where}: {exc}") from exc


def resolve_path(path: str, base_dir: str) -> str:
    """`path` unchanged if absolute or a URL (`gs://...`), else joined to the config's directory."""
    if _SCHEME.match(path) or posixpath.isabs(path) or not base_dir:
        return path
    return posixpath.normpath(posixpath.join(base_dir, path))


def _source(data: Any, index: int, base_dir: str) -> SourceConfig:
    where = f"sources[{index}]"
    if not isinstance(data, Mapping):
        raise TypeError(f"{where}: expected a mapping")
    data = dict(data)
    paths = data.get("paths")
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, Sequence) or not all(isinstance(p, str) for p in paths or []):
        raise ValueError(f"{where}: `paths` must be a list of globs")
    data["paths"] = tuple(resolve_path(p, base_dir) for p in paths)
    data["remove_patterns"] = tuple(data.get("remove_patterns") or ())
    data["options"] = dict(data.get("options") or {})
    data["clean_options"] = dict(data.get("clean_options") or {})
    missing = [k for k in ("name", "format") if k not in data]
    if missing:
        raise ValueError(f"{where}: missing required keys {missing}")
    return _build(SourceConfig, data, f"{where} ({data.get('name')})")


def config_from_dict(raw: Mapping[str, Any], base_dir: str = "") -> CorpusConfig:
    """Build and validate a `CorpusConfig` from parsed YAML."""
    if not isinstance(raw, Mapping):
        raise TypeError("config: the top level must be a mapping")
    unknown = sorted(set(raw) - set(OWNED_KEYS) - set(RESERVED_KEYS))
    if unknown:
        raise ValueError(
            f"config: unknown top-level keys {unknown}; valid: {', '.join(OWNED_KEYS + RESERVED_KEYS)}"
        )
    sources_raw = raw.get("sources")
    if not isinstance(sources_raw, list) or not sources_raw:
        raise ValueError("config: `sources` must be a non-empty list")
    dedup_raw = raw.get("dedup") or {}
    if not isinstance(dedup_raw, Mapping):
        raise TypeError("dedup: expected a mapping with `exact` and `near`")
    extra = sorted(set(dedup_raw) - {"exact", "near"})
    if extra:
        raise ValueError(f"dedup: unknown keys {extra}; valid keys: exact, near")
    output = _build(OutputConfig, raw.get("output"), "output")
    if output.dir:
        output = dataclasses.replace(output, dir=resolve_path(output.dir, base_dir))
    return CorpusConfig(
        sources=tuple(_source(s, i, base_dir) for i, s in enumerate(sources_raw)),
        filters=_build(FilterConfig, raw.get("filters"), "filters"),
        dedup=DedupConfig(
            exact=_build(ExactDedupConfig, dedup_raw.get("exact"), "dedup.exact"),
            near=_build(NearDedupConfig, dedup_raw.get("near"), "dedup.near"),
        ),
        split=_build(SplitConfig, raw.get("split"), "split"),
        output=output,
    )


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Apply `a.b.c=value` overrides (value parsed as YAML) to a parsed profile; returns `raw`.

    A list element is addressed by index or, for `sources`, by source name: `sources.nsmc.preset=none`.
    """
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"override {item!r}: expected KEY=VALUE (e.g. filters.min_chars=5)")
        parts = key.split(".")
        node: Any = raw
        for depth, part in enumerate(parts[:-1]):
            node = _child(node, part, ".".join(parts[: depth + 1]))
        last = parts[-1]
        if isinstance(node, list):
            node[_list_index(node, last, key)] = yaml.safe_load(value)
        else:
            node[last] = yaml.safe_load(value)
    return raw


def _list_index(node: list, part: str, key: str) -> int:
    if part.isdigit() and int(part) < len(node):
        return int(part)
    for i, item in enumerate(node):
        if isinstance(item, Mapping) and item.get("name") == part:
            return i
    raise ValueError(f"override {key!r}: no list element {part!r}")


def _child(node: Any, part: str, key: str) -> Any:
    if isinstance(node, list):
        return node[_list_index(node, part, key)]
    if not isinstance(node, dict):
        raise TypeError(f"override {key!r}: {part!r} is not a section")
    return node.setdefault(part, {})


def load_config(path: str, overrides: Sequence[str] = ()) -> CorpusConfig:
    """Read a YAML profile (local or any Beam filesystem) and apply `--set` overrides."""
    from apache_beam.io.filesystems import FileSystems

    with FileSystems.open(path) as f:
        raw = yaml.safe_load(f.read().decode("utf-8")) or {}
    if not isinstance(raw, dict):
        raise TypeError(f"{path}: the top level must be a mapping")
    apply_overrides(raw, overrides)
    return config_from_dict(raw, base_dir=posixpath.dirname(path))
