"""The same records as plain, .gz, .bz2 and .zst files (and zstd bytes under a plain name) through every reader
and entry point: `read_file`, ReadDocuments and ReadBatches (build-corpus), `kcorpus read`, `kcorpus clean`,
train-vocab / vocab-report's sample, pack's corpus reading and audit's."""

from __future__ import annotations

import bz2
import gzip
import json
import shutil
from pathlib import Path

import apache_beam as beam
import pytest
import zstandard
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.cli import main
from kcorpus.pipeline.corpus import audit
from kcorpus.pipeline.corpus.read import ReadDocuments
from kcorpus.pipeline.corpus.read_batches import ReadBatches
from kcorpus.pipeline.pack.read import read_corpus_range
from kcorpus.pipeline.pack.units import file_ranges
from kcorpus.transforms.readers import read_file
from kcorpus.transforms.vocab.sample import read_sample
from testdata_paths import TESTDATA

DATA = TESTDATA / "readers"
# name in the variant folder, compressor: `magic` holds zstd bytes under the plain file's name
VARIANTS = {
    "plain": ("", lambda b: b),
    "gz": (".gz", gzip.compress),
    "bz2": (".bz2", bz2.compress),
    "zst": (".zst", lambda b: zstandard.ZstdCompressor().compress(b)),
    "magic": ("", lambda b: zstandard.ZstdCompressor().compress(b)),
}
FIXTURES = {
    "nsmc": "nsmc_ratings_test_slice.txt",
    "wikiextractor": "kowiki_wiki_00",
    "comments": "comments_threads.jsonl",
    "petitions": "petitions_2017-08_slice",
}


def variant(tmp_path: Path, kind: str, name: str, data: bytes | None = None) -> Path:
    suffix, compress = VARIANTS[kind]
    path = tmp_path / kind / f"{name}{suffix}"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(compress((DATA / name).read_bytes() if data is None else data))
    return path


def key(record) -> tuple:
    return (
        type(record).__name__,
        getattr(record, "id", getattr(record, "path", "")),
        getattr(record, "text", ""),
    )


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_every_reader_reads_each_compression_as_its_plain_twin(tmp_path, fmt, kind):
    expected = [key(r) for r in read_file(fmt, str(DATA / FIXTURES[fmt]))]
    assert len(expected) > 2 and all(k[0] != "DeadLetter" for k in expected)
    assert [key(r) for r in read_file(fmt, str(variant(tmp_path, kind, FIXTURES[fmt])))] == expected


def test_beam_reads_each_compression_as_its_plain_twin(tmp_path):
    expected = sorted(key(r) for r in read_file("nsmc", str(DATA / FIXTURES["nsmc"]), source="s"))
    paths = {kind: str(variant(tmp_path, kind, FIXTURES["nsmc"])) for kind in VARIANTS}
    with TestPipeline(runner=FnApiRunner(), options=PipelineOptions([])) as p:
        for kind, path in paths.items():
            # 500-byte bundles: Beam cuts the zstd file under a plain name by its size; it is still read once
            docs = p | f"Docs{kind}" >> ReadDocuments("nsmc", [path], source="s", bundle_bytes=500)
            assert_that(
                docs["documents"] | f"KeyD{kind}" >> beam.Map(key),
                equal_to([k for k in expected if k[0] == "Document"]),
                label=f"D{kind}",
            )
            batches = p | f"Batches{kind}" >> ReadBatches("nsmc", [path], None, "s", range_bytes=500)
            assert_that(
                batches | f"KeyB{kind}" >> beam.FlatMap(lambda b: [key(r) for _, r in b]),
                equal_to(expected),
                label=f"B{kind}",
            )


def test_kcorpus_read_and_clean(tmp_path, capsys):
    outputs = {}
    for kind in VARIANTS:
        path = variant(tmp_path, kind, FIXTURES["nsmc"])
        out = tmp_path / f"{kind}.jsonl"
        assert main(["read", "--format", "nsmc", str(path), "--out", str(out)]) == 0
        outputs[kind] = out.read_bytes()
        assert main(["clean", str(path)]) == 0
        outputs[f"clean-{kind}"] = capsys.readouterr().out
    assert outputs["plain"].count(b"\n") > 20
    assert all(outputs[kind] == outputs["plain"] for kind in VARIANTS)
    assert all(outputs[f"clean-{kind}"] == outputs["clean-plain"] for kind in VARIANTS)


def test_a_zip_under_a_text_name_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "comments.txt"
    shutil.copy(DATA / "modu_release.zip", path)
    assert main(["read", "--format", "text", str(path), "--out", str(tmp_path / "o.jsonl")]) == 1
    (rejected,) = [
        json.loads(line) for line in (tmp_path / "o.jsonl.rejected.jsonl").read_text().splitlines()
    ]
    assert rejected["reason"].startswith(f"unreadable_file: {path} is a zip archive: unzip it first")


def test_vocab_sample_reads_each_compression(tmp_path):
    text = "\n".join(f"{i}번째 문장입니다" for i in range(300)).encode()
    samples = {
        kind: read_sample([str(variant(tmp_path, kind, "train.txt", text))], max_sentences=50, seed=1)[0]
        for kind in VARIANTS
    }
    assert len(samples["plain"]) == 50 and all(s == samples["plain"] for s in samples.values())
    docs = b'{"id": "a", "text": "\\uccab \\ubb38\\uc7a5\\n\\ub458"}\n'
    assert read_sample([str(variant(tmp_path, "zst", "d.jsonl", docs))], max_sentences=9, seed=1)[0] == [
        "첫 문장",
        "둘",
    ]


def test_pack_and_audit_read_compressed_corpus_files(tmp_path):
    docs = "".join(
        json.dumps({"id": f"d{i}", "text": f"문장 {i}", "source": "s"}) + "\n" for i in range(40)
    ).encode()
    plain = variant(tmp_path, "plain", "docs-00000-of-00001.jsonl", docs)
    expected = list(read_corpus_range(str(plain), "docs", 0, len(docs), 1))
    assert len(expected) == 40
    for kind in ("gz", "zst", "magic"):
        path = str(variant(tmp_path, kind, "docs-00000-of-00001.jsonl", docs))
        assert file_ranges(path, "docs", len(docs)) == [(0, len(docs), 1)]  # of the decompressed bytes
        assert list(read_corpus_range(path, "docs", 0, len(docs), 1)) == expected
        assert [(d.id, d.text) for d in read_corpus_range(path, "docs", 0, -1, 1)] == [
            (d.id, d.text) for d in expected
        ]
    assert [d["id"] for d in audit._jsonl(str(tmp_path / "zst"), ("*.jsonl.zst",))] == [d.id for d in expected]


def test_clean_names_a_truncated_or_corrupt_file(tmp_path, capsys):
    data = VARIANTS["zst"][1]((DATA / FIXTURES["nsmc"]).read_bytes())
    (tmp_path / "cut.txt.zst").write_bytes(data[: len(data) // 2])
    (tmp_path / "bad.txt.gz").write_bytes(b"\x1f\x8b" + b"\xff" * 40)
    assert main(["clean", str(tmp_path / "cut.txt.zst")]) == 1
    assert capsys.readouterr().err.endswith(
        f"{tmp_path / 'cut.txt.zst'}: zstd stream ended before the end of its last frame (a truncated file)\n"
    )
    assert main(["clean", str(tmp_path / "bad.txt.gz")]) == 2
    assert capsys.readouterr().err.startswith(f"kcorpus clean: {tmp_path / 'bad.txt.gz'}: ")
