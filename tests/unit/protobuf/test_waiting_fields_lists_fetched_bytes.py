"""``waiting_fields`` and ``waiting_record`` (wirecodec.protobuf.lazy) name every field that
still waits, whatever waits on it: a repeated field's elements or packed run (in its
container), and a singular ``raw_data`` still to be fetched (a model by URL), which they
report without fetching it."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

import wirecodec
from schema_dsl.onnx import TensorProto
from wirecodec.protobuf.lazy import PendingBytes, PendingRun, pending_bytes, waiting_fields, waiting_record
from wirecodec.protobuf.wire import encode_varint

PAYLOAD = np.arange(16, dtype=np.float32).tobytes()


def _fetch_counted(calls: list[int]) -> Callable[[], bytes]:
    def fetch() -> bytes:
        calls.append(1)
        return PAYLOAD

    return fetch


def test_a_raw_data_still_to_be_fetched_is_a_waiting_field_and_is_not_fetched() -> None:
    tensor = wirecodec.decode(
        TensorProto, wirecodec.encode(wirecodec.from_array(np.zeros(16, np.float32), "w"))
    )
    calls: list[int] = []
    pending_bytes(tensor, "raw_data", len(PAYLOAD), _fetch_counted(calls))
    assert waiting_fields(tensor) == ["raw_data"]
    assert isinstance(waiting_record(tensor, "raw_data"), PendingBytes)
    assert calls == []
    assert bytes(tensor.raw_data) == PAYLOAD and calls == [1]
    assert waiting_fields(tensor) == []  # fetched: nothing waits any more


def test_a_waiting_run_and_a_waiting_fetch_are_both_named_in_field_order() -> None:
    values = struct.pack("<64f", *range(64))  # a packed float_data run long enough to wait
    data = b"\x22" + encode_varint(len(values)) + values + b"\x42\x01w"  # float_data, then name
    tensor = wirecodec.decode(TensorProto, data)
    assert isinstance(waiting_record(tensor, "float_data"), PendingRun)
    pending_bytes(tensor, "raw_data", len(PAYLOAD), _fetch_counted([]))
    # field numbers: float_data 4, raw_data 9
    assert waiting_fields(tensor) == ["float_data", "raw_data"]
