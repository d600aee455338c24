"""What a first build reads of a tensor, and that the quick ways give what to_array gives.

A Constant's float tensor whose ``float_data`` still waits in the decoded buffer (a packed
run of 32 floats or more) is read by numpy from those bytes (``_values._waiting_floats``);
any other tensor goes through ``to_array``, which checks every field. Both give the same
array, bit for bit (NaN payloads included), and a tensor with a second value field or dims
that do not fit the values is still refused.
"""

from __future__ import annotations

import gc
import pathlib
import struct
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto, NodeProto, TensorProto
from wirecodec import decode, encode, helper
from wirecodec.errors import WireCodecError
from wirecodec.protobuf.lazy import waiting_record
from wirecodec.protobuf.representation import Representation
from wirecodec.reference import ReferenceEvaluator
from wirecodec.reference._values import _listed_floats, _raw_only, _waiting_floats, tensor_value
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


# -- raw_data read by array_from_raw, told by the presence bits (_values._raw_only) --------


def _raw_tensor(array: np.ndarray, data_type: int) -> Any:
    tensor = TensorProto(name="r", data_type=data_type, dims=list(array.shape))
    tensor.raw_data = array.tobytes()
    return tensor


@pytest.mark.parametrize(
    ("array", "data_type"),
    [
        (np.arange(-6, 6, dtype=np.int8).reshape(3, 4), 3),
        (np.linspace(-2, 2, 10).astype(np.float16), 10),
        (np.arange(12, dtype=np.int64).reshape(2, 2, 3), 7),
        (np.array([[0.5, -1e30]], dtype=np.float64), 11),
        (np.zeros((0, 3), dtype=np.float32), 1),
    ],
)
def test_a_raw_tensor_is_read_as_to_array_reads_it(array: np.ndarray, data_type: int) -> None:
    data = encode(_constant_model(_raw_tensor(array, data_type)))
    quick = _raw_only(_decoded_constant(data))
    assert quick is not None, "raw_data as the one value field takes the quick path"
    slow = to_array(_decoded_constant(data), copy=True)
    assert (quick.dtype, quick.shape, quick.tobytes()) == (slow.dtype, slow.shape, slow.tobytes())
    assert quick.dtype == array.dtype and quick.tobytes() == array.tobytes()


def test_a_raw_tensor_is_a_writable_copy_of_the_buffer() -> None:
    array = np.arange(40, dtype=np.float32)
    data = bytearray(encode(_constant_model(_raw_tensor(array, F))))
    quick = _raw_only(_decoded_constant(data))
    assert quick is not None and quick.flags.writeable
    quick[0] = 99.0  # writing to the evaluator's array leaves the model's bytes as they were
    assert to_array(_decoded_constant(data))[0] == 0.0


def test_raw_data_beside_a_second_value_field_is_refused_by_to_array() -> None:
    tensor = _raw_tensor(np.arange(4, dtype=np.float32), F)
    tensor.int64_data.extend([1, 2])
    got = _decoded_constant(encode(_constant_model(tensor)))
    assert _raw_only(got) is None
    with pytest.raises(WireCodecError, match="both raw_data and int64_data hold data"):
        tensor_value(got)


def test_raw_data_of_the_wrong_length_is_refused() -> None:
    tensor = _raw_tensor(np.arange(4, dtype=np.float32), F)
    tensor.dims[0] = 5
    with pytest.raises(WireCodecError, match="raw_data has 16 bytes"):
        tensor_value(_decoded_constant(encode(_constant_model(tensor))))


# -- a few float_data values already read (_values._listed_floats) ------------------------


def test_a_few_listed_floats_are_read_as_to_array_reads_them() -> None:
    values = [0.0, -0.0, 1.5, -3.25e-5, 3.4028234663852886e38, float("inf")]
    data = encode(_constant_model(helper.make_tensor("w", F, [2, 3], values)))
    quick = _listed_floats(_decoded_constant(data))
    assert quick is not None
    slow = to_array(_decoded_constant(data))
    assert (quick.dtype, quick.shape, quick.tobytes()) == (slow.dtype, slow.shape, slow.tobytes())
    assert quick.flags.writeable


def test_a_nan_payload_among_listed_floats_keeps_its_bits() -> None:
    # written by hand: a Python float would quiet the signalling NaN on its way to the wire
    payload = struct.pack("<2I", 0x7FA00001, 0x3F800000)
    data = bytes([0x08, 2, 0x10, F]) + _field(0x22, payload)  # dims, data_type, float_data
    got = decode(TensorProto, data)
    assert _listed_floats(got) is None  # a NaN: to_array keeps its payload
    assert tensor_value(decode(TensorProto, data)).view(np.uint32).tolist() == [0x7FA00001, 0x3F800000]
    plain = decode(TensorProto, bytes([0x08, 2, 0x10, F]) + _field(0x22, payload[4:] * 2))
    assert _listed_floats(plain) is not None  # the same tensor without the NaN is quick


def test_listed_floats_that_do_not_fill_the_dims_are_refused() -> None:
    tensor = helper.make_tensor("w", F, [2], [1.0, 2.0])
    tensor.dims[0] = 3
    got = _decoded_constant(encode(_constant_model(tensor)))
    assert _listed_floats(got) is None
    with pytest.raises(WireCodecError, match="float_data has 2 values but dims"):
        tensor_value(got)


# -- the evaluator holds no node views after a build ---------------------------------------


def _chain(count: int) -> bytes:
    nodes = [
        helper.make_node("Relu" if i % 2 else "Neg", [f"t{i}"], [f"t{i + 1}"], name=f"n{i}")
        for i in range(count)
    ]
    info = [helper.make_tensor_value_info(n, F, [2]) for n in ("t0", f"t{count}")]
    graph = helper.make_graph(nodes, "g", [info[0]], [info[1]])
    return encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


def _live_nodes() -> int:
    gc.collect()
    return sum(type(o) is NodeProto for o in gc.get_objects())


def test_a_built_evaluator_holds_no_node_views() -> None:
    # a graph of records (what load gives a large graph), whose node views live while held
    model = decode(ModelProto, _chain(300), representation=Representation(records_always=True))
    before = _live_nodes()
    sess = ReferenceEvaluator(model)
    # each node's view is made to compile it, then let go: the host's collector does not
    # walk 300 more objects (and their attributes and lists) for as long as sess lives
    assert _live_nodes() - before < 10
    (y,) = sess.run(None, {"t0": np.array([1.0, -2.0], dtype=np.float32)})
    assert y.tolist() == [0.0, 0.0]  # Neg then Relu, 150 times


def test_a_steps_node_is_the_node_at_its_place() -> None:
    sess = ReferenceEvaluator(decode(ModelProto, _chain(5)))
    assert [v.onnx_node.name for v in sess.rt_nodes_] == [f"n{i}" for i in range(5)]
    assert [type(v).__name__ for v in sess.rt_nodes_] == ["Neg_13", "Relu_14"] * 2 + ["Neg_13"]


# -- what a first build from a path imports ---------------------------------------------------

_FIRST_BUILD_SCRIPT = """
import sys
import numpy as np
from wirecodec.reference import ReferenceEvaluator
feeds = {"X": np.ones((1, 1, 3, 3), np.float32), "W": np.ones((1, 1, 2, 2), np.float32)}
(y,) = ReferenceEvaluator(sys.argv[1]).run(None, feeds)
heavy = ("tempfile", "shutil", "bz2", "lzma", "random", "string", "importlib.resources", "zipfile")
print(float(y.sum()), sorted(m for m in heavy if m in sys.modules))
"""


def test_a_first_build_from_a_path_imports_no_module_it_does_not_use(tmp_path: Any) -> None:
    # the spool of a pipe (tempfile and what it imports), the schema file read through
    # importlib.resources (zipfile), Conv's einsum letters (string): none of them reads a
    # plain file into a Conv's evaluator
    nodes = [helper.make_node("Relu", ["X"], ["H"]), helper.make_node("Conv", ["H", "W"], ["Y"])]
    io = [helper.make_tensor_value_info(n, F, None) for n in ("X", "W", "Y")]
    graph = helper.make_graph(nodes, "g", io[:2], io[2:])
    path = tmp_path / "conv.onnx"
    path.write_bytes(encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])))
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_BUILD_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[3]), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["16.0", "[]"]
