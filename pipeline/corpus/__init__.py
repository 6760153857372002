"""The build-corpus Beam pipeline: reading, preparing, dedup and sharded writing."""
