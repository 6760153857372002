import json
import types

import apache_beam as beam
from apache_beam.metrics.cells import DistributionData, DistributionResult
from apache_beam.metrics.execution import MetricKey
from apache_beam.metrics.metricbase import MetricName
from apache_beam.testing.util import assert_that, equal_to

from kcorpus.pipeline.options import make_pipeline
from kcorpus.pipeline.stage_metrics import (
    NAMESPACE,
    Metered,
    format_table,
    metered_flat_map,
    metered_map,
    split_failures,
    stage_table,
    stages_json,
)


class _FakeResult:
    def __init__(self, distributions):
        self._distributions = distributions

    def metrics(self):
        return types.SimpleNamespace(query=lambda: {"distributions": self._distributions})


def _dist(name, total, count, largest, namespace=NAMESPACE):
    key = MetricKey("step", MetricName(namespace, name))
    return types.SimpleNamespace(
        key=key, committed=DistributionResult(DistributionData(total, count, 0, largest))
    )


def test_stage_table_reads_bundles_share_and_cpu_per_step():
    result = _FakeResult(
        [
            _dist("Prepare[0]:elements", total=160, count=16, largest=12),
            _dist("Prepare[0]:cpu_us", total=18_000_000, count=16, largest=1_500_000),
            _dist("WriteStats:elements", total=1, count=1, largest=1),
            _dist("WriteStats:cpu_us", total=2_000_000, count=1, largest=2_000_000),
            _dist("read:nsmc:documents", total=5, count=1, largest=5, namespace="kcorpus"),
        ]
    )
    rows = {r["step"]: r for r in stage_table(result)}
    assert set(rows) == {"Prepare[0]", "WriteStats"}
    assert rows["Prepare[0]"] == {
        "step": "Prepare[0]",
        "elements": 160,
        "bundles": 16,
        "largest_bundle_share": 0.075,
        "cpu_s": 18.0,
        "largest_bundle_cpu_s": 1.5,
        "cpu_share": 0.9,
    }
    # WriteStats has 10% of the CPU in one bundle holding all its elements: the check names it
    assert rows["WriteStats"]["largest_bundle_share"] == 1.0
    assert split_failures(list(rows.values())) == ["WriteStats"]
    table = format_table(list(rows.values()))
    assert table.splitlines()[1].startswith("Prepare[0]")
    assert table.endswith("FAIL: WriteStats")
    assert json.loads(stages_json(list(rows.values()), 16))["split_check_failures"] == ["WriteStats"]


def test_light_steps_and_an_eighth_pass_the_check():
    rows = [
        {"step": "Heavy", "largest_bundle_share": 0.125, "cpu_share": 0.96},
        {"step": "Light", "largest_bundle_share": 1.0, "cpu_share": 0.04},
    ]
    assert split_failures(rows) == []
    assert stage_table(object()) == []


class _Tagged(beam.DoFn):
    def process(self, element, offset):
        if element % 2:
            yield beam.pvalue.TaggedOutput("odd", element + offset)
        else:
            yield element + offset

    def finish_bundle(self):
        return None


def test_metered_steps_keep_outputs_side_inputs_and_report_per_bundle():
    pipeline = make_pipeline(["--direct_num_workers=1"], local_mode="in_memory")
    numbers = pipeline | "Numbers" >> beam.Create([1, 2, 3, 4])
    offset = pipeline | "Offset" >> beam.Create([10])
    split = numbers | "Tagged" >> beam.ParDo(
        Metered("Tagged", _Tagged()), beam.pvalue.AsSingleton(offset)
    ).with_outputs("odd", main="even")
    doubled = split.even | "Double" >> metered_flat_map("Double", lambda x, n: [x] * n, 2)
    summed = (
        numbers
        | "All" >> beam.combiners.ToList()
        | "Sum" >> metered_map("Sum", lambda xs, k: sum(xs) + k, beam.pvalue.AsSingleton(offset))
    )
    assert_that(split.odd, equal_to([11, 13]), label="CheckOdd")
    assert_that(doubled, equal_to([12, 12, 14, 14]), label="CheckDouble")
    assert_that(summed, equal_to([20]), label="CheckSum")
    result = pipeline.run()
    result.wait_until_finish()
    rows = {r["step"]: r for r in stage_table(result)}
    assert rows["Tagged"]["elements"] == 4
    assert rows["Double"]["elements"] == 2
    assert (rows["Sum"]["elements"], rows["Sum"]["bundles"], rows["Sum"]["largest_bundle_share"]) == (
        1,
        1,
        1.0,
    )
    assert all(r["cpu_s"] >= 0 for r in rows.values())
