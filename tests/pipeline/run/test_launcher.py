"""`run_on_launcher`: a non-Beam stage on local copies of its remote inputs, its output uploaded."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from fake_remote import PREFIX, use_root
from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.run.launcher import has_remote_paths, run_on_launcher

RUN = f"{PREFIX}bucket/run"


@dataclasses.dataclass(frozen=True)
class CountJob:
    inputs: tuple[str, ...]
    vocab: str
    reference: str
    out: str
    max_sentences: int = 10


def count_lines(job: CountJob) -> int:
    """A stage as the trainers are: local paths in, a local folder out, paths recorded in a manifest."""
    lines = [line for path in job.inputs for line in Path(path).read_text(encoding="utf-8").splitlines()]
    vocab = Path(job.vocab, "vocab.txt").read_text(encoding="utf-8").splitlines()
    Path(job.out).mkdir(parents=True)
    manifest = {"files": list(job.inputs), "vocab": job.vocab, "reference": job.reference, "out": job.out,
                "lines": len(lines), "tokens": len(vocab)}  # fmt: skip
    Path(job.out, "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    Path(job.out, "lines.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    use_root(tmp_path / "store")
    fs.write_bytes(f"{RUN}/corpus/text/part-00000-of-00002.txt", "재밌다\n\n최고의 영화\n".encode())
    fs.write_bytes(f"{RUN}/corpus/text/part-00001-of-00002.txt", "별로였다\n".encode())
    fs.write_bytes(f"{RUN}/vocab/vocab.txt", "[PAD]\n[UNK]\n영화\n".encode())
    reference = tmp_path / "reference.txt"
    reference.write_text("[PAD]\n", encoding="utf-8")
    return reference


def make_job(reference: Path, out: str = f"{RUN}/count.partial") -> CountJob:
    shards = tuple(f"{RUN}/corpus/text/part-0000{i}-of-00002.txt" for i in (0, 1))
    return CountJob(shards, f"{RUN}/vocab", str(reference), out)


def test_inputs_are_copied_the_output_uploaded_and_paths_put_back(remote: Path):
    job = make_job(remote)
    assert has_remote_paths(job)
    assert run_on_launcher(job, count_lines) == 4
    assert fs.list_files(job.out) == {"lines.txt": 41, "manifest.json": fs.list_files(job.out)["manifest.json"]}
    assert fs.read_bytes(f"{job.out}/lines.txt").decode() == "재밌다\n\n최고의 영화\n별로였다\n"
    manifest = json.loads(fs.read_bytes(f"{job.out}/manifest.json"))
    assert manifest == {"files": list(job.inputs), "vocab": job.vocab, "reference": str(remote), "out": job.out,
                        "lines": 4, "tokens": 3}  # fmt: skip


def test_a_failing_stage_still_uploads_what_it_wrote(remote: Path):
    def fail_after_writing(job: CountJob) -> None:
        count_lines(job)
        raise ValueError("check failed")

    job = make_job(remote)
    with pytest.raises(ValueError, match="check failed"):
        run_on_launcher(job, fail_after_writing)
    assert "lines.txt" in fs.list_files(job.out)


def test_a_missing_remote_input_is_named(remote: Path):
    job = dataclasses.replace(make_job(remote), vocab=f"{RUN}/no-vocab")
    with pytest.raises(FileNotFoundError, match=f"no file or folder at {RUN}/no-vocab"):
        run_on_launcher(job, count_lines)
    assert fs.list_files(job.out) == {}


def test_local_jobs_are_not_remote(tmp_path: Path):
    assert not has_remote_paths(CountJob((str(tmp_path / "a.txt"),), str(tmp_path), "ref", str(tmp_path / "o")))
