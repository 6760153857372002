from kcorpus.pipeline.corpus.runs import CHUNK_CHARS, RECORDS, RECORDS_PER_CHUNK
from kcorpus.pipeline.external_sort import merge_runs, read_blocks, read_run, write_run


def write(path, records):
    write_run(str(path), sorted(records), RECORDS)


def test_run_records_round_trip_keys_with_tabs_newlines_and_korean(tmp_path):
    records = [(("id\t1", "뉴스"), '{"text": "가\\t나"}', "가\t나\n다"), (("id\n0", "뉴스"), "{}", "")]
    write(tmp_path / "a.run", records)
    assert list(read_run(str(tmp_path / "a.run"), RECORDS)) == sorted(records)


def test_run_files_stream_in_chunks_that_share_objects(tmp_path):
    # The same string objects recur in every chunk (pickle memoizes them per chunk): each chunk must still
    # read back as written, not with another chunk's objects.
    sources = [f"source-{k}" for k in range(7)]
    records = [
        ((f"doc-{i:05d}", sources[(i * 3) % 7]), f'{{"n": {i}}}', sources[i % 7])
        for i in range(3 * RECORDS_PER_CHUNK + 3)
    ]
    write(tmp_path / "a.run", records[::-1])
    assert list(read_run(str(tmp_path / "a.run"), RECORDS)) == records


def test_merge_of_sorted_runs_is_independent_of_how_records_were_split(tmp_path):
    records = [((f"doc-{i:03d}", "s"), f'{{"n": {i}}}') for i in range(50)]
    write(tmp_path / "a.run", records[::2])
    write(tmp_path / "b.run", records[1::2][::-1])
    write(tmp_path / "c.run", [])
    merged = list(merge_runs([str(tmp_path / n) for n in ("c.run", "b.run", "a.run")], RECORDS))
    assert merged == records


def test_merge_breaks_key_ties_by_payload(tmp_path):
    write(tmp_path / "a.run", [(("d", "s"), "b"), (("e", "s"), "a")])
    write(tmp_path / "b.run", [(("d", "s"), "a"), (("d", "s"), "c")])
    merged = list(merge_runs([str(tmp_path / "a.run"), str(tmp_path / "b.run")], RECORDS))
    assert merged == [(("d", "s"), "a"), (("d", "s"), "b"), (("d", "s"), "c"), (("e", "s"), "a")]


def _chunk_sizes(path):
    return [len(block) for block in read_blocks(str(path))]


def test_chunks_are_bounded_in_records_and_in_characters(tmp_path):
    short = [((f"s{i:04d}", "nsmc"), "{}", "재밌어요") for i in range(RECORDS_PER_CHUNK + 1)]
    write(tmp_path / "short.run", short)
    assert _chunk_sizes(tmp_path / "short.run") == [RECORDS_PER_CHUNK, 1]
    article = "위키백과 문서 " * 1000  # 8,000 characters: five articles reach CHUNK_CHARS
    long = [((f"w{i:02d}", "kowiki"), "{}", article) for i in range(12)]
    write(tmp_path / "long.run", long)
    per_chunk = -(-CHUNK_CHARS // (len(article) + 2))
    assert _chunk_sizes(tmp_path / "long.run") == [per_chunk, per_chunk, 12 - 2 * per_chunk]
    assert list(read_run(str(tmp_path / "long.run"), RECORDS)) == long
