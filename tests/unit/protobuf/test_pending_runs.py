"""Packed runs of fixed-width numbers wait as offsets until read (wirecodec.protobuf.lazy.PendingRun).

A ``float_data`` of a Constant node's weights is validated at decode and read only when
someone reads the field; what the read gives is what protobuf gives (the onnx package
is the oracle), whatever the mix of packed and unpacked records, NaN payloads included.
"""

from __future__ import annotations

import math
import struct
import threading
from typing import Any

import pytest

from schema_dsl.message import slot_value
from schema_dsl.onnx import AttributeProto, NodeProto, TensorProto
from tests.support.decode_modes import EVERY_ELEMENT
from wirecodec import DecodeError, decode, encode
from wirecodec.protobuf.lazy import DEFAULT, PendingRun, waiting_fields, waiting_record
from wirecodec.protobuf.wire import encode_varint

onnx = pytest.importorskip("onnx", reason="the onnx package is the oracle")

_FLOAT_PACKED, _FLOAT_ONE = b"\x22", b"\x25"  # float_data = 4: length-delimited, fixed32
_DOUBLE_PACKED, _DOUBLE_ONE = b"\x52", b"\x51"  # double_data = 10: length-delimited, fixed64


def _packed(tag: bytes, fmt: str, values: list[float]) -> bytes:
    body = struct.pack(f"<{len(values)}{fmt}", *values)
    return tag + encode_varint(len(body)) + body


def _run(name: str, tensor: Any) -> PendingRun | None:
    found = waiting_record(tensor, name)
    return found if isinstance(found, PendingRun) else None


def _same_floats(got: list[float], want: list[float], fmt: str) -> bool:
    # Bit for bit, so that NaN payloads count.
    return struct.pack(f"<{len(got)}{fmt}", *got) == struct.pack(f"<{len(want)}{fmt}", *want)


def test_a_long_run_waits_and_reads_as_protobuf_reads_it() -> None:
    values = [i / 7 for i in range(64)]
    data = _packed(_FLOAT_PACKED, "f", values) + b"\x08\x01"  # then dims = [1]
    tensor = decode(TensorProto, data)
    record = _run("float_data", tensor)
    assert record is not None and len(record) == 64
    assert list.__len__(slot_value(tensor, "float_data")) == 0  # no float built yet
    assert list(tensor.dims) == [1]
    want = onnx.TensorProto.FromString(data)
    assert list(tensor.float_data) == list(want.float_data)
    assert not waiting_fields(tensor)
    assert encode(tensor) == want.SerializeToString()


def test_a_short_run_is_read_at_once() -> None:
    short = DEFAULT.run_small // 4 - 1
    tensor = decode(TensorProto, _packed(_FLOAT_PACKED, "f", [1.0] * short))
    assert _run("float_data", tensor) is None and len(slot_value(tensor, "float_data")) == short


@pytest.mark.parametrize(
    ("packed", "one", "fmt", "name"),
    [(_FLOAT_PACKED, _FLOAT_ONE, "f", "float_data"), (_DOUBLE_PACKED, _DOUBLE_ONE, "d", "double_data")],
)
def test_packed_and_unpacked_records_keep_their_order(packed: bytes, one: bytes, fmt: str, name: str) -> None:
    nan = struct.unpack(f"<{fmt}", bytes.fromhex("0100c07f" if fmt == "f" else "010000000000f87f"))[0]
    first = [float(i) for i in range(40)] + [nan]
    data = (
        _packed(packed, fmt, first)
        + one
        + struct.pack(f"<{fmt}", -1.5)
        + one
        + struct.pack(f"<{fmt}", nan)
        + _packed(packed, fmt, [2.5] * 3)
        + one
        + struct.pack(f"<{fmt}", 7.0)
    )
    want = onnx.TensorProto.FromString(data)
    tensor = decode(TensorProto, data)
    assert _run(name, tensor) is not None and len(_run(name, tensor) or ()) == len(getattr(want, name))
    got = getattr(tensor, name)
    assert list(got) and type(got) is type(getattr(decode(TensorProto, data, lazy=False), name))  # once read
    assert _same_floats(list(got), list(getattr(want, name)), fmt)
    assert encode(tensor) == want.SerializeToString()


def test_a_bad_run_fails_as_the_eager_decoder_fails() -> None:
    good = _packed(_FLOAT_PACKED, "f", [1.0] * 40)
    bad = _FLOAT_PACKED + encode_varint(6) + b"\0" * 6
    for data in (good + bad, bad + good, good + _FLOAT_ONE + b"\0\0"):
        outcomes = []
        for lazy in (True, False):
            with pytest.raises(DecodeError) as caught:
                decode(TensorProto, data, lazy=lazy)
            outcomes.append((caught.value.offset, caught.value.path, caught.value.reason))
        assert outcomes[0] == outcomes[1]


def test_a_waiting_run_inside_a_node_reads_as_protobuf_does() -> None:
    weights = [math.sin(i) for i in range(300)]
    node = NodeProto(
        op_type="Constant",
        output=["w"],
        attribute=[
            AttributeProto(name="value", type=4, t=TensorProto(dims=[300], data_type=1, float_data=weights))
        ],
    )
    data = encode(node)
    decoded = decode(NodeProto, data)
    assert _run("float_data", decoded.attribute[0].t) is not None
    want = onnx.NodeProto.FromString(data)
    assert list(decoded.attribute[0].t.float_data) == list(want.attribute[0].t.float_data)
    assert list(decoded.attribute[0].t.dims) == [300]


def test_assigning_before_the_first_read_wins() -> None:
    data = _packed(_FLOAT_PACKED, "f", [1.0] * 64)
    tensor = decode(TensorProto, data)
    tensor.float_data = [2.0]
    assert list(tensor.float_data) == [2.0]
    assert [spec.name for spec, _ in tensor.ListFields()] == ["float_data"] and not waiting_fields(tensor)
    tensor = decode(TensorProto, data)
    tensor.ClearField("float_data")
    assert list(tensor.float_data) == [] and encode(tensor) == b""


def test_every_run_waits_when_every_element_waits() -> None:
    data = _packed(_FLOAT_PACKED, "f", [3.0]) + _FLOAT_ONE + struct.pack("<f", 4.0)
    tensor = decode(TensorProto, data, representation=EVERY_ELEMENT)
    assert _run("float_data", tensor) is not None
    assert list(tensor.float_data) == [3.0, 4.0]


def test_concurrent_first_reads_get_one_list() -> None:
    data = _packed(_FLOAT_PACKED, "f", [float(i) for i in range(1000)])
    for _ in range(20):
        tensor = decode(TensorProto, data)
        seen: list[Any] = []
        start = threading.Barrier(4)

        def read(tensor: TensorProto, start: threading.Barrier, seen: list[Any]) -> None:
            start.wait()
            seen.append(tensor.float_data)

        threads = [threading.Thread(target=read, args=(tensor, start, seen)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(values is tensor.float_data for values in seen) and len(tensor.float_data) == 1000
