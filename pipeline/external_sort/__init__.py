"""Spill files, sorted runs and their external merge: the one home of what workers write to temporary files.

Every step that holds more than memory allows spills through this package:
- build-corpus's prepare step writes each shard's documents and dropped records as sorted runs, merged per
  shard by its writer (pipeline/corpus/runs.py says how those records are blocked);
- pack writes each shard's packed rows or tokenized documents as sorted runs, merged in passes of `fan_in`
  runs when a shard has many (pipeline/pack/runs.py);
- dedup's bucket tables go to spill files of segments read back by `(offset, length)` (pipeline/corpus/spill.py).

The modules: `blocks.py` (a spill file: pickled blocks; the one place their bytes are made and read) and
`runs.py` (`RunCodec`, sorted runs: files or `RunSpan`s of one, `merge_runs`, `reduce_runs`).
"""

from kcorpus.pipeline.external_sort.blocks import (
    BlockWriter,
    create,
    open_file,
    read_blocks,
    read_blocks_at,
    write_blocks,
)
from kcorpus.pipeline.external_sort.runs import (
    FAN_IN,
    Run,
    RunCodec,
    RunSpan,
    merge_runs,
    read_run,
    reduce_runs,
    run_path,
    write_run,
)

__all__ = [
    "FAN_IN",
    "BlockWriter",
    "Run",
    "RunCodec",
    "RunSpan",
    "create",
    "merge_runs",
    "open_file",
    "read_blocks",
    "read_blocks_at",
    "read_run",
    "reduce_runs",
    "run_path",
    "write_blocks",
    "write_run",
]
