"""`ModelInputs`: a loader batch turned into exactly the keyword arguments a stock transformers model takes.

A raw batch holds bookkeeping keys (`special_tokens_mask`, `source`, and in a padding-free batch `cu_seqlens`,
`max_seqlen`) that transformers models swallow through `**kwargs` without a word: `model(**flat_batch)` then
attends across the sequences of the flat row and returns a wrong loss. `PackedDataLoader(...,
model_inputs=ModelInputs.for_model(model))` hands over only the model's own arguments, and for a padding-free
batch the attention the model's implementation needs:

- `"sdpa"`: `attention_mask` = the bool block-diagonal mask (SDPA selects with it);
- `"eager"`: the additive float mask (0 / the dtype's minimum) in the model's dtype (eager ADDS the mask to its
  scores, so a bool mask would let sequences see each other);
- `"flash_attention_2"` / `"flash_attention_3"`: no mask; `cu_seq_lens_q/k` and `max_length_q/k`, the varlen
  kernel's arguments (transformers' FlashAttentionKwargs).

Models that cannot take a padding-free batch at all (DeBERTa: its embeddings multiply by a 2-D mask, its
attention has no varlen path) are refused for one, as are attention implementations not listed above.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from kcorpus.data.flatten import block_diagonal_mask

Batch = dict[str, Any]

# what the loader adds for its own use: never a model argument
BOOKKEEPING = frozenset({"special_tokens_mask", "source", "cu_seqlens", "max_seqlen", "word_start"})
MASKED_ATTENTION = ("sdpa", "eager")
VARLEN_ATTENTION = ("flash_attention_2", "flash_attention_3")
# model types whose stock forward breaks on a (1, 1, T, T) mask
NO_PADDING_FREE = frozenset({"deberta", "deberta-v2", "sew-d"})


def _unwrap(model: Any) -> Any:
    """The model itself under DistributedDataParallel (`.module`) or torch.compile (`._orig_mod`)."""
    while True:
        inner = getattr(model, "module", None) or getattr(model, "_orig_mod", None)
        if inner is None:
            return model
        model = inner


def _position_start(model: Any) -> int:
    """Where the model's absolute positions start: padding_idx + 1 for the RoBERTa family, else 0."""
    for module in model.modules():
        padding_idx = getattr(module, "padding_idx", None)
        if type(module).__name__.endswith("Embeddings") and isinstance(padding_idx, int):
            return padding_idx + 1
    return 0


@dataclasses.dataclass(frozen=True)
class ModelInputs:
    """The batch keys a model's `forward` takes, and how it attends in a padding-free batch.

    `rename` maps a batch key to the argument that takes it (BERT's NSP head trained on SOP:
    `{"sentence_order_label": "next_sentence_label"}`); `drop` names batch keys the model is not to get. Any
    other key the model does not take raises ValueError instead of vanishing (a label silently not trained on
    is the same kind of bug as attention across sequences).
    """

    model_name: str
    accepted: frozenset[str]
    attention: str
    mask_dtype: Any
    position_start: int = 0
    padding_free: bool = True
    rename: dict[str, str] = dataclasses.field(default_factory=dict)
    drop: frozenset[str] = frozenset()

    @classmethod
    def for_model(cls, model: Any, rename: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> ModelInputs:
        model = _unwrap(model)
        parameters = inspect.signature(model.forward).parameters.values()
        accepted = {p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        config = getattr(model, "config", None)
        attention = getattr(config, "_attn_implementation", None) or "eager"
        rename = dict(rename or {})
        unknown = sorted(set(rename.values()) - accepted)
        if unknown:
            raise ValueError(f"rename= targets {', '.join(unknown)}, not an argument of {type(model).__name__}.forward")
        return cls(type(model).__name__, frozenset(accepted), attention, model.dtype, _position_start(model),
                   getattr(config, "model_type", None) not in NO_PADDING_FREE, rename, frozenset(drop))

    def check_loader(self, pad_to: str, position_start: int) -> None:
        """Refuse, before any batch, a padding-free loader this model cannot take as it is set up."""
        if pad_to != "none":
            return
        if not self.padding_free:
            raise ValueError(f"{self.model_name} cannot take a padding-free batch (its stock forward needs a 2-D "
                             "attention mask): use pad_to='longest' or 'max_length'")
        if self.attention not in MASKED_ATTENTION + VARLEN_ATTENTION:
            raise ValueError(f"padding-free batches for attn_implementation={self.attention!r} are not supported; "
                             f"use one of {', '.join(MASKED_ATTENTION + VARLEN_ATTENTION)}")
        if position_start != self.position_start:
            raise ValueError(f"{self.model_name} counts positions from {self.position_start}: "
                             f"PackedDataLoader(..., position_start={self.position_start})")

    def __call__(self, batch: Batch) -> Batch:
        out = {self.rename.get(k, k): v for k, v in batch.items() if k not in self.drop}
        if "cu_seqlens" in out:
            cu, longest = out["cu_seqlens"], out["max_seqlen"]
            if self.attention in VARLEN_ATTENTION:
                out.update(cu_seq_lens_q=cu, cu_seq_lens_k=cu, max_length_q=longest, max_length_k=longest)
            else:
                dtype = None if self.attention == "sdpa" else self.mask_dtype
                out["attention_mask"] = block_diagonal_mask(cu.to(out["input_ids"].device), dtype)
        accepted = self.accepted | (
            {"cu_seq_lens_q", "cu_seq_lens_k", "max_length_q", "max_length_k"}
            if self.attention in VARLEN_ATTENTION else set())
        stray = sorted(k for k in out if k not in accepted and k not in BOOKKEEPING)
        if stray:
            raise ValueError(f"the batch's {', '.join(stray)} is not an argument of {self.model_name}.forward: pass "
                             "ModelInputs.for_model(model, rename={...}) to hand it to one, or drop=(...) to leave it")
        return {k: v for k, v in out.items() if k in accepted}
