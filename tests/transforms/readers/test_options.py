"""`ReadOptions` and the format registry: the contract, coercion and clear errors."""

from __future__ import annotations

import dataclasses

import pytest
from reader_fixtures import DATA, read

from kcorpus.transforms.readers import FORMATS, READERS, ReadOptions, line_parser, reader_for

# --- options ---------------------------------------------------------------------------------------------


def test_formats_are_the_contract():
    assert FORMATS == ("modu", "wikiextractor", "wiki-dump", "petitions", "comments", "nsmc", "text", "jsonl",
                       "parquet", "hf-datasets")


def test_unknown_option_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown read option\(s\) txt_field; valid: encoding, text_field"):
        ReadOptions(txt_field="x")


def test_options_are_frozen_and_validated():
    options = ReadOptions(encoding="cp949")
    with pytest.raises(AttributeError):
        options.encoding = "utf-8"
    with pytest.raises(ValueError, match="unknown encoding"):
        ReadOptions(encoding="klingon")
    with pytest.raises(ValueError, match="layout must be one of auto, lines, tsv, csv, jsonl"):
        ReadOptions(layout="xml")


def test_options_from_cli_strings_are_typed():
    options = ReadOptions.from_strings(["join_turns=yes", "namespaces=0,14", "tags=keep"], encoding="cp949")
    assert (options.join_turns, options.namespaces, options.tags, options.encoding) == (True, (0, 14), "keep", "cp949")
    with pytest.raises(ValueError, match="expects true/false"):
        ReadOptions.from_strings(["headline=maybe"])
    with pytest.raises(ValueError, match="is not key=value"):
        ReadOptions.from_strings(["headline"])
    assert ReadOptions(namespaces=14).namespaces == (14,) and ReadOptions(namespaces=[0, 1]).namespaces == (0, 1)
    assert dataclasses.replace(options, tags="remove").tags == "remove"
    assert ReadOptions(encoding="cp949") == ReadOptions(encoding="cp949")


def test_unknown_format_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown format 'csv'; valid: modu, wikiextractor"):
        read("csv", DATA / "comments_lines.txt")


def test_every_format_has_one_reader_named_after_it():
    assert tuple(READERS) == FORMATS
    assert all(reader_for(fmt).name == fmt for fmt in FORMATS)


def test_readers_say_how_their_files_split():
    options = ReadOptions()
    assert [fmt for fmt in FORMATS if reader_for(fmt).line_based] == ["petitions", "comments", "nsmc", "text", "jsonl"]
    assert [fmt for fmt in FORMATS if reader_for(fmt).folder_is_input] == ["modu", "hf-datasets"]
    assert [fmt for fmt in FORMATS if reader_for(fmt).has_pages] == ["wiki-dump"]
    comments = reader_for("comments")
    assert comments.splittable("a.tsv", options) and not comments.splittable("a.csv", options)
    assert comments.needs_header("a.tsv.gz", options) and not comments.needs_header("a.jsonl", options)
    assert not comments.threaded(options) and comments.threaded(ReadOptions(thread_field="article_id"))
    assert not reader_for("wikiextractor").splittable("wiki_00", options)


def test_line_parser_refuses_a_whole_file_format():
    with pytest.raises(ValueError, match="format 'modu' is not line-based here"):
        line_parser("modu", "a.json", ReadOptions(), "modu")
