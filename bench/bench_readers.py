"""Reader throughput on the real data, as medians and ratios against a bare line loop run in the same process.

    python bench/bench_readers.py [--data /work/shared/data] [--repeat 5] [--beam-copies 8]

The baseline reads and decodes every line of the same file with no parsing: the ratio is the reader's cost.
The Beam part reads one large NSMC file (the test split concatenated `--beam-copies` times, ids made unique)
with and without the reshuffle of documents
through `ReadDocuments` on the local runner, in one process and with one worker per core, in 8 MB ranges.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kcorpus.transforms.readers import read_file
from kcorpus.transforms.readers.wiki import wikitext_to_text
from kcorpus.transforms.record import Document


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bare_lines(path: Path) -> int:
    with open(path, "rb") as stream:
        return sum(1 for raw in stream if raw.rstrip(b"\r\n").decode("utf-8") is not None)


def count_documents(fmt: str, path: Path) -> int:
    return sum(isinstance(r, Document) for r in read_file(fmt, str(path)))


def pure_python(data: Path, repeat: int) -> None:
    cases = [("nsmc", data / "nsmc" / "ratings_test.txt"), ("petitions", data / "petitions" / "petitions_2017-08"),
             ("wikiextractor", data / "kowiki" / "wiki_00")]
    print(f"{'format':<14}{'MB':>6}{'docs':>8}{'reader s':>10}{'MB/s':>8}{'docs/s':>10}{'bare s':>9}{'ratio':>7}")
    for fmt, path in cases:
        size = path.stat().st_size / 1e6
        docs = count_documents(fmt, path)
        reader = median_seconds(lambda fmt=fmt, path=path: count_documents(fmt, path), repeat)
        bare = median_seconds(lambda path=path: bare_lines(path), repeat)
        print(f"{fmt:<14}{size:>6.1f}{docs:>8}{reader:>10.3f}{size / reader:>8.1f}{docs / reader:>10.0f}"
              f"{bare:>9.3f}{reader / bare:>7.1f}")


def wikitext(repeat: int) -> None:
    article = (Path(__file__).parents[1] / "tests" / "testdata" / "readers" / "make_synthetic.py").read_text()
    start = article.index('DUMP_ARTICLE = """') + len('DUMP_ARTICLE = """')
    text = article[start: article.index('"""', start)].replace("\\\n", "") * 20  # a ~15 KB article
    seconds = median_seconds(lambda: wikitext_to_text(text), repeat)
    print(f"wikitext_to_text: {len(text.encode()) / 1e3:.0f} KB article in {seconds * 1e3:.1f} ms "
          f"({len(text.encode()) / seconds / 1e6:.2f} MB/s of wikitext)")


def beam_read(data: Path, copies: int) -> None:
    import apache_beam as beam

    from kcorpus.pipeline.corpus.read import ReadDocuments
    from kcorpus.pipeline.options import make_pipeline

    lines = (data / "nsmc" / "ratings_test.txt").read_bytes().split(b"\n")
    header, rows = lines[0], [row for row in lines[1:] if row]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "nsmc_big.txt"
        with open(path, "wb") as out:
            out.write(header + b"\n")
            for copy in range(copies):
                out.writelines(b"%d%s\n" % (copy, row) for row in rows)  # prefix keeps ids unique
        size = path.stat().st_size / 1e6
        runs = (("in_memory", 1, False), ("in_memory", 1, True), ("multi_processing", os.cpu_count() or 1, False))
        for mode, workers, rebalance in runs:
            pipeline = make_pipeline([f"--direct_num_workers={workers}"], local_mode=mode)
            outputs = pipeline | ReadDocuments("nsmc", [str(path)], bundle_bytes=8 << 20, rebalance=rebalance)
            _ = outputs["documents"] | beam.combiners.Count.Globally()
            start = time.perf_counter()
            pipeline.run().wait_until_finish()
            seconds = time.perf_counter() - start
            print(f"ReadDocuments nsmc {size:.0f} MB, {mode} x{workers}, rebalance={rebalance}: {seconds:.1f} s "
                  f"({size / seconds:.1f} MB/s, {copies * len(rows) / seconds:,.0f} docs/s)")
        pure = median_seconds(lambda: count_documents("nsmc", path), 1)
        print(f"read_file nsmc {size:.0f} MB, one process: {pure:.1f} s ({size / pure:.1f} MB/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/shared/data", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--beam-copies", type=int, default=4)
    args = parser.parse_args()
    pure_python(args.data, args.repeat)
    wikitext(args.repeat)
    if args.beam_copies:
        beam_read(args.data, args.beam_copies)


if __name__ == "__main__":
    main()
