"""Pack settings that cannot give a usable dataset, refused before any work (a line each, exit 2).

- `max_length` above the tokenizer's `model_max_length` (its `tokenizer_config.json`, as train-vocab writes
  it): the rows would overflow the model's position embeddings later, in training; `allow_longer_than_model`
  says the model is meant to take them.
- more shards than the corpus has documents (its stats.json): documents go to shards by a digest of their
  id, so the extra shards could only be empty files.
"""

from __future__ import annotations

import json
import math
import posixpath
from typing import Any

from kcorpus.pipeline.pack.job import PackJob
from kcorpus.transforms import files
from kcorpus.transforms.pack.tokenize import tokenizer_file

TOKENIZER_CONFIG = "tokenizer_config.json"
# transformers writes a huge number (int(1e30)) for "no limit"
NO_LIMIT = 10**9


def model_max_length(tokenizer: str) -> int | None:
    """`model_max_length` of the `tokenizer_config.json` beside the tokenizer.json, or None (none, no limit)."""
    path = files.join(posixpath.dirname(tokenizer_file(tokenizer)) or ".", TOKENIZER_CONFIG)
    if not files.exists(path):
        return None
    with files.open_raw(path) as f:
        try:
            value = json.loads(f.read()).get("model_max_length")
        except (ValueError, AttributeError):
            return None
    return value if isinstance(value, int) and 0 < value < NO_LIMIT else None


def setting_problems(job: PackJob, corpus_stats: dict[str, Any] | None) -> list[str]:
    """The settings of `job` that cannot give a usable pack, one line each (flag and profile key named)."""
    problems = []
    limit = model_max_length(job.tokenizer)
    if limit is not None and job.pack.max_length > limit and not job.allow_longer_than_model:
        problems.append(
            f"--max-length {job.pack.max_length} is more than the tokenizer's model_max_length "
            f"{limit} ({TOKENIZER_CONFIG}): the model's position embeddings would not take the rows; lower it, or "
            "pass --allow-longer-than-model for a model built that long"
        )
    documents = ((corpus_stats or {}).get("total") or {}).get("kept")
    if isinstance(documents, int) and documents > 0:
        splits = (("--num-shards", job.num_shards, 1.0 - job.validation_fraction),
                  ("--num-validation-shards", job.num_validation_shards, job.validation_fraction))
        for flag, shards, fraction in splits:
            most = max(1, math.ceil(documents * fraction))
            if shards is not None and fraction > 0 and shards > most:
                problems.append(
                    f"{flag} {shards} is more than the about {most:,} documents the corpus has for that split: "
                    f"the other shards would be empty files; use at most {most:,} (or leave it out: "
                    "--shard-size-mb picks the count)"
                )
    return problems
