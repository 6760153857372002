"""GPU-side prefetch for `PackedDataLoader(device="cuda", prefetch=2)`: the next batches are on the GPU before
the training step asks for them.

Each host batch is copied into a reused pinned (page-locked) buffer, then to the device with a non-blocking
copy issued on a side CUDA stream, so the copy overlaps the current step's kernels. An event recorded after
each copy is what the consumer's stream waits on (`current_stream().wait_event`) before the batch is handed
over, and every handed-over tensor is marked with `record_stream` so the caching allocator does not reuse its
memory while the training stream may still read it. A pinned buffer is written again only after the copy
that last read it has finished (its event is synchronized on the host).

`prefetch` batches are in flight at any time; `prefetch + 1` pinned slots rotate, so the slot refilled when
batch k is handed over is the one of batch k - 1, whose copy was issued `prefetch` steps earlier.

All device calls go through a `DeviceRuntime` (torch.cuda in `CudaRuntime`), which the tests replace with a
CPU shim whose copies only happen when an event is waited on: a missing wait or an early buffer reuse shows
up as a wrong batch.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

Batch = dict[str, Any]


class DeviceRuntime(Protocol):
    """The device operations the prefetcher needs (torch.cuda for a real GPU)."""

    def side_stream(self) -> Any:
        """A new stream for the host-to-device copies."""

    def current_stream(self) -> Any:
        """The stream the training step runs on."""

    def on_stream(self, stream: Any) -> contextlib.AbstractContextManager:
        """A context in which device work is issued on `stream`."""

    def empty_pinned(self, numel: int, dtype: Any) -> Any:
        """A flat page-locked host tensor."""

    def to_device(self, tensor: Any) -> Any:
        """A non-blocking copy of a pinned host tensor to the device, on the stream in effect."""

    def record_event(self, stream: Any) -> Any:
        """An event that completes when the work issued on `stream` so far has run."""

    def wait_event(self, stream: Any, event: Any) -> None:
        """Make `stream`'s later work wait for `event` (no host block)."""

    def synchronize(self, event: Any) -> None:
        """Block the host until `event` has completed."""

    def record_stream(self, tensor: Any, stream: Any) -> None:
        """Tell the allocator that `tensor` is in use on `stream`."""


class CudaRuntime:
    """`DeviceRuntime` over torch.cuda for one device."""

    def __init__(self, device: Any) -> None:
        import torch

        self.torch = torch
        self.device = torch.device(device)
        if self.device.type != "cuda":
            raise ValueError(f"CudaRuntime needs a cuda device, got {self.device}")
        if not torch.cuda.is_available():
            raise RuntimeError(f"device={device!r}: torch sees no CUDA device (torch {torch.__version__})")

    def side_stream(self) -> Any:
        return self.torch.cuda.Stream(device=self.device)

    def current_stream(self) -> Any:
        return self.torch.cuda.current_stream(self.device)

    def on_stream(self, stream: Any) -> contextlib.AbstractContextManager:
        return self.torch.cuda.stream(stream)

    def empty_pinned(self, numel: int, dtype: Any) -> Any:
        return self.torch.empty(numel, dtype=dtype, pin_memory=True)

    def to_device(self, tensor: Any) -> Any:
        return tensor.to(self.device, non_blocking=True)

    def record_event(self, stream: Any) -> Any:
        event = self.torch.cuda.Event()
        event.record(stream)
        return event

    def wait_event(self, stream: Any, event: Any) -> None:
        stream.wait_event(event)

    def synchronize(self, event: Any) -> None:
        event.synchronize()

    def record_stream(self, tensor: Any, stream: Any) -> None:
        tensor.record_stream(stream)


class _PinnedSlot:
    """One set of reused pinned buffers (one per batch key), grown when a larger batch arrives."""

    def __init__(self) -> None:
        self.buffers: dict[str, Any] = {}
        self.copied: Any = None  # the event of the last copy that read these buffers

    def stage(self, runtime: DeviceRuntime, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Pinned views holding `batch`'s arrays (copied on the host)."""
        import torch

        if self.copied is not None:
            runtime.synchronize(self.copied)  # the previous copy out of these buffers has finished
            self.copied = None
        staged = {}
        for key, value in batch.items():
            if _is_scalar(value):  # max_seqlen of a padding-free batch: an int the kernel takes on the host
                staged[key] = value
                continue
            host = torch.as_tensor(value)
            buffer = self.buffers.get(key)
            if buffer is None or buffer.dtype != host.dtype or buffer.numel() < host.numel():
                buffer = self.buffers[key] = runtime.empty_pinned(host.numel(), host.dtype)
            view = buffer[: host.numel()].view(host.shape)
            view.copy_(host)
            staged[key] = view
        return staged


def prefetch_to_device(
    batches: Iterator[Mapping[str, Any]], runtime: DeviceRuntime, prefetch: int = 2
) -> Iterator[Batch]:
    """Yield `batches` as device tensors, with `prefetch` of them copied ahead on a side stream.

    A batch is yielded only after the consumer's stream waits on its copy; the host iterator runs
    `prefetch` batches ahead of what was yielded.
    """
    if prefetch < 1:
        raise ValueError(f"prefetch must be at least 1, got {prefetch}")
    batches = iter(batches)
    stream = runtime.side_stream()
    slots = [_PinnedSlot() for _ in range(prefetch + 1)]
    in_flight: deque[tuple[Batch, Any]] = deque()
    launched = 0

    def launch() -> bool:
        nonlocal launched
        batch = next(batches, None)
        if batch is None:
            return False
        slot = slots[launched % len(slots)]
        staged = slot.stage(runtime, batch)
        with runtime.on_stream(stream):
            on_device = {key: value if _is_scalar(value) else runtime.to_device(value)
                         for key, value in staged.items()}
            event = runtime.record_event(stream)
        slot.copied = event
        in_flight.append((on_device, event))
        launched += 1
        return True

    while len(in_flight) < prefetch and launch():
        pass
    while in_flight:
        on_device, event = in_flight.popleft()
        current = runtime.current_stream()
        runtime.wait_event(current, event)
        for tensor in on_device.values():
            if not _is_scalar(tensor):
                runtime.record_stream(tensor, current)
        launch()  # refills the slot of the batch handed over before this one
        yield on_device


def move_to_device(batches: Iterator[Mapping[str, Any]], device: Any) -> Iterator[Batch]:
    """Yield `batches` as torch tensors on a non-CUDA device (cpu, mps): a plain copy, no streams."""
    import torch

    for batch in batches:
        yield {key: value if _is_scalar(value) else torch.as_tensor(value).to(device) for key, value in batch.items()}


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float))
