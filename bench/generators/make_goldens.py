"""Regenerate tests/testdata/golden/: the published cleaners' outputs on every NSMC and petitions text.

Inputs: every `document` of NSMC ratings_test.txt (split on tab, never CSV) and the `title` and `content`
of every record of petitions_2017-08, from `../shared/data`. Outputs: what the published functions (loaded
from REFERENCE.md by reference_clean.py) return, run in two throwaway venvs:

    python3 -m venv /tmp/ref-emoji2  && /tmp/ref-emoji2/bin/pip install 'emoji>=2' soynlp
    python3 -m venv /tmp/ref-emoji12 && /tmp/ref-emoji12/bin/pip install emoji==1.2.0 soynlp
    .venv/bin/python bench/generators/make_goldens.py --emoji2-python /tmp/ref-emoji2/bin/python \\
        --emoji12-python /tmp/ref-emoji12/bin/python

Files (gzip, mtime 0, so a rerun on the same data is byte-identical), one JSON value per line, line i of
each describing text i:
  inputs.jsonl.gz     the input text (NSMC lines 2.., then each petition's title and content)
  kcelectra.jsonl.gz  the kcelectra reference output, or null where it equals the input (97% of lines)
  kcbert.jsonl.gz     the kcbert reference output, or null where it equals the kcelectra output
  code_points.json    per preset, the code points c for which "x{c}x" comes back unchanged (all others
                      give "x x"): the whitelist as the published code behaves, over all of Unicode
  manifest.json       where each text comes from, counts, package versions, the emoji check
The nulls keep the outputs at ~0.3 MB instead of 4.7 MB; every line is still compared.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

BENCH_LIB = Path(__file__).resolve().parents[1] / "lib"  # reference_clean.py
REPO = BENCH_LIB.parents[1]
GOLDEN = REPO / "tests" / "testdata" / "golden"
NSMC = "nsmc/ratings_test.txt"
PETITIONS = "petitions/petitions_2017-08"

_VERSIONS = """
import importlib.metadata as md, json, sys
sys.path.insert(0, sys.argv[1])
from reference_clean import emoji_surviving_whitelist
print(json.dumps({"python": sys.version.split()[0], "emoji": md.version("emoji"),
                  "soynlp": md.version("soynlp"), "emoji_surviving_whitelist": emoji_surviving_whitelist()}))
"""


def find_shared_data() -> Path:
    for shared in (REPO.parent / "shared", REPO.parent.parent / "shared"):
        if (shared / "data" / NSMC).is_file():
            return shared / "data"
    raise SystemExit(f"no shared/data/{NSMC} next to {REPO}; pass --data")


def iter_inputs(data: Path) -> Iterator[dict[str, str]]:
    with open(data / NSMC, encoding="utf-8", newline="\n") as f:
        next(f)  # header: id, document, label
        for lineno, line in enumerate(f, start=2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise ValueError(f"{NSMC}:{lineno}: expected 3 tab-separated fields, got {len(fields)}")
            yield {"where": f"{NSMC}:{lineno}", "text": fields[1]}
    with open(data / PETITIONS, encoding="utf-8", newline="\n") as f:
        for lineno, line in enumerate(f, start=1):
            record = json.loads(line)
            for key in ("title", "content"):
                yield {"where": f"{PETITIONS}:{lineno}:{key}", "text": record[key]}


def write_gzip(path: Path, lines: list[str]) -> None:
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write("".join(line + "\n" for line in lines).encode("utf-8"))
    path.write_bytes(buffer.getvalue())


def run_reference(python: str, variant: str, texts_jsonl: bytes) -> list[str]:
    result = subprocess.run(
        [python, str(BENCH_LIB / "reference_clean.py"), "--variant", variant],
        input=texts_jsonl,
        capture_output=True,
        check=True,
    )
    return result.stdout.decode("utf-8").splitlines()


def reference_code_points(python: str, variant: str) -> dict:
    cmd = [python, str(BENCH_LIB / "reference_clean.py"), "--variant", variant, "--code-points"]
    return json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout)


def reference_versions(python: str) -> dict:
    out = subprocess.run([python, "-c", _VERSIONS, str(BENCH_LIB)], capture_output=True, check=True, text=True)
    return json.loads(out.stdout)


def _dumps(value: str | None) -> str:
    return json.dumps(value, ensure_ascii=False)


def _count(inputs: list[dict[str, str]], file: str) -> int:
    return sum(r["where"].startswith(file + ":") for r in inputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="the shared data folder (default: ../shared/data)"
    )
    parser.add_argument("--emoji2-python", required=True, help="python of a venv with emoji>=2 and soynlp")
    parser.add_argument(
        "--emoji12-python", required=True, help="python of a venv with emoji==1.2.0 and soynlp"
    )
    args = parser.parse_args(argv)

    inputs = list(iter_inputs(args.data or find_shared_data()))
    texts_jsonl = "".join(json.dumps(r["text"], ensure_ascii=False) + "\n" for r in inputs).encode("utf-8")
    outputs = {
        "kcelectra": run_reference(args.emoji2_python, "kcelectra", texts_jsonl),
        "kcbert": run_reference(args.emoji12_python, "kcbert", texts_jsonl),
    }
    for variant, lines in outputs.items():
        if len(lines) != len(inputs):
            raise SystemExit(f"{variant}: {len(lines)} outputs for {len(inputs)} inputs")

    texts = [r["text"] for r in inputs]
    kcelectra = [json.loads(line) for line in outputs["kcelectra"]]
    kcbert = [json.loads(line) for line in outputs["kcbert"]]
    GOLDEN.mkdir(parents=True, exist_ok=True)
    write_gzip(GOLDEN / "inputs.jsonl.gz", [_dumps(t) for t in texts])
    write_gzip(
        GOLDEN / "kcelectra.jsonl.gz", [_dumps(None if o == t else o) for o, t in zip(kcelectra, texts)]
    )
    write_gzip(GOLDEN / "kcbert.jsonl.gz", [_dumps(None if b == e else b) for b, e in zip(kcbert, kcelectra)])
    manifest = {
        "generated_by": "bench/generators/make_goldens.py",
        "texts": len(texts),
        # Text i is `where[i]` of the first source whose count covers it, in this order.
        "sources": [
            {"file": NSMC, "first_line": 2, "fields": ["document"], "texts": _count(inputs, NSMC)},
            {
                "file": PETITIONS,
                "first_line": 1,
                "fields": ["title", "content"],
                "texts": _count(inputs, PETITIONS),
            },
        ],
        "kcelectra_differs_from_input": sum(o != t for o, t in zip(kcelectra, texts)),
        "kcbert_differs_from_kcelectra": sum(b != e for b, e in zip(kcbert, kcelectra)),
        "kcelectra": reference_versions(args.emoji2_python),
        "kcbert": reference_versions(args.emoji12_python),
    }
    code_points = {
        "kcelectra": reference_code_points(args.emoji2_python, "kcelectra"),
        "kcbert": reference_code_points(args.emoji12_python, "kcbert"),
    }
    (GOLDEN / "code_points.json").write_text(json.dumps(code_points) + "\n", encoding="utf-8")
    (GOLDEN / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(manifest, indent=2), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
