"""A singular bytes field left pending (wirecodec.protobuf.lazy.PendingBytes): what a model
by URL gives each large ``raw_data``. Every message operation behaves as if the bytes
were there, fetching them once, on first need; nothing here touches a network."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import AttributeProto, ModelProto, TensorProto
from wirecodec.protobuf.lazy import pending_bytes, pending_size

PAYLOAD = np.arange(64, dtype=np.float32).tobytes()


class Fetcher:
    """Counts its calls; fails the first ``failures`` of them."""

    def __init__(self, failures: int = 0) -> None:
        self.calls = 0
        self.failures = failures
        self.lock = threading.Lock()

    def __call__(self) -> bytes:
        with self.lock:
            self.calls += 1
            if self.calls <= self.failures:
                raise OSError("the network is down")
        return PAYLOAD


def waiting(fetch: Fetcher) -> TensorProto:
    """A decoded tensor whose raw_data waits for ``fetch``."""
    tensor = wirecodec.from_array(np.arange(64, dtype=np.float32), "w")
    decoded = wirecodec.decode(TensorProto, wirecodec.encode(tensor))
    pending_bytes(decoded, "raw_data", len(PAYLOAD), fetch)
    return decoded


def test_presence_and_length_cost_nothing() -> None:
    fetch = Fetcher()
    tensor = waiting(fetch)
    assert tensor.HasField("raw_data") and pending_size(tensor, "raw_data") == len(PAYLOAD)
    assert fetch.calls == 0


@pytest.mark.parametrize(
    "read",
    [
        lambda t: bytes(t.raw_data),
        lambda t: wirecodec.to_array(t).tobytes(),
        lambda t: bytes(dict((f.name, v) for f, v in t.ListFields())["raw_data"]),
        lambda t: wirecodec.encode(t),
        lambda t: t.ByteSize(),
        lambda t: copy.deepcopy(t).raw_data,
        lambda t: pickle.loads(pickle.dumps(t)).raw_data,
        lambda t: str(t),
        lambda t: t == wirecodec.from_array(np.arange(64, dtype=np.float32), "w"),
    ],
    ids=["raw_data", "to_array", "ListFields", "encode", "ByteSize", "deepcopy", "pickle", "str", "eq"],
)
def test_every_read_fetches_once_and_sees_the_bytes(read: object) -> None:
    fetch = Fetcher()
    tensor = waiting(fetch)
    read(tensor)  # type: ignore[operator]
    read(tensor)  # type: ignore[operator]
    assert fetch.calls == 1
    assert bytes(tensor.raw_data) == PAYLOAD and pending_size(tensor, "raw_data") is None
    assert wirecodec.encode(tensor) == wirecodec.encode(
        wirecodec.from_array(np.arange(64, dtype=np.float32), "w")
    )


def test_a_failed_fetch_leaves_the_field_pending() -> None:
    fetch = Fetcher(failures=1)
    tensor = waiting(fetch)
    with pytest.raises(OSError, match="network"):
        _ = tensor.raw_data
    assert tensor.HasField("raw_data") and pending_size(tensor, "raw_data") == len(PAYLOAD)
    assert bytes(tensor.raw_data) == PAYLOAD and fetch.calls == 2


def test_writes_replace_the_pending_bytes_without_fetching() -> None:
    fetch = Fetcher()
    assigned, cleared, merged = waiting(fetch), waiting(fetch), waiting(fetch)
    assigned.raw_data = b"1234"
    cleared.ClearField("raw_data")
    merged.MergeFrom(TensorProto(raw_data=b"5678"))
    assert (bytes(assigned.raw_data), cleared.HasField("raw_data"), bytes(merged.raw_data)) == (
        b"1234",
        False,
        b"5678",
    )
    assert wirecodec.encode(cleared).find(PAYLOAD) == -1
    assert fetch.calls == 0


def test_many_threads_reading_at_once_fetch_once() -> None:
    fetch = Fetcher()
    tensor = waiting(fetch)
    barrier = threading.Barrier(16)
    seen: list[bytes] = []

    def read() -> None:
        barrier.wait()
        seen.append(bytes(tensor.raw_data))

    threads = [threading.Thread(target=read) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [PAYLOAD] * 16 and fetch.calls == 1


def test_a_model_with_a_pending_tensor_encodes_as_its_source() -> None:
    model = wirecodec.helper.make_model(
        wirecodec.helper.make_graph(
            [], "g", [], [], initializer=[wirecodec.from_array(np.arange(64, dtype=np.float32), "w")]
        )
    )
    data = wirecodec.encode(model)
    decoded = wirecodec.decode(ModelProto, data)
    pending_bytes(decoded.graph.initializer[0], "raw_data", len(PAYLOAD), Fetcher())
    assert wirecodec.encode(decoded) == data


def test_only_a_singular_bytes_field_can_wait() -> None:
    with pytest.raises(TypeError, match="cannot wait"):
        pending_bytes(TensorProto(), "string_data", 1, Fetcher())
    with pytest.raises(TypeError, match="cannot wait"):
        pending_bytes(AttributeProto(), "name", 1, Fetcher())
