"""GPU-side prefetch (`kcorpus.data.prefetch`, `PackedDataLoader(device=..., prefetch=...)`) on a CPU shim.

`LazyRuntime` stands in for torch.cuda: a copy issued on the side stream only happens when its event is
waited on or synchronized, as on a GPU where it may still be running. A batch handed over without a wait
reads the sentinel -7; a pinned buffer rewritten before its copy ran shows up as another batch's data.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from kcorpus.data import PackedDataLoader, PackedDataset
from kcorpus.data.prefetch import _PinnedSlot, prefetch_to_device
from kcorpus.pipeline.pack.build import PackJob, run
from kcorpus.transforms.pack.blocks import PackConfig
from packing_fixtures import CORPUS, kcbert_tokenizer_dir

NOT_COPIED = -7


class FakeStream:
    def __init__(self, name: str) -> None:
        self.name = name
        self.pending: list[Callable[[], None]] = []


class FakeEvent:
    def __init__(self, ops: list[Callable[[], None]], serial: int) -> None:
        self.ops, self.serial = ops, serial

    def run(self) -> None:
        for op in self.ops:
            op()
        self.ops = []


class LazyRuntime:
    """A `DeviceRuntime` whose copies run late; it logs every call in order."""

    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.active: FakeStream | None = None
        self.main = FakeStream("main")
        self.events = 0
        self.tensor_batch: dict[int, int] = {}  # id(device tensor) -> copy event serial

    def side_stream(self) -> FakeStream:
        return FakeStream("side")

    def current_stream(self) -> FakeStream:
        return self.main

    @contextlib.contextmanager
    def on_stream(self, stream: FakeStream):
        self.active = stream
        yield
        self.active = None

    def empty_pinned(self, numel: int, dtype):
        self.log.append(("pin", numel))
        return torch.empty(numel, dtype=dtype)

    def to_device(self, tensor):
        assert self.active is not None and self.active.name == "side", "copy issued outside the side stream"
        out = torch.full_like(tensor, NOT_COPIED)
        self.active.pending.append(lambda: out.copy_(tensor))
        self.tensor_batch[id(out)] = self.events
        return out

    def record_event(self, stream: FakeStream) -> FakeEvent:
        event = FakeEvent(stream.pending, self.events)
        stream.pending = []
        self.events += 1
        self.log.append(("copy", event.serial))
        return event

    def wait_event(self, stream: FakeStream, event: FakeEvent) -> None:
        assert stream is self.main
        event.run()
        self.log.append(("wait", event.serial))

    def synchronize(self, event: FakeEvent) -> None:
        event.run()
        self.log.append(("sync", event.serial))

    def record_stream(self, tensor, stream: FakeStream) -> None:
        assert stream is self.main
        self.log.append(("record_stream", self.tensor_batch[id(tensor)]))


def numbered_batches(n: int, rows: int = 3, width: int = 5) -> list[dict[str, np.ndarray]]:
    return [
        {"input_ids": np.full((rows, width), k, dtype=np.int64), "attention_mask": np.ones((rows, width), np.int64)}
        for k in range(n)
    ]


@pytest.mark.parametrize("prefetch", [1, 2, 3])
def test_every_batch_once_in_order_and_only_after_its_copy_is_waited_on(prefetch):
    runtime = LazyRuntime()
    seen = []
    for k, batch in enumerate(prefetch_to_device(iter(numbered_batches(7)), runtime, prefetch)):
        # read at hand-over time, as the next kernel on the training stream would
        assert batch["input_ids"].unique().tolist() == [k]
        runtime.log.append(("yield", k))
        seen.append(batch)
    assert [int(b["input_ids"][0, 0]) for b in seen] == list(range(7))
    for k in range(7):
        log = runtime.log
        assert log.index(("copy", k)) < log.index(("wait", k)) < log.index(("yield", k))
        assert log.count(("record_stream", k)) == 2  # both tensors of the batch, before it is handed over
        assert max(i for i, e in enumerate(log) if e == ("record_stream", k)) < log.index(("yield", k))


@pytest.mark.parametrize("prefetch", [1, 2, 4])
def test_prefetch_batches_are_in_flight_and_pinned_buffers_are_reused(prefetch):
    runtime = LazyRuntime()
    stream = prefetch_to_device(iter(numbered_batches(10)), runtime, prefetch)
    next(stream)
    # batch 0 handed over: batches 1..prefetch are already copying
    assert [e for e in runtime.log if e[0] == "copy"] == [("copy", k) for k in range(prefetch + 1)]
    list(stream)
    # prefetch + 1 slots of two buffers each, allocated once and reused for the ten batches
    assert runtime.log.count(("pin", 15)) == 2 * (prefetch + 1)


def test_a_pinned_slot_waits_for_its_last_copy_before_it_is_rewritten():
    runtime = LazyRuntime()
    slot = _PinnedSlot()
    first, second = numbered_batches(2)
    staged = slot.stage(runtime, first)
    stream = runtime.side_stream()
    with runtime.on_stream(stream):
        copied = {k: runtime.to_device(v) for k, v in staged.items()}
        slot.copied = runtime.record_event(stream)
    slot.stage(runtime, second)  # must let the pending copy of `first` finish before overwriting
    assert ("sync", 0) in runtime.log
    assert copied["input_ids"].unique().tolist() == [0]


def test_a_larger_batch_grows_the_pinned_buffer_and_a_smaller_one_reuses_it():
    runtime = LazyRuntime()
    small, large = numbered_batches(1, rows=2)[0], numbered_batches(1, rows=4)[0]
    batches = [small, large, small, large]
    out = list(prefetch_to_device(iter(batches), runtime, prefetch=1))
    assert [tuple(b["input_ids"].shape) for b in out] == [(2, 5), (4, 5), (2, 5), (4, 5)]
    assert all(b["input_ids"].unique().tolist() == [0] for b in out)


def test_prefetch_must_be_positive():
    with pytest.raises(ValueError, match="prefetch must be at least 1, got 0"):
        next(prefetch_to_device(iter(numbered_batches(1)), LazyRuntime(), 0))


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    tokenizer = kcbert_tokenizer_dir(tmp_path_factory.mktemp("tok"))
    out = tmp_path_factory.mktemp("pack") / "out"
    job = PackJob(corpus=str(CORPUS), tokenizer=str(tokenizer), out=str(out), pack=PackConfig(max_length=64),
                  validation_fraction=0.1, num_shards=2, num_validation_shards=1, rows_per_batch=100)
    run(job, local_mode="in_memory")
    return PackedDataset(out / "train")


def as_lists(batches) -> list[list[list[int]]]:
    return [np.asarray(b["input_ids"]).tolist() for b in batches]


def test_loader_with_prefetch_hands_over_the_cpu_loaders_batches(ds):
    plain = as_lists(PackedDataLoader(ds, 32, seed=3))
    runtime = LazyRuntime()
    prefetched = list(PackedDataLoader(ds, 32, seed=3, runtime=runtime, prefetch=3))
    assert as_lists(prefetched) == plain
    assert all(isinstance(b["input_ids"], torch.Tensor) for b in prefetched)
    assert set(prefetched[0]) == {"input_ids", "token_type_ids", "attention_mask", "special_tokens_mask", "source"}


def test_padding_free_batches_keep_max_seqlen_on_the_host(ds):
    plain = list(PackedDataLoader(ds, 32, seed=3, pad_to="none"))
    prefetched = list(PackedDataLoader(ds, 32, seed=3, pad_to="none", runtime=LazyRuntime(), prefetch=2))
    assert [b["max_seqlen"] for b in prefetched] == [b["max_seqlen"] for b in plain]
    assert all(type(b["max_seqlen"]) is int and b["cu_seqlens"].dtype == torch.int32 for b in prefetched)
    assert as_lists(prefetched) == as_lists(plain)


def test_resume_counts_handed_over_batches_not_prefetched_ones(ds):
    plain = as_lists(PackedDataLoader(ds, 32, seed=3))
    loader = PackedDataLoader(ds, 32, seed=3, runtime=LazyRuntime(), prefetch=3)
    taken = []
    for batch in loader:
        taken.append(batch)
        if len(taken) == 4:
            break
    state = loader.state_dict()
    assert state["step"] == 4  # three more were already copying, they are not lost
    resumed = PackedDataLoader(ds, 32, seed=3, runtime=LazyRuntime(), prefetch=3)
    resumed.load_state_dict(state)
    assert as_lists(taken) + as_lists(resumed) == plain


def test_device_cpu_gives_torch_tensors_without_streams(ds):
    plain = as_lists(PackedDataLoader(ds, 64, seed=1))
    batches = list(PackedDataLoader(ds, 64, seed=1, device="cpu"))
    assert as_lists(batches) == plain
    assert batches[0]["attention_mask"].device.type == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without CUDA")
def test_device_cuda_without_a_gpu_names_the_problem(ds):
    with pytest.raises(RuntimeError, match="device='cuda': torch sees no CUDA device"):
        next(iter(PackedDataLoader(ds, 8, device="cuda")))
