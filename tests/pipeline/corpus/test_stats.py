from kcorpus.pipeline.corpus.stats import summarize


def test_summarize_reconciles_per_source_and_flags_a_leak():
    counts = {
        ("a", "read:documents"): 5,
        ("a", "read:dead_letter"): 1,
        ("a", "read:dropped:empty"): 1,
        ("a", "prepare:dead_letter"): 1,
        ("a", "filter:dropped:too_short"): 1,
        ("a", "dedup:dropped:exact_duplicate"): 1,
        ("a", "write:kept"): 2,
        ("a", "write:sentences"): 4,
    }
    stats = summarize(counts, ["a", "b"])
    total = stats["total"]
    assert (total["input"], total["kept"], total["dropped"], total["dead_lettered"]) == (7, 2, 3, 2)
    assert total["dropped_by_reason"] == {"empty": 1, "exact_duplicate": 1, "too_short": 1}
    assert total["reconciled"] and stats["sources"]["b"]["input"] == 0
    leaky = dict(counts)
    leaky[("a", "write:kept")] = 1
    assert not summarize(leaky, ["a"])["total"]["reconciled"]
