"""The vocabulary stages: train-vocab and vocab-report as typed jobs."""
