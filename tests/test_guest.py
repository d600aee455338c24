"""wirecodec is a good guest in its host's process (docs/guide.md, "A guest in your process").

The host's garbage collector is the host's: decoding, reading, encoding and saving from
several threads never disable, freeze or retune it (a sampler thread of the host sees
it enabled all along). Pausing it is an opt-in (``wirecodec.gc_paused``) that gives the
caller's state back. And a load test: threads decoding, reading, encoding and saving at
once while the host makes cyclic garbage get the results of a quiet run, and the
process's memory stays within what the same run takes with the collector left alone.
"""

from __future__ import annotations

import gc
import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.test_threads import graph_model, read_at_once, walk

THREADS = 3


class Sampler:
    """A host thread looking at the collector's state until stopped."""

    def __init__(self) -> None:
        self.samples = 0
        self.disabled = 0
        self.thresholds = {gc.get_threshold()}
        self.freeze_counts = {gc.get_freeze_count()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples += 1
            self.disabled += not gc.isenabled()
            self.thresholds.add(gc.get_threshold())
            self.freeze_counts.add(gc.get_freeze_count())

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector enabled, as in most hosts (the suite may run under any state)."""
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def decode_read_encode(data: bytes, tmp: pathlib.Path) -> Callable[[Any], Any]:
    """What each worker does in a round: decode, walk, encode, save and load back."""

    def work(_: Any) -> Any:
        model = wirecodec.decode(ModelProto, data)
        walked = list(walk(model))
        path = tmp / f"m{threading.get_ident()}.onnx"
        wirecodec.save(model, path)
        return walked, wirecodec.encode(model), path.read_bytes()

    return work


def test_decoding_threads_leave_the_collector_alone(collector_on: None, tmp_path: pathlib.Path) -> None:
    data = graph_model(400)
    work = decode_read_encode(data, tmp_path)
    with Sampler() as sampler:
        for _ in range(3):
            read_at_once(None, work)
    assert sampler.samples > 0
    assert sampler.disabled == 0
    assert sampler.thresholds == {gc.get_threshold()}
    assert sampler.freeze_counts == {gc.get_freeze_count()}


def test_gc_paused_is_an_opt_in_that_gives_the_state_back(collector_on: None) -> None:
    with wirecodec.gc_paused():
        assert not gc.isenabled()
        with wirecodec.gc_paused():  # nested: counted
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with wirecodec.gc_paused():
            pass
        assert not gc.isenabled()  # a host that had it off keeps it off
    finally:
        gc.enable()
