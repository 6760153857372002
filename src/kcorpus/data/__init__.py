"""Feeding `kcorpus pack` output to a PyTorch (or plain numpy) pretraining loop without copying the data.

- `PackedDataset(split_dir)`: a map-style dataset over one split's Arrow shards, memory-mapped (rows are
  views into the page cache). `ds[i]` is one unpadded example as int64 numpy arrays, which is what
  `transformers.DataCollatorForLanguageModeling` and the HF `Trainer` consume.
- `PackedDataLoader(ds, batch_size, rank=, world_size=, seed=, num_workers=)`: padded batches for one rank.
  Each epoch is a permutation of all sequences seeded by (seed, epoch); rank r takes every world_size-th
  sequence of it; batch k of a rank is built by DataLoader worker k mod num_workers (torch's round robin), so
  the batch stream is the same for any number of workers. `state_dict()`/`load_state_dict()` resume mid-epoch
  at the next batch not yet handed to the training loop.
- `MLMCollator`: BERT masking (15% of non-special, non-padding tokens; 80% `[MASK]`, 10% random, 10% kept)
  with an RNG seeded by (seed, epoch, rank, step), so masks are reproducible and independent of workers;
  `masking="whole_word"` / `"ngram"` mask whole eojeols or spans of them (`masking`), `sentence_order=True`
  adds SOP (`sop`).
- `pad_to="none"`: padding-free batches (`flatten`); `max_tokens=`: batches by token budget (`plan`);
  `source_weights=`: token shares by source (`mixing`).

- `model_inputs=ModelInputs.for_model(model)`: batches with only the model's keyword arguments and, padding-free,
  the attention mask its attention implementation needs (`model_inputs`).
- `replaced_token_detection(...)`: ELECTRA / DeBERTa-v3 discriminator inputs and 0/1 labels from a generator's
  logits (`rtd`).

- `device="cuda"` (with `prefetch=2`): batches arrive as torch tensors already on the GPU, copied ahead on a
  side CUDA stream from reused pinned buffers while the current step runs (`kcorpus.data.prefetch`).

torch is imported only when `num_workers > 0`, `return_tensors="pt"` or `device` is set.
"""

from kcorpus.data.collator import MLMCollator
from kcorpus.data.dataset import Batch, PackedDataset, read_manifest
from kcorpus.data.loader import PackedDataLoader
from kcorpus.data.model_inputs import ModelInputs
from kcorpus.data.plan import BatchRequest, EpochPlan
from kcorpus.data.rtd import replaced_token_detection

__all__ = ["Batch", "BatchRequest", "EpochPlan", "MLMCollator", "ModelInputs", "PackedDataLoader", "PackedDataset",
           "read_manifest", "replaced_token_detection"]
