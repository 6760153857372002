"""The Beam stages construct and pickle for Dataflow, with no network: everything but the submission.

`DataflowRunner.run_pipeline` is replaced by a stub that captures the pipeline and stops; everything before
it runs for real (option validation, the runner-API round trip Beam does before handing a pipeline to a
runner). The test then serializes the graph to the runner API proto, as a Dataflow job request carries it,
and unpickles every DoFn the way a worker does. Any socket connection fails the test.
"""

from __future__ import annotations

import socket
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.internal import pickler
from apache_beam.portability import common_urns, python_urns
from apache_beam.portability.api import beam_runner_api_pb2
from apache_beam.runners.dataflow.dataflow_runner import DataflowRunner

from packing_fixtures import CORPUS, kcbert_tokenizer_dir
from testdata_paths import ROOT

SAMPLE_PROFILE = ROOT / "configs" / "sample.yaml"
DATAFLOW_ARGS = [
    "--runner=DataflowRunner",
    "--project=kcorpus-demo",
    "--region=us-central1",
    "--temp_location=gs://kcorpus-demo-bucket/tmp",
    "--staging_location=gs://kcorpus-demo-bucket/staging",
    "--sdk_container_image=us-central1-docker.pkg.dev/kcorpus-demo/kcorpus/worker:0.1.0",
    "--num_workers=2",
    "--max_num_workers=8",
    "--machine_type=n2-standard-4",
    "--disk_size_gb=50",
    # With the dataflow extra installed, option validation asks GCS about the buckets unless it is a dry run.
    "--dry_run=True",
]


class Submitted(Exception):
    """Raised by the stubbed DataflowRunner instead of submitting a job."""


def forbid_network(monkeypatch) -> None:
    """Any socket connection fails the test: the Dataflow jobs are only translated, never submitted."""

    def no_network(self, *args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list:
    """Captured (pipeline, options) pairs; the network is off while the fixture is active."""
    captured: list = []

    def run_pipeline(self, pipeline, options, pipeline_proto=None):
        captured.append((pipeline, options))
        raise Submitted()

    monkeypatch.setattr(DataflowRunner, "run_pipeline", run_pipeline)
    forbid_network(monkeypatch)
    return captured


def check_dataflow_graph(pipeline, options, expected_labels: set[str]) -> set[str]:
    """The pipeline as a Dataflow job carries it: options, proto, and DoFns that unpickle."""
    from apache_beam.options.pipeline_options import GoogleCloudOptions, WorkerOptions

    assert isinstance(pipeline.runner, DataflowRunner)
    assert options.view_as(GoogleCloudOptions).project == "kcorpus-demo"
    assert options.view_as(WorkerOptions).sdk_container_image.endswith("/kcorpus/worker:0.1.0")
    proto = pipeline.to_runner_api()
    blob = proto.SerializeToString()
    assert beam_runner_api_pb2.Pipeline.FromString(blob) == proto
    transforms = proto.components.transforms.values()
    labels = {t.unique_name.split("/")[-1] for t in transforms}
    assert expected_labels <= labels, sorted(expected_labels - labels)
    dofns = 0
    for transform in transforms:
        if transform.spec.urn != common_urns.primitives.PAR_DO.urn:
            continue
        payload = beam_runner_api_pb2.ParDoPayload.FromString(transform.spec.payload)
        if payload.do_fn.urn != python_urns.PICKLED_DOFN_INFO:
            continue
        fn = pickler.loads(payload.do_fn.payload)[0]
        assert isinstance(fn, beam.DoFn), transform.unique_name
        dofns += type(fn).__module__.startswith("kcorpus.")
    assert dofns >= 1
    return labels


def dofn_strings(pipeline) -> set[str]:
    """The string attributes of every kcorpus DoFn in the graph, as a worker unpickles them."""
    found = set()
    for transform in pipeline.to_runner_api().components.transforms.values():
        if transform.spec.urn != common_urns.primitives.PAR_DO.urn:
            continue
        payload = beam_runner_api_pb2.ParDoPayload.FromString(transform.spec.payload)
        if payload.do_fn.urn == python_urns.PICKLED_DOFN_INFO:
            fn = pickler.loads(payload.do_fn.payload)[0]
            while fn is not None:  # a metered step (pipeline/stage_metrics.Metered) wraps the real DoFn
                found |= {v for v in vars(fn).values() if isinstance(v, str)}
                inner = getattr(fn, "fn", None)
                fn = inner if isinstance(inner, beam.DoFn) else None
    return found


def test_pack_pipeline_constructs_for_dataflow(submitted: list, tmp_path: Path) -> None:
    from kcorpus.pipeline import cli

    tokenizer = kcbert_tokenizer_dir(tmp_path / "tok")
    out = tmp_path / "packed"
    argv = ["pack", "--corpus", str(CORPUS), "--tokenizer", str(tokenizer), "--out", str(out),
            "--max-length", "128", "--", *DATAFLOW_ARGS]  # fmt: skip
    with pytest.raises(Submitted):
        cli.main(argv)
    assert len(submitted) == 1
    check_dataflow_graph(*submitted[0], {"ReadCorpus", "TokenizeDocuments", "GroupRunsByShard", "WriteShards"})
    assert not (out / "manifest.json").exists()


def test_build_corpus_pipeline_constructs_for_dataflow(submitted: list, tmp_path: Path) -> None:
    from kcorpus.pipeline import cli

    out = tmp_path / "corpus"
    with pytest.raises(Submitted):
        cli.main(["build-corpus", "--config", str(SAMPLE_PROFILE), "--out", str(out), "--", *DATAFLOW_ARGS])
    assert len(submitted) == 1
    labels = check_dataflow_graph(
        *submitted[0],
        {"Read[nsmc,petitions,kowiki]", "PrepareDocuments", "ExactDedup", "NearDedup", "LosersByShard",
         "WriteShards"},
    )
    assert "WriteStats" in labels
    assert not (out / "stats.json").exists()


def test_kcorpus_run_refuses_a_remote_runner_on_a_local_run_folder(submitted: list, tmp_path: Path) -> None:
    from kcorpus.pipeline.profile.load import load_profile
    from kcorpus.pipeline.run.errors import RunError
    from kcorpus.pipeline.run.orchestrate import run

    with pytest.raises(
        RunError, match="--runner DataflowRunner: its workers cannot write the local run folder"
    ):
        run(load_profile(SAMPLE_PROFILE), tmp_path / "run", beam_args=DATAFLOW_ARGS)
    assert submitted == []
    assert not (tmp_path / "run").exists()


def test_kcorpus_run_launches_its_beam_stage_on_dataflow_into_a_remote_run_folder(
    submitted: list, tmp_path: Path
) -> None:
    """`kcorpus run PROFILE --out gs://... -- --runner DataflowRunner`: no refusal, the workers write remotely."""
    from fake_remote import PREFIX, use_root
    from kcorpus.pipeline import filesystems as fs
    from kcorpus.pipeline.profile.load import load_profile
    from kcorpus.pipeline.run.errors import StageFailed
    from kcorpus.pipeline.run.orchestrate import run

    use_root(tmp_path / "store")
    out = f"{PREFIX}bucket/run"
    with pytest.raises(StageFailed, match=r"stage corpus \(kcorpus build-corpus\) failed: Submitted"):
        run(load_profile(SAMPLE_PROFILE), out, beam_args=DATAFLOW_ARGS)
    assert len(submitted) == 1
    pipeline, options = submitted[0]
    check_dataflow_graph(pipeline, options, {"PrepareDocuments", "WriteShards"})
    # the workers write below the remote run folder: a DoFn of the graph carries it
    assert f"{out}/corpus.partial" in dofn_strings(pipeline)
    assert not fs.exists(f"{out}/corpus/_STAGE.json")
    assert not (tmp_path / "run").exists()


# ---- the real DataflowRunner, translating the job with --dry_run (the `dataflow` extra) ---------------------

WORKER_IMAGE = "us-central1-docker.pkg.dev/my-project/kcorpus/worker:0.1.0"
# A bucket name of 3+ characters: with a shorter one Beam tries to create a default bucket over the network.
DRY_RUN_ARGS = ["--runner=DataflowRunner", "--dry_run=True", "--no_auth", "--project=my-project",
                "--region=us-central1", "--temp_location=gs://my-bucket/tmp", f"--sdk_container_image={WORKER_IMAGE}"]  # fmt: skip


@pytest.fixture
def translated(monkeypatch: pytest.MonkeyPatch) -> list:
    """(transform names of the pipeline kcorpus built, the dry run's result) per job the real DataflowRunner
    translated; the command stops right after (a dry run has no output to read). The network is off."""
    pytest.importorskip("google.auth", reason="needs the dataflow extra (apache-beam[gcp]), in the test extra")
    captured: list = []
    translate = DataflowRunner.run_pipeline

    def run_pipeline(self, pipeline, options, pipeline_proto=None):
        built = {t.unique_name for t in pipeline.to_runner_api().components.transforms.values()}
        captured.append((built, translate(self, pipeline, options, pipeline_proto)))
        raise Submitted()

    monkeypatch.setattr(DataflowRunner, "run_pipeline", run_pipeline)
    forbid_network(monkeypatch)
    return captured


def check_dataflow_job(built: set[str], result, expected_labels: set[str]) -> None:
    """The translated job carries every step kcorpus built and runs each on the worker image."""
    from apache_beam.runners.runner import PipelineState

    assert result.state == PipelineState.DONE  # what a dry run returns instead of a submitted job
    assert result.job.google_cloud_options.project == "my-project"
    proto = result.job.proto_pipeline
    in_job = {t.unique_name for t in proto.components.transforms.values()}
    # Dataflow replaces a one-element `beam.Create`'s reshuffle with its own: Beam's, not a kcorpus step.
    assert all(name.endswith("/MaybeReshuffle") for name in built - in_job), sorted(built - in_job)
    assert expected_labels <= {name.split("/")[-1] for name in in_job}
    environments = proto.components.environments
    assert {e.urn for e in environments.values()} == {common_urns.environments.DOCKER.urn}
    images = {beam_runner_api_pb2.DockerPayload.FromString(e.payload).container_image for e in environments.values()}
    assert images == {WORKER_IMAGE}
    used = {t.environment_id for t in proto.components.transforms.values() if t.environment_id}
    assert used and used <= set(environments)


@pytest.mark.slow
def test_build_corpus_translates_to_a_dataflow_job(translated: list, tmp_path: Path) -> None:
    from kcorpus.pipeline import cli

    out = tmp_path / "corpus"
    with pytest.raises(Submitted):
        cli.main(["build-corpus", "--config", str(SAMPLE_PROFILE), "--out", str(out), "--", *DRY_RUN_ARGS])
    assert len(translated) == 1
    check_dataflow_job(*translated[0], {"Read[nsmc,petitions,kowiki]", "PrepareDocuments", "ExactDedup",
                                        "NearDedup", "LosersByShard", "WriteShards", "WriteStats"})  # fmt: skip
    assert not (out / "stats.json").exists()


def test_pack_translates_to_a_dataflow_job(translated: list, tmp_path: Path) -> None:
    from kcorpus.pipeline import cli

    tokenizer = kcbert_tokenizer_dir(tmp_path / "tok")
    out = tmp_path / "packed"
    with pytest.raises(Submitted):
        cli.main(["pack", "--corpus", str(CORPUS), "--tokenizer", str(tokenizer), "--out", str(out),
                  "--max-length", "128", "--", *DRY_RUN_ARGS])  # fmt: skip
    assert len(translated) == 1
    check_dataflow_job(*translated[0], {"ReadCorpus", "TokenizeDocuments", "GroupRunsByShard", "WriteShards"})
    assert not (out / "manifest.json").exists()
