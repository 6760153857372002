"""The pack Beam pipeline: read a corpus, tokenize, pack and write Arrow shards."""
