"""The inputs of bench_corpus: the bundled sample scaled by perturbed copies, and the real mix of /work/shared/data.

Every input is a dict of source name (nsmc, petitions, kowiki; the names of configs/sample.yaml) to its files.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "testdata" / "sample"
PARTS = 4
_DOC = re.compile(r'<doc id="(\d+)"')


def perturb(text: str, rng: random.Random, vocab: list[str], mode: str) -> str:
    if mode == "exact":
        return text
    lines = []
    for line in text.split("\n"):
        words = line.split(" ")
        if mode == "near":
            if words and len(words) > 3:
                words[rng.randrange(len(words))] = rng.choice(vocab)
        else:
            words = [rng.choice(vocab) if w and rng.random() < 0.5 else w for w in words]
        lines.append(" ".join(words))
    return "\n".join(lines)


def _mode(rng: random.Random) -> str:
    r = rng.random()
    return "exact" if r < 0.05 else "near" if r < 0.10 else "fresh"


def scale_sample(out: Path, megabytes: float, seed: int = 0) -> dict[str, list[str]]:
    """Writes the scaled corpus as PARTS files per source; returns the paths per source."""
    rng = random.Random(seed)
    nsmc = (SAMPLE / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").split("\n")
    header, rows = nsmc[0], [r for r in nsmc[1:] if r]
    petitions = [
        json.loads(x)
        for x in (SAMPLE / "petitions_2017-08_head").read_text(encoding="utf-8").split("\n")
        if x
    ]
    wiki = (SAMPLE / "wiki_00_head").read_text(encoding="utf-8")
    articles = [a for a in wiki.split("</doc>\n") if a.strip()]
    vocab = sorted({w for r in rows for w in r.split("\t")[1].split() if re.search("[가-힣]", w)})
    base = sum(p.stat().st_size for p in SAMPLE.iterdir() if p.name != "README.md")
    copies = max(1, round(megabytes * 1e6 / base))
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, list[str]] = {"nsmc": [], "petitions": [], "kowiki": []}
    files = {}
    for name, names in paths.items():
        for part in range(PARTS):
            path = out / f"{name}-{part}"
            files[(name, part)] = path.open("w", encoding="utf-8")
            names.append(str(path))
            if name == "nsmc":
                files[(name, part)].write(header + "\n")
    for k in range(copies):
        part = k % PARTS
        f = files[("nsmc", part)]
        for row in rows:
            rid, doc, label = row.split("\t")
            text = doc if k == 0 else perturb(doc, rng, vocab, _mode(rng))
            f.write(f"{rid}{k:05d}\t{text}\t{label}\n")
        f = files[("petitions", part)]
        for obj in petitions:
            mode = "exact" if k == 0 else _mode(rng)
            copy = dict(
                obj,
                petition_idx=f"{obj['petition_idx']}-{k}",
                content=perturb(obj["content"], rng, vocab, mode),
                title=perturb(obj["title"], rng, vocab, mode),
            )
            f.write(json.dumps(copy, ensure_ascii=False) + "\n")
        f = files[("kowiki", part)]
        for article in articles:
            head, _, body = article.partition("\n")
            head = _DOC.sub(lambda m, k=k: f'<doc id="{m.group(1)}{k:05d}"', head)
            title, _, rest = body.partition("\n")
            rest = rest if k == 0 else perturb(rest, rng, vocab, _mode(rng))
            f.write(head + "\n" + title + "\n" + rest + "</doc>\n")
    for f in files.values():
        f.close()
    return paths


def cached_scaled_input(work: Path, megabytes: float) -> dict[str, list[str]]:
    """The sample scaled to `megabytes` in `work`, made once: a finished input has its sources.json."""
    folder = work / f"input-{megabytes:g}MB"
    done = folder / "sources.json"
    if done.exists():
        return json.loads(done.read_text(encoding="utf-8"))
    shutil.rmtree(folder, ignore_errors=True)  # a half-written input of an interrupted run
    sources = scale_sample(folder, megabytes)
    done.write_text(json.dumps(sources), encoding="utf-8")
    return sources


REAL_FILES = {
    "nsmc": ["nsmc/ratings_test.txt"],
    "petitions": ["petitions/petitions_2017-08"],
    "kowiki": ["kowiki/wiki_00", "kowiki/wiki_01"],
}
RECORD_ENDS = {"nsmc": b"\n", "petitions": b"\n", "kowiki": b"</doc>\n"}


def head_of(data: bytes, record_end: bytes, at: int) -> bytes:
    """The records of `data` up to the first record end at or after byte `at`."""
    cut = data.find(record_end, at)
    return data if cut < 0 else data[: cut + len(record_end)]


def first_quarter(data: bytes, record_end: bytes) -> bytes:
    """The records of `data` up to the first record end at or after a quarter of its bytes."""
    return head_of(data, record_end, len(data) // 4)


def warmup_input(sources: dict[str, list[str]], folder: Path, nbytes: int = 32_000) -> dict[str, list[str]]:
    """The first `nbytes` (whole records) of each file: a run over it loads the modules and caches of a system.

    Without it the first measured run, on the smallest input, pays the cold start alone, which lowers the
    marginal cost between the smallest and the largest input.
    """
    folder.mkdir(parents=True, exist_ok=True)
    heads: dict[str, list[str]] = {}
    for name, paths in sources.items():
        for i, path in enumerate(paths):
            target = folder / f"{name}-{i}"
            target.write_bytes(head_of(Path(path).read_bytes(), RECORD_ENDS[name], nbytes))
            heads.setdefault(name, []).append(str(target))
    return heads


def real_mix(data: Path, work: Path) -> dict[str, dict[str, list[str]]]:
    """The real files of `data` (unperturbed) as the `full` input, the first quarter of each as `quarter`."""
    full = {name: [str(data / rel) for rel in rels] for name, rels in REAL_FILES.items()}
    missing = [p for paths in full.values() for p in paths if not os.path.exists(p)]
    if missing:
        raise SystemExit(f"--data {data}: missing {', '.join(missing)}")
    folder = work / "input-real-quarter"
    folder.mkdir(parents=True, exist_ok=True)
    quarter: dict[str, list[str]] = {}
    for name, paths in full.items():
        for path in paths:
            target = folder / f"{name}-{Path(path).name}"
            target.write_bytes(first_quarter(Path(path).read_bytes(), RECORD_ENDS[name]))
            quarter.setdefault(name, []).append(str(target))
    return {"quarter": quarter, "full": full}


def input_megabytes(sources: dict[str, list[str]]) -> float:
    return sum(os.path.getsize(p) for paths in sources.values() for p in paths) / 1e6
