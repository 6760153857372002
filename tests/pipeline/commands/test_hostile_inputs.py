"""Issue 26: the mistakes and hostile inputs a new user hits end in one line and a known exit status.

Each case runs the real command on a slice of the bundled real data (tests/testdata/sample/) with the hostile
part added at test time, and checks that nothing is lost or left behind.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import io
import json
import logging
import math
import shutil
from pathlib import Path

import pytest
from apache_beam.io.filesystems import FileSystems
from corpus_files import read_bytes

from kcorpus.pipeline.cli import main
from kcorpus.pipeline.commands import train_vocab as train_vocab_command
from kcorpus.pipeline.errors import UserError
from kcorpus.pipeline.outputs.marker import write_marker
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.run.errors import StageFailed
from kcorpus.pipeline.run.orchestrate import execute_stage
from kcorpus.pipeline.run.stages import plan_stages
from kcorpus.transforms.vocab.files import write_wordpiece_dir
from packing_fixtures import kcbert_tokenizer_dir
from testdata_paths import ROOT, TESTDATA

SAMPLE = TESTDATA / "sample"
# A JSON value nested 100,000 brackets deep: the stdlib decoder raises RecursionError, not JSONDecodeError.
DEEP_JSON = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n"


def jsonl(path: Path) -> list[dict]:
    """The rows of a JSON-lines file, plain or `.zst`."""
    return [json.loads(line) for line in read_bytes(path).decode("utf-8").splitlines()]


def sample_profile(tmp_path: Path, nsmc_rows: int = 300, petitions: int = 20, extra: str = "") -> Path:
    """A profile over the first rows of the bundled NSMC and petitions slices (real data)."""
    nsmc = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    pets = (SAMPLE / "petitions_2017-08_head").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "nsmc.txt").write_text("".join(nsmc[: nsmc_rows + 1]), encoding="utf-8")
    (tmp_path / "petitions").write_text("".join(pets[:petitions]), encoding="utf-8")
    cfg = tmp_path / "profile.yaml"
    cfg.write_text(
        "sources:\n"
        f"  - {{name: nsmc, format: nsmc, paths: ['{tmp_path / 'nsmc.txt'}'], split_sentences: false}}\n"
        f"  - {{name: petitions, format: petitions, paths: ['{tmp_path / 'petitions'}']}}\n"
        f"output: {{num_shards: 2}}\n{extra}", encoding="utf-8")
    return cfg


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Path:
    """build-corpus of 300 NSMC comments and 20 petitions."""
    folder = tmp_path_factory.mktemp("corpus")
    out = folder / "corpus"
    assert main(["build-corpus", "--config", str(sample_profile(folder)), "--out", str(out),
                 "--local-mode", "in_memory"]) == 0
    return out


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory) -> Path:
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("tokenizer"))


def petitions_with_a_deep_line(tmp_path: Path) -> Path:
    """The first 4 real petitions with the deep line third: 5 records, 4 documents, 1 dead letter."""
    lines = (SAMPLE / "petitions_2017-08_head").read_text(encoding="utf-8").splitlines(keepends=True)[:4]
    path = tmp_path / "petitions_2017-08"
    path.write_text("".join(lines[:2]) + DEEP_JSON + "".join(lines[2:]), encoding="utf-8")
    return path


# --- 1. one record nested too deep -----------------------------------------------------------------------


def test_read_dead_letters_a_too_deep_json_line_and_reads_the_rest(tmp_path, capsys):
    path = petitions_with_a_deep_line(tmp_path)
    out = tmp_path / "p.jsonl"
    for fmt in ("petitions", "jsonl"):
        code = main(["read", "--format", fmt, str(path), "--out", str(out), "--option", "text_field=content",
                     "--max-dead-letter-fraction", "0.5"] if fmt == "jsonl" else
                    ["read", "--format", fmt, str(path), "--out", str(out), "--max-dead-letter-fraction", "0.5"])
        assert code == 0, fmt
        assert len(jsonl(out)) == 4
        (dead,) = jsonl(tmp_path / "p.jsonl.rejected.jsonl")
        assert (dead["path"], dead["line"], dead["reason"]) == (
            str(path), 3, "invalid_json: nested deeper than 1000 levels")
        assert dead["raw"].startswith('{"text": [[[')
    assert "invalid_json 1" in capsys.readouterr().out


def test_build_corpus_dead_letters_a_too_deep_json_line(tmp_path):
    path = petitions_with_a_deep_line(tmp_path)
    cfg = tmp_path / "p.yaml"
    cfg.write_text(f"sources:\n  - {{name: petitions, format: petitions, paths: ['{path}']}}\n"
                   "output: {num_shards: 1, max_dead_letter_fraction: 0.5}\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    stats = json.loads((out / "stats.json").read_text())["sources"]["petitions"]
    assert (stats["input"], stats["dead_lettered"]) == (5, 1)
    (dead,) = [r for f in sorted((out / "rejected").iterdir()) for r in jsonl(f) if r["reason"].startswith("invalid")]
    assert (dead["path"], dead["reason"]) == (str(path), "invalid_json: nested deeper than 1000 levels")


# --- 2. nothing kept --------------------------------------------------------------------------------------


def test_filters_that_drop_everything_fail_the_build_and_pack_refuses_the_empty_corpus(tmp_path, tokenizer, capsys):
    cfg = sample_profile(tmp_path, nsmc_rows=100, petitions=5)
    out = tmp_path / "corpus"
    # a typo: 2000 for 20 (every comment and petition sentence is shorter)
    code = main(["build-corpus", "--config", str(cfg), "--out", str(out), "--set", "filters.min_chars=2000",
                 "--set", "filters.max_chars=9000", "--local-mode", "in_memory"])
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"kcorpus build-corpus: error: source {name!r}: no document kept ({n} records in, 0 kept, {n} dropped, "
        f"0 dead-lettered); rule too_short (filters.min_chars) dropped {n}; see rejected/"
        for name, n in (("nsmc", 100), ("petitions", 5))
    ]
    packed = tmp_path / "packed"
    assert main(["pack", "--corpus", str(out), "--tokenizer", str(tokenizer), "--out", str(packed)]) == 2
    assert capsys.readouterr().err == (
        f"kcorpus pack: error: --corpus {out}: build-corpus kept no document (105 records in, 105 dropped: "
        "too_short 105; 0 dead-lettered); nothing to pack\n")
    assert not packed.exists()


# --- 10. what pack reads ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_pack_reads_the_shards_build_corpus_wrote_and_names_a_stray_file(small_corpus, tokenizer, tmp_path, caplog):
    corpus = tmp_path / "corpus"
    shutil.copytree(small_corpus, corpus)
    assert main(["pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(tmp_path / "a")]) == 0
    stray = corpus / "docs" / "extra.jsonl"
    shutil.copy(TESTDATA / "pack" / "corpus" / "docs" / "part-00000-of-00002.jsonl", stray)
    assert main(["pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(tmp_path / "b")]) == 0
    assert f"1 file(s) that build-corpus did not write are not packed: {stray}" in caplog.text
    counts = [json.loads((tmp_path / out / "manifest.json").read_text())["counts"] for out in "ab"]
    assert counts[0] == counts[1] and counts[0]["documents"] > 0
    (corpus / "docs" / "part-00001-of-00002.jsonl.zst").unlink()
    assert main(["pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(tmp_path / "c")]) == 2


# --- 3. train-vocab on something that is not text ---------------------------------------------------------


def test_train_vocab_refuses_a_pack_folder_and_a_cp949_file_before_training(small_corpus, tokenizer, tmp_path, capsys):
    packed = tmp_path / "packed"
    assert main(["pack", "--corpus", str(small_corpus), "--tokenizer", str(tokenizer), "--out", str(packed)]) == 0
    capsys.readouterr()
    vocab = tmp_path / "vocab"
    cp949 = TESTDATA / "readers" / "cp949_comments.txt"
    arrow = packed / "train" / "data-00000-of-00001.arrow"
    for given, named, problem in (
        (packed, arrow, "a binary file (a NUL byte at offset 6) (and 1 more such files)"),
        (cp949, cp949, "not UTF-8 (byte 0xc0 at offset 0)"),
    ):
        code = main(["train-vocab", "--kind", "wordpiece", "--vocab-size", "2000", "--input", str(given),
                     "--out", str(vocab), "--quiet"])
        assert code == 2
        assert capsys.readouterr().err == (
            f"kcorpus train-vocab: error: --input {named}: {problem}; train-vocab reads UTF-8 text or JSONL (a "
            "build-corpus output, not a pack folder; convert other encodings with iconv)\n")
        assert not vocab.exists()


# --- 4. user files in another encoding --------------------------------------------------------------------


def test_a_profile_saved_in_cp949_is_one_line_and_exit_2(tmp_path, capsys):
    profile = tmp_path / "sample.yaml"
    text = (ROOT / "configs" / "sample.yaml").read_text(encoding="utf-8")
    data = text.encode("cp949")
    profile.write_bytes(data)
    with pytest.raises(UnicodeDecodeError) as bad:
        data.decode("utf-8")
    line, byte = data[: bad.value.start].count(b"\n") + 1, data[bad.value.start]
    expected = f"{profile}:{line}: not UTF-8 (byte {byte:#x}); save the profile as UTF-8 (iconv -f cp949 -t utf-8)"
    for argv in (["build-corpus", "--config", str(profile), "--out", str(tmp_path / "out")], ["run", str(profile)]):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"kcorpus {argv[0]}: error: {expected}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample.yaml"]


def test_a_tokenizer_or_vocab_that_is_not_utf8_json_names_the_file(small_corpus, tokenizer, tmp_path, capsys):
    kcbert = TESTDATA / "vocabs" / "kcbert" / "vocab.txt"
    cp949 = tmp_path / "cp949" / "tokenizer.json"
    cp949.parent.mkdir()
    cp949.write_bytes((tokenizer / "tokenizer.json").read_text(encoding="utf-8").encode("cp949", errors="replace"))
    garbage = tmp_path / "garbage" / "tokenizer.json"
    garbage.parent.mkdir()
    garbage.write_text("<html>404</html>\n", encoding="utf-8")
    for tok, problem in ((cp949, "not UTF-8 (byte 0xa2 at offset 1964)"),
                         (garbage, "not a tokenizers JSON file (expected value at line 1 column 1)")):
        assert main(["pack", "--corpus", str(small_corpus), "--tokenizer", str(tok.parent),
                     "--out", str(tmp_path / "packed")]) == 2
        assert capsys.readouterr().err == (
            f"kcorpus pack: error: --tokenizer {tok}: {problem}; expected the tokenizer.json train-vocab writes\n")
    vocab = tmp_path / "vocab.txt"
    vocab.write_bytes(kcbert.read_text(encoding="utf-8").encode("cp949", errors="replace"))
    assert main(["vocab-report", str(vocab), str(kcbert), "--out", str(tmp_path / "report")]) == 2
    assert capsys.readouterr().err == f"kcorpus vocab-report: error: {vocab}:97: not UTF-8 (byte 0xa2); a vocab.txt is UTF-8\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cp949", "garbage", "vocab.txt"]


# --- 5. disk full -----------------------------------------------------------------------------------------


def full_disk_after(monkeypatch, nbytes: int, pattern: str) -> None:
    """Files whose name contains `pattern` take `nbytes` bytes, then raise ENOSPC as a full disk does (the
    same `OSError` a 512 KB tmpfs gives; a mount needs root, this works everywhere)."""
    create = FileSystems.create

    class FullDisk(io.RawIOBase):
        def __init__(self, path: str):
            self._raw = create(path)
            self.room = nbytes

        def writable(self) -> bool:
            return True

        def write(self, data) -> int:
            if len(data) > self.room:
                self._raw.write(bytes(data[: self.room]))
                self.room = 0
                raise OSError(errno.ENOSPC, "No space left on device")
            self.room -= len(data)
            return self._raw.write(data)

        def close(self) -> None:
            self._raw.close()
            super().close()

    monkeypatch.setattr(FileSystems, "create",
                        lambda path, *a, **k: FullDisk(path) if pattern in path else create(path, *a, **k))


def test_pack_on_a_full_disk_is_one_line_leaves_nothing_and_the_rerun_goes_ahead(
        small_corpus, tokenizer, tmp_path, capsys, monkeypatch):
    out = tmp_path / "packed"
    argv = ["pack", "--corpus", str(small_corpus), "--tokenizer", str(tokenizer), "--out", str(out),
            "--local-mode", "in_memory"]
    with monkeypatch.context() as patch:
        full_disk_after(patch, 4096, ".arrow.tmp-")
        assert main(argv) == 1
    # one line: Beam's log of the worker's error is left out
    assert capsys.readouterr().err == (
        f"kcorpus pack: error: --out {out}: no space left on device (ENOSPC) writing "
        f"{out}/train/data-00000-of-00001.arrow; the partial output was removed: free space or choose another "
        "folder, then run again\n")
    assert [p.name for p in out.rglob("*")] == [".kcorpus-owned.json"]
    assert json.loads((out / ".kcorpus-owned.json").read_text())["state"] == "failed"
    assert main(argv) == 0  # no --overwrite needed: nothing finished there
    assert json.loads((out / "manifest.json").read_text())["counts"]["sequences"] > 0


def test_build_corpus_on_a_full_disk_removes_its_partial_output(tmp_path, capsys, monkeypatch):
    cfg = sample_profile(tmp_path, nsmc_rows=100, petitions=5)
    out = tmp_path / "corpus"
    with monkeypatch.context() as patch:
        full_disk_after(patch, 100, "docs/part-00001")
        assert main(["build-corpus", "--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"kcorpus build-corpus: error: --out {out}: no space left on device (ENOSPC) writing "
                           f"{out}/docs/part-00001-of-00002.jsonl.zst; the partial output was removed")
    assert [p.name for p in out.rglob("*")] == [".kcorpus-owned.json"]


def test_a_killed_runs_leftovers_are_its_own_on_the_rerun(small_corpus, tokenizer, tmp_path, caplog):
    out = tmp_path / "packed"
    (out / "train").mkdir(parents=True)
    (out / "train" / ".data-00000-of-00001.arrow.tmp-0123").write_bytes(b"ARROW1\x00\x00")
    write_marker(str(out), "pack", state="running")  # the process was killed: no `complete`, no lock left
    assert main(["pack", "--corpus", str(small_corpus), "--tokenizer", str(tokenizer), "--out", str(out)]) == 0
    assert f"--out {out}: removing what a kcorpus pack run that did not finish left there (train)" in caplog.text
    assert not list(out.rglob("*.tmp-*"))
    assert json.loads((out / ".kcorpus-owned.json").read_text())["state"] == "complete"


# --- 6. impossible settings -------------------------------------------------------------------------------


def test_pack_refuses_rows_longer_than_the_model_and_more_shards_than_documents(small_corpus, tmp_path, capsys):
    vocab = tmp_path / "kcbert"
    tokens = (TESTDATA / "vocabs" / "kcbert" / "vocab.txt").read_text(encoding="utf-8").splitlines()
    write_wordpiece_dir(str(vocab), tokens, model_max_length=512)  # as train-vocab writes it
    out = tmp_path / "packed"
    base = ["pack", "--corpus", str(small_corpus), "--tokenizer", str(vocab), "--out", str(out)]
    assert main([*base, "--max-length", "100000"]) == 2
    assert capsys.readouterr().err == (
        "kcorpus pack: error: --max-length 100000 is more than the tokenizer's model_max_length 512 "
        "(tokenizer_config.json): the model's position embeddings would not take the rows; lower it, or pass "
        "--allow-longer-than-model for a model built that long\n")
    documents = json.loads((small_corpus / "stats.json").read_text())["total"]["kept"]
    train = math.ceil(documents * 0.99)
    assert main([*base, "--num-shards", "5000", "--num-validation-shards", "2"]) == 2
    assert capsys.readouterr().err == (
        f"kcorpus pack: error: --num-shards 5000 is more than the about {train} documents the corpus has for "
        f"that split: the other shards would be empty files; use at most {train} (or leave it out: "
        "--shard-size-mb picks the count)\n")
    assert not out.exists()
    assert main([*base, "--max-length", "1024", "--allow-longer-than-model", "--num-shards", str(train)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(list((out / "train").glob("*.arrow"))) == train and manifest["counts"]["sequences"] > 0


def test_a_vocab_size_the_corpus_cannot_fill_is_a_clear_warning(small_corpus, tmp_path, caplog):
    out = tmp_path / "vocab"
    assert main(["train-vocab", "--kind", "wordpiece", "--vocab-size", "2000000", "--input", str(small_corpus),
                 "--out", str(out), "--quiet"]) == 0
    size = len((out / "vocab.txt").read_text(encoding="utf-8").splitlines())
    assert size < 100_000
    assert (f"--vocab-size 2,000,000 asks for more tokens than the corpus gives: the vocab has {size:,}, every "
            f"piece the trainer found; a model sized for 2,000,000 ids would never use {2_000_000 - size:,} of them: "
            f"set it to {size} or lower (or train on more text)") in caplog.text


# --- 9. errors name every mistake, in the words the user edits --------------------------------------------


def test_every_set_mistake_is_named_at_once(tmp_path, capsys):
    sample = str(ROOT / "configs" / "sample.yaml")
    # a type error in `filters` used to hide the section's own rule (min_hangul_ratio in [0, 1])
    assert main(["build-corpus", "--config", sample, "--out", str(tmp_path / "o"), "--set", "filters.min_chars=abc",
                 "--set", "filters.min_hangul_ratio=2", "--set", "dedup.near.bands=0"]) == 2
    assert capsys.readouterr().err.splitlines() == [f"kcorpus build-corpus: error: {sample}: {line}" for line in (
        "filters.min_chars: expected an integer, got 'abc'",
        "dedup.near: ngram, bands and rows must be >= 1",
        "filters: min_hangul_ratio must be in [0, 1], got 2.0")]
    # an override that addresses nothing used to stop the check of the others
    assert main(["build-corpus", "--config", sample, "--out", str(tmp_path / "o"), "--set", "sources.nosuch.preset=x",
                 "--set", "sources.nsmc.preset=bogus", "--set", "filters.min_chars"]) == 2
    assert capsys.readouterr().err.splitlines() == [f"kcorpus build-corpus: error: {sample}: {line}" for line in (
        "override 'sources.nosuch': no list element 'nosuch'",
        "override 'filters.min_chars': expected KEY=VALUE (e.g. filters.min_chars=5)",
        "sources[0].preset: unknown clean preset 'bogus'; valid: kcelectra, kcbert, longform, none")]
    assert not (tmp_path / "o").exists()


def test_kcorpus_run_names_the_profile_keys_a_stage_error_or_warning_means(tmp_path, caplog):
    stages = {s.name: s for s in plan_stages(load_profile(ROOT / "configs" / "sample.yaml"))}

    def train_vocab(job, beam_args):
        logging.getLogger("kcorpus.pipeline.vocab.train").warning("--vocab-size 2,000,000 asks for more tokens")
        raise ValueError("raise --vocab-size or set --limit-alphabet (--num-unused, --unused); --input a.arrow")

    def pack(job, beam_args):
        raise UserError(["--max-length 100000 is more than 512; pass --allow-longer-than-model"])

    with pytest.raises(StageFailed) as failed:
        execute_stage(stages["vocab"], None, train_vocab, [], str(tmp_path / "v.partial"), str(tmp_path / "v"), {})
    assert ("raise vocab.vocab_size or set vocab.limit_alphabet (vocab.num_unused, vocab.num_unused); --input "
            "a.arrow") in str(failed.value)
    assert "vocab.vocab_size 2,000,000 asks for more tokens" in caplog.text
    with pytest.raises(UserError) as refused:
        execute_stage(stages["pack"], None, pack, [], str(tmp_path / "p.partial"), str(tmp_path / "p"), {})
    assert refused.value.errors[0] == "pack.max_length 100000 is more than 512; pass pack.allow_longer_than_model"


def test_the_num_unused_flag_matches_its_profile_key_and_the_old_name_works():
    parser = argparse.ArgumentParser()
    train_vocab_command.add_arguments(parser)
    base = ["--kind", "wordpiece", "--vocab-size", "100", "--input", "x", "--out", "y"]
    for flag in ("--num-unused", "--unused"):
        assert train_vocab_command.job_from_args(parser.parse_args([*base, flag, "7"])).config.num_unused == 7


# --- 10. smaller ------------------------------------------------------------------------------------------


def test_build_corpus_dead_letters_a_broken_symlink_as_read_does(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    rows = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:51]
    (folder / "a.txt").write_text("".join(rows), encoding="utf-8")
    (folder / "b.txt").symlink_to(tmp_path / "gone.txt")
    reason = f"unreadable_file: a symbolic link to {tmp_path / 'gone.txt'}, which does not exist"
    for paths in ([str(folder)], [str(folder / "*.txt")]):
        cfg = tmp_path / "p.yaml"
        cfg.write_text(json.dumps({"sources": [{"name": "nsmc", "format": "nsmc", "paths": paths}],
                                   "output": {"num_shards": 1, "max_dead_letter_fraction": 0.05}}), encoding="utf-8")
        out = tmp_path / "out"
        assert main(["build-corpus", "--config", str(cfg), "--out", str(out), "--local-mode", "in_memory",
                     "--overwrite"]) == 0
        (dead,) = jsonl(out / "rejected" / "dead_letter.jsonl.zst")
        assert (dead["path"], dead["reason"]) == (str(folder / "b.txt"), reason)
        stats = json.loads((out / "stats.json").read_text())["sources"]["nsmc"]
        assert (stats["input"], stats["dead_lettered"], stats["reconciled"]) == (51, 1, True)
    cfg.write_text(json.dumps({"sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(folder / "b.txt")]}]}))
    assert main(["build-corpus", "--config", str(cfg), "--out", str(tmp_path / "o2")]) == 2
    assert capsys.readouterr().err.endswith(
        f"{folder / 'b.txt'} is a symbolic link to {tmp_path / 'gone.txt'}, which does not exist (allow_missing: "
        "true on the source allows that)\n")


def test_a_huge_line_dropped_as_too_long_is_stored_cut_with_its_length_and_digest(tmp_path):
    rows = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:21]
    huge = "이 영화 정말 최고였어요 배우들 연기도 좋고 " * 80_000  # 2 MB of one real-looking comment
    (tmp_path / "nsmc.txt").write_text("".join(rows) + f"99999999\t{huge}\t1\n", encoding="utf-8")
    cfg = tmp_path / "p.yaml"
    cfg.write_text(json.dumps({
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(tmp_path / "nsmc.txt")], "split_sentences": False}],
        "filters": {"max_chars": 1000}, "output": {"num_shards": 1, "dropped": "all"}}), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", str(cfg), "--out", str(out), "--local-mode", "in_memory"]) == 0
    (record,) = [r for r in jsonl(out / "rejected" / "dropped-00000-of-00001.jsonl.zst") if r["id"] == "nsmc:99999999"]
    text = huge.strip()
    assert record["reason"] == "too_long" and record["text"] == text[:10_000]
    assert (record["text_chars"], record["text_sha256"]) == (len(text), hashlib.sha256(text.encode()).hexdigest())
    assert len(read_bytes(out / "rejected" / "dropped-00000-of-00001.jsonl.zst")) < 100_000
