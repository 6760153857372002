"""train-vocab's passes on every core give what one read in order gives: the same counts, sample and summary,
on the real test slices (tests/testdata/vocab*) cut into many small ranges and read by two forked workers."""

import dataclasses
import gzip
import json

import pytest

from kcorpus.pipeline.vocab.text_pass import read_training_text
from kcorpus.transforms.vocab import text_summary
from kcorpus.transforms.vocab.sample import SentenceSample, expand_inputs
from kcorpus.transforms.vocab.sample_files import written_sentences
from kcorpus.transforms.vocab.text_ranges import range_lines, split_ranges
from kcorpus.transforms.vocab.text_summary import spread_stride, summarize
from kcorpus.transforms.vocab.train import space_jamo
from testdata_paths import TESTDATA

TEXT = TESTDATA / "vocab" / "nsmc_petitions.txt"
JAMO = TESTDATA / "vocab_jamo" / "jamo_comments.txt"


def serial(files, max_sentences, seed, max_sentence_bytes=None):
    """What train-vocab read before its passes ran on every core: `SentenceSample` and `summarize`."""
    sample = SentenceSample(files, max_sentences=max_sentences, seed=seed)
    for _ in sample.scan():
        pass
    sentences = list(sample.sentences())
    return sample.stats, summarize(sentences, round_trip=50, max_sentence_bytes=max_sentence_bytes), sentences


def parallel(files, scratch, max_sentences, seed, max_sentence_bytes=None, space=False, workers=2):
    scratch.mkdir(exist_ok=True)
    return read_training_text(
        files, str(scratch), max_sentences=max_sentences, seed=seed, round_trip=50,
        max_sentence_bytes=max_sentence_bytes, space_jamo=space, workers=workers, range_bytes=8_000,
    )


def assert_same(text, stats, summary, sentences, space=False):
    assert text.stats == stats
    assert dataclasses.asdict(text.summary) == dataclasses.asdict(summary)
    assert list(text.summary.char_counts) == list(summary.char_counts)  # in code point order too
    expected = [space_jamo(s) for s in sentences] if space else sentences
    assert list(written_sentences(text.files)) == expected


@pytest.fixture
def small_caps(monkeypatch):
    """A spread with a stride above 1 and a jamo word list that overflows, on test-sized text."""
    monkeypatch.setattr(text_summary, "SPREAD_SENTENCES", 37)
    monkeypatch.setattr(text_summary, "MAX_JAMO_WORDS", 5)


@pytest.mark.parametrize(("max_sentences", "seed"), [(10_000, 0), (700, 3), (1, 9)])
def test_text_files_in_ranges_read_as_in_one_pass(tmp_path, small_caps, max_sentences, seed):
    files = [str(TEXT), str(JAMO)]
    stats, summary, sentences = serial(files, max_sentences, seed)
    text = parallel(files, tmp_path / "scratch", max_sentences, seed, space=True)
    assert len(text.files) > 20  # many ranges: the merge is what is tested
    if max_sentences > 1:
        assert text.summary.jamo_words_dropped and spread_stride(text.summary.sentences) > 1
    assert_same(text, stats, summary, sentences, space=True)


def test_sentencepiece_figures_and_jsonl_compressed_and_bad_lines(tmp_path, small_caps):
    lines = TEXT.read_text(encoding="utf-8").split("\n\n")
    docs = tmp_path / "docs.jsonl"
    with docs.open("w", encoding="utf-8") as out:
        for i, doc in enumerate(lines):
            out.write("{not json\n" if i == 40 else json.dumps({"text": doc}, ensure_ascii=False) + "\n")
    packed = tmp_path / "jamo.txt.gz"
    packed.write_bytes(gzip.compress(JAMO.read_bytes()))
    broken = tmp_path / "broken.txt"
    broken.write_bytes(TEXT.read_bytes()[:60_000] + b"\xff\xfe bad\n\n" + TEXT.read_bytes()[60_000:])
    files = [str(docs), str(packed), str(broken)]
    for max_sentences in (10_000, 900):
        stats, summary, sentences = serial(files, max_sentences, 5, max_sentence_bytes=120)
        text = parallel(files, tmp_path / f"scratch{max_sentences}", max_sentences, 5, max_sentence_bytes=120)
        assert stats.bad_records == 1 and stats.decode_errors == 1 and summary.long_sentences
        assert_same(text, stats, summary, sentences)


def test_one_worker_reads_in_this_process_the_same(tmp_path):
    files = [str(TEXT)]
    stats, summary, sentences = serial(files, 600, 1)
    assert_same(parallel(files, tmp_path / "one", 600, 1, workers=1), stats, summary, sentences)


def test_ranges_start_after_a_blank_line_and_cover_the_file_with_its_line_numbers():
    ranges = split_ranges([str(TEXT)], 10_000)
    assert len(ranges) > 10
    lines = TEXT.read_bytes().splitlines(keepends=True)
    read = []
    for text_range in ranges:
        assert text_range.start == 0 or lines[text_range.first_line - 2] == b"\n"
        got = list(range_lines(text_range))
        assert got[0] == lines[text_range.first_line - 1]
        read.extend(got)
    assert read == lines


def test_jamo_the_normalizer_removes_are_not_spaced_when_they_are_the_only_ones(tmp_path):
    # read_range spaces every jamo apart before the alphabet says whether the text has any; U+A97D (unassigned)
    # is a conjoining jamo BERT's normalizer removes: alone, it never made the trainer space jamo apart
    from kcorpus.pipeline.vocab.train import TrainVocabJob, train_vocab
    from kcorpus.transforms.vocab.files import load_vocab
    from kcorpus.transforms.vocab.train import WordPieceConfig, train_wordpiece

    sentences = TEXT.read_text(encoding="utf-8").split("\n")[:400]
    sentences = [s.replace(" ", "\ua97d", 1) for s in sentences if s.strip()]
    corpus = tmp_path / "odd.txt"
    corpus.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    config = WordPieceConfig(vocab_size=1500)
    train_vocab(TrainVocabJob(inputs=(str(corpus),), out=str(tmp_path / "vocab"), config=config, quiet=True))
    assert load_vocab(str(tmp_path / "vocab")).tokens == train_wordpiece(sentences, config)
    assert not any(p.name.startswith(".tmp") for p in (tmp_path / "vocab").iterdir())


def test_expand_inputs_order_is_what_the_ranges_follow(testdata):
    files = expand_inputs([str(testdata / "vocab")])
    assert [r.path for r in split_ranges(files, 1 << 30)] == files
