"""`kcorpus clean`: files and stdin, TSV columns, invalid UTF-8, options, the summary."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from kcorpus.pipeline import cli
from kcorpus.transforms.text.clean import clean

LINES = ["ㅋㅋㅋㅋㅋ 정말 재밌어요!!!! 😀", "http://naver.com 漢字 노노", "", "  OOO 같은 놈  "]


def run(argv: list[str], capsysbinary, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    status = cli.main(["clean", *argv])
    out, err = capsysbinary.readouterr()
    return status, out.decode("utf-8"), err.decode("utf-8")


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "comments.txt"
    path.write_bytes("\n".join(LINES).encode("utf-8"))  # no final newline: the last line still counts
    return path


def test_file_gives_one_cleaned_line_per_input_line(text_file, capsysbinary):
    status, out, err = run([str(text_file)], capsysbinary)
    assert status == 0 and err == ""
    assert out == "ㅋㅋ 정말 재밌어요!!!!\n노노\n\nOOO 같은 놈\n"
    assert out.splitlines() == [clean(line) for line in LINES]


def test_stdin_when_no_file(capsysbinary, monkeypatch):
    data = "\r\n".join(LINES).encode("utf-8") + b"\r\n"
    status, out, _ = run(["--preset", "kcbert"], capsysbinary, stdin=data, monkeypatch=monkeypatch)
    assert status == 0
    assert out.splitlines() == [clean(line, preset="kcbert") for line in LINES]
    assert out.splitlines()[0] == "ㅋㅋ 정말 재밌어요!!!! 😀"


def test_files_and_dash_in_order(text_file, capsysbinary, monkeypatch):
    status, out, _ = run([str(text_file), "-", str(text_file)], capsysbinary, b"\xed\x95\x98\n", monkeypatch)
    assert status == 0
    assert out.splitlines() == [clean(x) for x in LINES] + ["하"] + [clean(x) for x in LINES]


def test_options_override_the_preset(text_file, capsysbinary):
    status, out, _ = run(
        ["--option", "remove_ooo=true", "--option", "num_repeats=3", str(text_file)], capsysbinary
    )
    assert status == 0
    assert out.splitlines() == ["ㅋㅋㅋ 정말 재밌어요!!!!", "노노", "", "같은 놈"]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("keep_emojis=true", "unknown clean option(s) 'keep_emojis'; valid options: nfc, whitelist, keep_emoji,"),
        ("keep_emoji", "--option expects KEY=VALUE, got 'keep_emoji'"),
        ("keep_emoji=maybe", "--option keep_emoji: expected true/false or a number, got 'maybe'"),
        ("num_repeats=true", "--option num_repeats: expected true/false or a number, got 'true'"),
        ("keep_emoji=2", "keep_emoji must be a bool, got int"),
    ],
)
def test_bad_options_are_one_line_errors(option, message, text_file, capsysbinary):
    status, out, err = run(["--option", option, str(text_file)], capsysbinary)
    assert status == 2 and out == ""
    assert err.startswith(f"kcorpus clean: {message}") and err.count("\n") == 1


def test_missing_file_is_reported_before_any_output(text_file, tmp_path, capsysbinary):
    status, out, err = run([str(text_file), str(tmp_path / "nope.txt")], capsysbinary)
    assert (status, out) == (2, "")
    assert err == f"kcorpus clean: {tmp_path / 'nope.txt'}: no such file\n"


def test_directory_is_an_error(tmp_path, capsysbinary):
    assert run([str(tmp_path)], capsysbinary) == (2, "", f"kcorpus clean: {tmp_path}: is a directory\n")


def test_invalid_utf8_stops_with_file_and_line(tmp_path, capsysbinary):
    path = tmp_path / "bad.txt"
    path.write_bytes("첫 줄\n둘째 줄\n".encode() + b"ok \xed\x95 broken\n" + "넷째\n".encode())
    status, out, err = run([str(path)], capsysbinary)
    assert status == 1
    assert out == "첫 줄\n둘째 줄\n"  # everything before the bad line is written
    assert err == (
        f"kcorpus clean: {path}:3: invalid UTF-8 at byte 4 of the line (b'\\xed\\x95'); "
        "use --invalid-utf8 replace to clean such lines anyway\n"
    )


def test_invalid_utf8_replace_policy_keeps_every_line(tmp_path, capsysbinary, monkeypatch):
    data = "첫 줄\n".encode() + b"ok \xff broken\n" + "셋째\n".encode()
    status, out, err = run(["--invalid-utf8", "replace", "--summary"], capsysbinary, data, monkeypatch)
    assert status == 0
    assert out == "첫 줄\nok broken\n셋째\n"
    assert (
        "kcorpus clean: <stdin>:2: invalid UTF-8 at byte 4 of the line (b'\\xff'): replaced with U+FFFD"
        in err
    )
    assert "3 lines," in err and "1 line(s) with invalid UTF-8 replaced" in err


def test_summary(text_file, capsysbinary):
    status, out, err = run(["--summary", str(text_file)], capsysbinary)
    assert status == 0
    size_in = text_file.stat().st_size
    size_out = len(out.encode("utf-8"))
    match = re.fullmatch(
        r"kcorpus clean: preset kcelectra: 4 lines, (\S+) MB in, (\S+) MB out, 1 empty after cleaning, "
        r"\S+ s, \S+ MB/s\n",
        err,
    )
    assert match, err
    assert match.groups() == (f"{size_in / 1e6:.2f}", f"{size_out / 1e6:.2f}")


def test_tsv_column_cleans_only_that_column(testdata, capsysbinary):
    path = testdata / "nsmc_sample.tsv"
    status, out, err = run(["--column", "document", "--summary", str(path)], capsysbinary)
    assert status == 0
    rows_in = path.read_text(encoding="utf-8").splitlines()
    rows_out = out.splitlines()
    assert len(rows_out) == len(rows_in) == 2001
    assert rows_out[0] == rows_in[0] == "id\tdocument\tlabel"
    for row_in, row_out in zip(rows_in[1:], rows_out[1:]):
        id_, doc, label = row_in.split("\t")
        assert row_out == f"{id_}\t{clean(doc)}\t{label}"
    assert sum(a != b for a, b in zip(rows_in, rows_out)) == 72
    assert "2,000 lines" in err
    # The same by column number.
    assert run(["--column", "2", str(path)], capsysbinary)[1] == out


def test_tsv_unknown_column(testdata, capsysbinary):
    status, out, err = run(["--column", "text", str(testdata / "nsmc_sample.tsv")], capsysbinary)
    assert (status, out) == (1, "")
    assert err.endswith("nsmc_sample.tsv:1: no column 'text' in the header (columns: id, document, label)\n")


def test_tsv_short_row(tmp_path, capsysbinary):
    path = tmp_path / "short.tsv"
    path.write_text("id\tdocument\tlabel\n1\t좋아요ㅋㅋㅋㅋ\t1\n2\n", encoding="utf-8")
    status, out, err = run(["--column", "document", str(path)], capsysbinary)
    assert status == 1
    assert out == "id\tdocument\tlabel\n1\t좋아요ㅋㅋ\t1\n"
    assert err == f"kcorpus clean: {path}:3: 1 tab-separated fields, column 'document' is field 2\n"


def test_real_process_bad_bytes_on_stdin_no_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "kcorpus.pipeline.cli", "clean", "--summary"],
        input="좋아요ㅋㅋㅋㅋ\n".encode() + b"\xc3\x28\n",
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.decode() == "좋아요ㅋㅋ\n"
    assert result.stderr.decode() == (
        "kcorpus clean: <stdin>:2: invalid UTF-8 at byte 1 of the line (b'\\xc3'); "
        "use --invalid-utf8 replace to clean such lines anyway\n"
    )
