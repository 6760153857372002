"""`PackJob`: everything one `kcorpus pack` run needs besides the Beam options."""

from __future__ import annotations

import dataclasses

from kcorpus.transforms.pack import arrow_shards
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.pack.corpus_files import LAYOUTS

RESHUFFLE_CHOICES = ("auto", "always", "never")
# Field metadata: set by code or by a profile, not by a `kcorpus pack` flag.
NO_FLAG = {"flag": False}


@dataclasses.dataclass(frozen=True)
class PackJob:
    """Everything one `kcorpus pack` run needs besides the Beam options.

    A field's `metadata` holds the help and choices of its `kcorpus pack` flag (pipeline/profile/flags.py),
    or says it has none (`NO_FLAG`).
    """

    corpus: str = dataclasses.field(
        metadata={"help": "build-corpus output directory (docs/*.jsonl or text/*.txt)"}
    )
    tokenizer: str = dataclasses.field(
        metadata={"help": "directory with tokenizer.json (or the file itself)"}
    )
    out: str = dataclasses.field(metadata={"help": "output directory (local or gs://)"})
    pack: PackConfig = dataclasses.field(default_factory=PackConfig)
    input_format: str = dataclasses.field(default="auto", metadata={"choices": ("auto", *LAYOUTS), "help": (
        "the corpus layout to read: docs/ (documents) or text/ (sentence lines); auto: docs/ if present, "
        "else text/"
    )})  # fmt: skip
    validation_fraction: float = dataclasses.field(default=0.01, metadata={"help": (
        "share of documents (by a hash of the id) in validation/; 0 writes train only"
    )})  # fmt: skip
    num_shards: int | None = dataclasses.field(
        default=None, metadata={"help": "train shards (default: from --shard-size-mb)"}
    )
    num_validation_shards: int | None = dataclasses.field(
        default=None, metadata={"help": "validation shards (default: from --shard-size-mb)"}
    )
    shard_size_mb: float = dataclasses.field(default=256.0, metadata={"help": "approximate shard size"})
    cls_token: str = dataclasses.field(default="[CLS]", metadata={"help": "the tokenizer's classifier token"})
    sep_token: str = dataclasses.field(default="[SEP]", metadata={"help": "the tokenizer's separator token"})
    pad_token: str = dataclasses.field(default="[PAD]", metadata={"help": "the tokenizer's padding token"})
    mask_token: str = dataclasses.field(default="[MASK]", metadata={"help": "the tokenizer's mask token"})
    batch_documents: int = dataclasses.field(default=1024, metadata=NO_FLAG)
    batch_bytes: int = dataclasses.field(default=1 << 18, metadata=NO_FLAG)
    rows_per_batch: int = dataclasses.field(default=arrow_shards.ROWS_PER_BATCH, metadata=NO_FLAG)
    # what one worker buffers before it spills sorted runs (pipeline/pack/runs.py); the output does not depend on it
    spill_bytes: int = dataclasses.field(default=64 << 20, metadata=NO_FLAG)
    overwrite: bool = dataclasses.field(
        default=False, metadata={"help": "replace a previous pack in --out (only the files pack writes go)"}
    )
    reshuffle_batches: str = dataclasses.field(
        default="auto",
        metadata={"choices": RESHUFFLE_CHOICES, "help": (
            "shuffle document batches before tokenizing, each then an input unit of its own (auto: when "
            "there are fewer than 2 input units per worker)"
        )},
    )  # fmt: skip
    profile_stages: bool = dataclasses.field(default=False, metadata={"help": (
        "print per-stage elements, bundles, largest bundle share and CPU; write <out>/stages.json"
    )})  # fmt: skip
    # where finished input units wait for a rerun (pipeline/pack/units.py); None: `<out>/.kcorpus-units`
    units_dir: str | None = dataclasses.field(default=None, metadata=NO_FLAG)
    allow_longer_than_model: bool = dataclasses.field(default=False, metadata={"help": (
        "allow --max-length above the tokenizer's model_max_length (tokenizer_config.json)"
    )})  # fmt: skip

    def __post_init__(self) -> None:
        if self.input_format not in ("auto", *LAYOUTS):
            raise ValueError(f"unknown input format {self.input_format!r}; valid: auto, {', '.join(LAYOUTS)}")
        if not 0.0 <= self.validation_fraction < 1.0:
            raise ValueError(f"validation_fraction must be in [0, 1), got {self.validation_fraction}")
        for name in ("num_shards", "num_validation_shards"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.reshuffle_batches not in RESHUFFLE_CHOICES:
            raise ValueError(f"reshuffle_batches must be one of {', '.join(RESHUFFLE_CHOICES)}, "
                             f"got {self.reshuffle_batches!r}")
        if self.spill_bytes < 1:
            raise ValueError(f"spill_bytes must be positive, got {self.spill_bytes}")
        if self.shard_size_mb <= 0:
            raise ValueError(f"shard_size_mb must be positive, got {self.shard_size_mb}")
