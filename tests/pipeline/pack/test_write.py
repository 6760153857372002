import numpy as np
import pytest

from kcorpus.pipeline.pack.write import sort_wire
from kcorpus.transforms.packing.blocks import TokenizedDoc
from kcorpus.transforms.packing.chunks import pack_sorted


def sort_documents(docs: list[TokenizedDoc]) -> list[TokenizedDoc]:
    return [TokenizedDoc.from_wire(w) for w in sort_wire(d.to_wire() for d in docs)]


def test_documents_sharing_an_id_sort_reproducibly():
    a = TokenizedDoc("same", np.array([5, 6], np.uint16), np.array([2], np.uint32))
    b = TokenizedDoc("same", np.array([7], np.uint16), np.array([1], np.uint32))
    c = TokenizedDoc("a-first", np.array([9], np.uint16), np.array([1], np.uint32))
    forward = [d.ids.tolist() for d in sort_documents([a, b, c])]
    assert forward == [d.ids.tolist() for d in sort_documents([b, c, a])]
    assert forward[0] == [9]


@pytest.mark.slow
def test_shards_serialized_in_groups_are_the_bytes_of_one_sorted_pack(tmp_path):
    """Small record batches make many groups per shard; on two worker processes every shard is still the
    stream of packing its sorted documents in one place, for the per-document and the stream layouts."""
    import json
    from collections import defaultdict

    from kcorpus.pipeline.pack.build import PackJob, run
    from kcorpus.transforms.packing import arrow_shards
    from kcorpus.transforms.packing.blocks import PackConfig
    from kcorpus.transforms.packing.tokenize import special_ids, tokenize_wire, tokenizer_from_bytes
    from kcorpus.transforms.sharding import split_and_shard
    from packing_fixtures import CORPUS, kcbert_tokenizer_dir

    tok_dir = kcbert_tokenizer_dir(tmp_path / "tok")
    tok = tokenizer_from_bytes((tok_dir / "tokenizer.json").read_bytes())
    raw = [json.loads(line) for p in sorted((CORPUS / "docs").glob("*.jsonl")) for line in p.open()]
    wires = tokenize_wire(tok, [(d["id"], d["text"]) for d in raw], np.uint16, sources=[d["source"] for d in raw])
    counts = {"train": 2, "validation": 1}
    by_shard = defaultdict(list)
    for w in wires:
        by_shard[split_and_shard(w[0], 0.1, counts)].append(w)
    for layout in ("pair", "cross_document", "nsp"):
        schema = arrow_shards.packed_schema(np.dtype(np.uint16), nsp=layout == "nsp")
        config = PackConfig(max_length=64, layout=layout, single_segment_prob=0.1, short_seq_prob=0.05, seed=5)
        out = tmp_path / layout
        job = PackJob(corpus=str(CORPUS), tokenizer=str(tok_dir), out=str(out), pack=config,
                      validation_fraction=0.1, num_shards=2, num_validation_shards=1, rows_per_batch=8,
                      profile_stages=True)
        run(job, ["--direct_num_workers=2"], local_mode="multi_processing")
        for (split, index), docs in by_shard.items():
            expected = arrow_shards.stream_bytes(pack_sorted(docs, config, special_ids(tok))[0], schema, 8)
            assert (out / split / arrow_shards.shard_name(index, counts[split])).read_bytes() == expected
        steps = {s["step"]: s for s in json.loads((out / "stages.json").read_text())["steps"]}
        assert steps["PlanGroups"]["elements"] == steps["WriteShards"]["elements"] == 3
        assert steps["SerializeGroups"]["elements"] > 3 * 16  # up to 64 groups of whole batches per shard
