import gzip
import json
import re
import sys
import unicodedata

import pytest

from kcorpus.transforms.vocab.sample import (
    InputStats,
    SentenceSample,
    count_text_sentences,
    expand_inputs,
    iter_sentences,
    line_bound,
    prenormalize,
    read_sample,
    reservoir_positions,
    reservoir_sample,
)


def test_prenormalize_composes_nfd_and_collapses_whitespace():
    nfd = unicodedata.normalize("NFD", "한국어")
    assert len(nfd) == 8  # 한=3, 국=3, 어=2 jamo
    assert prenormalize(f"  {nfd}\t 문장\u3000끝 \n") == "한국어 문장 끝"


def test_prenormalize_splits_on_what_a_whitespace_regex_matches():
    # prenormalize joins str.split(): the same runs as re.sub(r"\s+", " ", ...).strip(), on every code point
    chars = [chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF]
    assert [c for c in chars if bool(re.fullmatch(r"\s", c)) != c.isspace()] == []
    spaces = "".join(c for c in chars if c.isspace())
    assert len(spaces) == 29  # \t\n\v\f\r, \x1c-\x1f, space, NEL, NBSP, U+1680, U+2000-U+200A, ...
    assert prenormalize(f"{spaces}가{spaces}나{spaces}") == "가 나"


def test_text_shards_blank_lines_separate_documents(tmp_path):
    shard = tmp_path / "part-00000-of-00002.txt"
    shard.write_text("첫 문장.\n둘째 문장.\n\n\n다른 문서.\n   \n마지막", encoding="utf-8")
    stats = InputStats()
    assert list(iter_sentences([str(shard)], stats)) == ["첫 문장.", "둘째 문장.", "다른 문서.", "마지막"]
    assert (stats.files, stats.lines, stats.documents, stats.sentences) == (1, 7, 3, 4)


def test_jsonl_documents_are_split_into_sentences_and_bad_lines_counted(tmp_path):
    docs = tmp_path / "part-00000-of-00001.jsonl"
    good = {"id": "a", "text": "문장 하나.\n문장 둘.", "source": "nsmc", "metadata": {}}
    docs.write_text(
        json.dumps(good, ensure_ascii=False) + "\n{not json\n" + json.dumps({"id": "b"}) + "\n\n",
        encoding="utf-8",
    )
    stats = InputStats()
    assert list(iter_sentences([str(docs)], stats)) == ["문장 하나.", "문장 둘."]
    assert (stats.documents, stats.bad_records) == (1, 2)
    assert stats.problems[0].startswith(f"{docs}:2: bad JSON")
    assert stats.problems[1] == f"{docs}:3: JSON line without a string 'text' field"


def test_gzip_and_undecodable_bytes_are_read_and_counted(tmp_path):
    path = tmp_path / "a.txt.gz"
    with gzip.open(path, "wb") as f:
        f.write("좋다\n".encode() + b"bad \xff byte\n")
    stats = InputStats()
    assert list(iter_sentences([str(path)], stats)) == ["좋다", "bad \ufffd byte"]
    assert stats.decode_errors == 1 and stats.problems == [f"{path}:2: not valid UTF-8"]


def test_expand_inputs_walks_dirs_sorted_and_rejects_missing(tmp_path):
    (tmp_path / "text").mkdir()
    for name in ("b.txt", "a.txt", ".hidden"):
        (tmp_path / "text" / name).write_text("x\n", encoding="utf-8")
    assert expand_inputs([str(tmp_path), str(tmp_path / "text" / "a.txt")]) == [
        str(tmp_path / "text" / "a.txt"),
        str(tmp_path / "text" / "b.txt"),
    ]
    with pytest.raises(FileNotFoundError, match="nope"):
        expand_inputs([str(tmp_path / "nope.txt")])


def test_reservoir_sample_is_bounded_seeded_and_in_input_order():
    items = [f"s{i}" for i in range(1000)]
    sample, total = reservoir_sample(iter(items), 100, seed=7)
    assert total == 1000 and len(sample) == 100 and len(set(sample)) == 100
    assert sample == sorted(sample, key=lambda s: int(s[1:]))
    assert reservoir_sample(iter(items), 100, seed=7)[0] == sample
    assert reservoir_sample(iter(items), 100, seed=8)[0] != sample
    assert reservoir_sample(iter(items[:50]), 100, seed=7) == (items[:50], 50)
    with pytest.raises(ValueError):
        reservoir_sample(iter(items), 0, seed=0)


def test_reservoir_sample_is_uniform_over_positions():
    # Each of 10 blocks of 1,000 items should get about 1/10 of a 2,000-item sample (seeded, so exact).
    sample, _ = reservoir_sample(iter(range(10_000)), 2000, seed=3)
    per_block = [sum(1 for i in sample if i // 1000 == b) for b in range(10)]
    assert sum(per_block) == 2000
    assert all(150 <= n <= 250 for n in per_block), per_block


def test_read_sample_counts_reconcile(testdata):
    sample, stats, files = read_sample([str(testdata / "vocab")], max_sentences=500, seed=1)
    everything, _, _ = read_sample([str(testdata / "vocab")], max_sentences=10_000, seed=1)
    rest = iter(everything)
    assert len(sample) == 500 and all(s in rest for s in sample)  # a subsequence: input order kept
    assert files == [str(testdata / "vocab" / "nsmc_petitions.txt")]
    assert (stats.sentences, stats.sampled, stats.not_sampled) == (1347, 500, 847)
    assert stats.documents == 1304 and stats.bytes == 211242


def test_build_corpus_dir_means_its_text_shards_only(tmp_path):
    for sub in ("text", "docs", "rejected"):
        (tmp_path / sub).mkdir()
    (tmp_path / "stats.json").write_text("{}", encoding="utf-8")
    for i in (1, 0):
        (tmp_path / "text" / f"part-0000{i}-of-00002.txt").write_text("문장\n", encoding="utf-8")
    (tmp_path / "docs" / "part-00000-of-00001.jsonl").write_text('{"text": "문장"}\n', encoding="utf-8")
    (tmp_path / "rejected" / "dropped.jsonl").write_text('{"text": "버림"}\n', encoding="utf-8")
    assert expand_inputs([str(tmp_path)]) == [
        str(tmp_path / "text" / "part-00000-of-00002.txt"),
        str(tmp_path / "text" / "part-00001-of-00002.txt"),
    ]


def test_build_corpus_dir_without_text_means_its_docs_shards(tmp_path):
    for sub in ("docs", "rejected"):
        (tmp_path / sub).mkdir()
    (tmp_path / "stats.json").write_text("{}", encoding="utf-8")
    for i in (1, 0):
        (tmp_path / "docs" / f"part-0000{i}-of-00002.jsonl.zst").write_bytes(b"")
    (tmp_path / "rejected" / "dropped-00000-of-00002.jsonl.zst").write_bytes(b"")
    assert expand_inputs([str(tmp_path)]) == [
        str(tmp_path / "docs" / "part-00000-of-00002.jsonl.zst"),
        str(tmp_path / "docs" / "part-00001-of-00002.jsonl.zst"),
    ]


@pytest.mark.parametrize("total, k, seed", [(1000, 100, 7), (10_000, 2000, 3), (101, 100, 0), (5, 1, 9)])
def test_reservoir_positions_are_the_positions_reservoir_sample_keeps(total, k, seed):
    kept, _ = reservoir_sample(iter(range(total)), k, seed)
    assert list(reservoir_positions(total, k, seed)) == kept


def test_reservoir_positions_keep_everything_when_the_input_is_small():
    assert reservoir_positions(100, 100, 0) is None and reservoir_positions(0, 5, 0) is None
    with pytest.raises(ValueError):
        reservoir_positions(10, 0, 0)


@pytest.mark.parametrize("max_sentences", [500, 10_000])
def test_sentence_sample_streams_what_read_sample_holds(testdata, max_sentences):
    files = expand_inputs([str(testdata / "vocab")])
    sample = SentenceSample(files, max_sentences=max_sentences, seed=1)
    with pytest.raises(RuntimeError, match="scan"):
        next(iter(sample))
    scanned = list(sample.scan())
    held, stats, _ = read_sample(files, max_sentences=max_sentences, seed=1)
    # text files are counted first, so the scan already yields the sample
    assert sample.scan_was_sample and scanned == held
    assert sample.stats == stats and len(sample) == len(held)
    assert sample.is_subset == (max_sentences < 1347)
    assert list(sample) == held and list(sample) == held  # read again from the files, as often as needed


def test_jsonl_is_scanned_whole_before_its_sample_is_known(tmp_path, testdata):
    lines = read_sample([str(testdata / "vocab")], max_sentences=10_000, seed=0)[0]
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"text": "\n".join(lines[i:i + 3])}, ensure_ascii=False) + "\n"
                            for i in range(0, len(lines), 3)), encoding="utf-8")
    sample = SentenceSample([str(docs)], max_sentences=100, seed=4)
    assert list(sample.scan()) == lines and not sample.scan_was_sample
    assert list(sample) == read_sample([str(docs)], max_sentences=100, seed=4)[0]


def test_counting_text_sentences_agrees_with_reading_them(tmp_path):
    # blank lines of every kind of whitespace, bad bytes, \r, a last line without a newline, gzip
    raw = "문장 하나\n\n \t\n\x1c\x1f\n\u3000\u00a0\n\x0b\r\nabc\r\n\u2028\n끝".encode() + b"\n\xff\xfe\n  x"
    plain, packed = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    plain.write_bytes(raw)
    with gzip.open(packed, "wb") as f:
        f.write(raw)
    stats = InputStats()
    sentences = list(iter_sentences([str(plain), str(packed)], stats))
    assert sentences == ["문장 하나", "abc", "끝", "\ufffd\ufffd", "x"] * 2
    assert count_text_sentences([str(plain), str(packed)]) == 10 and line_bound([str(plain), str(packed)]) == stats.lines == 22
    assert count_text_sentences([str(plain), str(tmp_path / "d.jsonl")]) is None
    assert line_bound([str(tmp_path / "d.jsonl")]) == float("inf")


def test_a_count_that_disagrees_with_the_scan_means_a_second_pass(testdata, monkeypatch):
    from kcorpus.transforms.vocab import sample as sample_module

    files = expand_inputs([str(testdata / "vocab")])
    monkeypatch.setattr(sample_module, "count_text_sentences", lambda paths, progress=False: 1300)
    sample = SentenceSample(files, max_sentences=500, seed=1)
    assert len(list(sample.scan())) == 500 and not sample.scan_was_sample
    assert list(sample) == read_sample(files, max_sentences=500, seed=1)[0]


def test_sentence_sample_refuses_input_that_changed_since_the_scan(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("".join(f"문장 {i}\n" for i in range(20)), encoding="utf-8")
    sample = SentenceSample([str(path)], max_sentences=10, seed=0)
    list(sample.scan())
    assert len(list(sample)) == 10
    path.write_text("".join(f"문장 {i}\n" for i in range(5)), encoding="utf-8")
    with pytest.raises(ValueError, match="the input changed while training: 5 sentences where the first pass read 20"):
        list(sample)
    everything = SentenceSample([str(path)], max_sentences=10, seed=0)
    list(everything.scan())
    path.write_text("".join(f"문장 {i}\n" for i in range(6)), encoding="utf-8")
    with pytest.raises(ValueError, match="6 sentences where the first pass read 5"):
        list(everything)


def test_sentences_at_positions_are_those_of_a_full_read_and_stats_count_everything(tmp_path, testdata):
    lines = read_sample([str(testdata / "vocab")], max_sentences=10_000, seed=0)[0]
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"text": "\n \n".join(lines[i:i + 3])}, ensure_ascii=False) + "\n"
                            for i in range(0, 300, 3)), encoding="utf-8")
    files = [str(testdata / "vocab" / "nsmc_petitions.txt"), str(docs)]
    full_stats = InputStats()
    everything = list(iter_sentences(files, full_stats))
    positions = [0, 5, 1346, 1347, 1500, len(everything) - 1]
    stats = InputStats()
    assert list(iter_sentences(files, stats, positions=positions)) == [everything[i] for i in positions]
    assert stats == full_stats and stats.sentences == 1347 + 300
    assert list(iter_sentences(files, InputStats(), positions=[])) == []


def test_progress_counts_bytes_as_stored_for_compressed_files(tmp_path):
    from kcorpus.transforms.vocab.sample import _lines

    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    text = "".join(f"{i}번째 문장입니다\n" for i in range(2000)).encode()
    (tmp_path / "a.txt").write_bytes(text)
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(text))
    for name in ("a.txt", "a.txt.gz"):
        bar = Bar()
        assert b"".join(_lines(str(tmp_path / name), bar)) == text
        assert bar.n == (tmp_path / name).stat().st_size  # the bar's total is the files' sizes on disk
