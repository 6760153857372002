"""Kill anywhere, lose one unit per worker: `kill -9` of a whole build at seeded moments (and once while the
final shards are written), then the same command again, finishes with the bytes of an uninterrupted build; a
build with one more input file reuses the other files' units and equals a build from scratch."""

from __future__ import annotations

import gzip
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kcorpus.pipeline.commands.build_corpus import run
from kcorpus.pipeline.corpus.units import DONE_SUFFIX, UNITS_DIR
from kcorpus.pipeline.outputs.marker import is_bookkeeping, read_marker
from kill_fixtures import after, once_files, run_and_kill
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"
KILLS = 5
SEED = 38


def split_lines(source: Path, folder: Path, parts: int, prefix: str, keep: int) -> list[Path]:
    """The first `keep` lines of a sample file cut into `parts` files (more files: more units)."""
    lines = source.read_bytes().splitlines(keepends=True)[:keep]
    folder.mkdir(parents=True, exist_ok=True)
    step = -(-len(lines) // parts)
    paths = []
    for i in range(parts):
        path = folder / f"{prefix}_{i:02d}"
        path.write_bytes(b"".join(lines[i * step : (i + 1) * step]))
        paths.append(path)
    return paths


def make_inputs(root: Path, wiki_files: int = 3) -> None:
    """~300 KB of the sample: NSMC comments in 4 files, Wikipedia articles in `wiki_files` files, comment
    threads in 2 files."""
    split_lines(SAMPLE / "nsmc_ratings_test_head.txt", root / "nsmc", 4, "nsmc", 2000)
    for i in range(wiki_files):
        write_wiki(root, i)
    for i in range(2):
        write_threads(root, i, [f"A{n % 23}" for n in range(300)])


def write_threads(root: Path, i: int, threads: list[str]) -> Path:
    """The i-th file of comment rows (JSON Lines): NSMC comments 2000 + 300i.. under the given thread ids,
    so that a thread's comments lie in several files."""
    lines = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines()
    texts = [line.split("\t")[1] for line in lines[2001 + 300 * i :][: len(threads)]]
    path = root / "naver" / f"comments_{i:02d}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        json.dumps({"article_id": t, "text": text}, ensure_ascii=False) for t, text in zip(threads, texts)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_wiki(root: Path, i: int) -> None:
    """The i-th of three WikiExtractor files of 40 sample articles (whole <doc> elements)."""
    text = (SAMPLE / "wiki_00_head").read_text(encoding="utf-8")
    docs = [d + "</doc>\n" for d in text.split("</doc>\n") if d.strip()][:40]
    (root / "wiki").mkdir(parents=True, exist_ok=True)
    (root / "wiki" / f"wiki_{i:02d}").write_text("".join(docs[i::3]), encoding="utf-8")


def profile(root: Path) -> Path:
    path = root / "profile.yaml"
    path.write_text(
        f"""
sources:
  - {{name: nsmc, format: nsmc, paths: ["{root}/nsmc/nsmc_*"], preset: kcelectra}}
  - {{name: kowiki, format: wikiextractor, paths: ["{root}/wiki/wiki_*"], preset: longform, split_sentences: true}}
  - {{name: naver, format: comments, paths: ["{root}/naver/*.jsonl"], options: {{thread_field: article_id}}}}
filters: {{min_chars: 10, min_sentences: 1}}
dedup: {{near: {{enabled: true}}}}
output: {{num_shards: 3, text: true}}  # every kind of shard a build can write
""",
        encoding="utf-8",
    )
    return path


def read_tree(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not is_bookkeeping(p.name) and UNITS_DIR not in p.parts
    }


def command(config: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "kcorpus.pipeline.cli", "--no-progress", "build-corpus", "--config", str(config), "--out",
            str(out), "--local-mode", "in_memory", *extra]  # fmt: skip


def finished_units(out: Path) -> int:
    return len(list((out / UNITS_DIR).glob(f"*{DONE_SUFFIX}")))


def finished_inputs(out: Path) -> int:
    """Input units an earlier run finished: a range with its marker, or a thread home whose batches all have
    theirs (a thread batch's key is its home's and a digest)."""
    units = out / UNITS_DIR
    done = {p.name[: -len(DONE_SUFFIX)] for p in units.glob(f"*{DONE_SUFFIX}")}
    homes = [json.loads(p.read_text(encoding="utf-8")).get("keys") for p in units.glob("*.batches")]
    return sum("-" not in key for key in done) + sum(
        all(k in done for k in keys) for keys in homes if keys is not None
    )


@pytest.mark.slow
def test_kill_9_anywhere_then_the_same_command_gives_the_same_bytes(tmp_path):
    make_inputs(tmp_path / "in")
    config = profile(tmp_path / "in")
    reference = tmp_path / "reference"
    started = time.monotonic()
    subprocess.run(command(config, reference), check=True, capture_output=True)
    seconds = time.monotonic() - started
    expected = read_tree(reference)
    assert len(expected) == 3 + 3 + 7 + 1 + 2
    rng = random.Random(SEED)
    shares = sorted(rng.uniform(0.3, 0.95) for _ in range(KILLS - 1)) + [None]
    killed = 0
    for i, share in enumerate(shares):
        out = tmp_path / f"killed{i}"
        argv = command(config, out)
        started = time.monotonic()
        hit = run_and_kill(argv, once_files(out / "docs") if share is None else after(share * seconds))
        if not hit and share is not None:  # it ran faster than the reference (a warmer machine): a new build,
            seconds = time.monotonic() - started  # killed at the same share of this build's wall
            out = tmp_path / f"killed{i}-again"
            argv = command(config, out)
            hit = run_and_kill(argv, after(share * seconds))
        killed += hit
        done = finished_inputs(out) if out.exists() else 0
        if (read_marker(str(out)) or {}).get("state") != "complete":  # else killed after it finished
            rerun = subprocess.run(argv, check=False, capture_output=True, text=True)
            assert rerun.returncode == 0, rerun.stderr[-2000:]
            reused = re.search(r"reused (\d+) of (\d+) input units", rerun.stderr)
            assert (int(reused.group(1)) if reused else 0) == done
        assert read_tree(out) == expected, f"kill {i} at {share} of {seconds:.1f} s"
        assert not (out / UNITS_DIR).exists()  # removed once the build completes
    assert killed >= KILLS - 1


def test_a_new_file_reuses_the_others_units_and_equals_a_build_from_scratch(tmp_path, capsys):
    inputs = tmp_path / "in"
    make_inputs(inputs, wiki_files=2)
    config = profile(inputs)
    out = tmp_path / "out"
    assert run(["--config", str(config), "--out", str(out), "--local-mode", "in_memory", "--keep-units"]) == 0
    assert finished_inputs(out) == 8
    write_wiki(inputs, 2)  # a third Wikipedia file lands
    capsys.readouterr()
    argv = [
        "--config",
        str(config),
        "--out",
        str(out),
        "--local-mode",
        "in_memory",
        "--keep-units",
        "--overwrite",
    ]
    assert run(argv) == 0
    message = capsys.readouterr().err
    assert re.search(r"reused 8 of 9 input units \(\d+% of input bytes\)", message), message
    assert finished_inputs(out) == 9
    scratch = tmp_path / "scratch"
    assert run(["--config", str(config), "--out", str(scratch), "--local-mode", "in_memory"]) == 0
    assert read_tree(out) == read_tree(scratch)
    assert not (scratch / UNITS_DIR).exists()


def test_a_compressed_file_is_resumed_batch_by_batch(tmp_path, capsys):
    # A .gz file cannot be read in ranges: it is one unit whose batches are units of their own.
    plain = tmp_path / "plain"
    split_lines(SAMPLE / "nsmc_ratings_test_head.txt", plain, 2, "nsmc", 600)
    packed = tmp_path / "packed"
    packed.mkdir()
    for path in plain.iterdir():
        (packed / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    outs = {}
    for name, folder in (("plain", plain), ("packed", packed)):
        config = tmp_path / f"{name}.yaml"
        config.write_text(
            f'sources: [{{name: nsmc, format: nsmc, paths: ["{folder}/*"]}}]\n', encoding="utf-8"
        )
        outs[name] = tmp_path / f"out-{name}"
        argv = [
            "--config",
            str(config),
            "--out",
            str(outs[name]),
            "--local-mode",
            "in_memory",
            "--batch-size",
            "100",
        ]
        assert run([*argv, "--keep-units"]) == 0
    units = outs["packed"] / UNITS_DIR
    assert len(list(units.glob("*.batches"))) == 2 and finished_units(outs["packed"]) == 6
    capsys.readouterr()
    assert run([*argv, "--keep-units", "--overwrite"]) == 0
    assert "reused 2 of 2 input units (100% of input bytes)" in capsys.readouterr().err
    packed_tree, plain_tree = read_tree(outs["packed"]), read_tree(outs["plain"])
    stats = [json.loads(tree.pop("stats.json"))["total"] for tree in (packed_tree, plain_tree)]
    assert packed_tree == plain_tree and stats[0] == stats[1]  # stats.json names the inputs' paths


def test_a_wiki_dump_is_read_in_units_and_resumed(tmp_path, capsys):
    # A dump's pages are read whole (one unit, its batches units of their own); each batch's pages are
    # converted to text by the worker that prepares it. A rerun reuses every batch and gives the same bytes.
    dump = TESTDATA / "readers" / "kowiki-20240101-pages-articles.xml.bz2"
    config = tmp_path / "dump.yaml"
    config.write_text(
        f'sources: [{{name: kowiki, format: wiki-dump, paths: ["{dump}"], preset: longform}}]\n'
        "filters: {min_chars: 10, min_sentences: 1}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = ["--config", str(config), "--out", str(out), "--local-mode", "in_memory", "--batch-size", "2"]
    assert run([*argv, "--keep-units"]) == 0
    first = read_tree(out)
    assert len(list((out / UNITS_DIR).glob("*.batches"))) == 1 and finished_units(out) == 3  # 6 pages
    assert json.loads(first["stats.json"])["total"]["kept"] == 2
    capsys.readouterr()
    assert run([*argv, "--keep-units", "--overwrite"]) == 0
    assert "reused 1 of 1 input units (100% of input bytes)" in capsys.readouterr().err
    assert read_tree(out) == first


def test_a_new_month_of_comments_reuses_the_threads_it_does_not_touch(tmp_path, capsys):
    # A thread's document is known only once every file is read: every run reads the rows again, and a
    # thread is prepared in a batch of the unit holding its first comment, keyed by the batch's contents.
    inputs = tmp_path / "in"
    write_threads(inputs, 0, [f"A{n % 23}" for n in range(300)])
    write_threads(inputs, 1, [f"B{n % 17}" for n in range(300)])
    config = tmp_path / "threads.yaml"
    config.write_text(
        f'sources: [{{name: naver, format: comments, paths: ["{inputs}/naver/*.jsonl"], '
        "options: {thread_field: article_id}}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = ["--config", str(config), "--out", str(out), "--local-mode", "in_memory", "--keep-units"]
    assert run(argv) == 0
    units = out / UNITS_DIR
    batches = {p.name: p.stat().st_mtime_ns for p in units.glob(f"*-*{DONE_SUFFIX}")}
    assert len(batches) == 2 and finished_inputs(out) == 2
    # The new month: threads of its own, and one comment on a thread of the first file.
    write_threads(inputs, 2, [f"C{n % 11}" for n in range(299)] + ["A5"])
    capsys.readouterr()
    assert run([*argv, "--overwrite"]) == 0
    assert "reused 1 of 3 input units" in capsys.readouterr().err  # B's: A's gained a comment
    after = {p.name: p.stat().st_mtime_ns for p in units.glob(f"*-*{DONE_SUFFIX}")}
    assert len(after) == 3 and finished_inputs(out) == 3  # the A batch's old key is pruned
    kept = set(batches) & set(after)
    assert len(kept) == 1 and all(after[name] == batches[name] for name in kept)  # B's, not prepared again
    scratch = tmp_path / "scratch"
    assert run(["--config", str(config), "--out", str(scratch), "--local-mode", "in_memory"]) == 0
    assert read_tree(out) == read_tree(scratch)
    stats = json.loads(read_tree(out)["stats.json"])["total"]
    assert stats["input"] == 23 + 17 + 11  # one document per thread
