"""What a first build reads of a tensor, and that the quick ways give what to_array gives.

A Constant's float tensor whose ``float_data`` still waits in the decoded buffer (a packed
run of 32 floats or more) is read by numpy from those bytes (``_values._waiting_floats``);
any other tensor goes through ``to_array``, which checks every field. Both give the same
array, bit for bit (NaN payloads included), and a tensor with a second value field or dims
that do not fit the values is still refused.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import decode, encode, helper
from wirecodec.errors import WireCodecError
from wirecodec.protobuf.lazy import waiting_record
from wirecodec.reference import ReferenceEvaluator
from wirecodec.reference._values import _waiting_floats, tensor_value
from wirecodec.tensors import to_array

F = 1  # TensorProto.FLOAT


def _constant_model(tensor: Any) -> Any:
    node = helper.make_node("Constant", [], ["Y"], value=tensor)
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("Y", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _decoded_constant(data: bytes) -> Any:
    """The Constant's tensor of a model decoded from ``data`` (lazily: runs wait)."""
    return decode(ModelProto, data).graph.node[0].attribute[0].t


def _float_tensor(values: np.ndarray, dims: list[int]) -> Any:
    return helper.make_tensor("w", F, dims, values.astype(np.float32).tolist())


@pytest.mark.quick
def test_a_waiting_float_run_is_read_as_to_array_reads_it() -> None:
    values = np.arange(-48, 48, dtype=np.float32) / 7
    data = encode(_constant_model(_float_tensor(values, [4, 24])))
    tensor = _decoded_constant(data)
    fast = _waiting_floats(tensor)
    assert fast is not None, "a run of 96 floats waits: the quick path must take it"
    assert waiting_record(tensor, "float_data") is not None  # read without loading the field
    slow = to_array(_decoded_constant(data), copy=True)
    assert fast.dtype == np.float32 and fast.shape == (4, 24) and fast.flags.writeable
    assert fast.tobytes() == slow.tobytes()
    (y,) = ReferenceEvaluator(data).run(None, {})
    assert y.tobytes() == slow.tobytes()


def test_nan_payloads_keep_their_bits() -> None:
    values = np.zeros(40, np.float32)
    bits = values.view(np.uint32)
    bits[3] = 0x7FA00001  # a signalling NaN with a payload
    bits[7] = 0xFFC00123
    tensor = helper.make_tensor("w", F, [40], np.zeros(40, np.float32).tolist())
    del tensor.float_data[:]
    tensor.float_data.extend(struct.unpack("<40f", values.tobytes()))
    data = encode(_constant_model(tensor))
    fast = tensor_value(_decoded_constant(data))
    assert fast.view(np.uint32).tolist() == to_array(_decoded_constant(data)).view(np.uint32).tolist()


def _field(tag: int, payload: bytes) -> bytes:
    """One length-delimited field: its tag byte, the varint length, the payload."""
    length, n = bytearray(), len(payload)
    while True:
        low, n = n & 0x7F, n >> 7
        length.append(low | 0x80 if n else low)
        if not n:
            return bytes([tag]) + bytes(length) + payload


def test_two_packed_runs_are_joined_in_order() -> None:
    # float_data written as two packed runs (a writer may split a field): one array, in order
    first, second = np.arange(40, dtype=np.float32), np.arange(100, 140, dtype=np.float32)
    # dims 80 (field 1), data_type FLOAT (field 2), float_data twice (field 4), name (field 8)
    data = bytes([0x08, 80, 0x10, F]) + _field(0x22, first.tobytes()) + _field(0x22, second.tobytes())
    got = decode(TensorProto, data + _field(0x42, b"w"))
    assert len(waiting_record(got, "float_data").pieces) == 2  # type: ignore[union-attr]
    fast = _waiting_floats(got)
    assert fast is not None and fast.tolist() == [*first.tolist(), *second.tolist()]
    assert fast.tobytes() == to_array(decode(TensorProto, data)).tobytes()


def test_two_value_fields_are_refused_by_to_array() -> None:
    tensor = _float_tensor(np.arange(40, dtype=np.float32), [40])
    tensor.int64_data.extend([1, 2])  # a second value field: invalid
    got = _decoded_constant(encode(_constant_model(tensor)))
    assert _waiting_floats(got) is None
    with pytest.raises(WireCodecError, match="int64_data holds data"):
        tensor_value(got)


def test_dims_that_do_not_fit_are_refused_by_to_array() -> None:
    tensor = _float_tensor(np.arange(40, dtype=np.float32), [40])
    tensor.dims[0] = 41  # 40 values, dims of 41
    got = _decoded_constant(encode(_constant_model(tensor)))
    assert _waiting_floats(got) is None
    with pytest.raises(WireCodecError):
        tensor_value(got)


def test_only_a_float_run_takes_the_quick_path() -> None:
    doubles = helper.make_tensor("d", 11, [40], np.arange(40, dtype=np.float64).tolist())
    got = _decoded_constant(encode(_constant_model(doubles)))
    assert _waiting_floats(got) is None
    assert tensor_value(got).dtype == np.float64
    small = _decoded_constant(encode(_constant_model(_float_tensor(np.arange(4, dtype=np.float32), [4]))))
    assert _waiting_floats(small) is None  # under 32 floats nothing waits
    assert tensor_value(small).tolist() == [0.0, 1.0, 2.0, 3.0]
