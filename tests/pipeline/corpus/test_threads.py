"""Comment threads in input units: rows read per unit, threads joined at the unit of their first comment,
cut into batches keyed by their contents (pipeline/corpus/threads.py)."""

from __future__ import annotations

from kcorpus.pipeline.corpus.read_batches import BatchSource
from kcorpus.pipeline.corpus.threads import OTHERS, ReadThreadRows, batch_digest, cut_batches, join_thread
from kcorpus.pipeline.corpus.units import Unit
from kcorpus.transforms.readers import read_files
from kcorpus.transforms.readers.records import CommentRow
from kcorpus.transforms.record import DeadLetter, Document
from testdata_paths import TESTDATA

THREADS = TESTDATA / "readers" / "comments_threads.jsonl"
SOURCE = BatchSource("comments", (str(THREADS),), {"thread_field": "article_id"}, "naver")


def read_unit(path, start=0, end=-1, source=SOURCE):
    fn = ReadThreadRows([source])
    fn.setup()
    unit = Unit(0, str(path), start, end, 0, "k")
    rows, homes = [], []
    for out in fn.process((0, unit)):
        (homes if getattr(out, "tag", None) == "home" else rows).append(getattr(out, "value", out))
    return rows, homes


def test_joined_threads_are_the_documents_the_reader_gives():
    rows, homes = read_unit(THREADS)
    assert homes == [((0, "k"), None)]  # every comment is a thread row; the marker makes the unit cut
    threads: dict = {}
    for key, row in rows:
        threads.setdefault(key, []).append(row)
    joined = [join_thread(key, members, ["naver"]) for key, members in threads.items()]
    assert {home for home, _ in joined} == {(0, "k")}
    expected = list(read_files("comments", [str(THREADS)], {"thread_field": "article_id"}, "naver"))
    assert len(expected) == 2 and {doc.id: doc for _, (_, doc) in joined} == {d.id: d for d in expected}


def test_a_thread_belongs_to_the_unit_of_its_first_comment():
    rows = [("b", CommentRow("A1", "f2.jsonl", 0, "둘")), ("a", CommentRow("A1", "f1.jsonl", 40, "하나"))]
    (index, home), ((_, path, position), doc) = join_thread((0, "A1"), rows, ["naver"])
    assert (index, home, path, position) == (0, "a", "f1.jsonl", 40)
    assert doc.id == "naver:A1" and doc.text == "하나\n둘"


def test_a_file_whose_layout_has_no_threads_is_dead_lettered_once(tmp_path):
    # Local files are refused by the preflight; one that gets here (remote) is a dead letter, not a crash.
    lines = tmp_path / "c.txt"
    lines.write_text("첫 댓글\n두번째 댓글\n", encoding="utf-8")
    rows, homes = read_unit(lines, 0, 10)
    assert rows == [] and len(homes) == 2
    (_, ((kind, _, _), dead)) = homes[1]
    assert (
        kind == OTHERS
        and isinstance(dead, DeadLetter)
        and dead.reason.startswith("wrong_layout: thread_field")
    )
    rows, homes = read_unit(lines, 10, 20)
    assert rows == [] and homes == [((0, "k"), None)]  # its other ranges add nothing


def test_batches_and_their_digest():
    docs = [Document(f"naver:{i}", "가" * 100, "naver", {}) for i in range(5)]
    assert [len(b) for b in cut_batches(docs, 2)] == [2, 2, 1]
    batch = [("naver", d) for d in docs[:2]]
    assert batch_digest(batch) == batch_digest(
        [("naver", Document(d.id, d.text, d.source, {})) for d in docs[:2]]
    )
    changed = [("naver", docs[0]), ("naver", Document("naver:1", "가" * 99, "naver", {}))]
    assert batch_digest(changed) != batch_digest(batch)
