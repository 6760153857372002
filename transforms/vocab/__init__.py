"""Vocabularies: training, files, checks, merging and comparison (pure; no Beam)."""
