"""What each filter rule drops on real data: every dropped sentence and document, listed per rule.

    python bench/checks/filter_drops.py --out /tmp/drops                       # this checkout's rules
    python bench/checks/filter_drops.py --out /tmp/drops-before --code-ref main  # the rules of a git ref, same input

Sources: NSMC comments (`nsmc`, one comment a unit) and a month of petitions (`petitions`, split into
sentences), both with the `kcelectra` preset and the default `filters` (`--set key=value` overrides one),
as in configs/sample.yaml. Writes `<out>/<source>.<reason>.txt` (one dropped text a line: the cleaned sentence
for sentence rules, the kept text for document rules) and `<out>/summary.json` (counts per source and
reason); prints the counts. `--code-ref` runs the same script on the code of that git ref (an archive in a
temporary folder, imported instead of this checkout), so "before" and "after" read the same input.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path("/work/shared/data")
SOURCES = {
    "nsmc": ("nsmc", DATA / "nsmc" / "ratings_test.txt", False),
    "petitions": ("petitions", DATA / "petitions" / "petitions_2017-08", True),
}


def code_of_ref(ref: str, into: Path) -> Path:
    """A folder to put on sys.path whose `kcorpus` package is the code of git ref `ref`."""
    tree = into / "tree"
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    site = into / "site"
    package = site / "kcorpus"
    package.parent.mkdir(parents=True)
    package.mkdir()
    for entry in (tree / "src" / "kcorpus").iterdir():
        os.symlink(entry, package / entry.name)
    os.symlink(tree / "pipeline", package / "pipeline")
    os.symlink(tree / "transforms", package / "transforms")
    return site


def parse_value(value: str) -> object:
    return json.loads(value) if value[:1] in "0123456789-[tf" else value


def measure(out: Path, overrides: dict[str, object]) -> dict[str, dict[str, int]]:
    import kcorpus.transforms.prepare as prepare_module
    from kcorpus.transforms.prepare import DocumentPreparer
    from kcorpus.transforms.readers.options import ReadOptions
    from kcorpus.transforms.readers.registry import reader_for
    from kcorpus.transforms.rules.filters import FilterConfig
    from kcorpus.transforms.text.clean import make_cleaner
    from kcorpus.transforms.text.split import make_splitter

    filters = FilterConfig(**overrides)
    seen: list[tuple[str | None, str]] = []  # (reason or None, cleaned sentence) of the current document
    check_sentence = prepare_module.check_sentence

    def recording_check(text: str, config: FilterConfig) -> str | None:
        reason = check_sentence(text, config)
        seen.append((reason, text))
        return reason

    prepare_module.check_sentence = recording_check
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict[str, int]] = {}
    for name, (fmt, path, split) in SOURCES.items():
        reader = reader_for(fmt)
        # As the build: the format says whether a document's first line is a title (older code has no such rule).
        titled = {"title_line": reader.title_line(ReadOptions())} if hasattr(reader, "title_line") else {}
        preparer = DocumentPreparer(
            cleaner=make_cleaner("kcelectra"),
            splitter=make_splitter("kcorpus") if split else None,
            filters=filters,
            **titled,
        )
        lists: dict[str, list[str]] = collections.defaultdict(list)
        counts: collections.Counter[str] = collections.Counter()
        for doc in reader_for(fmt).read(str(path), ReadOptions(), name):
            if not hasattr(doc, "text"):
                continue
            seen.clear()
            prepared = preparer.prepare(doc)
            counts["documents"] += 1
            for reason, text in seen:
                if reason is not None:
                    counts[f"sentence:{reason}"] += 1
                    lists[f"sentence.{reason}"].append(text)
            if prepared.document is None:
                counts[f"document:{prepared.reason}"] += 1
                if prepared.reason not in {r for r, _ in seen}:  # a document rule: list the kept text it saw
                    kept = [t for r, t in seen if r is None]
                    lists[f"document.{prepared.reason}"].append(" ⏎ ".join(kept)[:3000])
            for rule in getattr(prepared, "rewrites", ()):
                counts[f"rewritten:{rule}"] += 1
        for key, texts in lists.items():
            (out / f"{name}.{key}.txt").write_text("\n".join(t.replace("\n", " ⏎ ") for t in texts) + "\n")
        summary[name] = dict(sorted(counts.items()))
    (out / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True, help="folder for the per-rule lists and summary.json")
    parser.add_argument("--code-ref", help="measure the rules of this git ref instead of this checkout's")
    parser.add_argument("--set", action="append", default=[], help="a filters override, KEY=VALUE")
    args = parser.parse_args()
    if args.code_ref:
        with tempfile.TemporaryDirectory(prefix="filter-drops-") as tmp:
            site = code_of_ref(args.code_ref, Path(tmp))
            env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
            cmd = [sys.executable, __file__, "--out", args.out, *(f"--set={s}" for s in args.set)]
            subprocess.run(cmd, env=env, check=True, cwd=tmp)
        return
    overrides = dict(item.split("=", 1) for item in args.set)
    summary = measure(Path(args.out), {k: parse_value(v) for k, v in overrides.items()})
    print(json.dumps(summary, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
