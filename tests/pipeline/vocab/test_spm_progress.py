"""SentencePiece's training shown as a bar from its own log lines, read back from file descriptor 2."""

import io
import os
import sys

import pytest

from kcorpus.pipeline.vocab.spm_progress import (
    LOG_LINE,
    SpmLogProgress,
    native_stderr_lines,
    spm_progress_bar,
)
from kcorpus.transforms.vocab.sample import read_sample
from kcorpus.transforms.vocab.train import SentencePieceConfig, train_sentencepiece
from testdata_paths import TESTDATA

# real lines of sentencepiece 0.2 training a 3,000-piece unigram model on tests/testdata/vocab (x3)
UNIGRAM_LOG = """\
I0000 00:00:1795735213.459806   30719 trainer_interface.cc:446] Loaded all 4032 sentences
I0000 00:00:1795735213.470011   30719 trainer_interface.cc:466] Normalizing sentences...
I0000 00:00:1795735213.517085   30719 unigram_model_trainer.cc:327] Extracting seed sentencepieces (libsais_omp, 2 threads)
I0000 00:00:1795735217.431129   30719 unigram_model_trainer.cc:514] Initialized 8977 seed pieces
I0000 00:00:1795735217.451602   30719 trainer_interface.cc:661] Tokenizing input sentences with whitespace: 4032
I0000 00:00:1795735217.500256   30719 unigram_model_trainer.cc:854] Using 10985 sentences for EM training
I0000 00:00:1795735217.595414   30719 unigram_model_trainer.cc:903] EM sub_iter=0 size=6897 obj=17.4652 num_tokens=113931 bytes/tok=6.0188
I0000 00:00:1795735218.324869   30719 unigram_model_trainer.cc:903] EM sub_iter=0 size=4618 obj=17.3004 num_tokens=120186 bytes/tok=5.70556
I0000 00:00:1795735218.990982   30719 unigram_model_trainer.cc:903] EM sub_iter=1 size=3463 obj=17.7729 num_tokens=130560 bytes/tok=5.25221
""".splitlines()


def _messages(lines):
    return [LOG_LINE.match(line).group("message") for line in lines]


def test_unigram_progress_moves_on_a_log_scale_from_the_seed_pieces_to_the_vocab_size():
    tracker = SpmLogProgress(3000, "unigram")
    seen = []
    for message in _messages(UNIGRAM_LOG):
        tracker.feed(message)
        seen.append((tracker.phase, round(tracker.fraction, 3)))
    # 8,977 seed pieces pruned towards 3,300 (1.1 x 3,000): log(8977/6897) / log(8977/3300) = 0.263
    assert seen == [
        ("load", 0.0), ("normalize", 0.0), ("seed pieces", 0.0), ("seed pieces", 0.0), ("tokenize", 0.0),
        ("EM", 0.0), ("EM", 0.263), ("EM", 0.664), ("EM", 0.952),
    ]
    assert tracker.seed_pieces == 8977


def test_bpe_progress_counts_merges_against_the_pieces_left_after_the_alphabet():
    tracker = SpmLogProgress(3000, "bpe")
    for message in ("Alphabet size=1180", "Merged: freq=195 merges=100 piece=▁왜",
                    "Merged: freq=24 merges=1000 piece=년도"):
        tracker.feed(message)
    assert tracker.phase == "merge" and round(tracker.fraction, 3) == round(1000 / 1820, 3)


def test_native_writes_to_descriptor_2_are_read_back_and_python_output_is_not(capfd):
    lines = []

    def on_line(line):
        lines.append(line)
        return line.startswith("pass")

    with native_stderr_lines(on_line) as real:
        os.write(2, b"kept back\npass me through\nno newline at the end")
        print("python text", file=sys.stderr)  # sys.stderr is the real stderr inside the block
        assert sys.stderr is real
    assert sys.stderr is not real
    assert lines == ["kept back", "pass me through", "no newline at the end"]
    # The passed line comes back through a reader thread: its order against Python's own writes is not fixed.
    assert sorted(capfd.readouterr().err.splitlines()) == ["pass me through", "python text"]


def test_sentencepiece_training_under_the_bar_keeps_its_logs_off_stderr_and_ends_at_100(capfd):
    sentences = read_sample([str(TESTDATA / "vocab" / "nsmc_petitions.txt")], max_sentences=10_000, seed=0)[0]
    config = SentencePieceConfig(vocab_size=2000, num_threads=2)
    quiet = train_sentencepiece(sentences, config)
    with spm_progress_bar(2000, "unigram", logs=False) as tracker:
        shown = train_sentencepiece(sentences, config, logs=True)
    assert shown == quiet  # the log level is not part of the model
    assert tracker.phase == "finish" and tracker.fraction == 1.0
    err = capfd.readouterr().err
    assert "train (finish): 100%" in err and ".cc:" not in err and "absl" not in err


@pytest.mark.parametrize("logs", [True, False])
def test_the_log_lines_pass_through_only_when_asked(capfd, logs):
    with spm_progress_bar(10, "unigram", logs=logs, ) as tracker:
        os.write(2, (UNIGRAM_LOG[0] + "\n").encode())
    err = capfd.readouterr().err
    assert ("trainer_interface.cc:446] Loaded all 4032 sentences" in err) == logs
    assert tracker.phase == "load" and "train (load)" in err


def test_a_stream_may_be_given_for_the_real_stderr():
    real = io.StringIO()
    with native_stderr_lines(lambda line: True, real=real):
        os.write(2, b"native\n")
        print("python", file=sys.stderr)
    assert real.getvalue() in ("python\nnative\n", "native\npython\n")
