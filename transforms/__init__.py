"""Pure, Beam-free record functions (tests/transforms/test_no_beam.py keeps it so); Beam lives in pipeline/."""
