"""The pure progress accounting: one tally per worker process, merged into one count per phase."""

from __future__ import annotations

from kcorpus.transforms.progress import (
    PhaseCount,
    Tally,
    merge_tallies,
    parse_tally,
    records_note,
    tally_json,
)

RUN = "run-1"


def test_tally_adds_records_and_bytes_per_phase():
    tally = Tally(RUN)
    tally.add("read", records=1000, nbytes=4 << 20)
    tally.add("read", records=24, nbytes=1000)
    tally.add("write", records=1)
    assert tally.phases == {"read": PhaseCount(1024, (4 << 20) + 1000), "write": PhaseCount(1, 0)}


def test_tally_is_due_at_most_every_half_second_and_only_with_news():
    tally = Tally(RUN)
    assert not tally.due(0.0)
    tally.add("read", records=1)
    assert tally.due(0.0)
    tally.mark_written(10.0)
    assert not tally.due(10.1)
    tally.add("read", records=1)
    assert not tally.due(10.4)
    assert tally.due(10.5)


def test_a_written_tally_reads_back():
    tally = Tally(RUN)
    tally.add("read", records=3, nbytes=120)
    text = tally_json(tally)
    assert text == '{"phases": {"read": {"bytes": 120, "records": 3}}, "run": "run-1"}'
    assert parse_tally(text, RUN) == {"read": PhaseCount(3, 120)}


def test_worker_files_merge_into_one_count():
    files = [
        '{"run": "run-1", "phases": {"read": {"records": 1000, "bytes": 300000}}}',
        '{"run": "run-1", "phases": {"read": {"records": 24, "bytes": 7000}, "write": {"records": 2, "bytes": 0}}}',
    ]
    assert merge_tallies(files, RUN) == {"read": PhaseCount(1024, 307000), "write": PhaseCount(2, 0)}


def test_partial_and_stale_files_are_ignored():
    good = '{"run": "run-1", "phases": {"read": {"records": 5, "bytes": 50}}}'
    files = [
        good,
        good[:30],  # cut mid-write
        "",
        "[1, 2]",
        '{"run": "run-0", "phases": {"read": {"records": 999, "bytes": 999}}}',  # another run's
        '{"run": "run-1", "phases": {"read": {"records": "many"}}}',
        '{"run": "run-1"}',
    ]
    assert merge_tallies(files, RUN) == {"read": PhaseCount(5, 50)}
    assert parse_tally(good[:30], RUN) is None


def test_records_note():
    assert records_note({"read": PhaseCount(12345, 0)}, "read") == "12,345 records"
    assert records_note({}, "read") == ""
