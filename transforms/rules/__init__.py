"""The keep-or-drop rules, one module per family: sentence and document filters, repetition, boilerplate, PII, decontamination (pure; no Beam)."""
