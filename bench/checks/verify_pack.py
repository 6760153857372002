"""Check a `kcorpus pack` output against its manifest, and one shard against packing its documents in one place.

For every shard: its sha256 and size are the manifest's, its rows are the manifest's `rows`, its record batches
hold `rows_per_batch` rows (the last fewer), and the content tokens of all shards add up to the manifest's
`tokens`. With `--repack`, the smallest shard is rebuilt in this process from the corpus (the documents whose id
digest lands in it, tokenized and packed sorted in one place: `chunks.pack_sorted`) and compared byte for byte.
Prints one JSON line; exits 1 when a check fails.

    python bench/checks/verify_pack.py /work/scratch/pack-scale/out_new_1g --repack
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa


def shard_facts(path: Path) -> dict:
    """Rows, record batch sizes and content tokens of one shard file, and its sha256."""
    data = path.read_bytes()
    reader = pa.ipc.open_stream(pa.py_buffer(data))
    rows = tokens = 0
    sizes = []
    for batch in reader:
        rows += batch.num_rows
        sizes.append(batch.num_rows)
        specials = batch.column("special_tokens_mask").flatten().to_numpy(zero_copy_only=False)
        tokens += int(specials.shape[0] - specials.sum(dtype=np.int64))
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "rows": rows, "batches": sizes,
            "tokens": tokens}


def repack(out: Path, manifest: dict, shard: dict) -> bool:
    """Whether `shard` is the bytes of packing its corpus documents sorted in one place."""
    from kcorpus.pipeline.pack.read import read_corpus_range, resolve_corpus
    from kcorpus.transforms.pack import arrow_shards
    from kcorpus.transforms.pack.blocks import PackConfig, ids_dtype
    from kcorpus.transforms.pack.chunks import pack_sorted
    from kcorpus.transforms.pack.tokenize import special_ids, tokenize_wire, tokenizer_from_bytes
    from kcorpus.transforms.record import Document
    from kcorpus.transforms.sharding import split_and_shard

    config = manifest["config"]
    counts, fraction = config["num_shards"], config["validation_fraction"]
    split, index = shard["file"].split("/")[0], int(shard["file"].split("-")[1])
    tok = tokenizer_from_bytes(Path(manifest["tokenizer"]["path"]).read_bytes())
    corpus = resolve_corpus(manifest["corpus"]["path"], manifest["corpus"]["layout"])
    docs = []
    for path in corpus.files:
        # the whole file (-1), decompressed: build-corpus writes .jsonl.zst, whose size on disk is not its text's
        for record in read_corpus_range(path, corpus.layout, 0, -1, 1):
            if isinstance(record, Document) and split_and_shard(record.id, fraction, counts) == (split, index):
                docs.append(record)
    dtype = ids_dtype(manifest["tokenizer"]["vocab_size"])
    wires = [w for w in tokenize_wire(tok, [(d.id, d.text) for d in docs], dtype, config["word_start"],
                                      [d.source for d in docs]) if w[1]]
    keys = ("max_length", "layout", "single_segment_prob", "short_seq_prob", "min_target_length", "seed",
            "word_start", "nsp_rule")
    pack = PackConfig(**{k: config[k] for k in keys if k in config})
    ids = manifest["tokenizer"]["special_tokens"]
    columns, _ = pack_sorted(wires, pack, special_ids(tok, ids["cls"], ids["sep"], ids["pad"]))
    schema = arrow_shards.packed_schema(dtype, layout=pack.layout, word_start=pack.word_start)
    expected = arrow_shards.stream_bytes(columns, schema, config["rows_per_batch"])
    return expected == (out / shard["file"]).read_bytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a pack output folder")
    parser.add_argument("--repack", action="store_true", help="rebuild the smallest shard in this process")
    args = parser.parse_args()
    manifest = json.loads((args.out / "manifest.json").read_text(encoding="utf-8"))
    per_batch = manifest["config"]["rows_per_batch"]
    problems = []
    tokens = 0
    for shard in manifest["shards"]:
        facts = shard_facts(args.out / shard["file"])
        tokens += facts["tokens"]
        for key in ("sha256", "bytes", "rows"):
            if facts[key] != shard[key]:
                problems.append(f"{shard['file']}: {key} {facts[key]} in the file, {shard[key]} in the manifest")
        if any(n != per_batch for n in facts["batches"][:-1]):
            problems.append(f"{shard['file']}: record batches of {sorted(set(facts['batches']))} rows")
    if tokens != manifest["counts"]["tokens"]:
        problems.append(f"content tokens: {tokens} in the files, {manifest['counts']['tokens']} in the manifest")
    result = {"out": str(args.out), "shards": len(manifest["shards"]), "rows": manifest["counts"]["sequences"],
              "tokens_in_files": tokens, "problems": problems}
    if args.repack:
        smallest = min(manifest["shards"], key=lambda s: s["bytes"])
        result["repacked"] = smallest["file"]
        result["repack_identical"] = repack(args.out, manifest, smallest)
        if not result["repack_identical"]:
            problems.append(f"{smallest['file']}: not the bytes of packing its documents in one place")
    print(json.dumps(result, ensure_ascii=False))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
