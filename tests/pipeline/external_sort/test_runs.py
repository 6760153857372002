from pathlib import Path

import pytest

from kcorpus.pipeline.external_sort.blocks import BlockWriter
from kcorpus.pipeline.external_sort.runs import (
    RunCodec,
    RunSpan,
    merge_runs,
    read_run,
    reduce_runs,
    write_run,
)


def threes(records):
    """Numbers in blocks of three."""
    records = list(records)
    for i in range(0, len(records), 3):
        yield records[i : i + 3]


NUMBERS = RunCodec("numbers", blocks=threes, records=iter)
# Records (key, tag): sorted and merged by key alone, so equal keys keep the order of their runs.
KEYED = RunCodec("keyed", blocks=threes, records=iter, key=lambda record: record[0])


def test_runs_merge_in_key_order_whatever_their_split(tmp_path):
    numbers = list(range(20))
    write_run(str(tmp_path / "a.run"), numbers[::3], NUMBERS)
    write_run(str(tmp_path / "b.run"), [n for n in numbers if n % 3], NUMBERS)
    write_run(str(tmp_path / "c.run"), [], NUMBERS)
    assert list(read_run(str(tmp_path / "a.run"), NUMBERS)) == numbers[::3]
    paths = [str(tmp_path / n) for n in ("c.run", "b.run", "a.run")]
    assert list(merge_runs(paths, NUMBERS)) == numbers


def test_equal_keys_keep_the_order_of_the_paths(tmp_path):
    write_run(str(tmp_path / "a.run"), [(1, "a"), (2, "a")], KEYED)
    write_run(str(tmp_path / "b.run"), [(1, "b"), (3, "b")], KEYED)
    a, b = str(tmp_path / "a.run"), str(tmp_path / "b.run")
    assert list(merge_runs([a, b], KEYED)) == [(1, "a"), (1, "b"), (2, "a"), (3, "b")]
    assert list(merge_runs([b, a], KEYED)) == [(1, "b"), (1, "a"), (2, "a"), (3, "b")]


def test_reduce_runs_merges_in_passes_until_fan_in_runs_remain(tmp_path):
    paths = []
    for i in range(9):
        paths.append(str(tmp_path / f"run-{i}.run"))
        write_run(paths[-1], list(range(i, 60, 9)), NUMBERS)
    (tmp_path / "merged").mkdir()
    reduced = reduce_runs(paths, NUMBERS, str(tmp_path / "merged"), fan_in=2)
    assert len(reduced) == 2
    assert list(merge_runs(reduced, NUMBERS)) == list(range(60))
    assert reduce_runs(paths[:2], NUMBERS, str(tmp_path / "merged"), fan_in=2) == sorted(paths[:2])
    with pytest.raises(ValueError, match="fan_in"):
        reduce_runs(paths, NUMBERS, str(tmp_path / "merged"), fan_in=1)


def test_a_merge_pass_rewrites_only_the_runs_it_must(tmp_path):
    paths = []
    for i in range(6):  # keys 0..4, each in every run: equal keys must keep the runs' order
        paths.append(str(tmp_path / f"run-{i}.run"))
        write_run(paths[-1], [(k, i) for k in range(5)], KEYED)
    (tmp_path / "merged").mkdir()
    reduced = reduce_runs(paths, KEYED, str(tmp_path / "merged"), fan_in=4)
    assert len(reduced) == 4
    assert reduced[1:] == paths[3:]  # one merge of the first three runs is enough
    assert list(merge_runs(reduced, KEYED)) == [(k, i) for k in range(5) for i in range(6)]
    many = reduce_runs(paths, KEYED, str(tmp_path / "merged"), fan_in=2)  # more than one pass
    assert len(many) == 2 and list(merge_runs(many, KEYED)) == [(k, i) for k in range(5) for i in range(6)]


def spans_in_files(tmp_path, count):
    """`count` runs of a shard as units leave them: a `RunSpan` in a file of its own (after a header block)."""
    spans = []
    for i in range(count):
        path = str(tmp_path / f"unit-{i}.data")
        with BlockWriter(path) as writer:
            writer.open()
            writer.write(["another shard's records"])
            offset, length = writer.write([i, i + count])
        spans.append(RunSpan(path, offset, length))
    return spans


def test_short_spans_count_as_their_share_of_a_run(tmp_path):
    spans = spans_in_files(tmp_path, 6)
    (tmp_path / "merged").mkdir()
    block = spans[0].length
    # each span is a tenth of a full block: six of them are 0.6 of one run, within a fan-in of 2
    assert reduce_runs(spans, NUMBERS, str(tmp_path / "merged"), fan_in=2, span_block_bytes=10 * block) == spans
    # counted as whole runs they are merged, just enough of them
    reduced = reduce_runs(spans, NUMBERS, str(tmp_path / "merged"), fan_in=2)
    assert len(reduced) == 2 and list(merge_runs(reduced, NUMBERS)) == list(range(12))
    # half a block each: 3 runs, 1 over the fan-in; four spans merged into one run (cost 1) bring it to 2
    reduced = reduce_runs(spans, NUMBERS, str(tmp_path / "merged"), fan_in=2, span_block_bytes=2 * block)
    assert reduced[1:] == spans[4:] and isinstance(reduced[0], str)
    assert list(merge_runs(reduced, NUMBERS)) == list(range(12))


def test_a_merge_of_spans_holds_no_file_open(tmp_path):
    """A shard of a large build has a span in each of thousands of unit files; a process may open 1,024 files
    at once by default. Merging more spans than the limit leaves room for must not fail."""
    resource = pytest.importorskip("resource")
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("needs /proc to count the open files")
    spans = spans_in_files(tmp_path, 300)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(list(fds.iterdir())) + 50, hard))
    try:
        merged = list(merge_runs(spans, NUMBERS))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert merged == list(range(600))
