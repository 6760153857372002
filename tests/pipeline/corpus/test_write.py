from kcorpus.pipeline.corpus.config import OutputConfig
from kcorpus.pipeline.corpus.keys import KIND_DOCS
from kcorpus.pipeline.corpus.runs import RECORDS
from kcorpus.pipeline.corpus.write import WRITE_LINES, WriteShardFn
from kcorpus.pipeline.external_sort import write_run


def test_a_shard_written_in_buffered_pieces_is_the_shard_written_line_by_line(tmp_path):
    # Past two buffers of lines, with texts of one and several sentences and an empty-looking payload.
    count = 2 * WRITE_LINES + 3
    records = [
        ((f"doc-{i:05d}", "nsmc"), f'{{"id": "doc-{i:05d}", "n": {i}}}', "\n".join(["문장 하나"] * (1 + i % 3)))
        for i in range(count)
    ]
    write_run(str(tmp_path / "a.run"), records[::2], RECORDS)
    write_run(str(tmp_path / "b.run"), records[1::2], RECORDS)
    out = tmp_path / "out"
    fn = WriteShardFn(str(out), OutputConfig(num_shards=1, dropped="none"))
    counts = dict(fn.process(((KIND_DOCS, 0), [str(tmp_path / "a.run"), str(tmp_path / "b.run")])))

    docs = (out / "docs" / "part-00000-of-00001.jsonl").read_text(encoding="utf-8")
    text = (out / "text" / "part-00000-of-00001.txt").read_text(encoding="utf-8")
    assert docs == "".join(payload + "\n" for _, payload, _ in records)
    assert text == "".join(("" if i == 0 else "\n") + t + "\n" for i, (_, _, t) in enumerate(records))
    assert counts[("nsmc", "write:kept")] == count
    assert counts[("nsmc", "write:sentences")] == sum(1 + i % 3 for i in range(count))
