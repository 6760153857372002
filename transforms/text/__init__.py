"""Text normalization: the clean() presets, control/mask/punctuation rewrites, sentence splitting (pure; no Beam)."""
