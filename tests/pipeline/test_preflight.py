"""Everything validated before work starts: all problems at once, one line each, exit 2, no pipeline run."""

from __future__ import annotations

import json

import pytest
import yaml

from kcorpus.pipeline import options as options_mod
from kcorpus.pipeline.cli import main
from kcorpus.pipeline.errors import UserError
from kcorpus.pipeline.preflight import input_problem, output_file_problem, output_problem
from testdata_paths import TESTDATA

NSMC = TESTDATA / "readers" / "nsmc_ratings_test_slice.txt"


@pytest.fixture
def no_pipeline(monkeypatch):
    """Fails the test if any Beam pipeline is built."""

    def refuse(*args, **kwargs):
        raise AssertionError("a pipeline was started")

    monkeypatch.setattr(options_mod, "make_pipeline", refuse)


def write(path, profile) -> str:
    path.write_text(yaml.safe_dump(profile, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return str(path)


def test_threads_in_a_one_comment_per_line_file_are_refused_before_any_pipeline(tmp_path, capsys, no_pipeline):
    # The comments reader cannot find a thread id in a plain line: a profile mistake, not a dead letter per line.
    threads = TESTDATA / "readers" / "comments_threads.jsonl"
    lines = TESTDATA / "readers" / "comments_lines.txt"
    profile = write(tmp_path / "p.yaml", {"sources": [
        {"name": "naver", "format": "comments", "paths": [str(threads), str(lines)],
         "options": {"thread_field": "article_id"}},
    ]})
    assert main(["build-corpus", "--config", profile, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        (f"kcorpus build-corpus: error: {profile}: sources[0].paths: {lines}: thread_field needs a tsv, csv or "
         "jsonl comments file, not one comment per line"),
    ]
    assert not (tmp_path / "out").exists()


def test_six_mistakes_are_reported_together_before_any_pipeline(tmp_path, capsys, no_pipeline):
    profile = write(tmp_path / "p.yaml", {
        "sources": [
            {"name": "nsmc", "format": "nsmcc", "paths": [str(NSMC)]},
            {"name": "petitions", "format": "petitions", "paths": ["petitions_2017*.txt"], "preset": "kcelektra"},
            {"name": "news", "format": "comments", "paths": [str(NSMC)], "options": {"text_column": "body"},
             "clean_options": {"keep_emojis": True}},
        ],
        "filters": {"min_chars": "ten"},
    })
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", profile, "--out", str(out)]) == 2
    valid_formats = "modu, wikiextractor, wiki-dump, petitions, comments, nsmc, text, jsonl, parquet, hf-datasets"
    valid_options = ("encoding, text_field, id_field, title_field, thread_field, layout, tags, deid, join_turns, "
                     "headline, title, keep_stubs, namespaces, unquote, split, max_whole_file_bytes")
    assert capsys.readouterr().err.splitlines() == [
        f"kcorpus build-corpus: error: {profile}: sources[0].format: unknown format 'nsmcc'; valid: {valid_formats}",
        (f"kcorpus build-corpus: error: {profile}: sources[1].preset: unknown clean preset 'kcelektra'; "
        "valid: kcelectra, kcbert, longform, none"),
        (f"kcorpus build-corpus: error: {profile}: sources[2].options: unknown read option(s) text_column; "
        f"valid: {valid_options}"),
        f"kcorpus build-corpus: error: {profile}: filters.min_chars: expected an integer, got 'ten'",
        # a source's own rule, checked once its keys with wrong values are taken out (issue 26.9)
        (f"kcorpus build-corpus: error: {profile}: sources[2]: clean_options: unknown clean option(s) "
         "'keep_emojis'; valid options: nfc, whitelist, keep_emoji, keep_hanja, fold_fullwidth, remove_urls, "
         "remove_emails, remove_mentions, remove_ooo, num_repeats, repeat_only_hangul, tidy_removals"),
        (f"kcorpus build-corpus: error: {profile}: sources[1].paths: '{tmp_path}/petitions_2017*.txt' matches "
        "no file (allow_missing: true on the source allows that)"),
    ]
    assert not out.exists()


def test_clean_options_are_checked_against_the_preset(tmp_path, capsys, no_pipeline):
    profile = write(tmp_path / "p.yaml", {"sources": [
        {"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)], "clean_options": {"keep_emojis": True}},
        {"name": "raw", "format": "nsmc", "paths": [str(NSMC)], "preset": "none",
         "clean_options": {"keep_emoji": True}},
    ]})
    assert main(["build-corpus", "--config", profile, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"kcorpus build-corpus: error: {profile}: sources[0]: clean_options: unknown clean "
                             "option(s) 'keep_emojis'; valid options: nfc, whitelist, keep_emoji, ")
    assert err[1] == (f"kcorpus build-corpus: error: {profile}: sources[1]: clean_options: given, but preset is "
                      "none (nothing is cleaned)")


def test_a_sources_bad_filter_keys_are_one_line_each_naming_the_source_before_any_work(
    tmp_path, capsys, no_pipeline
):
    profile = write(tmp_path / "p.yaml", {
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)],
                     "filters": {"min_sentence": 1, "min_chars": "ten"}}],
    })  # fmt: skip
    out = tmp_path / "out"
    for command in (["build-corpus", "--config", profile, "--out", str(out)], ["run", profile, "--out", str(out)]):
        assert main(command) == 2
        assert capsys.readouterr().err.splitlines() == [
            (f"kcorpus {command[0]}: error: {profile}: sources[nsmc].filters.min_chars: expected an integer, "
            "got 'ten'"),
            (f"kcorpus {command[0]}: error: {profile}: sources[nsmc].filters.min_sentence: unknown key; valid keys: "
            "min_chars, max_chars, min_hangul_ratio, drop_ooo_only, max_repeated_token_ratio, repetition_min_tokens, "
            "repeated_unit_min_repeats, repeated_unit_max_chars, dup_line_fraction, dup_line_char_fraction, "
            "dup_paragraph_fraction, dup_paragraph_char_fraction, top_ngram_char_fractions, dup_ngram_char_fractions, "
            "repetition_min_lines, repetition_min_words, max_punctuation_run, masks, mask_token, placeholders, formula_token, "
                "code_token, min_sentences, pii"),
        ]
        assert not out.exists()


def test_missing_path_in_kcorpus_run_exits_2_before_any_stage(tmp_path, capsys, no_pipeline):
    profile = write(tmp_path / "p.yaml", {
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": ["data/nsmc.txt"]}],
        "vocab": {"kind": "wordpiece", "vocab_size": 300},
        "run": {"out": "runs/x"},
    })
    assert main(["run", profile]) == 2
    assert capsys.readouterr().err == (
        f"kcorpus run: error: {profile}: sources[0].paths: '{tmp_path}/data/nsmc.txt' matches no file "
        "(allow_missing: true on the source allows that)\n"
    )
    assert not (tmp_path / "runs").exists()


def test_kcorpus_run_without_vocab_and_with_a_file_as_run_folder(tmp_path, capsys, no_pipeline):
    (tmp_path / "taken").write_text("a user's file\n", encoding="utf-8")
    profile = write(tmp_path / "p.yaml", {"sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]}]})
    assert main(["run", profile, "--out", str(tmp_path / "taken")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"kcorpus run: error: {profile}: vocab: required by kcorpus run (e.g. kind: wordpiece, vocab_size: 32000)",
        (f"kcorpus run: error: --out {tmp_path}/taken: is a file; expected a folder (or a path where one can be "
        "created)"),
    ]
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "a user's file\n"


def test_yaml_syntax_error_is_one_line(tmp_path, capsys, no_pipeline):
    profile = tmp_path / "p.yaml"
    profile.write_text("sources:\n  - name: nsmc\n    paths: [a, b\n", encoding="utf-8")
    assert main(["build-corpus", "--config", str(profile), "--out", str(tmp_path / "out")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"kcorpus build-corpus: error: {profile}:4: not valid YAML: ")


def test_missing_profile_file_is_one_line(tmp_path, capsys):
    assert main(["build-corpus", "--config", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        f"kcorpus build-corpus: error: {tmp_path}/nope.yaml: cannot read the profile: No such file or directory\n"
    )


def test_debug_raises_the_user_error_with_its_traceback(tmp_path, no_pipeline):
    profile = write(tmp_path / "p.yaml", {"sources": [{"name": "a", "format": "nsmc", "paths": ["missing"]}]})
    with pytest.raises(UserError, match="matches no file"):
        main(["--debug", "build-corpus", "--config", profile, "--out", str(tmp_path / "out")])


def test_allow_missing_lets_a_glob_match_nothing(tmp_path, capsys):
    profile = write(tmp_path / "p.yaml", {
        "sources": [
            {"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]},
            {"name": "later", "format": "jsonl", "paths": ["incoming/*.jsonl"], "allow_missing": True},
        ],
        "output": {"num_shards": 1},
    })
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", profile, "--out", str(out), "--local-mode", "in_memory"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["source", "files", "bytes", "in", "kept", "dropped", "dead-lettered"]
    # the source that matched nothing shows 0 files, 0 bytes, and its pattern is named
    assert table[1].split()[:5] == ["later", "0", "0", "B", "1"] and table[1].split()[-1] == "1"
    size = NSMC.stat().st_size
    assert table[2].split()[:4] == ["nsmc", "1", f"{size / 1000:.1f}", "KB"]
    assert table[4] == f"source 'later': {tmp_path / 'incoming' / '*.jsonl'} matched no file"
    assert table[-1] == f"corpus: {out}  (docs/, rejected/, stats.json)"
    inputs = json.loads((out / "stats.json").read_text())["inputs"]
    assert {k: v for k, v in inputs["nsmc"].items() if k in ("files", "bytes", "matched")} == {
        "files": 1, "bytes": size, "matched": [{"pattern": str(NSMC), "files": 1, "bytes": size}]}
    assert inputs["later"]["files"] == 0 and inputs["later"]["matched"][0]["files"] == 0


def test_a_tsv_without_the_text_column_ends_with_exit_1_and_the_counts(tmp_path, capsys):
    tsv = tmp_path / "comments.tsv"
    tsv.write_text("id\tbody\n1\t영화 정말 재밌어요\n2\t배우 연기가 좋았다\n3\t다시 보고 싶은 영화\n", encoding="utf-8")
    profile = write(tmp_path / "p.yaml", {"sources": [
        {"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)]},
        {"name": "news", "format": "comments", "paths": [str(tsv)]},
    ]})
    out = tmp_path / "out"
    assert main(["build-corpus", "--config", profile, "--out", str(out), "--local-mode", "in_memory"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "kcorpus build-corpus: error: source 'news': every record was dead-lettered (3 records in, 0 kept, "
        "0 dropped, 3 dead-lettered); see rejected/\n"
    )
    assert "news" in captured.out and (out / "stats.json").is_file()


@pytest.mark.slow
def test_dead_letters_over_the_threshold_exit_1_and_a_looser_threshold_passes(tmp_path, capsys):
    faults = TESTDATA / "readers" / "faults" / "nsmc_faults.txt"
    profile = write(tmp_path / "p.yaml", {"sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC), str(faults)]}],
                                          "output": {"num_shards": 1}})
    args = ["build-corpus", "--config", profile, "--local-mode", "in_memory"]
    assert main([*args, "--out", str(tmp_path / "strict")]) == 1
    err = capsys.readouterr().err
    assert err == ("kcorpus build-corpus: error: source 'nsmc': 11.3% of its records dead-lettered (53 records in, "
                   "36 kept, 11 dropped, 6 dead-lettered), more than output.max_dead_letter_fraction=0.01; "
                   "see rejected/\n")
    assert main([*args, "--out", str(tmp_path / "loose"), "--set", "output.max_dead_letter_fraction=0.2"]) == 0


def test_input_and_output_problems():
    assert input_problem(str(NSMC), "nsmc") is None
    assert input_problem(str(TESTDATA / "readers" / "modu"), "modu") is None
    assert output_problem("gs://bucket/out") is None
    assert output_file_problem(str(TESTDATA)) == f"--out {TESTDATA}: is a folder; expected a file name"
    assert output_problem(f"{NSMC}/sub/dir") == f"--out {NSMC}/sub/dir: {NSMC} is a file, so the folder cannot be created"


def test_kiwi_splitter_without_kiwipiepy_is_one_line(tmp_path, capsys, no_pipeline, monkeypatch):
    from kcorpus.transforms.text.split import backends

    monkeypatch.setattr(backends, "find_spec", lambda name: None)
    profile = write(tmp_path / "p.yaml", {
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": [str(NSMC)], "split_sentences": True}],
        "split": {"backend": "kiwi"},
    })
    assert main(["build-corpus", "--config", profile, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        (f"kcorpus build-corpus: error: {profile}: split.backend kiwi needs kiwipiepy and kiwipiepy_model: "
        "pip install 'kcorpus[kiwi]'")
    ]
    assert not (tmp_path / "out").exists()


@pytest.fixture
def no_gcs(monkeypatch):
    """Beam as installed without its gcp extra: no filesystem for gs://."""
    from apache_beam.io.filesystems import FileSystems

    real = FileSystems.get_filesystem

    def get_filesystem(path):
        if str(path).startswith("gs://"):
            raise ValueError(f"Unable to get filesystem from specified path, please use the correct path or "
                             f"ensure the required dependency is installed, e.g., pip install apache-beam[gcp]. "
                             f"Path specified: {path}")
        return real(path)

    monkeypatch.setattr(FileSystems, "get_filesystem", staticmethod(get_filesystem))


def test_a_gs_source_without_the_gcs_extra_names_the_pip_install(tmp_path, capsys, no_pipeline, no_gcs):
    import apache_beam

    profile = write(tmp_path / "p.yaml", {
        "sources": [{"name": "web", "format": "jsonl", "paths": ["gs://bucket/raw/*.jsonl"], "allow_missing": True}],
    })
    assert main(["build-corpus", "--config", profile, "--out", str(tmp_path / "out")]) == 2
    # allow_missing does not cover it: the source could never be read
    assert capsys.readouterr().err.splitlines() == [(
        f"kcorpus build-corpus: error: {profile}: sources[0].paths: gs://bucket/raw/*.jsonl: gs:// needs Beam's "
        f"Cloud Storage filesystem, which is not installed: pip install "
        f"'apache-beam[gcp]=={apache_beam.__version__}' (kcorpus's dataflow extra; from a kcorpus checkout: "
        "pip install '.[dataflow]')"
    )]
    assert not (tmp_path / "out").exists()


def test_remote_outputs_and_inputs_without_their_filesystem(no_gcs):
    assert output_problem("gs://bucket/out").startswith("--out gs://bucket/out: gs:// needs Beam's Cloud Storage ")
    assert "pip install 'apache-beam[gcp]==" in input_problem("gs://bucket/corpus/text/*.txt")
    assert input_problem("nosuchfs://b/x") == (
        "nosuchfs://b/x: Beam has no filesystem for nosuchfs:// (remote paths: gs://, s3://, azfs://)"
    )
