"""`PackJob`: everything one `kcorpus pack` run needs besides the Beam options."""

from __future__ import annotations

import dataclasses

from kcorpus.transforms.pack import arrow_shards
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.pack.corpus_files import LAYOUTS

RESHUFFLE_CHOICES = ("auto", "always", "never")


@dataclasses.dataclass(frozen=True)
class PackJob:
    """Everything one `kcorpus pack` run needs besides the Beam options."""

    corpus: str
    tokenizer: str
    out: str
    pack: PackConfig = dataclasses.field(default_factory=PackConfig)
    input_format: str = "auto"
    validation_fraction: float = 0.01
    num_shards: int | None = None
    num_validation_shards: int | None = None
    shard_size_mb: float = 256.0
    cls_token: str = "[CLS]"
    sep_token: str = "[SEP]"
    pad_token: str = "[PAD]"
    mask_token: str = "[MASK]"
    batch_documents: int = 1024
    batch_bytes: int = 1 << 18
    rows_per_batch: int = arrow_shards.ROWS_PER_BATCH
    # what one worker buffers before it spills sorted runs (pipeline/pack/runs.py); the output does not depend on it
    spill_bytes: int = 64 << 20
    overwrite: bool = False
    reshuffle_batches: str = "auto"
    profile_stages: bool = False
    allow_longer_than_model: bool = False

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
