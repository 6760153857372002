"""pipeline/outputs/: ownership markers, overwrite of a command's own entries only, overlap checks, locks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kcorpus.pipeline.errors import OutputError
from kcorpus.pipeline.outputs import holder
from kcorpus.pipeline.outputs.claim import check_output, claim_output
from kcorpus.pipeline.outputs.holder import holder_is_gone, process_identity, start_ticks
from kcorpus.pipeline.outputs.lock import LOCK_FILE, TAKEOVER_FILE, acquire_lock, read_lock, release_lock
from kcorpus.pipeline.outputs.marker import MARKER_FILE, read_marker
from kcorpus.pipeline.outputs.overlap import check_distinct_files, check_separate


def user_files(folder: Path) -> dict[str, bytes]:
    """A user's files: a thesis, notes in a sub-folder, a name a command also writes one level down."""
    files = {
        "thesis.txt": "제 논문의 마지막 장입니다.\n".encode(),
        "sub/notes.md": "# 메모\n- 토크나이저 비교\n".encode(),
        "data/train/keep.bin": bytes(range(256)),
    }
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return files


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_new_and_empty_folders_are_claimed_with_a_marker_and_unlocked_after(tmp_path):
    out = tmp_path / "new" / "pack"
    with claim_output(check_output(str(out), "pack")):
        assert read_lock(str(out))["command"] == "pack"
        assert read_lock(str(out))["pid"] == os.getpid()
    marker = json.loads((out / MARKER_FILE).read_text())
    assert (marker["owner"], marker["command"]) == ("kcorpus", "pack")
    assert {"kcorpus_version", "created_at", "updated_at"} <= marker.keys()
    assert not (out / LOCK_FILE).exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    check_output(str(empty), "build-corpus")


def test_a_foreign_non_empty_folder_is_refused_even_with_overwrite(tmp_path):
    before = user_files(tmp_path)
    with pytest.raises(OutputError) as err:
        check_output(str(tmp_path), "pack", overwrite=True)
    assert str(err.value) == (
        f"--out {tmp_path} is not empty and kcorpus did not create it (no .kcorpus-owned.json); kcorpus never "
        "deletes or mixes files into a folder it does not own: choose a new or empty folder"
    )
    assert snapshot(tmp_path) == before


def test_overwrite_removes_only_the_commands_own_entries(tmp_path):
    out = tmp_path / "pack"
    with claim_output(check_output(str(out), "pack")):
        (out / "train").mkdir()
        (out / "train" / "data-00000-of-00001.arrow").write_bytes(b"old shard")
        (out / "manifest.json").write_text("{}")
    mine = user_files(out)
    with pytest.raises(OutputError, match=r"holds a previous pack output \(manifest.json, train\); pass --overwrite"):
        check_output(str(out), "pack")
    plan = check_output(str(out), "pack", overwrite=True)
    assert plan.remove == ("manifest.json", "train")
    with claim_output(plan):
        pass
    assert snapshot(out) == {**mine, MARKER_FILE: (out / MARKER_FILE).read_bytes()}


def test_another_commands_folder_is_refused(tmp_path):
    with claim_output(check_output(str(tmp_path / "c"), "build-corpus")):
        (tmp_path / "c" / "stats.json").write_text("{}")
    with pytest.raises(OutputError, match="holds the output of kcorpus build-corpus, not of pack"):
        check_output(str(tmp_path / "c"), "pack", overwrite=True)


def test_outputs_equal_to_inside_or_around_an_input_are_refused(tmp_path, monkeypatch):
    corpus, vocab = tmp_path / "corpus", tmp_path / "vocab"
    (corpus / "docs").mkdir(parents=True)
    vocab.mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match=r"input .*/corpus is inside the output folder \."):
        check_output(".", "pack", [str(corpus), str(vocab)], overwrite=True)
    with pytest.raises(OutputError, match="is the input"):
        check_output(str(corpus), "pack", [str(corpus), str(vocab)])
    with pytest.raises(OutputError, match="is inside the input folder"):
        check_output(str(corpus / "pack"), "pack", [str(corpus), str(vocab)])
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(OutputError, match="is the input"):
        check_separate([str(tmp_path / "a.txt")], [str(tmp_path / "*.txt")])
    with pytest.raises(OutputError, match="is inside the input folder"):
        check_separate([str(tmp_path / "x" / "out.txt")], [str(tmp_path / "**" / "*.txt")])
    check_separate([str(tmp_path / "out")], [str(tmp_path / "*.txt")])
    with pytest.raises(OutputError, match="reads files, not a stream"):
        check_output(str(tmp_path / "o"), "pack", ["-"])
    with pytest.raises(OutputError, match="writes a folder, not a stream"):
        check_output("-", "pack")
    with pytest.raises(OutputError, match="--dropped o.jsonl is also --out"):
        check_distinct_files([("--out", "o.jsonl"), ("--dead-letter", "d.jsonl"), ("--dropped", "o.jsonl")])


def test_a_second_writer_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    token = acquire_lock(str(out), "pack")
    with pytest.raises(OutputError) as err:
        check_output(str(out), "pack")
    host = socket.gethostname()
    assert str(err.value).startswith(f"{out} is being written by kcorpus pack (pid {os.getpid()} on {host}, since ")
    assert str(err.value).endswith("; wait for it to finish (or stop it), or choose another folder")
    with pytest.raises(OutputError, match="is being written by kcorpus pack"):
        acquire_lock(str(out), "pack")  # the atomic create refuses too, not only the early check
    release_lock(str(out), token)
    assert read_lock(str(out)) is None


def test_a_stale_lock_without_proof_is_reported_with_how_to_clear_it(tmp_path):
    """A lock that does not record the holder's start time, boot and pid namespace is never taken over."""
    out = tmp_path / "out"
    out.mkdir()
    holder = {"pid": dead_pid(), "host": socket.gethostname(), "command": "build-corpus",
              "started_at": "2026-11-22T09:00:00+00:00"}
    (out / LOCK_FILE).write_text(json.dumps(holder))
    with pytest.raises(OutputError) as err:
        check_output(str(out), "build-corpus")
    assert str(err.value) == (
        f"{out} is locked by kcorpus build-corpus (pid {holder['pid']} on {holder['host']}, since "
        f"2026-11-22T09:00:00+00:00), which is no longer running; if no other kcorpus writes there, delete "
        f"{out / LOCK_FILE} and run again"
    )


def test_a_failed_run_releases_the_lock_and_keeps_the_marker(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError), claim_output(check_output(str(out), "train-vocab")):
        raise RuntimeError("trainer crashed")
    assert read_lock(str(out)) is None
    assert read_marker(str(out))["command"] == "train-vocab"
    check_output(str(out), "train-vocab")  # nothing of its own there yet: a rerun needs no --overwrite


def test_an_output_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file; vocab-report writes a folder"):
        check_output(str(tmp_path / "f"), "vocab-report")


def test_a_writer_that_finished_between_the_check_and_the_lock_is_not_written_over(tmp_path):
    out = tmp_path / "vocab"
    late = check_output(str(out), "train-vocab")  # checked while the folder is still empty
    with claim_output(check_output(str(out), "train-vocab")):
        (out / "vocab.txt").write_text("[PAD]\n")
    with pytest.raises(OutputError, match="holds a previous train-vocab output"), claim_output(late):
        pass
    assert (out / "vocab.txt").read_text() == "[PAD]\n" and read_lock(str(out)) is None


def killed_holder(out: Path) -> dict:
    """The lock of a real kcorpus process that died holding it (as after kill -9): never released."""
    code = "import sys; from kcorpus.pipeline.outputs.lock import acquire_lock; acquire_lock(sys.argv[1], 'pack')"
    subprocess.run([sys.executable, "-c", code, str(out)], check=True)
    return read_lock(str(out))


def test_a_dead_holders_lock_is_taken_over_with_one_warning(tmp_path, caplog):
    out = tmp_path / "pack"
    with claim_output(check_output(str(out), "pack")):
        (out / "train").mkdir()  # the killed run's partial output
    (out / MARKER_FILE).write_text(json.dumps({**read_marker(str(out)), "state": "running"}))
    dead = killed_holder(out)
    assert holder_is_gone(dead)
    with claim_output(check_output(str(out), "pack")):
        assert read_lock(str(out))["pid"] == os.getpid()
    takeovers = [r.getMessage() for r in caplog.records if "taking over" in r.getMessage()]
    assert takeovers == [
        (
            f"{out}: taking over the lock of kcorpus pack (pid {dead['pid']} on {dead['host']}, since "
            f"{dead['started_at']}), which is no longer running"
        )
    ]
    assert not (out / "train").exists() and read_lock(str(out)) is None
    assert not (out / TAKEOVER_FILE).exists()


def test_a_reused_pid_proves_the_holder_gone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    holder = {**process_identity(), "command": "pack", "started_at": "2026-11-22T09:00:00+00:00"}
    assert not holder_is_gone(holder)  # this very process: alive
    reused = {**holder, "pid_start": holder["pid_start"] - 1}  # the pid now names a later process
    assert holder_is_gone(reused)
    (out / LOCK_FILE).write_text(json.dumps(reused))
    token = acquire_lock(str(out), "pack")
    assert read_lock(str(out))["token"] == token


@pytest.mark.parametrize(
    "change",
    [
        {"host": "elsewhere"},
        {"boot_id": "0000"},
        {"pid_ns": "pid:[1]"},
        {"pid_start": None},
        {"pid": "41233"},
    ],
    ids=["another-host", "another-boot", "another-container", "no-start-time", "odd-pid"],
)
def test_a_holder_in_doubt_is_refused_as_before(tmp_path, change):
    out = tmp_path / "out"
    out.mkdir()
    holder = {**killed_holder(out), **change}
    (out / LOCK_FILE).write_text(json.dumps(holder))
    assert not holder_is_gone(holder)
    with pytest.raises(OutputError, match="is locked by|is being written by"):
        check_output(str(out), "pack")
    with pytest.raises(OutputError, match="is locked by|is being written by"):
        acquire_lock(str(out), "pack")
    assert read_lock(str(out)) == holder


def test_a_takeover_in_progress_is_not_raced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    dead = killed_holder(out)
    (out / TAKEOVER_FILE).write_text("{}")  # another process is replacing the dead lock
    with pytest.raises(OutputError) as err:
        acquire_lock(str(out), "pack")
    assert str(err.value) == (
        f"{out}: another kcorpus is taking over the lock left by kcorpus pack (pid {dead['pid']} on "
        f"{dead['host']}, since {dead['started_at']}); if none is, delete {out / TAKEOVER_FILE} and "
        f"{out / LOCK_FILE} and run again"
    )
    assert read_lock(str(out)) == dead


def test_start_ticks_reads_a_command_name_with_spaces_and_parentheses(monkeypatch):
    assert start_ticks(os.getpid()) == process_identity()["pid_start"] is not None
    fields = " ".join(["S"] + [str(n) for n in range(4, 22)] + ["987654"] + ["0"] * 30)
    monkeypatch.setattr(holder, "_read", lambda path: f"4242 (kcorpus ) (x) {fields}")
    assert start_ticks(4242) == 987654
    monkeypatch.setattr(holder, "_read", lambda path: None)
    assert start_ticks(4242) is None
