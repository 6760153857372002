"""Replaced token detection (ELECTRA, DeBERTa-v3): the discriminator's input and labels from a generator's logits."""

from __future__ import annotations

from typing import Any

IGNORE = -100


def replaced_token_detection(input_ids: Any, labels: Any, generator_logits: Any, temperature: float = 1.0,
                             generator: Any = None, *, special_tokens_mask: Any) -> tuple[Any, Any]:
    """(discriminator input_ids, discriminator labels) of a masked-LM batch and its generator's logits.

    At every predicted position (`labels != -100`) a token is sampled from softmax(logits / temperature)
    (`generator`: a `torch.Generator` for reproducible draws), without gradient, as ELECTRA does; every other
    position keeps its token. Labels: 1 where the input now differs from the original token (the `labels`
    value at predicted positions, the input elsewhere), 0 on other real tokens, -100 where
    `special_tokens_mask` is 1 ([CLS], [SEP], and the padding, which kcorpus batches mark special). A sampled
    token equal to the original is labelled 0, as in ELECTRA.

    Shapes: input_ids, labels, special_tokens_mask (B, T) (a padding-free batch: (1, T)); generator_logits
    (B, T, vocab).
    """
    import torch

    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    if generator_logits.shape[:-1] != input_ids.shape or labels.shape != input_ids.shape:
        raise ValueError(f"shapes differ: input_ids {tuple(input_ids.shape)}, labels {tuple(labels.shape)}, "
                         f"generator_logits {tuple(generator_logits.shape)} (expected input_ids' shape + vocab)")
    predicted = labels != IGNORE
    original = torch.where(predicted, labels, input_ids)
    with torch.no_grad():
        logits = generator_logits.detach()[predicted].float() / temperature
        sampled = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
    disc_input = input_ids.clone()
    disc_input[predicted] = sampled.to(input_ids.dtype)
    disc_labels = (disc_input != original).long()
    disc_labels[torch.as_tensor(special_tokens_mask, device=input_ids.device) != 0] = IGNORE
    return disc_input, disc_labels
