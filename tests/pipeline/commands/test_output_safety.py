"""The command-line contract on outputs: user files survive `--overwrite`, inputs are never written, locks hold.

Every case runs the real command (`kcorpus.pipeline.cli.main`, or a subprocess where stdout is a pipe) and
hashes the user's files before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from kcorpus.pipeline.cli import main
from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs.lock import LOCK_FILE, acquire_lock, release_lock
from kcorpus.pipeline.outputs.marker import MARKER_FILE
from kcorpus.pipeline.profile.load import load_profile
from kcorpus.pipeline.run import orchestrate
from packing_fixtures import CORPUS, kcbert_tokenizer_dir
from testdata_paths import TESTDATA

PLANTED = TESTDATA / "planted"


def add_user_files(folder: Path) -> None:
    for rel, text in {"thesis.txt": "제 논문의 마지막 장입니다.\n", "sub/notes.md": "# 메모\n- 말뭉치 정리\n"}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")


def hashes(folder: Path, *, skip: Sequence[str] = ()) -> dict[str, str]:
    """sha256 of every file under a folder (relative path -> digest), but those under `skip` entries."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).parts[0] not in skip
    }


def error_of(capsys: pytest.CaptureFixture) -> str:
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def kcbert(tmp_path_factory) -> Path:
    return kcbert_tokenizer_dir(tmp_path_factory.mktemp("kcbert"))


def pack_argv(corpus: Path, tokenizer: Path, out: Path | str, *extra: str) -> list[str]:
    return ["pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer), "--out", str(out), "--max-length",
            "128", "--num-shards", "1", "--num-validation-shards", "1", "--local-mode", "in_memory", *extra]


# ---- pack -------------------------------------------------------------------------------------------------


def test_pack_overwrite_refuses_a_folder_of_user_files_and_touches_nothing(tmp_path, kcbert, capsys):
    out = tmp_path / "mine"
    add_user_files(out)
    before = hashes(out)
    assert main(pack_argv(CORPUS, kcbert, out, "--overwrite")) == 2
    assert error_of(capsys) == (
        f"kcorpus pack: error: --out {out} is not empty and kcorpus did not create it (no .kcorpus-owned.json); "
        "kcorpus never deletes or mixes files into a folder it does not own: choose a new or empty folder"
    )
    assert hashes(out) == before


def test_pack_out_dot_holding_its_corpus_and_vocab_refuses_and_deletes_nothing(tmp_path, kcbert, capsys,
                                                                               monkeypatch):
    shutil.copytree(CORPUS, tmp_path / "mycorpus")
    shutil.copytree(kcbert, tmp_path / "myvocab")
    add_user_files(tmp_path)
    before = hashes(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(pack_argv(Path("mycorpus"), Path("myvocab"), ".", "--overwrite")) == 2
    assert error_of(capsys) == (
        "kcorpus pack: error: input mycorpus is inside the output folder .; choose an output folder that "
        "holds no input"
    )
    assert main(pack_argv(Path("mycorpus"), Path("myvocab"), "mycorpus", "--overwrite")) == 2
    assert error_of(capsys) == "kcorpus pack: error: output mycorpus is the input mycorpus; kcorpus never writes over an input"
    assert hashes(tmp_path) == before


def test_pack_overwrite_replaces_its_own_pack_and_keeps_user_files_byte_identical(tmp_path, kcbert, capsys):
    out = tmp_path / "pack"
    assert main(pack_argv(CORPUS, kcbert, out)) == 0
    first = hashes(out, skip=(MARKER_FILE,))
    add_user_files(out)
    user = hashes(out, skip=tuple(first) + ("train", "validation", "rejected", MARKER_FILE))
    assert set(user) == {"thesis.txt", "sub/notes.md"}
    assert main(pack_argv(CORPUS, kcbert, out)) == 2
    assert "holds a previous pack output (dataset_dict.json, manifest.json, rejected); pass --overwrite" in error_of(capsys)
    assert main(pack_argv(CORPUS, kcbert, out, "--overwrite")) == 0
    assert hashes(out, skip=(MARKER_FILE,)) == {**first, **user}


def test_pack_with_a_bad_tokenizer_leaves_a_previous_pack_in_place(tmp_path, kcbert, capsys):
    out = tmp_path / "pack"
    assert main(pack_argv(CORPUS, kcbert, out)) == 0
    before = hashes(out)
    (tmp_path / "novocab").mkdir()
    assert main(pack_argv(CORPUS, tmp_path / "novocab", out, "--overwrite")) == 2
    assert "expected a folder with tokenizer.json" in error_of(capsys)
    assert hashes(out) == before


def test_a_second_pack_into_a_locked_folder_is_refused_naming_the_holder(tmp_path, kcbert, capsys):
    out = tmp_path / "pack"
    out.mkdir()
    token = acquire_lock(str(out), "pack")  # another pack is writing here
    try:
        assert main(pack_argv(CORPUS, kcbert, out)) == 2
        message = error_of(capsys)
        assert message.startswith(f"kcorpus pack: error: {out} is being written by kcorpus pack (pid {os.getpid()} "
                                  f"on {socket.gethostname()}, since ")
        assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]
    finally:
        release_lock(str(out), token)


# ---- build-corpus -----------------------------------------------------------------------------------------


def planted_profile(tmp_path: Path, fmt: str = "jsonl") -> Path:
    profile = {
        "sources": [{"name": name, "format": fmt, "paths": [str(PLANTED / f"{name}.jsonl")]} for name in "ab"],
        "dedup": {"near": {"enabled": False}},
        "output": {"num_shards": 2},
    }
    path = tmp_path / f"planted-{fmt}.yaml"
    path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    return path


def build_argv(profile: Path, out: Path, *extra: str) -> list[str]:
    return ["build-corpus", "--config", str(profile), "--out", str(out), "--local-mode", "in_memory", *extra]


def test_build_corpus_overwrite_keeps_user_files_and_refuses_foreign_folders(tmp_path, capsys):
    foreign = tmp_path / "foreign"
    add_user_files(foreign)
    before = hashes(foreign)
    assert main(build_argv(planted_profile(tmp_path), foreign, "--overwrite")) == 2
    assert "is not empty and kcorpus did not create it" in error_of(capsys)
    assert hashes(foreign) == before

    out = tmp_path / "corpus"
    assert main(build_argv(planted_profile(tmp_path), out)) == 0
    first = hashes(out, skip=(MARKER_FILE,))
    add_user_files(out)
    # a misspelled format fails validation: the previous corpus and the user's files stay as they were
    whole = hashes(out)
    assert main(build_argv(planted_profile(tmp_path, fmt="jsnol"), out, "--overwrite")) == 2
    assert error_of(capsys).endswith("sources[1].format: unknown format 'jsnol'; valid: modu, wikiextractor, "
                                     "wiki-dump, petitions, comments, nsmc, text, jsonl, parquet, hf-datasets")
    assert hashes(out) == whole
    assert main(build_argv(planted_profile(tmp_path), out, "--overwrite")) == 0
    user = {rel: digest for rel, digest in whole.items() if rel in ("thesis.txt", "sub/notes.md")}
    assert hashes(out, skip=(MARKER_FILE,)) == {**first, **user}


def test_build_corpus_refuses_an_output_inside_its_sources(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(PLANTED, data)
    profile = {"sources": [{"name": "a", "format": "jsonl", "paths": [str(data / "a.jsonl")]}]}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(profile), encoding="utf-8")
    assert main(build_argv(tmp_path / "p.yaml", data / "a.jsonl", "--overwrite")) == 2
    # found by the checks before any work (the output is a file), before the overlap check would say "is the input"
    assert error_of(capsys) == (
        f"kcorpus build-corpus: error: --out {data / 'a.jsonl'}: is a file; expected a folder "
        "(or a path where one can be created)"
    )
    assert (data / "a.jsonl").read_bytes() == (PLANTED / "a.jsonl").read_bytes()


# ---- kcorpus run ------------------------------------------------------------------------------------------


def fake_runners() -> dict[str, Any]:
    """Stage functions that write each stage's minimal layout (the real stages run in test_run_e2e.py)."""

    def corpus(job: Any, _: Sequence[str]) -> None:
        (Path(job.out) / "text").mkdir(parents=True, exist_ok=True)
        (Path(job.out) / "text" / "part-00000-of-00001.txt").write_text("영화 정말 재밌어요\n", encoding="utf-8")

    def vocab(job: Any, _: Sequence[str]) -> None:
        (Path(job.out) / "vocab.txt").write_text("[PAD]\n[UNK]\n영\n", encoding="utf-8")

    def pack(job: Any, _: Sequence[str]) -> None:
        (Path(job.out) / "manifest.json").write_text("{}", encoding="utf-8")

    return {"corpus": corpus, "vocab": vocab, "pack": pack}


def run_profile(tmp_path: Path) -> Path:
    (tmp_path / "comments.txt").write_text("영화 정말 재밌어요\n", encoding="utf-8")
    profile = {"sources": [{"name": "nsmc", "format": "text", "paths": ["comments.txt"]}],
               "vocab": {"kind": "wordpiece", "vocab_size": 100}}
    (tmp_path / "profile.yaml").write_text(yaml.safe_dump(profile), encoding="utf-8")
    return tmp_path / "profile.yaml"


def run_fake(profile: Path, out: Path, **kwargs: Any) -> list:
    return orchestrate.run(load_profile(profile), out, runners=fake_runners(), **kwargs)


def test_run_never_replaces_a_folder_or_stage_it_did_not_write(tmp_path, capsys):
    profile = run_profile(tmp_path)
    out = tmp_path / "mine"
    add_user_files(out)
    (out / "corpus").mkdir()
    (out / "corpus" / "my_corpus.txt").write_text("내 말뭉치\n", encoding="utf-8")
    (out / "report.html").write_text("<p>my report</p>", encoding="utf-8")
    before = hashes(out)
    assert main(["run", str(profile), "--out", str(out)]) == 2
    assert error_of(capsys) == (
        f"kcorpus run: error: --out {out} is not empty and kcorpus did not create it (no .kcorpus-owned.json); "
        "kcorpus never deletes or mixes files into a folder it does not own: choose a new or empty folder"
    )
    assert hashes(out) == before

    owned = tmp_path / "runs"
    run_fake(profile, owned)
    shutil.rmtree(owned / "corpus")
    (owned / "corpus").mkdir()
    (owned / "corpus" / "my_corpus.txt").write_text("내 말뭉치\n", encoding="utf-8")
    with pytest.raises(OutputError) as err:
        run_fake(profile, owned, force=True)
    assert str(err.value) == (
        f"{owned / 'corpus'} was not written by kcorpus run (no _STAGE.json); kcorpus never replaces it: move it "
        "away or choose another run folder"
    )
    assert (owned / "corpus" / "my_corpus.txt").read_text(encoding="utf-8") == "내 말뭉치\n"


def test_run_force_keeps_user_files_in_its_folder_byte_identical(tmp_path):
    profile = run_profile(tmp_path)
    out = tmp_path / "runs"
    run_fake(profile, out)
    add_user_files(out)
    stages = ("corpus", "vocab", "pack", MARKER_FILE)
    before = hashes(out, skip=stages)
    assert set(before) == {"thesis.txt", "sub/notes.md"}
    results = run_fake(profile, out, force=True)
    assert [r.status for r in results] == ["ran", "ran", "ran"]
    assert hashes(out, skip=stages) == before
    assert json.loads((out / MARKER_FILE).read_text())["command"] == "run"


def test_run_refuses_a_locked_run_folder_naming_the_holder(tmp_path, capsys):
    profile = run_profile(tmp_path)
    out = tmp_path / "runs"
    run_fake(profile, out)
    token = acquire_lock(str(out), "run")
    try:
        assert main(["run", str(profile), "--out", str(out)]) == 2
        assert f"kcorpus run: error: {out} is being written by kcorpus run (pid {os.getpid()}" in error_of(capsys)
    finally:
        release_lock(str(out), token)


def test_a_run_folder_from_before_markers_is_adopted_only_when_it_holds_stages_alone(tmp_path):
    profile = run_profile(tmp_path)
    out = tmp_path / "runs"
    run_fake(profile, out)
    (out / MARKER_FILE).unlink()
    assert [r.status for r in run_fake(profile, out)] == ["skipped"] * 3
    (out / MARKER_FILE).unlink()
    add_user_files(out)
    with pytest.raises(OutputError, match="kcorpus did not create it"):
        run_fake(profile, out)


# ---- vocab-merge and vocab-report -------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["vocab-merge", "vocab-report"])
def test_vocab_commands_refuse_to_mix_into_a_foreign_folder(tmp_path, kcbert, capsys, command):
    out = tmp_path / "mine"
    add_user_files(out)
    before = hashes(out)
    vocab = TESTDATA / "vocabs" / "kcbert"
    assert main([command, str(vocab), str(vocab), "--out", str(out)]) == 2
    assert error_of(capsys).startswith(f"kcorpus {command}: error: --out {out} is not empty and kcorpus did not")
    assert hashes(out) == before


# ---- read: files and streams ------------------------------------------------------------------------------

NSMC = TESTDATA / "readers" / "nsmc_ratings_test_slice.txt"


def kcorpus(*args: str, stdin: bytes = b"", cwd: Path | None = None, shell: str | None = None) -> Mapping:
    command = shell or " ".join([f"{sys.executable} -m kcorpus.pipeline.cli", *args])
    done = subprocess.run(command, shell=True, input=stdin, capture_output=True, cwd=cwd, executable="/bin/bash",
                          check=False)
    return {"rc": done.returncode, "out": done.stdout, "err": done.stderr.decode()}


def test_read_out_equal_to_its_input_is_refused_and_the_input_untouched(tmp_path, capsys):
    data = tmp_path / "ratings.txt"
    shutil.copy(NSMC, data)
    before = hashes(tmp_path)
    assert main(["read", str(data), "--format", "nsmc", "--out", str(data)]) == 2
    assert error_of(capsys) == f"kcorpus read: error: output {data} is the input {data}; kcorpus never writes over an input"
    assert main(["read", str(data), "--format", "nsmc", "--out", str(tmp_path / "o.jsonl"), "--dropped", str(data)]) == 2
    assert main(["read", str(tmp_path), "--format", "nsmc", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert error_of(capsys) == (f"kcorpus read: error: output {tmp_path / 'o.jsonl'} is inside the input folder "
                                f"{tmp_path}; write it outside that folder")
    assert main(["read", str(data), "--format", "nsmc", "--out", str(tmp_path / "no" / "o.jsonl")]) == 2
    assert error_of(capsys) == f"kcorpus read: error: --out {tmp_path}/no/o.jsonl: the folder {tmp_path}/no does not exist"
    assert hashes(tmp_path) == before


@pytest.mark.slow
def test_read_streams_stdin_to_stdout_with_explicit_side_files(tmp_path):
    refused = kcorpus("read", str(NSMC), "--format", "nsmc", "--out", "-", cwd=tmp_path)
    assert refused["rc"] == 2 and refused["out"] == b""
    assert refused["err"].strip().splitlines()[-1] == (
        "kcorpus read: error: --out - writes the documents to stdout: give --dead-letter PATH and --dropped PATH "
        "for the other records (/dev/null discards them; they are still counted)")
    assert list(tmp_path.iterdir()) == []  # no file named '-' or '-.rejected.jsonl'
    streamed = kcorpus("read", "-", "--format", "nsmc", "--out", "-", "--dead-letter", "bad.jsonl", "--dropped",
                       "/dev/null", stdin=NSMC.read_bytes(), cwd=tmp_path)
    assert streamed["rc"] == 0
    docs = [json.loads(line) for line in streamed["out"].decode().splitlines()]
    assert docs[0] == {"id": "nsmc:6270596", "text": "굳 ㅋ", "source": "nsmc", "metadata": {"label": 1}}
    assert len(docs) == 42
    assert streamed["err"].strip().splitlines()[-1] == (
        "read nsmc as nsmc: 45 records -> 42 documents, 0 dead-lettered, 3 dropped (empty 3)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]
    modu = kcorpus("read", "-", "--format", "modu", "--out", "x.jsonl", cwd=tmp_path)
    assert modu["rc"] == 2 and "--format modu needs a path" in modu["err"]


@pytest.mark.slow
@pytest.mark.parametrize("out", ["/dev/stdout", "- --dead-letter /dev/null --dropped /dev/null"])
def test_read_into_a_closed_pipe_ends_quietly(tmp_path, out):
    big = tmp_path / "big.txt"
    big.write_text("".join(f"한국어 문장 {i}번입니다\n" for i in range(200_000)), encoding="utf-8")
    cli = f"{sys.executable} -m kcorpus.pipeline.cli"
    done = kcorpus(shell=f"{cli} read {big} --format text --out {out} | head -1; exit ${{PIPESTATUS[0]}}")
    assert done["rc"] == 0
    assert json.loads(done["out"])["id"] == "text:big.txt:0"
    assert "BrokenPipeError" not in done["err"] and "Traceback" not in done["err"]


def test_clean_into_a_closed_pipe_ends_quietly(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("".join(f"한국어 문장 {i}번입니다\n" for i in range(200_000)), encoding="utf-8")
    cli = f"{sys.executable} -m kcorpus.pipeline.cli"
    done = kcorpus(shell=f"cat {big} | {cli} clean - | head -1; exit ${{PIPESTATUS[1]}}")
    assert (done["rc"], done["out"], done["err"]) == (0, "한국어 문장 0번입니다\n".encode(), "")
