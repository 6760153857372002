"""The one profile schema: a parsed YAML profile -> typed sections, each built from the dataclass it configures.

Sections: `sources, filters, dedup, split, output` (build-corpus), `vocab, vocab_report, pack, run` (the
stages after it). Each section's fields and defaults come from the frozen dataclass it builds
(`FilterConfig`, `NearDedupConfig`, `PackConfig`, `PackJob`, `TrainVocabJob`, ...), so a default lives in one
place. Values are strict (`"no"` is not a bool, `"10"` is not an integer; YAML lists are fine for tuples),
unknown keys are errors naming the valid ones, and relative paths resolve against the profile's folder in
`ProfilePath` only. `validate.py` validates a parsed profile against `Profile` and reports every problem
at once; `load.py` reads a profile file and applies `--set` overrides.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationInfo,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)

from kcorpus.pipeline.corpus.config import (
    DROPPED_MODES,
    SPLIT_BACKENDS,
    CorpusConfig,
    DedupConfig,
    OutputConfig,
    SourceConfig,
    SplitConfig,
)
from kcorpus.pipeline.pack.job import RESHUFFLE_CHOICES, PackJob
from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.vocab.report import VocabReportJob
from kcorpus.pipeline.vocab.train import TrainVocabJob
from kcorpus.transforms.corpus_layout import COMPRESSIONS
from kcorpus.transforms.dedup import SCOPES, ExactDedupConfig, NearDedupConfig
from kcorpus.transforms.pack.blocks import LAYOUTS, NSP_RULES, PackConfig
from kcorpus.transforms.pack.corpus_files import LAYOUTS as CORPUS_LAYOUTS
from kcorpus.transforms.rules.decontaminate import ACTIONS as DECONTAMINATE_ACTIONS
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.rules.pii import PII_MODES
from kcorpus.transforms.text.rewrites import MASK_MODES, PLACEHOLDER_MODES
from kcorpus.transforms.vocab.train import KINDS, SPM_MODEL_TYPES, SentencePieceConfig, WordPieceConfig

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_STRICT: dict[Any, Any] = {bool: StrictBool, int: StrictInt, float: StrictFloat, str: StrictStr}


def resolve_path(path: str, base_dir: str) -> str:
    """`path` unchanged if absolute or a URL (`gs://...`), else joined to the profile's folder."""
    if _SCHEME.match(path) or posixpath.isabs(path) or not base_dir:
        return path
    return posixpath.normpath(posixpath.join(base_dir, path))


def _resolve(path: str, info: ValidationInfo) -> str:
    return resolve_path(path, (info.context or {}).get("base_dir", ""))


ProfilePath = Annotated[StrictStr, AfterValidator(_resolve)]


def _strict(tp: Any) -> Any:
    """A dataclass field type with strict scalars: `bool -> StrictBool`, `tuple[str, ...]` keeps lists."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp in _STRICT:
        return _STRICT[tp]
    if origin in (Union, types.UnionType):
        return Union[tuple(_strict(a) for a in args)]  # noqa: UP007 (a runtime-built union)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple[_strict(args[0]), ...]
    if origin in (Mapping, dict):
        return dict[str, Any]
    return tp


def fields_of(cls: type, *, exclude: Sequence[str] = ()) -> dict[str, Any]:
    """`create_model` field specs with the names, types and defaults of a dataclass's fields."""
    hints = typing.get_type_hints(cls)
    specs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in exclude:
            continue
        if f.default is not dataclasses.MISSING:
            default = Field(default=f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = Field()
        specs[f.name] = (_strict(hints[f.name]), default)
    return specs


class ProfileSection(BaseModel):
    """The base of every profile section model: unknown keys are errors, values are never coerced from strings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def build(self, cls: type, **extra: Any) -> Any:
        """The dataclass `cls` from this section's fields that it has (plus `extra`, which wins)."""
        names = {f.name for f in dataclasses.fields(cls)} - set(extra)
        values = {k: getattr(self, k) for k in type(self).model_fields if k in names}
        return cls(**values, **extra)


def _section(
    name: str, cls: type, *, exclude: Sequence[str] = (), check: bool = True, **fields: Any
) -> type[ProfileSection]:
    """A section model with `cls`'s fields; with `check`, building `cls` applies its rules during validation."""

    def build_to_check(self: ProfileSection) -> ProfileSection:
        self.build(cls)
        return self

    validators = {"check": model_validator(mode="after")(build_to_check)} if check else {}
    return create_model(
        name, __base__=ProfileSection, __validators__=validators, **{**fields_of(cls, exclude=exclude), **fields}
    )


def _choice(cls: type, name: str, choices: Sequence[str]) -> tuple[Any, Any]:
    """A field spec that accepts one of `choices`, with the dataclass field's default."""
    return Literal[tuple(choices)], default_of(cls, name)


def _listify(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


FilterSection = _section(
    "FilterSection",
    FilterConfig,
    pii=_choice(FilterConfig, "pii", PII_MODES),
    masks=_choice(FilterConfig, "masks", MASK_MODES),
    placeholders=_choice(FilterConfig, "placeholders", PLACEHOLDER_MODES),
)
# `sources[].filters`: any `filters:` key, typed as there; only the keys a source sets override the profile's
# (their values are checked with the profile's once merged, in `CorpusConfig`).
FilterOverrideSection = create_model(
    "FilterOverrideSection",
    __base__=ProfileSection,
    **{
        name: (spec[0], None)
        for name, spec in {
            **fields_of(FilterConfig),
            "pii": _choice(FilterConfig, "pii", PII_MODES),
            "masks": _choice(FilterConfig, "masks", MASK_MODES),
        }.items()
    },
)
ExactDedupSection = _section(
    "ExactDedupSection", ExactDedupConfig, scope=_choice(ExactDedupConfig, "scope", SCOPES)
)
NearDedupSection = _section(
    "NearDedupSection", NearDedupConfig, scope=_choice(NearDedupConfig, "scope", SCOPES)
)
DecontaminateSection = _section(
    "DecontaminateSection", DecontaminateConfig,
    paths=(Annotated[tuple[ProfilePath, ...], BeforeValidator(_listify)], ()),
    action=_choice(DecontaminateConfig, "action", DECONTAMINATE_ACTIONS),
)  # fmt: skip
SplitSection = _section("SplitSection", SplitConfig, backend=_choice(SplitConfig, "backend", SPLIT_BACKENDS))
OutputSection = _section(
    "OutputSection", OutputConfig, dir=(ProfilePath | None, None),
    dropped=_choice(OutputConfig, "dropped", DROPPED_MODES),
    compression=_choice(OutputConfig, "compression", COMPRESSIONS),
)  # fmt: skip
_SourceFields = _section(
    "_SourceFields", SourceConfig,
    paths=(Annotated[tuple[ProfilePath, ...], BeforeValidator(_listify)], ...),
    boilerplate=(Annotated[tuple[StrictStr, ...] | None, BeforeValidator(_listify)], None),
    filters=(FilterOverrideSection | None, None),
)  # fmt: skip


class SourceSection(_SourceFields):  # type: ignore[misc, valid-type]
    """`sources[]`: the format, preset, reader options and clean options are checked here, not in a worker."""

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        from kcorpus.transforms.readers.registry import reader_for

        reader_for(value)
        return value

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str) -> str:
        from kcorpus.transforms.text.clean import PRESETS

        if value != "none" and value not in PRESETS:
            raise ValueError(f"unknown clean preset {value!r}; valid: {', '.join([*PRESETS, 'none'])}")
        return value

    @field_validator("options")
    @classmethod
    def _reader_options(cls, value: dict[str, Any]) -> dict[str, Any]:
        from kcorpus.transforms.readers.options import ReadOptions

        try:
            ReadOptions(**value)
        except TypeError as err:
            raise ValueError(str(err)) from err
        return value

    def build(self, cls: type, **extra: Any) -> Any:
        """The dataclass `cls`; a `SourceConfig` gets the `filters` keys this source sets (not their defaults)."""
        if cls is SourceConfig and "filters" not in extra:
            extra["filters"] = self.filters.model_dump(exclude_unset=True) if self.filters is not None else {}
        return super().build(cls, **extra)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """`filters` as the source wrote it, and no key at all without it (a stage's config hash is unchanged)."""
        data = handler(self)
        if self.filters is None:
            data.pop("filters", None)
        else:
            data["filters"] = {k: data["filters"][k] for k in self.filters.model_fields_set}
        return data

    @model_validator(mode="after")
    def _clean_options(self) -> SourceSection:
        from kcorpus.transforms.text.clean import resolve_options

        if self.clean_options and self.preset == "none":
            raise ValueError("clean_options: given, but preset is none (nothing is cleaned)")
        try:
            resolve_options(self.preset if self.preset != "none" else "kcelectra", **self.clean_options)
        except (TypeError, ValueError) as err:
            raise ValueError(f"clean_options: {err}") from err
        return self


class DedupSection(ProfileSection):
    """`dedup:` exact dedup, then near dedup."""

    exact: ExactDedupSection = Field(default_factory=ExactDedupSection)  # type: ignore[valid-type]
    near: NearDedupSection = Field(default_factory=NearDedupSection)  # type: ignore[valid-type]
    decontaminate: DecontaminateSection = Field(default_factory=DecontaminateSection)  # type: ignore[valid-type]


_JOB_ONLY = ("inputs", "out", "config", "overwrite")
_VocabFields = _section(
    "_VocabFields", TrainVocabJob, exclude=_JOB_ONLY, check=False,
    kind=(Literal[KINDS], "wordpiece"),  # type: ignore[valid-type]
    vocab_size=(StrictInt, Field(gt=0)),
    **fields_of(WordPieceConfig, exclude=["vocab_size", "character_coverage"]),
    **{
        **fields_of(SentencePieceConfig, exclude=["vocab_size"]),
        "model_type": _choice(SentencePieceConfig, "model_type", SPM_MODEL_TYPES),
        "character_coverage": (StrictFloat | None, None),  # None: the kind's own default
    },
)  # fmt: skip


class VocabSection(_VocabFields):  # type: ignore[misc, valid-type]
    """`vocab:` train-vocab's settings: the kind, the size, sampling and the trainer's own options."""

    @model_validator(mode="after")
    def _check_trainer(self) -> VocabSection:
        self.trainer()
        return self

    def trainer(self) -> WordPieceConfig | SentencePieceConfig:
        cls = WordPieceConfig if self.kind == "wordpiece" else SentencePieceConfig
        coverage = self.character_coverage
        if coverage is None:
            coverage = default_of(cls, "character_coverage")
        return self.build(cls, character_coverage=coverage)

    def job(self, inputs: Sequence[str], out: str) -> TrainVocabJob:
        return self.build(TrainVocabJob, inputs=tuple(inputs), out=out, config=self.trainer())


_VocabReportFields = _section(
    "_VocabReportFields",
    VocabReportJob,
    exclude=("a", "b", "corpus", "out", "overwrite"),
    check=False,
    reference=(ProfilePath, ...),
)


class VocabReportSection(_VocabReportFields):  # type: ignore[misc, valid-type]
    """`vocab_report:` the reference vocabulary to compare the trained one with, and the corpus sample."""

    def job(self, vocab: str, corpus: Sequence[str], out: str) -> VocabReportJob:
        return self.build(VocabReportJob, a=vocab, b=self.reference, corpus=tuple(corpus), out=out)


_PackFields = _section(
    "_PackFields", PackJob, exclude=("corpus", "tokenizer", "out", "pack", "overwrite", "profile_stages", "units_dir"),
    check=False,
    **{**fields_of(PackConfig), "layout": _choice(PackConfig, "layout", LAYOUTS),
       "nsp_rule": _choice(PackConfig, "nsp_rule", NSP_RULES)},
    input_format=_choice(PackJob, "input_format", ("auto", *CORPUS_LAYOUTS)),
    reshuffle_batches=_choice(PackJob, "reshuffle_batches", RESHUFFLE_CHOICES),
)  # fmt: skip


class PackSection(_PackFields):  # type: ignore[misc, valid-type]
    """`pack:` the sequence layout (`PackConfig`) and the rest of a `PackJob` but its folders."""

    @model_validator(mode="after")
    def _check_job(self) -> PackSection:
        self.job("", "", "")
        return self

    def job(self, corpus: str, tokenizer: str, out: str) -> PackJob:
        return self.build(PackJob, corpus=corpus, tokenizer=tokenizer, out=out, pack=self.build(PackConfig))


class RunSection(ProfileSection):
    """`run:` where `kcorpus run` keeps its stage folders."""

    out: ProfilePath | None = None


class Profile(ProfileSection):
    """A whole profile. `corpus` is what build-corpus runs; the other sections are optional."""

    sources: list[SourceSection] = Field(min_length=1)  # type: ignore[valid-type]
    filters: FilterSection = Field(default_factory=FilterSection)  # type: ignore[valid-type]
    dedup: DedupSection = Field(default_factory=DedupSection)
    split: SplitSection = Field(default_factory=SplitSection)  # type: ignore[valid-type]
    output: OutputSection = Field(default_factory=OutputSection)  # type: ignore[valid-type]
    vocab: VocabSection | None = None
    vocab_report: VocabReportSection | None = None
    pack: PackSection = Field(default_factory=PackSection)
    run: RunSection = Field(default_factory=RunSection)

    @model_validator(mode="before")
    @classmethod
    def _empty_sections(cls, raw: Any) -> Any:
        """`filters:` with nothing under it means the defaults (`vocab:` and `vocab_report:` stay absent)."""
        if isinstance(raw, Mapping):
            keep_none = ("vocab", "vocab_report", "sources")
            return {k: ({} if v is None and k not in keep_none else v) for k, v in raw.items()}
        return raw

    @model_validator(mode="after")
    def _check_corpus(self) -> Profile:
        self.corpus  # noqa: B018 (building the CorpusConfig checks the rules across sections)
        return self

    @property
    def corpus(self) -> CorpusConfig:
        """The build-corpus configuration."""
        return CorpusConfig(
            sources=tuple(s.build(SourceConfig) for s in self.sources),
            filters=self.filters.build(FilterConfig),
            dedup=DedupConfig(
                exact=self.dedup.exact.build(ExactDedupConfig),
                near=self.dedup.near.build(NearDedupConfig),
                decontaminate=self.dedup.decontaminate.build(DecontaminateConfig),
            ),
            split=self.split.build(SplitConfig),
            output=self.output.build(OutputConfig),
        )
