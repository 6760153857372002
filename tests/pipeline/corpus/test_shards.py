from kcorpus.pipeline.corpus.shards import merge_runs, parse_run_line, run_line, write_run


def test_run_lines_round_trip_keys_with_tabs_and_korean():
    line = run_line(("id\t1", "뉴스"), '{"text": "가\\t나"}')
    assert line.count("\n") == 1
    assert parse_run_line(line) == (("id\t1", "뉴스"), '{"text": "가\\t나"}')


def test_merge_of_sorted_runs_is_independent_of_how_records_were_split(tmp_path):
    records = [((f"doc-{i:03d}", "s"), f'{{"n": {i}}}') for i in range(50)]
    write_run(str(tmp_path / "a.run"), records[::2])
    write_run(str(tmp_path / "b.run"), records[1::2][::-1])  # write_run sorts
    write_run(str(tmp_path / "c.run"), [])
    merged = list(merge_runs([str(tmp_path / n) for n in ("c.run", "b.run", "a.run")]))
    assert merged == records
