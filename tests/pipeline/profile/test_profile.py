"""The one profile schema: defaults, strict values, unknown keys, paths, every error of a profile at once."""

import dataclasses
from pathlib import Path

import pytest

from kcorpus.pipeline.corpus.config import CorpusConfig, SourceConfig
from kcorpus.pipeline.profile.defaults import default_of
from kcorpus.pipeline.profile.load import apply_overrides, load_config, load_profile
from kcorpus.pipeline.profile.schema import resolve_path
from kcorpus.pipeline.profile.validate import ProfileError, config_from_dict, profile_from_dict
from kcorpus.pipeline.vocab.train import TrainVocabJob
from kcorpus.transforms.dedup import NearDedupConfig
from kcorpus.transforms.pack.blocks import PackConfig
from kcorpus.transforms.rules.filters import FilterConfig
from kcorpus.transforms.vocab.train import SentencePieceConfig, WordPieceConfig
from testdata_paths import ROOT

CONFIGS = ROOT / "configs"
VOCAB_KEYS = (
    "unknown key; valid keys: max_sentences, seed, model_max_length, allow_jamo, round_trip_sentences, quiet, "
    "kind, vocab_size, min_frequency, limit_alphabet, num_unused, model_type, character_coverage, "
    "byte_fallback, max_sentence_length, num_threads, seed_sentencepiece_size"
)
MINIMAL = {"sources": [{"name": "nsmc", "format": "nsmc", "paths": ["data/*.txt"]}]}


def errors_of(raw: dict, base_dir: str = "") -> list[str]:
    with pytest.raises(ProfileError) as info:
        profile_from_dict(raw, base_dir)
    return info.value.errors


def test_minimal_profile_gets_documented_defaults():
    cfg = config_from_dict(MINIMAL, base_dir="/cfg")
    src = cfg.sources[0]
    assert src.paths == ("/cfg/data/*.txt",)
    assert (src.preset, src.split_sentences, dict(src.options)) == ("kcelectra", False, {})
    assert cfg.filters.min_chars == 10
    assert cfg.dedup.exact.scope == "global" and cfg.dedup.near.num_perm == 128
    assert cfg.split.backend == "kcorpus"
    assert cfg.output.num_shards == 4 and cfg.output.compression == "zstd"
    assert cfg == CorpusConfig(sources=(src,))


def test_defaults_live_in_the_dataclasses():
    profile = profile_from_dict({**MINIMAL, "vocab": {"vocab_size": 100}})
    assert profile.filters.build(FilterConfig) == FilterConfig()
    assert profile.dedup.near.build(NearDedupConfig) == NearDedupConfig()
    assert profile.pack.job("c", "t", "o").pack == PackConfig()
    assert PackConfig().nsp_rule == "balanced"
    nsp = profile_from_dict({**MINIMAL, "pack": {"layout": "nsp", "nsp_rule": "google"}}).pack.job("c", "t", "o")
    assert nsp.pack == PackConfig(layout="nsp", nsp_rule="google")
    vocab = profile.vocab.job(["x.txt"], "o")
    assert vocab == TrainVocabJob(inputs=("x.txt",), out="o", config=WordPieceConfig(vocab_size=100))
    assert vocab.kind == "wordpiece" and default_of(PackConfig, "max_length") == 512
    spm = profile_from_dict({**MINIMAL, "vocab": {"kind": "sentencepiece", "vocab_size": 100}}).vocab
    assert spm.trainer() == SentencePieceConfig(vocab_size=100)


def test_sections_of_the_later_stages_are_validated_unknown_keys_are_errors():
    profile_from_dict(
        {**MINIMAL, "vocab": {"vocab_size": 30000}, "pack": {}, "run": {}, "vocab_report": None}
    )
    assert errors_of({**MINIMAL, "vocab": {"size": 30000}}) == [
        "vocab.vocab_size: required",
        "vocab.size: " + VOCAB_KEYS,
    ]
    assert errors_of({**MINIMAL, "filter": {}}) == [
        "filter: unknown key; valid keys: sources, filters, dedup, split, output, vocab, vocab_report, pack, run"
    ]
    assert errors_of({**MINIMAL, "filters": {"min_char": 5}})[0].startswith(
        "filters.min_char: unknown key; valid keys: min_chars, max_chars"
    )
    assert errors_of({"sources": [{**MINIMAL["sources"][0], "split": True}]})[0].startswith(
        "sources[0].split: unknown key; valid keys: name, format, paths, preset, split_sentences"
    )
    assert errors_of({**MINIMAL, "dedup": {"near": {"perms": 64}}})[0].startswith(
        "dedup.near.perms: unknown key"
    )
    assert errors_of({**MINIMAL, "run": {"workdir": "x"}}) == ["run.workdir: unknown key; valid keys: out"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"sources": []}, "sources: list should have at least 1 item"),
        ({}, "sources: required"),
        ({"sources": [{"name": "a", "paths": ["x"]}]}, "sources[0].format: required"),
        (
            {"sources": [{"name": "a", "format": "text", "paths": []}]},
            "sources[a]: `paths` must list at least one glob",
        ),
        (
            {**MINIMAL, "split": {"backend": "spacy"}},
            "split.backend: expected 'kcorpus', 'kiwi', 'kss', 'kss-fast' or",
        ),
        ({**MINIMAL, "dedup": {"exact": {"scope": "world"}}}, "dedup.exact.scope: expected 'global' or"),
        ({**MINIMAL, "output": {"num_shards": 0}}, "output.num_shards must be >= 1, got 0"),
        ({"sources": MINIMAL["sources"] * 2}, "duplicate source names"),
        ({"sources": [{"name": "a", "format": "text", "paths": ["x"], "remove_patterns": ["("]}]}, "regex"),
        ({**MINIMAL, "filters": {"min_chars": "ten"}}, "filters.min_chars: expected an integer, got 'ten'"),
        ({**MINIMAL, "filters": {"min_hangul_ratio": "0.3"}}, "filters.min_hangul_ratio: expected a number"),
        (
            {**MINIMAL, "filters": {"drop_ooo_only": 1}},
            "filters.drop_ooo_only: expected true or false, got 1",
        ),
        ({**MINIMAL, "dedup": {"near": {"bands": True}}}, "dedup.near.bands: expected an integer, got True"),
        ({**MINIMAL, "dedup": {"near": {"threshold": 2}}}, "dedup.near.threshold must be in (0, 1]"),
        ({**MINIMAL, "output": {"dir": 5}}, "output.dir: expected a string, got 5"),
        ({**MINIMAL, "output": {"dropped": "some"}}, "output.dropped: expected 'all', 'sample' or 'none'"),
        ({**MINIMAL, "output": {"compression": "gzip"}}, "output.compression: expected 'zstd' or 'none'"),
        ({**MINIMAL, "vocab": {"kind": "bpe-ish", "vocab_size": 10}}, "vocab.kind: expected 'wordpiece' or"),
        (
            {**MINIMAL, "vocab": {"vocab_size": -5}},
            "vocab.vocab_size: input should be greater than 0, got -5",
        ),
        (
            {**MINIMAL, "vocab": {"vocab_size": 5}},
            "vocab: vocab_size 5 leaves no room after 5 special tokens",
        ),
        (
            {**MINIMAL, "vocab": {"vocab_size": 9, "min_frequency": "2"}},
            "vocab.min_frequency: expected an int",
        ),
        ({**MINIMAL, "vocab_report": {"max_sentences": 5}}, "vocab_report.reference: required"),
        ({**MINIMAL, "vocab_report": {"reference": ["a", "b"]}}, "vocab_report.reference: expected a string"),
        ({**MINIMAL, "pack": {"max_length": "512"}}, "pack.max_length: expected an integer, got '512'"),
        (
            {**MINIMAL, "pack": {"layout": "pairs"}},
            "pack.layout: expected 'pair', 'single', 'cross_document', 'full_sentences' or 'nsp'",
        ),
        ({**MINIMAL, "pack": {"max_length": 4}}, "pack: max_length must be at least 8, got 4"),
        ({**MINIMAL, "pack": {"nsp_rule": "bert"}}, "pack.nsp_rule: expected 'balanced' or 'google', got 'bert'"),
        ({**MINIMAL, "pack": {"validation_fraction": 1.0}}, "pack: validation_fraction must be in [0, 1)"),
        ({**MINIMAL, "pack": ["max_length", 512]}, "pack: expected a mapping, got ['max_length', 512]"),
        ({**MINIMAL, "run": {"out": 3}}, "run.out: expected a string, got 3"),
        (["sources"], "profile: expected a mapping of sections, got list"),
    ],
)
def test_invalid_profiles_name_the_key_the_value_and_what_was_expected(raw, message):
    errors = errors_of(raw)
    assert len(errors) == 1 and message in errors[0], errors


def test_strict_bools_but_yaml_lists_for_tuples():
    assert errors_of({"sources": [{**MINIMAL["sources"][0], "split_sentences": "no"}]}) == [
        "sources[0].split_sentences: expected true or false, got 'no'"
    ]
    source = config_from_dict(
        {"sources": [{**MINIMAL["sources"][0], "remove_patterns": ["a+", "b"]}]}
    ).sources[0]
    assert source.remove_patterns == ("a+", "b")
    assert config_from_dict({"sources": [{**MINIMAL["sources"][0], "paths": "one/*.txt"}]}).sources[
        0
    ].paths == ("one/*.txt",)
    assert errors_of({"sources": [{**MINIMAL["sources"][0], "paths": [1]}]}) == [
        "sources[0].paths[0]: expected a string, got 1"
    ]


def test_a_profile_with_five_mistakes_reports_all_five():
    raw = {
        "sources": [{"name": "nsmc", "format": "nsmc", "paths": ["x"], "split_sentences": "yes"}],
        "filters": {"min_chars": "ten"},
        "dedup": {"near": {"bands": 1.5}},
        "vocab": {"kind": "wordpiece", "vocab_size": 100, "min_frequncy": 2},
        "pack": {"layout": "pairs"},
    }
    assert errors_of(raw) == [
        "sources[0].split_sentences: expected true or false, got 'yes'",
        "filters.min_chars: expected an integer, got 'ten'",
        "dedup.near.bands: expected an integer, got 1.5",
        "vocab.min_frequncy: " + VOCAB_KEYS,
        "pack.layout: expected 'pair', 'single', 'cross_document', 'full_sentences' or 'nsp', got 'pairs'",
    ]


def test_paths_resolve_against_config_dir_but_not_urls():
    assert resolve_path("gs://b/x/*.txt", "/cfg") == "gs://b/x/*.txt"
    assert resolve_path("/abs/x", "/cfg") == "/abs/x"
    assert resolve_path("../data/x", "/cfg/profiles") == "/cfg/data/x"
    raw = {
        "sources": [{"name": "a", "format": "text", "paths": ["d/*.txt", "gs://b/*.txt"]}],
        "output": {"dir": "../out"},
        "vocab_report": {"reference": "ref/vocab.txt"},
        "run": {"out": "runs/x"},
    }
    profile = profile_from_dict(raw, "/cfg/profiles")
    assert profile.corpus.sources[0].paths == ("/cfg/profiles/d/*.txt", "gs://b/*.txt")
    assert profile.corpus.output.dir == "/cfg/out"
    assert profile.vocab_report.reference == "/cfg/profiles/ref/vocab.txt"
    assert profile.run.out == "/cfg/profiles/runs/x"


def test_overrides_by_path_index_and_source_name():
    raw = {"sources": [{"name": "nsmc", "format": "nsmc", "paths": ["x"]}], "filters": {"min_chars": 10}}
    apply_overrides(
        raw,
        [
            "filters.min_chars=5",
            "sources.nsmc.preset=none",
            "sources.0.split_sentences=true",
            "dedup.near.enabled=false",
        ],
    )
    cfg = config_from_dict(raw)
    assert cfg.filters.min_chars == 5
    assert cfg.sources[0].preset == "none" and cfg.sources[0].split_sentences is True
    assert cfg.dedup.near.enabled is False
    with pytest.raises(ValueError, match="KEY=VALUE"):
        apply_overrides(raw, ["filters.min_chars"])
    with pytest.raises(ValueError, match="no list element"):
        apply_overrides(raw, ["sources.wiki.preset=none"])


def test_load_profile_prefixes_every_error_with_the_file(tmp_path: Path):
    path = tmp_path / "p.yaml"
    path.write_text("sources:\n  - {name: a, format: text, paths: [x]}\nfilters: {min_chars: ten}\n")
    with pytest.raises(ProfileError) as info:
        load_profile(path, ["pack.seed=x"])
    assert info.value.errors == [
        f"{path}: filters.min_chars: expected an integer, got 'ten'",
        f"{path}: pack.seed: expected an integer, got 'x'",
    ]


def test_a_yaml_syntax_error_is_one_line_with_file_and_line(tmp_path: Path):
    (tmp_path / "bad.yaml").write_text("sources: []\nvocab: {kind: wordpiece\n", encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profile(tmp_path / "bad.yaml")
    assert len(info.value.errors) == 1
    assert info.value.errors[0].startswith(f"{tmp_path / 'bad.yaml'}:3: not valid YAML: ")


@pytest.mark.parametrize(
    "name", ["sample.yaml", "kcelectra-comments.yaml", "mdeberta-kor.yaml", "dataflow.yaml"]
)
def test_bundled_profiles_load(name):
    cfg = load_config(str(CONFIGS / name))
    assert cfg.sources
    for src in cfg.sources:
        assert all(p.startswith("/") or "://" in p for p in src.paths)


def test_sample_profile_points_at_bundled_files():
    cfg = load_config(str(CONFIGS / "sample.yaml"))
    for src in cfg.sources:
        for path in src.paths:
            assert Path(path).is_file(), path


def test_bundled_profiles_keep_their_stage_settings():
    sample = load_profile(CONFIGS / "sample.yaml")
    assert sample.vocab.job(["t"], "o") == TrainVocabJob(
        inputs=("t",), out="o", config=WordPieceConfig(vocab_size=8000, min_frequency=2), seed=0
    )
    pack = sample.pack.job("c", "v", "o")
    assert pack.pack == PackConfig(max_length=512, layout="cross_document", seed=0)
    assert pack.validation_fraction == 0.05
    dataflow = load_profile(CONFIGS / "dataflow.yaml")
    assert dataflow.vocab.trainer() == SentencePieceConfig(
        vocab_size=64000, model_type="unigram", character_coverage=0.9999, byte_fallback=True
    )
    assert dataflow.vocab.max_sentences == 10_000_000
    assert dataflow.vocab_report.job("v", ["t"], "o").max_sentences == 200_000
    assert dataflow.pack.job("c", "v", "o").shard_size_mb == 512.0


def test_long_form_profiles_pack_full_sentences_and_the_comments_profile_electras_pairs():
    for name in ("mdeberta-kor.yaml", "dataflow.yaml"):
        assert load_profile(CONFIGS / name).pack.job("c", "v", "o").pack == PackConfig(
            max_length=512, layout="full_sentences", seed=0
        ), name
    comments = load_profile(CONFIGS / "kcelectra-comments.yaml").pack.job("c", "v", "o").pack
    assert comments == PackConfig(max_length=512, layout="pair", single_segment_prob=0.1, short_seq_prob=0.05)


def test_boilerplate_sets_and_pii_mode():
    src = MINIMAL["sources"][0]
    assert config_from_dict(MINIMAL).sources[0].boilerplate is None  # the format's default
    assert config_from_dict(MINIMAL).filters.pii == "mask"
    named = config_from_dict({"sources": [{**src, "boilerplate": ["news", "petitions"]}]}).sources[0]
    assert named.boilerplate == ("news", "petitions")
    assert config_from_dict({"sources": [{**src, "boilerplate": "news"}]}).sources[0].boilerplate == ("news",)
    assert config_from_dict({"sources": [{**src, "boilerplate": []}]}).sources[0].boilerplate == ()
    assert config_from_dict({**MINIMAL, "filters": {"pii": "drop"}}).filters.pii == "drop"
    assert errors_of({"sources": [{**src, "boilerplate": ["nwes"]}]}) == [
        "sources[nsmc]: unknown boilerplate set(s) ['nwes']; valid: petitions, naver_comments, news, wikiextractor"
    ]
    assert errors_of({**MINIMAL, "filters": {"pii": "hide"}}) == [
        "filters.pii: expected 'mask', 'drop' or 'keep', got 'hide'"
    ]


def test_a_source_sets_its_own_filter_keys_over_the_profiles():
    raw = {
        "sources": [
            {"name": "nsmc", "format": "nsmc", "paths": ["c.txt"], "filters": {"min_sentences": 1, "masks": "remove"}},
            {"name": "petitions", "format": "petitions", "paths": ["p.txt"], "split_sentences": True},
        ],
        "filters": {"min_sentences": 2, "min_chars": 12},
    }
    profile = profile_from_dict(raw)
    cfg = profile.corpus
    assert dict(cfg.sources[0].filters) == {"min_sentences": 1, "masks": "remove"}  # only the keys it set
    assert dict(cfg.sources[1].filters) == {}
    nsmc, petitions = cfg.filters_for("nsmc"), cfg.filters_for("petitions")
    assert (nsmc.min_sentences, nsmc.masks, nsmc.min_chars) == (1, "remove", 12)
    assert petitions == cfg.filters == FilterConfig(min_sentences=2, min_chars=12)
    # a stage's config records what the source wrote; a source without `filters` dumps no key (same hash)
    dumped = profile.model_dump(mode="json", include={"sources"})["sources"]
    assert dumped[0]["filters"] == {"min_sentences": 1, "masks": "remove"} and "filters" not in dumped[1]
    empty = profile_from_dict({"sources": [{**raw["sources"][1], "filters": None}]})
    assert empty.corpus.filters_for("petitions") == FilterConfig()


def test_a_sources_filter_keys_are_validated_like_the_profiles_and_named_by_the_source():
    source = {"name": "nsmc", "format": "nsmc", "paths": ["c.txt"]}
    other = {"name": "petitions", "format": "petitions", "paths": ["p.txt"]}

    def errors(filters: object, top: dict | None = None) -> list[str]:
        return errors_of({"sources": [other, {**source, "filters": filters}], "filters": top or {}})

    valid = ", ".join(f.name for f in dataclasses.fields(FilterConfig))
    assert errors({"min_sentence": 1}) == [f"sources[nsmc].filters.min_sentence: unknown key; valid keys: {valid}"]
    assert errors({"min_sentences": "one", "masks": "drop", "top_ngram_char_fractions": [0.2, "x"]}) == [
        "sources[nsmc].filters.top_ngram_char_fractions[1]: expected a number, got 'x'",
        "sources[nsmc].filters.masks: expected 'keep', 'remove' or 'replace', got 'drop'",
        "sources[nsmc].filters.min_sentences: expected an integer, got 'one'",
    ]
    assert errors({"min_chars": None}) == ["sources[nsmc].filters.min_chars: expected an integer, got None"]
    assert errors(["min_sentences"]) == ["sources[nsmc].filters: expected a mapping, got ['min_sentences']"]
    # the merged values' own rules, with the profile's values
    assert errors({"min_chars": 1500}, {"max_chars": 1000}) == [
        "sources[nsmc]: filters: max_chars 1000 < min_chars 1500"
    ]
    assert errors({"masks": "replace", "mask_token": "●"}) == [
        ("sources[nsmc]: filters.mask_token '●' does not survive the cleaning of source 'nsmc' (preset 'kcelectra' "
        "makes it ''); choose a token it keeps, such as 'OOO'")
    ]
    # the profile's masks: replace with a token only the other source's cleaning keeps: the source's own masks
    assert config_from_dict(
        {"sources": [{**other, "preset": "none"}, {**source, "filters": {"masks": "keep"}}],
         "filters": {"masks": "replace", "mask_token": "●"}}
    ).filters_for("nsmc").masks == "keep"  # fmt: skip
    with pytest.raises(ValueError, match=r"sources\[nsmc\]\.filters: unknown key\(s\) min_sentence; valid keys"):
        CorpusConfig(sources=(SourceConfig(**{**source, "paths": ("c.txt",), "filters": {"min_sentence": 1}}),))


def test_set_overrides_reach_a_sources_filters(tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text("sources:\n  - {name: nsmc, format: nsmc, paths: [c.txt]}\nfilters: {min_sentences: 2}\n")
    cfg = load_config(str(profile), ["sources.nsmc.filters.min_sentences=1", "sources.nsmc.filters.min_chars=5"])
    assert dict(cfg.sources[0].filters) == {"min_sentences": 1, "min_chars": 5}
    assert cfg.filters_for("nsmc") == FilterConfig(min_sentences=1, min_chars=5)
    assert load_config(str(profile), ["sources.nsmc.filters={min_sentences: 1}"]).filters_for("nsmc").min_sentences == 1
    with pytest.raises(ProfileError) as info:  # a value YAML cannot read is one line, not a traceback
        load_config(str(profile), ["sources.nsmc.filters={min_sentences:"])
    assert info.value.errors == [
        (f"{profile}: override 'sources.nsmc.filters={{min_sentences:': the value is not valid YAML: expected the "
        "node content, but found '<stream end>'")
    ]
