"""Input units: a grid that follows the file alone, keys that follow the settings and the file, a completion
marker that is the only proof of a finished unit, and runs merged through bounded fan-in."""

from __future__ import annotations

import dataclasses
import os

from kcorpus.pipeline.corpus.runs import RECORDS
from kcorpus.pipeline.corpus.units import (
    DONE_SUFFIX,
    MAX_UNIT_BYTES,
    MIN_UNIT_BYTES,
    UnitWriter,
    build_identity,
    finished_keys,
    load_unit,
    make_unit,
    prune_units,
    read_span,
    span_of,
    span_wire,
    unit_ranges,
)
from kcorpus.pipeline.external_sort import RunSpan, merge_runs, reduce_runs, write_run
from kcorpus.pipeline.profile.load import load_config
from testdata_paths import ROOT


def test_ranges_follow_the_file_alone():
    assert unit_ranges(500, True) == [(0, 500)]
    assert unit_ranges(3 * MIN_UNIT_BYTES, True) == [(0, MIN_UNIT_BYTES), (MIN_UNIT_BYTES, 2 * MIN_UNIT_BYTES),
                                                      (2 * MIN_UNIT_BYTES, 3 * MIN_UNIT_BYTES)]  # fmt: skip
    assert len(unit_ranges(8 * MIN_UNIT_BYTES, True)) == 4
    big = unit_ranges(100 * MAX_UNIT_BYTES + 1, True)
    assert len(big) == 101 and big[-1][1] == 100 * MAX_UNIT_BYTES + 1
    sizes = [end - start for start, end in big]
    assert max(sizes) - min(sizes) < len(big) and max(sizes) <= MAX_UNIT_BYTES  # equal ranges, no 1-byte tail
    assert unit_ranges(MIN_UNIT_BYTES + 50_000, True) == [(0, MIN_UNIT_BYTES + 50_000)]  # a 1 MB wiki file
    assert unit_ranges(10 * MAX_UNIT_BYTES, False) == [(0, -1)]


def test_keys_follow_settings_and_file_not_paths_patterns(tmp_path):
    config = load_config(str(ROOT / "configs" / "sample.yaml"))
    moved = dataclasses.replace(
        config, sources=tuple(dataclasses.replace(s, paths=("/elsewhere/*",)) for s in config.sources)
    )
    identity = build_identity(config, "1.0")
    assert build_identity(moved, "1.0") == identity
    assert build_identity(config, "1.1") != identity
    stricter = dataclasses.replace(config, filters=dataclasses.replace(config.filters, min_chars=11))
    assert build_identity(stricter, "1.0") != identity
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    unit = make_unit(identity, 0, "nsmc", str(path), 2, (0, 2))
    assert make_unit(identity, 0, "nsmc", str(path), 2, (0, 2)) == unit
    assert make_unit(identity, 0, "nsmc", str(path), 2, (0, -1)).key != unit.key
    os.utime(path, ns=(1, 1))  # rewritten in place
    assert make_unit(identity, 0, "nsmc", str(path), 2, (0, 2)).key != unit.key


def test_only_a_completion_marker_makes_a_unit_finished(tmp_path):
    folder = str(tmp_path)
    writer = UnitWriter(folder, "k1")
    writer.add_run("docs", 0, [(("b", "s"), "B"), (("a", "s"), "A")])
    writer.add_meta([("node", "s")])
    assert load_unit(folder, "k1") is None and finished_keys(folder) == set()  # killed before the commit
    result = writer.commit()
    assert finished_keys(folder) == {"k1"}
    loaded = load_unit(folder, "k1")
    assert loaded == result
    assert list(read_span(loaded.meta[0])) == [[("node", "s")]]
    (tmp_path / f"k2{DONE_SUFFIX}").write_bytes(b"\x80truncated")
    assert load_unit(folder, "k2") is None  # unreadable: done again
    (tmp_path / "k1.data").unlink()
    assert load_unit(folder, "k1") is None  # its data is gone: done again
    (tmp_path / ".k3.data.tmp-0123").write_bytes(b"")
    assert prune_units(folder, {"k1"}) == 2 and sorted(os.listdir(tmp_path)) == ["k1.done"]


def test_unit_runs_merge_with_run_files_through_bounded_fan_in(tmp_path):
    refs = []
    expected = []
    for i in range(7):
        records = [((f"{j:03d}", str(i)), f"p{i}-{j}") for j in range(i, 40, 7)]
        expected += records
        if i % 2:
            path = str(tmp_path / f"run{i}.run")
            write_run(path, sorted(records), RECORDS)
            refs.append(path)
        else:
            writer = UnitWriter(str(tmp_path), f"u{i}")
            writer.add_run("docs", 0, records)
            refs.append(writer.commit().runs[0][2])
    assert all(isinstance(r, (str, RunSpan)) for r in refs)
    (tmp_path / "merged").mkdir()
    reduced = reduce_runs(refs, RECORDS, str(tmp_path / "merged"), fan_in=2)
    assert len(reduced) == 2 and list(merge_runs(reduced, RECORDS)) == sorted(expected)
    assert list(merge_runs(refs, RECORDS)) == sorted(expected)


def test_a_run_travels_to_its_writer_as_a_few_bytes():
    # The local runner holds every unit's run of every shard until the writers start: ~65 bytes each, not ~200.
    from apache_beam.coders.typecoders import registry

    folder = "/data/corpus/.kcorpus-units"
    span = RunSpan(f"{folder}/0123456789abcdef0123456789abcdef.data", 123_456_789, 34_567)
    wire = span_wire(span)
    assert span_of(wire, folder) == span
    coder = registry.get_coder(object)
    assert len(coder.encode((("docs", 17), wire))) < len(coder.encode((("docs", 17), span))) / 2.5
