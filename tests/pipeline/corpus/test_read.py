"""ReadDocuments: byte-range splits give the same records as one pass; every format through Beam; counters."""

from __future__ import annotations

import dataclasses
import itertools
import json
import operator
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.io.filesystem import FileMetadata
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus.read import LineRecordSource, MatchFiles, ReadDocuments, input_bytes
from kcorpus.pipeline.options import make_pipeline
from kcorpus.transforms.readers import read_file, read_files
from kcorpus.transforms.record import DeadLetter, Document, Dropped
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"
FAULTS = DATA / "faults"


def single_file_source(path: Path, **batching):
    (bundle,) = LineRecordSource(str(path), **batching).split(float("inf"))
    return bundle.source


def unbatched(batches) -> list[tuple[int, bytes]]:
    return [record for batch in batches for record in batch]


def one_pass(path: Path) -> list[tuple[int, bytes]]:
    source = single_file_source(path)
    return unbatched(source.read(source.get_range_tracker(None, None)))


def in_splits(path: Path, bounds: list[int]) -> list[tuple[int, bytes]]:
    source = single_file_source(path)
    records = []
    for start, stop in itertools.pairwise(bounds):
        records.extend(unbatched(source.read(source.get_range_tracker(start, stop))))
    return records


def test_every_two_way_split_of_a_file_reads_each_line_once(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes("첫 줄\r\n\n둘째 줄이 조금 더 깁니다\n\n\n셋째\r\n마지막 줄에는 줄바꿈이 없다".encode())
    expected = one_pass(path)
    assert [offset for offset, _ in expected] == [0, 9, 10, 45, 46, 47, 55]
    size = path.stat().st_size
    for cut in range(1, size):
        assert in_splits(path, [0, cut, size]) == expected, cut


def test_a_large_file_in_many_splits_equals_one_pass(tmp_path):
    slice_bytes = (DATA / "nsmc_ratings_test_slice.txt").read_bytes()
    path = tmp_path / "big.txt"
    path.write_bytes(slice_bytes * 40)  # 172 KB, 1,840 lines
    expected = one_pass(path)
    assert len(expected) == 1840
    source = LineRecordSource(str(path))
    splits = list(source.split(desired_bundle_size=997))
    assert len(splits) > 150
    records = []
    for split in splits:
        tracker = split.source.get_range_tracker(split.start_position, split.stop_position)
        records.extend(unbatched(split.source.read(tracker)))
    assert records == expected


def test_lines_come_in_batches_of_bounded_size():
    source = single_file_source(DATA / "nsmc_ratings_test_slice.txt", batch_lines=7)
    batches = list(source.read(source.get_range_tracker(None, None)))
    assert [len(b) for b in batches] == [7, 7, 7, 7, 7, 7, 4]
    assert unbatched(batches) == one_pass(DATA / "nsmc_ratings_test_slice.txt")
    by_bytes = single_file_source(DATA / "nsmc_ratings_test_slice.txt", batch_bytes=400)
    assert all(sum(len(raw) for _, raw in b[:-1]) < 400 for b in by_bytes.read(by_bytes.get_range_tracker(None, None)))


def test_compressed_files_are_read_whole(tmp_path):
    import gzip

    path = tmp_path / "nsmc.txt.gz"
    path.write_bytes(gzip.compress((DATA / "nsmc_ratings_test_slice.txt").read_bytes()))
    assert [raw for _, raw in one_pass(path)] == (DATA / "nsmc_ratings_test_slice.txt").read_bytes().splitlines(True)


def test_match_files_reports_a_pattern_that_matches_nothing(tmp_path):
    outputs = list(MatchFiles("text").process(str(tmp_path / "nothing-*.txt")))
    assert len(outputs) == 1 and outputs[0].tag == "dead_letter"
    assert outputs[0].value == DeadLetter(str(tmp_path / "nothing-*.txt"), "unreadable_file: no file matches")
    assert [m.path for m in MatchFiles("text").process(str(FAULTS / "modu"))][:2] == [
        str(FAULTS / "modu" / "MDRW1900000002.json"), str(FAULTS / "modu" / "MDRW1900000003.json")]
    (modu,) = MatchFiles("modu").process(str(DATA / "modu"))
    assert (modu.tag, modu.value.path) == ("whole", str(DATA / "modu"))
    routed = [(getattr(m, "tag", "lines"), getattr(m, "value", m).path)
              for m in MatchFiles("comments").process(str(DATA / "comments_threads.*"))]
    assert routed == [("whole", str(DATA / "comments_threads.csv")), ("lines", str(DATA / "comments_threads.jsonl")),
                      ("lines", str(DATA / "comments_threads.tsv"))]
    matched = list(MatchFiles("nsmc").process(str(DATA / "nsmc_*.txt")))
    assert [m.path for m in matched] == [str(DATA / "nsmc_bom_crlf.txt"), str(DATA / "nsmc_ratings_test_slice.txt")]
    assert all(isinstance(m, FileMetadata) for m in matched)


def test_input_bytes_decides_the_default_rebalance():
    files = [DATA / "nsmc_bom_crlf.txt", DATA / "nsmc_ratings_test_slice.txt"]
    modu = sum(p.stat().st_size for p in (DATA / "modu").iterdir())
    assert input_bytes([str(DATA / "nsmc_*.txt"), str(DATA / "modu"), str(DATA / "none-*")]) == (
        sum(p.stat().st_size for p in files) + modu)


def without_line(record):
    """Beam reads line files in byte ranges, so dead letters carry the offset but not the line number."""
    return dataclasses.replace(record, line=None) if isinstance(record, DeadLetter) else record


def run_read(fmt, patterns, options=None, source=None, bundle_bytes=1 << 20):
    """Run ReadDocuments in memory; returns the three outputs as JSON-line lists and the counters."""
    pipeline = make_pipeline(["--direct_num_workers=1"], local_mode="in_memory")
    outputs = pipeline | ReadDocuments(fmt, patterns, options, source, bundle_bytes=bundle_bytes)
    return pipeline, outputs


def expect(outputs, records, prefix=""):
    """assert_that the outputs hold exactly these records (order-free), dead letters without line numbers."""
    names = {Document: "documents", DeadLetter: "dead_letter", Dropped: "dropped"}
    expected = [(names[type(r)], without_line(r).to_json()) for r in records]
    tagged = [outputs[name] | f"{prefix}Tag{name}" >> beam.Map(tag_json, name) for name in names.values()]
    assert_that(tagged | f"{prefix}Merge" >> beam.Flatten(), equal_to(expected), label=f"{prefix}Check")


def tag_json(record, name):
    return name, without_line(record).to_json()


def counters(result) -> dict[str, int]:
    query = result.metrics().query(MetricsFilter().with_namespace("kcorpus"))
    return {c.key.metric.name: c.committed for c in query["counters"]}


def test_line_formats_in_tiny_splits_equal_the_pure_reader(tmp_path):
    paths = [str(DATA / "nsmc_ratings_test_slice.txt"), str(FAULTS / "nsmc_faults.txt"), str(DATA / "nsmc_bom_crlf.txt")]
    pure = list(read_files("nsmc", paths, None, "movies"))
    pipeline, outputs = run_read("nsmc", paths, source="movies", bundle_bytes=100)
    expect(outputs, pure)
    result = pipeline.run()
    result.wait_until_finish()
    assert counters(result) == {
        "read:movies:documents": 48, "read:movies:dropped": 4, "read:movies:dropped:empty": 4,
        "read:movies:dead_letter": 6, "read:movies:dead_letter:wrong_field_count": 2,
        "read:movies:dead_letter:invalid_value": 2, "read:movies:dead_letter:invalid_encoding": 1,
        "read:movies:dead_letter:nul_byte": 1}


FORMAT_CASES = [
    ("petitions", ["petitions_2017-08_slice", "faults/petitions_faults.jsonl"], {}),
    ("comments", ["comments_threads.tsv", "comments_threads.csv", "faults/comments_faults.tsv"],
     {"thread_field": "article_id"}),
    ("comments", ["comments_lines.txt", "cp949_comments.txt"], {"encoding": "cp949"}),
    ("modu", ["modu", "modu_release.zip", "faults/modu", "faults/modu_corrupt_member.zip"], {}),
    ("wiki-dump", ["kowiki-20240101-pages-articles.xml.bz2", "faults/kowiki-truncated-pages-articles.xml.bz2"], {}),
    ("wikiextractor", ["kowiki_wiki_*", "faults/wikiextractor_faults"], {}),
    ("jsonl", ["faults/jsonl_faults.jsonl"], {}),
    ("text", ["faults/text_truncated.txt.gz", "missing-*.txt"], {}),
]


def write_table_inputs(folder: Path) -> list[tuple[str, list[str], dict]]:
    """A parquet file and a `datasets` folder made from the petitions slice (the other two table formats)."""
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in (DATA / "petitions_2017-08_slice").read_text(encoding="utf-8").splitlines()]
    columns = {"id": [r["petition_idx"] for r in rows], "text": [r["content"] for r in rows],
               "category": [r["category"] for r in rows]}
    pq.write_table(pa.table(columns), folder / "petitions.parquet", row_group_size=2)
    datasets.Dataset.from_dict(columns).save_to_disk(str(folder / "petitions_ds"))
    return [("parquet", [str(folder / "*.parquet")], {}), ("hf-datasets", [str(folder / "petitions_ds")], {})]


@pytest.mark.slow
def test_every_format_through_beam_equals_the_pure_reader(tmp_path):
    import glob

    pipeline = make_pipeline(["--direct_num_workers=1"], local_mode="in_memory")
    for index, (fmt, patterns, options) in enumerate(FORMAT_CASES + write_table_inputs(tmp_path)):
        paths = [p for pattern in patterns for p in sorted(glob.glob(str(DATA / pattern)))]
        pure = list(read_files(fmt, paths, options))
        missing = [str(DATA / p) for p in patterns if not glob.glob(str(DATA / p))]
        pure += [DeadLetter(p, "unreadable_file: no file matches") for p in missing]
        outputs = pipeline | f"Read{index}" >> ReadDocuments(fmt, [str(DATA / p) for p in patterns], options,
                                                             bundle_bytes=64, rebalance=False)
        expect(outputs, pure, prefix=f"Case{index}")
    pipeline.run().wait_until_finish()


@pytest.mark.slow
def test_multi_processing_run_matches(tmp_path):
    path = tmp_path / "nsmc.txt"
    path.write_bytes((DATA / "nsmc_ratings_test_slice.txt").read_bytes())
    pure = list(read_file("nsmc", str(path)))
    pipeline = make_pipeline(["--direct_num_workers=2"], local_mode="multi_processing")
    outputs = pipeline | ReadDocuments("nsmc", [str(path)], bundle_bytes=512)
    # Workers cannot import this test module: only library functions cross to them.
    to_json = operator.methodcaller("to_json")
    assert_that(outputs["documents"] | beam.Map(to_json), equal_to([to_json(r) for r in pure if isinstance(r, Document)]))
    assert_that(outputs["dropped"] | "DroppedJson" >> beam.Map(to_json),
                equal_to([to_json(r) for r in pure if isinstance(r, Dropped)]), label="CheckDropped")
    pipeline.run().wait_until_finish()
