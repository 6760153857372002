"""build-corpus and pack through Beam's portable job API write the same bytes as the default local runner.

`--runner=PortableRunner --job_endpoint=embed --environment_type=EXTERNAL` is the path Flink, Spark and
Dataflow Runner v2 take: the pipeline goes through the runner API proto to a job service, and the DoFns run in
SDK workers of another process (here Beam's own `worker_pool_main`), which unpickle them as a cluster's
workers do. Real data: a slice of the bundled sample (build-corpus) and the real pack fixture corpus (pack).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from kcorpus.pipeline.cli import main as cli
from kcorpus.pipeline.outputs.marker import is_bookkeeping
from packing_fixtures import CORPUS, kcbert_tokenizer_dir
from run_fixtures import write_slice


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def worker_pool(tmp_path_factory: pytest.TempPathFactory):
    """A Beam SDK worker pool running in its own process group, stopped at the end: its address and log."""
    log = tmp_path_factory.mktemp("pool") / "pool.log"
    address = f"localhost:{free_port()}"
    # The pool starts each worker as `python` from PATH: this interpreter's folder goes first.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with open(log, "w", encoding="utf-8") as f:
        pool = subprocess.Popen(
            [sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
             f"--service_port={address.rpartition(':')[2]}"],
            stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("localhost", int(address.rpartition(":")[2]))) == 0:
                    break
            assert pool.poll() is None and time.monotonic() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.2)
        yield address, log
    finally:
        os.killpg(pool.pid, signal.SIGTERM)
        pool.wait(timeout=60)


def workers_started(pool: tuple[str, Path]) -> int:
    return pool[1].read_text(encoding="utf-8", errors="replace").count("Starting worker with command")


def portable_args(pool: tuple[str, Path]) -> list[str]:
    address, _ = pool
    return ["--runner=PortableRunner", "--job_endpoint=embed", "--environment_type=EXTERNAL",
            f"--environment_config={address}"]  # fmt: skip


def read_tree(out: Path) -> dict[str, bytes]:
    """Every output file's bytes, but kcorpus's ownership marker (it records when it was written)."""
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not is_bookkeeping(p.name)
    }


@pytest.mark.slow
def test_build_corpus_through_the_portable_job_api(worker_pool: tuple[str, Path], tmp_path: Path) -> None:
    write_slice(tmp_path)
    profile = tmp_path / "p.yaml"
    profile.write_text(yaml.safe_dump({
        "sources": [
            {"name": "nsmc", "format": "nsmc", "paths": ["data/nsmc.txt"]},
            {"name": "petitions", "format": "petitions", "paths": ["data/petitions"], "split_sentences": True},
            {"name": "kowiki", "format": "wikiextractor", "paths": ["data/wiki_00"], "split_sentences": True},
        ],
        "split": {"backend": "kcorpus"},
        "output": {"num_shards": 2, "text": True},
    }), encoding="utf-8")  # fmt: skip
    local, portable = tmp_path / "local", tmp_path / "portable"
    assert cli(["build-corpus", "--config", str(profile), "--out", str(local)]) == 0
    before = workers_started(worker_pool)
    assert cli(["build-corpus", "--config", str(profile), "--out", str(portable), "--",
                *portable_args(worker_pool)]) == 0  # fmt: skip
    expected = read_tree(local)
    assert {"stats.json", "docs/part-00000-of-00002.jsonl.zst", "text/part-00001-of-00002.txt.zst"} <= set(expected)
    assert read_tree(portable) == expected
    assert workers_started(worker_pool) > before  # the pool's workers ran the job


@pytest.mark.slow
def test_pack_through_the_portable_job_api(worker_pool: tuple[str, Path], tmp_path: Path) -> None:
    tokenizer = kcbert_tokenizer_dir(tmp_path / "tok")
    local, portable = tmp_path / "local", tmp_path / "portable"
    common = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(tokenizer), "--max-length", "128"]
    assert cli([*common, "--out", str(local)]) == 0
    before = workers_started(worker_pool)
    assert cli([*common, "--out", str(portable), "--", *portable_args(worker_pool)]) == 0
    expected = read_tree(local)
    assert "manifest.json" in expected and any(name.endswith(".arrow") for name in expected)
    assert read_tree(portable) == expected
    assert workers_started(worker_pool) > before  # the pool's workers ran the job
