"""The `kcorpus` command: one sub-command per stage, each in its own module.

A sub-command module defines `add_arguments(parser)` and `main(args) -> int`. Modules are imported only when
their command runs, so `kcorpus clean` never pays for importing Beam or the tokenizers.

Global flags, anywhere before `--`: `-v/--verbose` (kcorpus's and Beam's INFO logs), `--debug` (a
traceback for user errors too) and `--progress`/`--no-progress` (the progress bars of the Beam commands;
default: shown when stderr is a terminal). A `UserError` is printed as `kcorpus <command>: error: <line>` per problem
and exits 2 (`DataLossError`: 1); any other exception is a bug or an infrastructure failure and keeps its
traceback. Ctrl-C and SIGTERM end a command with one line and exit 130 / 143 (`pipeline/process/interrupt.py`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from kcorpus.pipeline.errors import UserError

GLOBAL_FLAGS = {
    "-v": "verbose",
    "--verbose": "verbose",
    "--debug": "debug",
    "--progress": "progress",
    "--no-progress": "no_progress",
}

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "clean": ("kcorpus.pipeline.commands.clean", "clean text lines KcELECTRA-style (a Unix filter)"),
    "read": ("kcorpus.pipeline.commands.read", "read one source format into a normalized JSONL corpus"),
    "build-corpus": ("kcorpus.pipeline.commands.build_corpus", "raw sources -> clean, deduplicated corpus shards"),
    "train-vocab": ("kcorpus.pipeline.commands.train_vocab", "train a WordPiece or SentencePiece vocabulary"),
    "vocab-merge": ("kcorpus.pipeline.commands.vocab_merge", "append another vocab's missing tokens to a vocab"),
    "vocab-report": ("kcorpus.pipeline.commands.vocab_report", "compare two vocabularies (json, md, html)"),
    "pack": ("kcorpus.pipeline.commands.pack", "tokenize and pack a corpus into Arrow shards for pretraining"),
    "run": ("kcorpus.pipeline.commands.run", "run a profile's stages resumably and write the run report"),
    "audit": ("kcorpus.pipeline.commands.audit", "sample a built corpus: kept documents diffed with their inputs, drops per rule"),
}


def split_global_flags(argv: list[str]) -> tuple[list[str], set[str]]:
    """`argv` without the global flags (those before `--`), and the names of the flags given."""
    cut = argv.index("--") if "--" in argv else len(argv)
    flags = {GLOBAL_FLAGS[a] for a in argv[:cut] if a in GLOBAL_FLAGS}
    return [a for a in argv[:cut] if a not in GLOBAL_FLAGS] + argv[cut:], flags


def main(argv: list[str] | None = None) -> int:
    argv_given = argv is not None
    argv, flags = split_global_flags(list(sys.argv[1:] if argv is None else argv))
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        usage = "\n".join(f"  {name:<14} {help_}" for name, (_, help_) in COMMANDS.items())
        print(f"usage: kcorpus [-v] [--debug] [--progress|--no-progress] COMMAND [options]\n\ncommands:\n{usage}", file=sys.stderr)
        known = not argv or argv[0] in ("-h", "--help")
        if not known:
            print(f"\nkcorpus: unknown command {argv[0]!r}", file=sys.stderr)
        return 0 if known else 2
    name, rest = argv[0], argv[1:]
    from kcorpus.pipeline.process import interrupt

    # The program itself (argv None) ends at once after an interrupted command's line (interrupt.say).
    with interrupt.handle_signals(name, debug="debug" in flags, restore=argv_given):
        try:
            return _run_command(name, rest, flags)
        except BaseException as err:
            if not (interrupt.stopping() or isinstance(err, KeyboardInterrupt)):
                raise
            # Whatever the signal unwound into (Beam may wrap it), the command ends with one line.
            if "debug" in flags:
                traceback.print_exc()
            line, code = interrupt.closing_line(err)
            interrupt.say(line, exit_now=not argv_given, code=code)
            return code


def _run_command(name: str, rest: list[str], flags: set[str]) -> int:
    from kcorpus.pipeline.console import configure_logging
    from kcorpus.pipeline.progress import set_mode as set_progress_mode

    configure_logging(verbose="verbose" in flags)
    set_progress_mode("off" if "no_progress" in flags else "on" if "progress" in flags else "auto")
    module = importlib.import_module(COMMANDS[name][0])
    parser = argparse.ArgumentParser(prog=f"kcorpus {name}", description=COMMANDS[name][1])
    module.add_arguments(parser)
    # argparse cannot take `-- --runner X` after a positional argument; split the Beam flags off first.
    beam_args: list[str] = []
    if "--" in rest:
        cut = rest.index("--")
        rest, beam_args = rest[:cut], rest[cut + 1 :]
    args = parser.parse_args(rest)
    if beam_args or not hasattr(args, "beam_args"):
        args.beam_args = beam_args
    args.verbose, args.debug = "verbose" in flags, "debug" in flags
    try:
        return int(module.main(args) or 0)
    except UserError as err:
        if args.debug:
            raise
        for line in err.errors:
            print(f"kcorpus {name}: error: {line}", file=sys.stderr)
        return err.exit_code

if __name__ == "__main__":
    sys.exit(main())
