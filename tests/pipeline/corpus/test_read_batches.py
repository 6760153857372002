
import gzip

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.corpus.read_batches import (
    BatchSource,
    ReadBatches,
    UnreadPage,
    byte_ranges,
    read_batches,
    record_of,
)
from kcorpus.transforms.readers import as_options, read_file
from testdata_paths import TESTDATA

NSMC = TESTDATA / "sample" / "nsmc_ratings_test_head.txt"
PETITIONS = TESTDATA / "sample" / "petitions_2017-08_head"


def test_byte_ranges_cover_the_file(tmp_path):
    a, gz, magic = (str(tmp_path / name) for name in ("a.txt", "a.txt.gz", "b.txt"))
    (tmp_path / "a.txt").write_bytes(b"0123456789")
    (tmp_path / "b.txt").write_bytes(gzip.compress(b"0123456789"))  # gzip under a text name: read whole
    assert byte_ranges(a, 10, 4, True) == [(a, 0, 4), (a, 4, 8), (a, 8, 10)]
    assert byte_ranges(gz, 10, 4, True) == [(gz, 0, -1)]
    assert byte_ranges(magic, 10, 4, True) == [(magic, 0, -1)]
    assert byte_ranges("wiki_00", 10, 4, False) == [("wiki_00", 0, -1)]


def _key(record):
    return (
        type(record).__name__,
        record.id if hasattr(record, "id") else record.path,
        getattr(record, "text", ""),
    )


@pytest.mark.slow
def test_small_ranges_give_exactly_the_records_of_one_pass():
    expected = [("nsmc", _key(r)) for r in read_file("nsmc", str(NSMC), source="nsmc")]
    expected += [("pet", _key(r)) for r in read_file("petitions", str(PETITIONS), source="pet")]
    assert sum(1 for _, k in expected if k[0] == "Document") > 10_000
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        nsmc = p | "N" >> ReadBatches("nsmc", [str(NSMC)], None, "nsmc", batch_size=97, range_bytes=50_000)
        pet = p | "P" >> ReadBatches(
            "petitions", [str(PETITIONS)], None, "pet", batch_size=10, range_bytes=30_000
        )
        records = (nsmc, pet) | beam.Flatten() | beam.FlatMap(lambda batch: batch)
        assert_that(records | beam.MapTuple(lambda s, r: (s, _key(r))), equal_to(expected))
        sizes = nsmc | beam.Map(len)
        assert_that(sizes | "Max" >> beam.combiners.Top.Largest(1), equal_to([[97]]), label="BatchSize")


def test_a_batch_of_long_documents_ends_at_the_text_limit():
    from kcorpus.pipeline.corpus.read_batches import BATCH_TEXT_CHARS, ReadRangeBatches

    fn = ReadRangeBatches([], batch_size=1000)
    fn.sources = (type("S", (), {"source": "wiki", "fmt": "wikiextractor", "options": None})(),)
    fn.setup()
    wiki = TESTDATA / "sample" / "wiki_00_head"
    batches = list(fn.process((0, (str(wiki), 0, -1))))
    records = [r for batch in batches for _, r in batch]
    assert [_key(r) for r in records] == [_key(r) for r in read_file("wikiextractor", str(wiki), source="wiki")]
    assert len(batches) > 1
    for batch in batches[:-1]:
        chars = sum(len(r.text) for _, r in batch)
        # each batch ends with the document that reached the limit
        assert chars >= BATCH_TEXT_CHARS > chars - len(batch[-1][1].text)


def test_a_dumps_pages_are_read_unconverted_and_convert_to_what_read_file_gives():
    dump = str(TESTDATA / "readers" / "kowiki-20240101-pages-articles.xml.bz2")
    source, options = BatchSource("wiki-dump", (dump,), None, "kowiki"), as_options(None)
    items = [item for batch in read_batches(source, options, dump, 0, -1, 4, pages=True) for _, item in batch]
    assert items and all(isinstance(item, UnreadPage) for item in items)
    converted = [record_of(item, "wiki-dump", options, "kowiki") for item in items]
    assert converted == list(read_file("wiki-dump", dump, options, "kowiki"))
