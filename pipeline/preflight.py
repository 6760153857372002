"""Validate everything a command needs before any work starts, and report every problem at once.

One owner for the checks that touch the filesystem (the profile schema in `profile.py` checks the rest):
every source path matches at least one readable file (`allow_missing: true` on a source opts out), the
output location can be written (it is a folder or can be created, never a file), a tokenizer and a corpus
exist where pack reads them. Each check returns problem lines (`what: problem; expected ...`); the callers
collect them and raise one `UserError` (`ProfileError` for a profile), so the user fixes them in one go.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kcorpus.pipeline.errors import UserError
from kcorpus.transforms import matching
from kcorpus.transforms.files import broken_link, is_remote
from kcorpus.transforms.readers.registry import READERS

if TYPE_CHECKING:
    from kcorpus.pipeline.profile.schema import Profile


def _matches(pattern: str, folder_is_input: bool) -> list[str]:
    if is_remote(pattern):
        from kcorpus.pipeline import filesystems  # noqa: F401  (registers remote schemes)
    return [path for path, _ in matching.match(pattern, folder_is_input)]


def remote_problem(path: str) -> str | None:
    """For a remote path whose filesystem is not installed (gs:// without its extra): the line naming the
    extra and the `pip install` that installs it; None otherwise."""
    if not is_remote(path):
        return None
    from kcorpus.pipeline.filesystems import missing_filesystem

    return missing_filesystem(path)


def input_problem(pattern: str, fmt: str | None = None) -> str | None:
    """Why `pattern` (a path, glob or folder) gives a reader nothing to read, or None when it matches a file."""
    folder_is_input = fmt in READERS and READERS[fmt].folder_is_input
    missing = remote_problem(pattern)
    if missing:
        return missing
    try:
        matches = _matches(pattern, folder_is_input)
    except Exception as err:  # noqa: BLE001 (a listing error of any filesystem is the user's to see)
        return f"{pattern!r} cannot be listed: {type(err).__name__}: {err}"
    if not matches:
        if not is_remote(pattern) and os.path.isdir(pattern):
            return f"{pattern!r} is a folder with no files in it"
        return f"{pattern!r} matches no file"
    if is_remote(pattern):
        return None
    readable = [m for m in matches if os.access(m, os.R_OK)]
    if not readable:
        target = broken_link(matches[0])
        if target is not None:
            return f"{pattern!r}: {matches[0]} is a symbolic link to {target}, which does not exist"
        return f"{pattern!r}: no matching file is readable (permission denied: {matches[0]})"
    return None


def _uncreatable(folder: str) -> str | None:
    """Why a local folder cannot be created (an ancestor is a file or not writable), or None."""
    probe = os.path.abspath(folder)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        return f"{probe} is a file, so the folder cannot be created"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    return None


def output_problem(path: str, what: str = "--out") -> str | None:
    """Why a local output folder cannot be written, or None: it is a folder, or its parents can be created."""
    if not path:
        return f"{what}: no output location given"
    if is_remote(path):
        missing = remote_problem(path)
        return f"{what} {missing}" if missing else None
    if os.path.exists(path) and not os.path.isdir(path):
        return f"{what} {path}: is a file; expected a folder (or a path where one can be created)"
    problem = _uncreatable(path)
    return f"{what} {path}: {problem}" if problem else None


def output_file_problem(path: str, what: str = "--out") -> str | None:
    """Why a local output file cannot be written (a folder is there, its folder cannot be made), or None."""
    if is_remote(path):
        missing = remote_problem(path)
        return f"{what} {missing}" if missing else None
    if os.path.isdir(path):
        return f"{what} {path}: is a folder; expected a file name"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return f"{what} {path}: is not writable"
    problem = _uncreatable(os.path.dirname(os.path.abspath(path)))
    return f"{what} {path}: {problem}" if problem else None


def tokenizer_problem(path: str) -> str | None:
    """Why pack cannot find a `tokenizer.json` at `path` (a folder holding one, or the file), or None."""
    from kcorpus.transforms.pack.tokenize import TOKENIZER_FILE, tokenizer_file

    file = tokenizer_file(path)
    if is_remote(file):
        if missing := remote_problem(file):
            return f"--tokenizer {missing}"
        return None if _matches(file, False) else f"--tokenizer {path}: no {file}"
    if not os.path.isfile(file):
        return f"--tokenizer {path}: no {file}; expected a folder with {TOKENIZER_FILE} (train-vocab's output)"
    if not os.access(file, os.R_OK):
        return f"--tokenizer {path}: {file} is not readable"
    return None


def corpus_problem(path: str, input_format: str = "auto") -> str | None:
    """Why pack finds no corpus shards in `path` (a build-corpus output), or None."""
    from kcorpus.transforms.corpus_layout import LAYOUTS

    layouts = list(LAYOUTS) if input_format == "auto" else [input_format]
    patterns = [posixpath.join(path, glob) for layout in layouts for glob in LAYOUTS[layout]]
    if any(input_problem(p) is None for p in patterns):
        return None
    wanted = " or ".join(posixpath.join(path, LAYOUTS[layout][0]) for layout in layouts)  # and their .zst twins
    return f"--corpus {path}: no corpus files ({wanted}); expected a build-corpus output folder"


def source_problems(raw: Any, base_dir: str) -> list[str]:
    """The paths of a parsed profile's `sources` that match no readable file, checked even where the schema
    failed (so one run reports them together with the schema's errors)."""
    from kcorpus.pipeline.profile.schema import (
        resolve_path,  # the schema is imported only by the commands it serves
    )

    if not isinstance(raw, Mapping) or not isinstance(raw.get("sources"), list):
        return []
    problems = []
    for index, source in enumerate(raw["sources"]):
        if not isinstance(source, Mapping):
            continue
        paths = source.get("paths")
        paths = [paths] if isinstance(paths, str) else paths
        if not isinstance(paths, list):
            continue
        fmt = source.get("format") if isinstance(source.get("format"), str) else None
        for at, pattern in enumerate(paths):
            if not isinstance(pattern, str):
                continue
            path = resolve_path(pattern, base_dir)
            where = f"sources[{index}].paths" + (f"[{at}]" if len(paths) > 1 else "")
            missing = remote_problem(path)  # allow_missing does not cover a filesystem that is not installed
            if missing:
                problems.append(f"{where}: {missing}")
            elif source.get("allow_missing") is not True and (problem := input_problem(path, fmt)):
                problems.append(f"{where}: {problem} (allow_missing: true on the source allows that)")
    return problems


def profile_problems(profile: Profile, *, stages: Iterable[str] = ()) -> list[str]:
    """Problems of a valid profile that depend on what is installed (a splitter backend's package) or on which
    stages run (`vocab`, `vocab-report`)."""
    from kcorpus.transforms.text.split import backend_problem

    stages = set(stages)
    problems = []
    corpus = profile.corpus
    if any(source.split_sentences for source in corpus.sources):
        problem = backend_problem(corpus.split.backend)
        if problem:
            problems.append(problem)
    problems.extend(layout_problems(corpus))
    if "vocab" in stages and profile.vocab is None:
        problems.append("vocab: required by kcorpus run (e.g. kind: wordpiece, vocab_size: 32000)")
    if "vocab-report" in stages and profile.vocab_report is not None:
        problem = input_problem(profile.vocab_report.reference)
        if problem:
            problems.append(f"vocab_report.reference: {problem}")
    return problems


def check_profile(
    path: str, overrides: Sequence[str] = (), *, stages: Iterable[str] = (), outputs: Mapping[str, str] | None = None
) -> Profile:
    """Load and validate a profile file with every check at once; raise one ProfileError listing them all.

    Args:
        path: the profile file; relative paths in it resolve against its folder.
        overrides: `--set KEY=VALUE` overrides.
        stages: the `kcorpus run` stages that will run (their sections are then required).
        outputs: output locations to check, by what names them (`{"--out": "/tmp/x"}`).
    """
    from kcorpus.pipeline.profile.load import apply_overrides, read_yaml
    from kcorpus.pipeline.profile.validate import ProfileError, profile_from_dict

    try:
        raw = read_yaml(path)
    except OSError as err:
        raise ProfileError([f"{path}: cannot read the profile: {err.strerror or err}"]) from None
    problems: list[str] = []
    profile: Profile | None = None
    try:
        if isinstance(raw, dict):
            apply_overrides(raw, overrides)  # applies every override it can, then names the others
    except ProfileError as err:
        problems.extend(err.errors)
    try:
        profile = profile_from_dict(raw, base_dir=posixpath.dirname(path))
    except ProfileError as err:
        problems.extend(err.errors)
    problems.extend(source_problems(raw, posixpath.dirname(path)))
    if profile is not None:
        problems.extend(profile_problems(profile, stages=stages))
    problems = [f"{path}: {line}" for line in problems]
    problems.extend(p for what, out in (outputs or {}).items() if (p := output_problem(out, what)))
    if problems:
        raise ProfileError(problems)
    assert profile is not None
    return profile


def layout_problems(corpus: Any) -> list[str]:
    """A source's first local file that its reader options contradict (comment threads, `thread_field`, in a
    one-comment-per-line file); a remote one is dead-lettered when it is read."""
    from kcorpus.transforms.files import is_remote
    from kcorpus.transforms.readers import as_options, expand_paths, reader_for

    problems = []
    for index, source in enumerate(corpus.sources):
        reader, options = reader_for(source.format), as_options(dict(source.options))
        for path in expand_paths(source.format, [p for p in source.paths if not is_remote(p)]):
            try:
                reader.check(path, options)
            except ValueError as err:
                problems.append(f"sources[{index}].paths: {path}: {err}")
                break
    return problems


def check(problems: Iterable[str | None]) -> None:
    """Raise one UserError listing every problem given (None: no problem)."""
    found = [p for p in problems if p]
    if found:
        raise UserError(found)
