import json
import shutil
import subprocess
from pathlib import Path

import pytest
from corpus_files import read_bytes, read_shard

from kcorpus.pipeline.corpus import write
from kcorpus.pipeline.corpus.config import OutputConfig
from kcorpus.pipeline.corpus.keys import KIND_DOCS, node_key
from kcorpus.pipeline.corpus.runs import RECORDS, carried_text
from kcorpus.pipeline.corpus.units import UnitWriter, span_wire
from kcorpus.pipeline.corpus.write import WRITE_LINES, ShardLosers, WriteShardFn, judged
from kcorpus.pipeline.external_sort import write_run


def test_a_shard_written_in_buffered_pieces_is_the_shard_written_line_by_line(tmp_path):
    # Past two buffers of lines, with texts of one and several sentences and an empty-looking payload.
    count = 2 * WRITE_LINES + 3
    records = [
        (
            (f"doc-{i:05d}", "nsmc", "r"),
            f'{{"id": "doc-{i:05d}", "n": {i}}}',
            "\n".join(["문장 하나"] * (1 + i % 3)),
        )
        for i in range(count)
    ]
    write_run(str(tmp_path / "a.run"), records[::2], RECORDS)
    write_run(str(tmp_path / "b.run"), records[1::2], RECORDS)
    out = tmp_path / "out"
    fn = WriteShardFn(str(out), OutputConfig(num_shards=1, dropped="none", text=True), str(tmp_path / "tmp"))
    counts = dict(fn.process(((KIND_DOCS, 0), [str(tmp_path / "a.run"), str(tmp_path / "b.run")])))

    docs = read_shard(out, "docs/part-00000-of-00001.jsonl")
    text = read_shard(out, "text/part-00000-of-00001.txt")
    assert docs == "".join(payload + "\n" for _, payload, _ in records)
    assert text == "".join(("" if i == 0 else "\n") + t + "\n" for i, (_, _, t) in enumerate(records))
    assert counts[("nsmc", "write:kept")] == count
    assert counts[("nsmc", "write:sentences")] == sum(1 + i % 3 for i in range(count))


def written_shard(tmp_path, compression: str, text: bool = True) -> tuple[list, Path]:
    records = [
        ((f"doc-{i}", "nsmc", "r"), f'{{"id": "doc-{i}", "text": "문장 {i}"}}', f"문장 {i}") for i in range(3)
    ]
    write_run(str(tmp_path / f"{compression}.run"), records, RECORDS)
    out = tmp_path / f"{compression}-{text}"
    output = OutputConfig(num_shards=1, dropped="none", compression=compression, text=text)
    fn = WriteShardFn(str(out), output, str(tmp_path / "tmp"))
    list(fn.process(((KIND_DOCS, 0), [str(tmp_path / f"{compression}.run")])))
    return records, out


def test_shards_are_zstd_by_default_and_plain_with_none(tmp_path):
    records, zst = written_shard(tmp_path, "zstd")
    _, plain = written_shard(tmp_path, "none")
    assert sorted(p.name for p in (zst / "docs").iterdir()) == ["part-00000-of-00001.jsonl.zst"]
    assert sorted(p.name for p in (plain / "docs").iterdir()) == ["part-00000-of-00001.jsonl"]
    for rel in ("docs/part-00000-of-00001.jsonl", "text/part-00000-of-00001.txt"):
        data = (zst / f"{rel}.zst").read_bytes()
        assert data.startswith(b"\x28\xb5\x2f\xfd")  # a zstd frame
        assert read_bytes(zst / f"{rel}.zst") == (plain / rel).read_bytes()
    assert (plain / "docs/part-00000-of-00001.jsonl").read_text() == "".join(p + "\n" for _, p, _ in records)


def test_text_shards_only_when_asked_for(tmp_path):
    _, default = written_shard(tmp_path, "zstd", text=OutputConfig().text)
    _, with_text = written_shard(tmp_path, "zstd", text=True)
    assert sorted(p.name for p in default.iterdir()) == ["docs", "rejected"]
    assert read_bytes(default / "docs/part-00000-of-00001.jsonl.zst") == read_bytes(
        with_text / "docs/part-00000-of-00001.jsonl.zst"
    )
    assert read_bytes(with_text / "text/part-00000-of-00001.txt.zst") == "문장 0\n\n문장 1\n\n문장 2\n".encode()


@pytest.mark.skipif(shutil.which("zstdcat") is None, reason="no zstdcat")
def test_zstdcat_reads_a_compressed_shard(tmp_path):
    _, zst = written_shard(tmp_path, "zstd")
    shard = zst / "text/part-00000-of-00001.txt.zst"
    out = subprocess.run(["zstdcat", str(shard)], check=True, capture_output=True).stdout
    assert out.decode() == "문장 0\n\n문장 1\n\n문장 2\n"


def test_the_same_record_twice_is_one_document_and_a_reused_id_is_flagged():
    losers = ShardLosers({})
    records = [
        (("a", "s", "r1"), "A", "첫 글"),
        (("a", "s", "r1"), "A", "첫 글"),  # the same record again: a file given twice
        (("a", "s", "r2"), "A2", "고친 글"),  # another record under the same id: kept, flagged
        (("b", "s", "r3"), "B", "다른 글"),
    ]
    judged_records = [(doc_id, loser, shared) for doc_id, _, _, _, loser, shared in judged(records, losers)]
    assert judged_records == [
        ("a", None, False),
        ("a", (0, "exact_duplicate", "a\x00s\x00r1"), False),
        ("a", None, True),
        ("b", None, False),
    ]


def test_every_copy_of_a_losing_record_loses_with_its_reason():
    losers = ShardLosers(
        {"node": ["b\x00s\x00r3"], "priority": [1], "reason": ["near_duplicate"], "survivor": ["a\x00s\x00r1"]}
    )
    records = [(("a", "s", "r1"), "A", "글"), (("b", "s", "r3"), "B", "글"), (("b", "s", "r3"), "B", "글")]
    assert [loser for *_, loser, _ in judged(records, losers)] == [
        None,
        (1, "near_duplicate", "a\x00s\x00r1"),
        (1, "near_duplicate", "a\x00s\x00r1"),
    ]


def test_records_carrying_sentence_counts_write_what_records_carrying_texts_write(tmp_path):
    # Without text/, a record carries its sentence count, not its text a second time; a loser's text for
    # rejected/ is read back from its payload.
    texts = ["첫 문장\n둘째 문장", "한 문장뿐", "셋\n넷\n다섯"]
    payloads = [json.dumps({"id": f"d{i}", "text": t}, ensure_ascii=False) for i, t in enumerate(texts)]
    keys = [(f"d{i}", "nsmc", "r") for i in range(3)]
    losers = {"node": [node_key("d1", "nsmc", "r")], "priority": [0], "reason": ["exact_duplicate"],
              "survivor": [node_key("d0", "nsmc", "r")]}
    written = {}
    for carried in ("text", "count"):
        records = [
            (key, payload, carried_text(text, writes_text=carried == "text"))
            for key, payload, text in zip(keys, payloads, texts, strict=True)
        ]
        run = tmp_path / f"{carried}.run"
        write_run(str(run), records, RECORDS)
        out = tmp_path / carried
        fn = WriteShardFn(str(out), OutputConfig(num_shards=1, dropped="all"), str(tmp_path / "tmp"))
        outputs = list(fn.process(((KIND_DOCS, 0), [str(run), losers])))
        counts = dict(out for out in outputs if not hasattr(out, "tag"))  # the loser's example aside
        shards = {p.relative_to(out).as_posix(): read_bytes(p) for p in sorted(out.rglob("*.zst"))}
        written[carried] = counts, shards
    assert written["count"] == written["text"]
    counts, shards = written["count"]
    assert counts[("nsmc", "write:sentences")] == 5
    rejected = json.loads(shards["rejected/duplicates-00000-of-00001.jsonl.zst"])
    assert (rejected["id"], rejected["text"]) == ("d1", "한 문장뿐")


def test_many_units_short_runs_merge_in_one_pass_and_write_what_passes_write(tmp_path, monkeypatch):
    """A shard of a large build has a short run in each of thousands of units: as shares of a full chunk they
    merge at once, no run rewritten; counted as whole runs (passes of `FAN_IN`) the shard is the same bytes."""
    units = tmp_path / "units"
    units.mkdir()
    wires = []
    for i in range(20):
        writer = UnitWriter(str(units), f"unit-{i:02d}")
        writer.add_run(KIND_DOCS, 0, [((f"doc-{j:03d}", "nsmc", "r"), f'{{"id": "doc-{j:03d}"}}', 1)
                                      for j in range(i, 200, 20)])  # fmt: skip
        wires.append(span_wire(writer.commit().runs[0][2]))
    monkeypatch.setattr(write, "FAN_IN", 8)
    shards = {}
    for name, span_block_bytes in (("shares", write.SPAN_BLOCK_BYTES), ("whole", 1)):
        monkeypatch.setattr(write, "SPAN_BLOCK_BYTES", span_block_bytes)
        out, tmp = tmp_path / name, tmp_path / f"tmp-{name}"
        fn = WriteShardFn(str(out), OutputConfig(num_shards=1, dropped="none"), str(tmp), str(units))
        counts = dict(fn.process(((KIND_DOCS, 0), wires)))
        assert counts[("nsmc", "write:kept")] == 200
        shards[name] = read_shard(out, "docs/part-00000-of-00001.jsonl")
        merged = list((tmp / "merged").glob("*.run")) if (tmp / "merged").is_dir() else []
        assert bool(merged) == (name == "whole"), merged
    assert shards["shares"] == shards["whole"] == "".join(f'{{"id": "doc-{j:03d}"}}\n' for j in range(200))
