"""`sources[].filters` end to end on the real sample slices: NSMC comments beside petitions, one `filters:` for
both (issue 30: every comment dropped as `too_few_sentences`) and a comment source with its own keys."""

from __future__ import annotations

import json

import pytest
import yaml

from kcorpus.pipeline.commands.build_corpus import run
from kcorpus.transforms.rules.filters import FilterConfig
from testdata_paths import TESTDATA

SAMPLE = TESTDATA / "sample"


def profile(tmp_path, nsmc_filters: dict | None, min_sentences: int) -> str:
    nsmc = {"name": "nsmc", "format": "nsmc", "paths": [str(SAMPLE / "nsmc_ratings_test_head.txt")]}
    if nsmc_filters is not None:
        nsmc["filters"] = nsmc_filters
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({
        "sources": [nsmc, {"name": "petitions", "format": "petitions", "preset": "longform", "split_sentences": True,
                           "paths": [str(SAMPLE / "petitions_2017-08_head")]}],
        "filters": {"min_sentences": min_sentences, "max_chars": 1000},
        "output": {"num_shards": 2},
    }), encoding="utf-8")  # fmt: skip
    return str(path)


@pytest.mark.slow
def test_comments_keep_their_own_min_sentences_beside_long_form_text(tmp_path, capsys):
    out = tmp_path / "one"
    # one `min_sentences: 2` for both: every comment that passes the sentence rules is one sentence, so goes
    assert run(["--config", profile(tmp_path, None, 2), "--out", str(out), "--local-mode", "in_memory"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kcorpus build-corpus: error: source 'nsmc': no document kept (10352 records in, 0 kept, 10352 dropped, "
        "0 dead-lettered); rule too_few_sentences (filters.min_sentences) dropped 9,302; see rejected/"
    )
    stats = json.loads((out / "stats.json").read_text())
    assert stats["sources"]["nsmc"]["dropped_by_reason"]["too_few_sentences"] == 9302

    out = tmp_path / "own"
    assert run(["--config", profile(tmp_path, {"min_sentences": 1}, 2), "--out", str(out),
                "--local-mode", "in_memory"]) == 0  # fmt: skip
    stats = json.loads((out / "stats.json").read_text())
    assert {name: s["kept"] for name, s in stats["sources"].items()} == {"nsmc": 9294, "petitions": 301}
    assert "too_few_sentences" not in stats["sources"]["nsmc"]["dropped_by_reason"]
    assert stats["filter_overrides"] == {"nsmc": {"min_sentences": 1}, "petitions": {}}
    expected = FilterConfig(min_sentences=2, max_chars=1000)
    assert stats["filters"]["petitions"] == json.loads(json.dumps(vars(expected)))
    assert stats["filters"]["nsmc"] == {**stats["filters"]["petitions"], "min_sentences": 1}

    # the source's own key, too strict: the loss line names that key, and the other source is untouched
    out = tmp_path / "strict"
    assert run(["--config", profile(tmp_path, {"min_sentences": 2}, 1), "--out", str(out),
                "--local-mode", "in_memory"]) == 1  # fmt: skip
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "rule too_few_sentences (sources[nsmc].filters.min_sentences) dropped 9,302; see rejected/"
    )
    assert json.loads((out / "stats.json").read_text())["sources"]["petitions"]["kept"] == 301
