"""Kill anywhere, lose one unit per worker: a pack killed (`kill -9`, or a failure) and run again with the same
command replays its finished input units, tokenizes only the others, and writes the bytes of an uninterrupted
pack; a changed setting reuses nothing."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zstandard

from kcorpus.pipeline.corpus.units import DONE_SUFFIX, UNITS_DIR
from kcorpus.pipeline.outputs.marker import is_bookkeeping, read_marker
from kcorpus.pipeline.pack import tokenize
from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.pipeline.pack.read import read_corpus_range, resolve_corpus
from kcorpus.pipeline.pack.runs import FAN_IN
from kcorpus.pipeline.pack.units import (
    MAX_UNIT_BYTES,
    file_ranges,
    pack_identity,
    plan_units,
    read_length,
    unit_steps,
)
from kcorpus.transforms.pack.blocks import PackConfig
from kill_fixtures import after, once_files, run_and_kill
from packing_fixtures import CORPUS, kcbert_tokenizer_dir

FILES = 8
KILLS = 5
SEED = 38


def split_corpus(folder: Path, parts: int = FILES, zst: bool = False) -> Path:
    """The fixture corpus's documents in `parts` files (a hand-made corpus: one unit per file), or compressed as
    build-corpus writes them by default."""
    lines = [line for p in sorted((CORPUS / "docs").glob("*.jsonl")) for line in p.open("rb")]
    (folder / "docs").mkdir(parents=True)
    for i in range(parts):
        data = b"".join(lines[i::parts])
        name = f"part-{i:05d}-of-{parts:05d}.jsonl" + (".zst" if zst else "")
        (folder / "docs" / name).write_bytes(zstandard.ZstdCompressor().compress(data) if zst else data)
    return folder


@pytest.fixture(scope="module")
def kcbert(tmp_path_factory) -> Path:
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("kcbert"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return split_corpus(tmp_path_factory.mktemp("split"))


def job(corpus: Path, tokenizer: Path, out: Path, **kwargs) -> PackJob:
    pack = PackConfig(max_length=kwargs.pop("max_length", 128), layout=kwargs.pop("layout", "pair"), seed=3)
    return PackJob(corpus=str(corpus), tokenizer=str(tokenizer), out=str(out), pack=pack, num_shards=3,
                   num_validation_shards=1, validation_fraction=0.1, **kwargs)  # fmt: skip


def read_tree(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not is_bookkeeping(p.name) and UNITS_DIR not in p.parts
    }


def finished_units(out: Path) -> int:
    return len(list((out / UNITS_DIR).glob(f"*{DONE_SUFFIX}")))


class CountingTokenizer:
    """Counts the batches tokenized in this process (the in-memory runner) and fails at batch `fail_at`."""

    real = staticmethod(tokenize.tokenize_wire)

    def __init__(self, fail_at: int | None = None) -> None:
        self.calls, self.fail_at = 0, fail_at

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            raise RuntimeError("killed while tokenizing")
        return self.real(*args, **kwargs)


@pytest.mark.parametrize(("reshuffle", "zst"), [("never", False), ("always", False), ("never", True)])
def test_a_failed_pack_replays_its_finished_units_and_tokenizes_only_the_others(
    corpus, kcbert, tmp_path, monkeypatch, capsys, reshuffle, zst
):
    # one batch a unit (80 documents a file); "always": each batch a unit of its own, spread again
    corpus = split_corpus(tmp_path / "zst", zst=True) if zst else corpus
    reference = tmp_path / "reference"
    run(job(corpus, kcbert, reference), local_mode="in_memory")
    assert not (reference / UNITS_DIR).exists()
    out = tmp_path / "out"
    failing = CountingTokenizer(fail_at=4)
    monkeypatch.setattr(tokenize, "tokenize_wire", failing)
    with pytest.raises(Exception, match="killed while tokenizing"):
        run(job(corpus, kcbert, out, reshuffle_batches=reshuffle), local_mode="in_memory")
    done = finished_units(out)
    assert 1 <= done < FILES and read_marker(str(out))["state"] == "failed"
    counting = CountingTokenizer()
    monkeypatch.setattr(tokenize, "tokenize_wire", counting)
    capsys.readouterr()
    run(job(corpus, kcbert, out, reshuffle_batches=reshuffle), local_mode="in_memory")
    assert counting.calls == FILES - done  # a finished unit is not tokenized again
    assert re.search(rf"pack: reused {done} of {FILES} input units \(\d+% of input bytes\)", capsys.readouterr().err)
    assert read_tree(out) == read_tree(reference)
    assert not (out / UNITS_DIR).exists()  # removed once the pack completes


def test_a_changed_setting_reuses_no_unit(corpus, kcbert, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setattr(tokenize, "tokenize_wire", CountingTokenizer(fail_at=4))
    with pytest.raises(Exception, match="killed while tokenizing"):
        run(job(corpus, kcbert, out), local_mode="in_memory")
    assert finished_units(out) == 3
    counting = CountingTokenizer()
    monkeypatch.setattr(tokenize, "tokenize_wire", counting)
    capsys.readouterr()
    run(job(corpus, kcbert, out, max_length=64), local_mode="in_memory")
    assert counting.calls == FILES and "reused" not in capsys.readouterr().err
    scratch = tmp_path / "scratch"
    run(job(corpus, kcbert, scratch, max_length=64), local_mode="in_memory")
    assert read_tree(out) == read_tree(scratch)


def test_units_follow_the_file_and_the_settings_that_change_the_output(corpus, kcbert, tmp_path):
    big = tmp_path / "big"
    (big / "docs").mkdir(parents=True)
    line = json.dumps({"id": "d", "text": "가나다 " * 200}, ensure_ascii=False).encode() + b"\n"
    (big / "docs" / "part-00000-of-00001.jsonl").write_bytes(line * 9000)  # ~18.9 MB: 4 units of whole lines
    (step,) = unit_steps([9000 * len(line)])
    ranges = file_ranges(str(big / "docs" / "part-00000-of-00001.jsonl"), "docs", step)
    assert len(ranges) == 4 and ranges[0][0] == 0 and ranges[-1][1] == 9000 * len(line)
    assert all(a[1] == b[0] and a[1] % len(line) == 0 for a, b in itertools.pairwise(ranges))
    assert [r[2] for r in ranges] == [r[0] // len(line) + 1 for r in ranges]  # the first line of each
    packed = big / "docs" / "part-00000-of-00001.jsonl.gz"  # ~40 KB on disk: units follow what it decompresses to
    packed.write_bytes(gzip.compress(line * 9000, mtime=0))
    assert read_length(str(packed), packed.stat().st_size) == 9000 * len(line)
    ranges = file_ranges(str(packed), "docs", step)
    assert len(ranges) == 4 and ranges[-1][1] == 9000 * len(line)
    read = [d for start, end, first in ranges for d in read_corpus_range(str(packed), "docs", start, end, first)]
    assert len(read) == 9000 and all(d.text == "가나다 " * 200 for d in read)
    packed.write_bytes(gzip.compress(line * 9000, mtime=0)[:-100])  # truncated: one unit, dead-lettered
    assert read_length(str(packed), packed.stat().st_size) == packed.stat().st_size
    assert file_ranges(str(packed), "docs", step) == [(0, -1, 1)]
    base = job(corpus, kcbert, tmp_path / "a")
    counts = {"train": 3, "validation": 1}
    identity = pack_identity(base, "sha", "docs", counts, "uint16")
    same = job(corpus.parent, kcbert.parent, tmp_path / "b", reshuffle_batches="always", spill_bytes=1 << 20)
    assert pack_identity(same, "sha", "docs", counts, "uint16") == identity  # folders and how it runs
    for changed in (
        pack_identity(job(corpus, kcbert, tmp_path / "a", max_length=64), "sha", "docs", counts, "uint16"),
        pack_identity(base, "other tokenizer", "docs", counts, "uint16"),
        pack_identity(base, "sha", "docs", {"train": 4, "validation": 1}, "uint16"),
    ):
        assert changed != identity
    keys = [u.key for _, u in plan_units(resolve_corpus(str(corpus)), identity)]
    assert len(keys) == len(set(keys)) == FILES
    first = corpus / "docs" / "part-00000-of-00008.jsonl"
    os.utime(first, ns=(1, 1))  # a shard rewritten in place is another file
    assert [u.key for _, u in plan_units(resolve_corpus(str(corpus)), identity)][1:] == keys[1:]
    assert plan_units(resolve_corpus(str(corpus)), identity)[0][1].key != keys[0]


def test_many_shards_give_the_writers_no_more_runs_than_one_merge_pass_takes():
    # Every unit leaves a run per output shard. A few shards: about four units each; 128 shards of 7 MB (the
    # long-form profile's 1 GB): larger units, so that the units, a short last one per shard included, stay
    # within FAN_IN; ever larger corpora: units of MAX_UNIT_BYTES, what a kill may lose.
    mb = 1 << 20
    assert unit_steps([75 * mb] * 4) == [MAX_UNIT_BYTES] * 4
    assert unit_steps([4 * mb, 8 * mb]) == [1 * mb, 2 * mb]
    lengths = [7 * mb + 12_345 * i for i in range(128)]
    steps = unit_steps(lengths)
    assert sum(-(-length // step) for length, step in zip(lengths, steps, strict=True)) <= FAN_IN
    assert unit_steps([30 * mb] * 2000) == [MAX_UNIT_BYTES] * 2000


def command(corpus: Path, tokenizer: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "kcorpus.pipeline.cli", "--no-progress", "pack", "--corpus", str(corpus),
            "--tokenizer", str(tokenizer), "--out", str(out), "--max-length", "128", "--num-shards", "3",
            "--num-validation-shards", "1", "--validation-fraction", "0.1", "--layout", "full_sentences",
            "--local-mode", "in_memory"]  # fmt: skip


@pytest.mark.slow
def test_kill_9_anywhere_then_the_same_command_gives_the_same_bytes(tmp_path, kcbert):
    units = 16
    corpus = split_corpus(tmp_path / "corpus", parts=units)
    reference = tmp_path / "reference"
    started = time.monotonic()
    subprocess.run(command(corpus, kcbert, reference), check=True, capture_output=True)
    seconds = time.monotonic() - started
    expected = read_tree(reference)
    assert len(expected) == 4 + 4 + 2 + 2  # shards, dataset_info/state per split, rejected/, the manifests
    rng = random.Random(SEED)
    # seeded points: once 1 to 15 of the 16 units are finished, one early moment, and once the shards are written
    moments = [once_files(tmp_path / f"killed{i}" / UNITS_DIR, f"*{DONE_SUFFIX}", rng.randint(1, units - 1))
               for i in range(KILLS - 2)]  # fmt: skip
    moments += [after(rng.uniform(0.3, 0.95) * seconds), once_files(tmp_path / f"killed{KILLS - 1}" / "train")]
    killed = 0
    for i, moment in enumerate(moments):
        out = tmp_path / f"killed{i}"
        argv = command(corpus, kcbert, out)
        killed += run_and_kill(argv, moment)
        done = finished_units(out) if out.exists() else 0
        print(f"kill {i}: {done} units finished")
        if (read_marker(str(out)) or {}).get("state") != "complete":  # else killed after it finished
            rerun = subprocess.run(argv, check=False, capture_output=True, text=True)
            assert rerun.returncode == 0, rerun.stderr[-2000:]
            reused = re.search(r"reused (\d+) of (\d+) input units", rerun.stderr)
            assert (int(reused.group(1)) if reused else 0) == done
        assert read_tree(out) == expected, f"kill {i}"
        assert not (out / UNITS_DIR).exists()
    assert killed >= KILLS - 1
