from pathlib import Path

import pytest

from kcorpus.pipeline.config import apply_overrides, config_from_dict, load_config, resolve_path
from testdata_paths import ROOT

CONFIGS = ROOT / "configs"
MINIMAL = {"sources": [{"name": "nsmc", "format": "nsmc", "paths": ["data/*.txt"]}]}


def test_minimal_profile_gets_documented_defaults():
    cfg = config_from_dict(MINIMAL, base_dir="/cfg")
    src = cfg.sources[0]
    assert src.paths == ("/cfg/data/*.txt",)
    assert (src.preset, src.split_sentences, dict(src.options)) == ("kcelectra", False, {})
    assert cfg.filters.min_chars == 10
    assert cfg.dedup.exact.scope == "global" and cfg.dedup.near.num_perm == 128
    assert cfg.split.backend == "kcorpus"
    assert cfg.output.num_shards == 4


def test_reserved_keys_are_ignored_unknown_keys_are_errors():
    config_from_dict({**MINIMAL, "vocab": {"size": 30000}, "pack": {}, "run": {}, "vocab_report": {}})
    with pytest.raises(ValueError, match=r"unknown top-level keys \['filter'\]"):
        config_from_dict({**MINIMAL, "filter": {}})
    with pytest.raises(ValueError, match=r"filters: unknown keys \['min_char'\]; valid keys: min_chars"):
        config_from_dict({**MINIMAL, "filters": {"min_char": 5}})
    with pytest.raises(ValueError, match="unknown keys"):
        config_from_dict({"sources": [{**MINIMAL["sources"][0], "split": True}]})
    with pytest.raises(ValueError, match="dedup.near: unknown keys"):
        config_from_dict({**MINIMAL, "dedup": {"near": {"perms": 64}}})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"sources": []}, "non-empty list"),
        ({"sources": [{"name": "a", "paths": ["x"]}]}, "missing required keys"),
        ({"sources": [{"name": "a", "format": "text", "paths": []}]}, "at least one glob"),
        ({**MINIMAL, "split": {"backend": "spacy"}}, "split.backend"),
        ({**MINIMAL, "dedup": {"exact": {"scope": "world"}}}, "dedup.exact.scope"),
        ({**MINIMAL, "output": {"num_shards": 0}}, "num_shards"),
        ({"sources": MINIMAL["sources"] * 2}, "duplicate source names"),
        ({"sources": [{"name": "a", "format": "text", "paths": ["x"], "remove_patterns": ["("]}]}, "regex"),
    ],
)
def test_invalid_profiles_raise_clear_errors(raw, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(raw)


def test_paths_resolve_against_config_dir_but_not_urls():
    assert resolve_path("gs://b/x/*.txt", "/cfg") == "gs://b/x/*.txt"
    assert resolve_path("/abs/x", "/cfg") == "/abs/x"
    assert resolve_path("../data/x", "/cfg/profiles") == "/cfg/data/x"


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


@pytest.mark.parametrize("name", ["sample.yaml", "kcelectra-comments.yaml", "mdeberta-kor.yaml"])
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
