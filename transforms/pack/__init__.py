"""Tokenizing and packing documents into fixed-length sequences and Arrow shards (pure; no Beam)."""
