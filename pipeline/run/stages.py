"""The stage plan of `kcorpus run`: build-corpus -> train-vocab -> [vocab-report] -> pack, as typed jobs.

Each stage knows its upstream stages, the profile values its config hash covers, the raw files it reads,
and how to build its job from its upstream folders and its output folder. `RUNNERS` maps a stage to the
function that runs its job: the same functions the `kcorpus` sub-commands call.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kcorpus.pipeline import filesystems as fs
from kcorpus.pipeline.corpus.job import BuildCorpusJob
from kcorpus.pipeline.profile.schema import Profile
from kcorpus.pipeline.profile.validate import ProfileError
from kcorpus.pipeline.run.errors import RunError
from kcorpus.pipeline.run.launcher import has_remote_paths, run_on_launcher
from kcorpus.transforms import corpus_layout
from kcorpus.transforms.sharding import shards_for_sample

STAGE_NAMES = ("corpus", "vocab", "vocab-report", "pack")
CORPUS_SECTIONS = {"sources", "filters", "dedup", "split", "output"}

StageRunner = Callable[[Any, Sequence[str]], Any]
"""Runs a stage's job with the Beam flags (ignored by the stages that are not Beam pipelines)."""


@dataclasses.dataclass(frozen=True)
class Stage:
    """One step of the run, writing into `<out>/<name>/`.

    Attributes:
        name: the stage folder's name.
        command: the `kcorpus` sub-command that runs the same job on its own.
        upstream: the stages whose output folders it reads.
        config: the profile values it depends on (hashed into its identity).
        make_job: (upstream folders by stage name, output folder) -> the stage's job.
        inputs: raw file patterns it reads besides upstream folders (fingerprinted).
        beam: whether it is a Beam pipeline (takes the Beam flags).
    """

    name: str
    command: str
    upstream: tuple[str, ...]
    config: Mapping[str, Any]
    make_job: Callable[[Mapping[str, str], str], Any]
    inputs: tuple[str, ...] = ()
    beam: bool = False


def units_dir(stage_out: str, stage: str) -> str:
    """Where a stage keeps its input units between runs: `<run>/.kcorpus-units/<stage>`, beside the stage
    folders (which a stage's start empties): the corpus stage's, kept, so that a new file in a source reuses
    the others' units (`pipeline/corpus/units.py`); the pack stage's, until it completes
    (`pipeline/pack/units.py`), so that a killed run's pack replays them."""
    from kcorpus.pipeline.corpus.units import UNITS_DIR

    run_dir = stage_out.rstrip("/").rsplit("/", 1)[0]
    return fs.join(run_dir, UNITS_DIR, stage)


def corpus_sentence_files(corpus_dir: str | Path, max_sentences: int | None = None) -> list[str]:
    """The shards a build-corpus output's sentences are read from (local or remote), in shard order: `text/`'s
    when the build wrote them, else `docs/`' (`corpus_layout.sentence_shards`).

    With `max_sentences`, only the first shards that hold about twice that many sentences (stats.json says
    how many there are): documents go to shards by a digest of their id, so they are a uniform sample, and a
    launcher samples a large gs:// corpus without reading all of it. Local and remote runs pick the same ones.
    """
    corpus_dir = str(corpus_dir)
    files = [fs.join(corpus_dir, rel) for rel in corpus_layout.sentence_shards(fs.list_files(corpus_dir))]
    if not files:
        raise RunError(
            f"{corpus_dir}: no {corpus_layout.DOCS_GLOBS[1]} or {corpus_layout.TEXT_GLOBS[1]} shards; "
            "is it a build-corpus output?"
        )
    if max_sentences is None:
        return files
    try:
        stats = json.loads(fs.read_bytes(fs.join(corpus_dir, corpus_layout.STATS_FILE)))
        total = int(stats["total"]["sentences"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        total = 0  # unknown: every shard
    return files[: shards_for_sample(len(files), total, max_sentences)]


# A command-line flag in a message: `--vocab-size`, not a word such as `pre--processed`.
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
# Flags whose profile key is not their name with "_" (kept working alongside the matching name).
_FLAG_KEYS = {"unused": "num_unused"}


def in_profile_words(text: str, stage: Stage) -> str:
    """`text` with each flag of the stage's command that a profile key sets named as that key, as the user of
    `kcorpus run` edits it: `raise --vocab-size` -> `raise vocab.vocab_size`. Other flags stay."""
    section = stage.name.replace("-", "_")
    if section not in PROFILE_SECTIONS:
        return text

    def key(match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        name = _FLAG_KEYS.get(name, name)
        return f"{section}.{name}" if name in stage.config else match.group(0)

    return _FLAG.sub(key, text)


# The stages whose profile section holds their command's flags as keys (`vocab:`, `vocab_report:`, `pack:`).
PROFILE_SECTIONS = ("vocab", "vocab_report", "pack")


def plan_stages(profile: Profile) -> list[Stage]:
    """The stages of a profile in the order they run; vocab-report only when the profile has the section."""
    vocab, report, pack = profile.vocab, profile.vocab_report, profile.pack
    if vocab is None:
        raise ProfileError(["vocab: required by kcorpus run (e.g. kind: wordpiece, vocab_size: 32000)"])
    corpus = profile.corpus
    stages = [
        Stage(
            "corpus", "build-corpus", (), profile.model_dump(mode="json", include=CORPUS_SECTIONS),
            lambda dirs, out: BuildCorpusJob(corpus, out, units_dir=units_dir(out, "corpus"), keep_units=True),
            inputs=(*(p for source in corpus.sources for p in source.paths), *corpus.dedup.decontaminate.paths),
            beam=True,
        ),
        Stage(
            "vocab", "train-vocab", ("corpus",), vocab.model_dump(mode="json"),
            lambda dirs, out: vocab.job(corpus_sentence_files(dirs["corpus"], vocab.max_sentences), out),
        ),
    ]  # fmt: skip
    if report is not None:
        stages.append(Stage(
            "vocab-report", "vocab-report", ("corpus", "vocab"), report.model_dump(mode="json"),
            lambda dirs, out: report.job(
                dirs["vocab"], corpus_sentence_files(dirs["corpus"], report.max_sentences), out),
            inputs=(report.reference,),
        ))  # fmt: skip
    stages.append(Stage(
        "pack", "pack", ("corpus", "vocab"), pack.model_dump(mode="json"),
        lambda dirs, out: dataclasses.replace(
            pack.job(dirs["corpus"], dirs["vocab"], out), units_dir=units_dir(out, "pack")),
        beam=True,
    ))  # fmt: skip
    return stages


def _run_corpus(job: BuildCorpusJob, beam_args: Sequence[str]) -> None:
    from kcorpus.pipeline.corpus.job import build_corpus
    from kcorpus.pipeline.corpus.summary import loss_problems
    from kcorpus.pipeline.errors import DataLossError

    stats = build_corpus(job, beam_args)
    if not stats["total"]["reconciled"]:
        raise RunError(f"build-corpus counts do not reconcile; see {job.out}/{corpus_layout.STATS_FILE}")
    lost = loss_problems(
        stats, job.config.output.max_dead_letter_fraction, job.config.sources_allowed_missing
    )
    if lost:
        raise DataLossError(lost)


def _run_vocab(job: Any, beam_args: Sequence[str]) -> None:
    from kcorpus.pipeline.vocab.train import train_vocab

    if has_remote_paths(job):  # a gs:// run folder: train on local copies of the sampled shards
        run_on_launcher(job, train_vocab)
    else:
        train_vocab(job)


def _run_vocab_report(job: Any, beam_args: Sequence[str]) -> None:
    from kcorpus.pipeline.vocab.report import write_report

    if has_remote_paths(job):
        run_on_launcher(job, write_report)
    else:
        write_report(job)


def _run_pack(job: Any, beam_args: Sequence[str]) -> None:
    from kcorpus.pipeline.pack.build import run

    run(job, beam_args)


RUNNERS: Mapping[str, StageRunner] = {
    "corpus": _run_corpus,
    "vocab": _run_vocab,
    "vocab-report": _run_vocab_report,
    "pack": _run_pack,
}
