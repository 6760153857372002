"""A corpus kept over folders of which one is a symbolic link to another disk (and a link back up the tree, a
loop): every entry point that expands input patterns reads every file, once. Build-corpus sources (ReadBatches,
ReadDocuments, preflight), `kcorpus read`, train-vocab `--input`, vocab-report `--corpus` (the sample),
decontamination `paths`, `kcorpus run`'s input fingerprint and audit's inputs."""

from __future__ import annotations

import json
import os
import shutil

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.cli import main
from kcorpus.pipeline.corpus import audit
from kcorpus.pipeline.corpus.decontaminate import check_eval_paths
from kcorpus.pipeline.corpus.read import ReadDocuments, input_bytes
from kcorpus.pipeline.corpus.read_batches import ReadBatches
from kcorpus.pipeline.corpus.units import eval_fingerprint
from kcorpus.pipeline.preflight import input_problem
from kcorpus.pipeline.run.cache import fingerprint_files
from kcorpus.transforms.readers import read_file
from kcorpus.transforms.record import Document
from kcorpus.transforms.rules.decontaminate import DecontaminateConfig
from kcorpus.transforms.vocab.sample import expand_inputs, read_sample
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"


@pytest.fixture
def tree(tmp_path):
    """kowiki/AA/wiki_00 (real), kowiki/AF -> disk2/AF (wiki_00 there), kowiki/AA/loop -> .. (a loop)."""
    (tmp_path / "kowiki" / "AA").mkdir(parents=True)
    (tmp_path / "disk2" / "AF").mkdir(parents=True)
    shutil.copy(DATA / "kowiki_wiki_00", tmp_path / "kowiki" / "AA" / "wiki_00")
    shutil.copy(DATA / "kowiki_fidelity", tmp_path / "disk2" / "AF" / "wiki_00")
    os.symlink(tmp_path / "disk2" / "AF", tmp_path / "kowiki" / "AF")
    os.symlink("..", tmp_path / "kowiki" / "AA" / "loop")
    return tmp_path


def expected_ids() -> list[str]:
    return sorted(
        r.id
        for name in ("kowiki_wiki_00", "kowiki_fidelity")
        for r in read_file("wikiextractor", str(DATA / name), source="wiki")
        if isinstance(r, Document)
    )


def test_build_corpus_sources_read_the_symlinked_folder(tree):
    pattern = str(tree / "kowiki" / "*" / "wiki_*")
    ids = expected_ids()
    assert len(ids) > 4
    assert input_problem(pattern, "wikiextractor") is None
    assert (
        input_bytes([pattern])
        == (DATA / "kowiki_wiki_00").stat().st_size + (DATA / "kowiki_fidelity").stat().st_size
    )
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        batches = p | "Batches" >> ReadBatches("wikiextractor", [pattern, str(tree / "kowiki")], None, "wiki")
        assert_that(
            batches | "BatchIds" >> beam.FlatMap(lambda b: [r.id for _, r in b if isinstance(r, Document)]),
            equal_to(ids + ids),
            label="Batches",
        )  # two patterns: every file read by each
        docs = p | "Docs" >> ReadDocuments("wikiextractor", [str(tree / "kowiki" / "**")], source="wiki")
        assert_that(docs["documents"] | "DocIds" >> beam.Map(lambda d: d.id), equal_to(ids), label="Docs")


def test_kcorpus_read_takes_a_quoted_glob_and_a_folder(tree, capsys):
    for n, pattern in enumerate((str(tree / "kowiki" / "*" / "wiki_*"), str(tree / "kowiki"))):
        out = tree / f"out{n}.jsonl"
        assert (
            main(["read", "--format", "wikiextractor", pattern, "--out", str(out), "--source", "wiki"]) == 0
        )
        assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == expected_ids()


def test_train_vocab_and_vocab_report_inputs(tree):
    both = [str(tree / "kowiki" / "AA" / "wiki_00"), str(tree / "kowiki" / "AF" / "wiki_00")]
    assert expand_inputs([str(tree / "kowiki" / "*" / "wiki_*")]) == both
    assert expand_inputs([str(tree / "kowiki")]) == both
    sample, stats, _ = read_sample([str(tree / "kowiki")], max_sentences=10**6, seed=0)
    assert stats.files == 2 and len(sample) == stats.sentences > 0


def test_decontamination_fingerprint_and_audit_match_the_same_files(tree):
    pattern = str(tree / "kowiki" / "*" / "wiki_*")
    check_eval_paths(DecontaminateConfig(paths=(pattern,), format="wikiextractor"))
    with pytest.raises(FileNotFoundError, match="no file matches"):
        check_eval_paths(DecontaminateConfig(paths=(str(tree / "kowiki" / "*" / "nothing"),)))
    assert [p for p, _, _ in eval_fingerprint([pattern])] == [
        str(tree / "kowiki" / d / "wiki_00") for d in ("AA", "AF")
    ]
    prints = fingerprint_files([pattern])
    assert prints[0] == {"pattern": pattern, "matched": 2}
    assert [p["path"] for p in prints[1:]] == [str(tree / "kowiki" / d / "wiki_00") for d in ("AA", "AF")]
    assert audit._match("wikiextractor", [str(tree / "kowiki" / "**")]) == [p["path"] for p in prints[1:]]
