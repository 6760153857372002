"""The build-corpus configuration: the `sources, filters, dedup, split, output` sections as frozen dataclasses.

`kcorpus.pipeline.profile` validates a YAML profile and builds these; their defaults are the profile's.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from kcorpus.transforms.corpus_layout import COMPRESSIONS, ZSTD
from kcorpus.transforms.dedup import ExactDedupConfig, NearDedupConfig
from kcorpus.transforms.rules.boilerplate import check_set_names
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.text.split import BACKENDS as SPLIT_BACKENDS

DROPPED_MODES = ("all", "sample", "none")
FILTER_KEYS = frozenset(f.name for f in dataclasses.fields(FilterConfig))


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
        remove_patterns: regexes deleted from each line before splitting (markup residue of this source);
            counted as the boilerplate set `remove_patterns`.
        boilerplate: boilerplate rule sets (`transforms/rules/boilerplate.py`) to apply; None: the format's
            default (`petitions`, `comments`, Modu newspaper, `wikiextractor`), `()`: none.
        allow_missing: a path that matches no file is not an error (the source may read nothing at all).
        fold_digits: near dedup shingles this source's documents with every number made `0` (FineWeb), so one
            template filled with other dates is one document; None: the format's default (on for petitions,
            Wikipedia and Modu, off for comments and NSMC, where it merges different scores).
        filters: this source's values of `filters:` keys (`FilterConfig` fields), over the profile's: comments
            beside long-form text can keep `min_sentences: 1` where the articles need 2.
    """

    name: str
    format: str
    paths: tuple[str, ...]
    preset: str = "kcelectra"
    split_sentences: bool = False
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    clean_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    remove_patterns: tuple[str, ...] = ()
    boilerplate: tuple[str, ...] | None = None
    allow_missing: bool = False
    fold_digits: bool | None = None
    filters: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("sources: every source needs a non-empty `name`")
        unknown = sorted(set(self.filters) - FILTER_KEYS)
        if unknown:
            raise ValueError(
                f"sources[{self.name}].filters: unknown key(s) {', '.join(unknown)}; valid keys: "
                f"{', '.join(f.name for f in dataclasses.fields(FilterConfig))}"
            )
        if not self.paths:
            raise ValueError(f"sources[{self.name}]: `paths` must list at least one glob")
        for pattern in self.remove_patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(
                    f"sources[{self.name}]: bad remove_patterns regex {pattern!r}: {exc}"
                ) from exc
        try:
            check_set_names(self.boilerplate or ())
        except ValueError as exc:
            raise ValueError(f"sources[{self.name}]: {exc}") from None


@dataclasses.dataclass(frozen=True)
class DedupConfig:
    """`dedup:` exact dedup then near dedup; decontamination against evaluation sets."""

    exact: ExactDedupConfig = dataclasses.field(default_factory=ExactDedupConfig)
    near: NearDedupConfig = dataclasses.field(default_factory=NearDedupConfig)
    decontaminate: DecontaminateConfig = dataclasses.field(default_factory=DecontaminateConfig)


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
        num_shards: shards of docs/ (and text/; documents go to shard blake2b(id) mod num_shards).
        dropped: write every dropped record (`all`), a deterministic sample (`sample`), or none (`none`).
            Counts in stats.json are always complete.
        dropped_sample_rate: the share of dropped records kept by `sample`.
        compression: `zstd` writes text/, docs/ and rejected/ as `.zst` files (about a third of the bytes);
            `none` writes them plain (for tools that read only plain text).
        text: also write text/, the kept sentences again, one per line with a blank line between documents:
            the input of BERT/ELECTRA-style data builders. Off by default: docs/ holds the same sentences
            (`text` joined by "\n"), and every kcorpus command reads them from there.
        max_dead_letter_fraction: a source that dead-letters more than this share of its records (or yields
            no document at all) fails the run with exit 1; 0 is strict (any dead letter fails it).
    """

    dir: str | None = None
    num_shards: int = 4
    dropped: str = "all"
    dropped_sample_rate: float = 0.01
    compression: str = ZSTD
    text: bool = False
    max_dead_letter_fraction: float = 0.01

    def __post_init__(self) -> None:
        if self.num_shards < 1:
            raise ValueError(f"output.num_shards must be >= 1, got {self.num_shards}")
        if self.dropped not in DROPPED_MODES:
            raise ValueError(f"output.dropped must be one of {DROPPED_MODES}, got {self.dropped!r}")
        if not 0.0 <= self.dropped_sample_rate <= 1.0:
            raise ValueError("output.dropped_sample_rate must be in [0, 1]")
        if self.compression not in COMPRESSIONS:
            raise ValueError(f"output.compression must be one of {COMPRESSIONS}, got {self.compression!r}")
        if not 0.0 <= self.max_dead_letter_fraction <= 1.0:
            raise ValueError(f"output.max_dead_letter_fraction must be in [0, 1], got {self.max_dead_letter_fraction}")


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
        for source in self.sources:
            filters = self.filters_for(source.name)
            checks = [("masks", "mask_token")] if filters.masks == "replace" else []
            if filters.placeholders == "replace":
                checks += [("placeholders", "formula_token"), ("placeholders", "code_token")]
            for mode, key in checks:
                try:
                    check_mask_token(getattr(filters, key), (source,), key)
                except ValueError as exc:
                    if {mode, key} & set(source.filters):  # the source's own setting
                        raise ValueError(f"sources[{source.name}]: {exc}") from None
                    raise

    def filters_for(self, source: str) -> FilterConfig:
        """The filters of one source: the profile's `filters:` with the source's own `filters:` keys over them.

        Raises ValueError naming the source when the merged values break a rule (`max_chars < min_chars`).
        """
        overrides = next(s.filters for s in self.sources if s.name == source)
        if not overrides:
            return self.filters
        try:
            return dataclasses.replace(self.filters, **overrides)
        except ValueError as exc:
            raise ValueError(f"sources[{source}]: {exc}") from None

    @property
    def sources_allowed_missing(self) -> dict[str, int]:
        """The sources with `allow_missing: true` (and their number of paths): reading nothing is no loss."""
        return {s.name: len(s.paths) for s in self.sources if s.allow_missing}


def check_mask_token(token: str, sources: tuple[SourceConfig, ...], key: str = "mask_token") -> None:
    """ValueError when a source's cleaning would change the token `filters.<key>` (`kcelectra` makes `●` a
    space)."""
    from kcorpus.transforms.text.clean import make_cleaner

    for source in sources:
        if source.preset == "none":
            continue
        cleaned = make_cleaner(source.preset, **dict(source.clean_options))(token)
        if cleaned != token:
            raise ValueError(
                f"filters.{key} {token!r} does not survive the cleaning of source {source.name!r} "
                f"(preset {source.preset!r} makes it {cleaned!r}); choose a token it keeps, such as 'OOO'"
            )
