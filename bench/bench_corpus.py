"""Benchmark `kcorpus build-corpus` against a Hugging Face `datasets` baseline doing the same work.

    python bench/bench_corpus.py --mb 200          # the issue's figure (long on a 2-core machine)
    python bench/bench_corpus.py --mb 20 --repeat 3

The bundled sample (NSMC comments, petitions, Korean Wikipedia; ~3 MB) is scaled up to `--mb` by
repetition with perturbation: each copy replaces about half of the words with words drawn from the sample's
vocabulary (so copies are neither exact nor near duplicates), except 5% verbatim copies (exact duplicates)
and 5% with one word changed (near duplicates). Each system then runs in its own subprocess, with the peak
resident memory of its whole process tree sampled from /proc:

- `beam`: build-corpus on the local FnApiRunner, multi-processing, one worker per core; near dedup off
  (the baseline has none) and, as a second figure, on.
- `hf`: `datasets` reading the same records (`Dataset.from_generator` over the same readers), `map` of the
  same per-document preparation (NFC, normalization, split, clean, filters) with `num_proc` = cores,
  `filter`, exact dedup by a blake2b hash with a set, and writing JSONL and text.

Prints MB/s, docs/s and peak RSS per system, the median over `--repeat` runs, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def write_config(path: Path, sources: dict[str, list[str]], near: bool) -> None:
    import yaml

    sample = yaml.safe_load((ROOT / "configs" / "sample.yaml").read_text(encoding="utf-8"))
    for src in sample["sources"]:
        src["paths"] = sources[src["name"]]
    sample["dedup"]["near"]["enabled"] = near
    sample["output"]["dropped"] = "sample"
    path.write_text(yaml.safe_dump(sample, allow_unicode=True), encoding="utf-8")


def run_beam(config: str, out: str) -> dict:
    from kcorpus.pipeline.corpus.build import run_build
    from kcorpus.pipeline.profile import load_config

    stats = run_build(load_config(config), out, local_mode="multi_processing", overwrite=True)
    return {"input": stats["total"]["input"], "kept": stats["total"]["kept"]}


def _prepare_batch(batch: dict, sources: dict) -> dict:
    """One `datasets.map` call: the same DocumentPreparer the pipeline uses, per source."""
    from kcorpus.transforms.dedup import dedup_text, digest
    from kcorpus.transforms.record import Document

    global _PREPARERS
    if "_PREPARERS" not in globals():
        from kcorpus.pipeline.corpus.prepare import PrepareBatchFn
        from kcorpus.pipeline.profile import load_config

        fn = PrepareBatchFn(load_config(sources["config"]), "")
        fn.setup()
        _PREPARERS = fn.preparers
    texts, keys, reasons = [], [], []
    for doc_id, text, source in zip(batch["id"], batch["text"], batch["source"], strict=True):
        prepared = _PREPARERS[source].prepare(Document(doc_id, text, source))
        kept = prepared.document.text if prepared.document else ""
        texts.append(kept)
        reasons.append(prepared.reason or "")
        keys.append(digest(dedup_text(kept)).hex() if prepared.document else "")
    return {"clean": texts, "reason": reasons, "key": keys}


def run_hf(config: str, out: str) -> dict:
    import datasets

    from kcorpus.pipeline.profile import load_config
    from kcorpus.transforms.readers import read_file
    from kcorpus.transforms.record import Document

    datasets.disable_progress_bars()
    cfg = load_config(config)
    cores = os.cpu_count() or 1

    def records():
        for src in cfg.sources:
            for path in src.paths:
                for rec in read_file(src.format, path, None, src.name):
                    if isinstance(rec, Document):
                        yield {"id": rec.id, "text": rec.text, "source": rec.source}

    cache = Path(out) / "hf-cache"
    ds = datasets.Dataset.from_generator(records, cache_dir=str(cache))
    n_input = len(ds)
    ds = ds.map(
        _prepare_batch,
        batched=True,
        batch_size=1000,
        num_proc=cores,
        fn_kwargs={"sources": {"config": config}},
    )
    ds = ds.filter(lambda r: [x == "" for x in r], input_columns="reason", batched=True, num_proc=cores)
    seen: set[str] = set()

    def first_of_hash(keys):
        keep = []
        for k in keys:
            keep.append(k not in seen)
            seen.add(k)
        return keep

    ds = ds.sort("id").filter(first_of_hash, input_columns="key", batched=True)  # smallest id survives
    ds.select_columns(["id", "clean", "source"]).to_json(str(Path(out) / "docs.jsonl"), force_ascii=False)
    with open(Path(out) / "text.txt", "w", encoding="utf-8") as f:
        f.writelines(
            "".join(t + "\n\n" for t in batch["clean"])
            for batch in ds.select_columns(["clean"]).iter(batch_size=10000)
        )
    return {"input": n_input, "kept": len(ds)}


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            continue
    return total


def measure(system: str, config: str, out: str) -> dict:
    """Runs one system in a subprocess; wall time, peak tree RSS and its result."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [sys.executable, __file__, "--worker", system, "--config", config, "--out", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_before = before.ru_utime + before.ru_stime
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.2)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    output = proc.stdout.read() if proc.stdout else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{system} failed with exit code {proc.returncode}")
    result = json.loads(output.strip().splitlines()[-1])
    return {"wall": wall, "cpu": cpu, "peak_rss": peak, **result}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=200.0, help="input size to scale the sample to (MB)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per system; medians are reported")
    parser.add_argument(
        "--systems",
        default="beam,beam+near,hf",
        help="comma-separated subset of beam, beam+near, hf (ratios need beam and hf)",
    )
    parser.add_argument("--workdir", help="where the scaled input and outputs go (default: a temp dir)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        result = (run_hf if args.worker == "hf" else run_beam)(args.config, args.out)
        print(json.dumps(result))
        return
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-corpus-"))
    t0 = time.monotonic()
    sources = scale_sample(work / "input", args.mb)
    size = sum(os.path.getsize(p) for ps in sources.values() for p in ps)
    print(
        f"input: {size / 1e6:.1f} MB in {sum(len(p) for p in sources.values())} files "
        f"(scaled in {time.monotonic() - t0:.0f} s); cores: {os.cpu_count()}"
    )
    all_configs = {"beam": work / "exact.yaml", "beam+near": work / "near.yaml", "hf": work / "exact.yaml"}
    configs = {name: all_configs[name] for name in args.systems.split(",")}
    write_config(work / "exact.yaml", sources, near=False)
    write_config(work / "near.yaml", sources, near=True)
    results: dict[str, list[dict]] = {name: [] for name in configs}
    print(f"load average before the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for _ in range(args.repeat):
        for name, config in configs.items():
            results[name].append(measure(name.split("+")[0], str(config), str(work / f"out-{name}")))
    print(
        f"{'system':<10} {'wall s':>8} {'MB/s':>7} {'docs/s':>8} {'CPU s':>8} {'peak RSS MB':>12} "
        f"{'input':>9} {'kept':>9}"
    )
    walls, cpus = {}, {}
    for name, runs in results.items():
        walls[name] = wall = statistics.median(r["wall"] for r in runs)
        cpus[name] = cpu = statistics.median(r["cpu"] for r in runs)
        rss = statistics.median(r["peak_rss"] for r in runs)
        r = runs[0]
        print(
            f"{name:<10} {wall:8.1f} {size / 1e6 / wall:7.2f} {r['input'] / wall:8.0f} {cpu:8.1f} "
            f"{rss / 2**20:12.0f} {r['input']:9d} {r['kept']:9d}"
        )
    for name in ("beam", "beam+near"):
        if name in walls and "hf" in walls:
            print(
                f"throughput ratio {name}/hf (wall, same input): {walls['hf'] / walls[name]:.2f}x; "
                f"CPU-time ratio hf/{name}: {cpus['hf'] / cpus[name]:.2f}x"
            )
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
