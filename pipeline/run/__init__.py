"""`kcorpus run`: the resumable stage orchestration and the run report."""
