"""The TypeProtos shape inference writes and reads, against onnx's helper and onnx's own
inference.

Inference builds each inferred type's messages on their holders (new_type_proto: no
keyword dict or stub per field, on per-node loops one model of one node at a time) and
reads declared shapes by presence bits (_shape_from): these pin that what it writes is
what ``onnx.helper.make_tensor_type_proto`` makes for the same type (bytes, presence,
classes), and that a declared type is read as onnx's inference reads it (a size of 0
set, a symbol, an axis with neither).
"""

from __future__ import annotations

from typing import Any

import pytest

import schema_dsl.onnx as ours
from tests.support.reference import require_onnx
from wirecodec.protobuf.codec import decode
from wirecodec.shape_inference import infer_shapes
from wirecodec.shape_inference._types import Dim, TensorType, from_proto, new_type_proto

onnx = require_onnx()

SHAPES: list[tuple[Dim, ...] | None] = [
    None,
    (),
    (0,),
    (1, 64, 56, 56),
    ("N", 3, None),
    (None,),
    ((1 << 63) - 1, -1),
    ("batch é", 7),  # (not ASCII: the checked path)
]


def _theirs(elem: int, shape: tuple[Dim, ...] | None, sparse: bool) -> Any:
    make = onnx.helper.make_sparse_tensor_type_proto if sparse else onnx.helper.make_tensor_type_proto
    return make(elem, shape)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("elem", [0, 1, 7, 16])
@pytest.mark.parametrize("shape", SHAPES, ids=repr)
def test_an_inferred_type_is_what_onnx_helper_makes(
    shape: tuple[Dim, ...] | None, elem: int, sparse: bool
) -> None:
    mine = new_type_proto(TensorType(elem, shape, sparse))
    theirs = _theirs(elem, shape, sparse)
    assert mine.SerializeToString() == theirs.SerializeToString()
    assert type(mine) is ours.TypeProto
    field = "sparse_tensor_type" if sparse else "tensor_type"
    assert mine.WhichOneof("value") == theirs.WhichOneof("value") == field
    tensor, their_tensor = getattr(mine, field), getattr(theirs, field)
    assert type(tensor).__name__ == type(their_tensor).__name__
    assert tensor.HasField("shape") == their_tensor.HasField("shape") == (shape is not None)
    assert tensor.HasField("elem_type") == their_tensor.HasField("elem_type") is True
    for dim, their_dim in zip(tensor.shape.dim, their_tensor.shape.dim, strict=True):
        assert type(dim) is ours.TensorShapeProto.Dimension
        assert dim.WhichOneof("value") == their_dim.WhichOneof("value")
        assert dim.ListFields() == [] or dim == decode(
            ours.TensorShapeProto.Dimension, their_dim.SerializeToString()
        )
    # a built type is a message like any other: a write reaches it, and its bytes follow
    tensor.elem_type = 2
    their_tensor.elem_type = 2
    assert mine.SerializeToString() == theirs.SerializeToString()


@pytest.mark.parametrize("shape", [*(s for s in SHAPES if s is not None), ("", 2)], ids=repr)
def test_a_declared_type_reads_back_as_written(shape: tuple[Dim, ...]) -> None:
    """A size (0 too) as a size, a symbol as a symbol; onnx's helper writes ``""`` as a
    dim_param set and empty, which names no symbol (an unknown axis)."""
    theirs = onnx.helper.make_tensor_type_proto(1, list(shape))
    read = from_proto(decode(ours.TypeProto, theirs.SerializeToString()))
    expected = tuple(None if d == "" else d for d in shape)
    assert read == TensorType(1, expected)


def _conv_model(lib: Any, declared_x: list[Any]) -> Any:
    """A one-node model as onnxslim's per-node loop makes one: inputs declared, the output
    untyped, a weight given as an initializer only."""
    h = lib.helper
    weight = h.make_tensor("w", lib.TensorProto.FLOAT, [4, 2, 1, 1], [0.5] * 8)
    graph = h.make_graph(
        [h.make_node("Conv", ["x", "w"], ["y"])],
        "tmp",
        [h.make_tensor_value_info("x", lib.TensorProto.FLOAT, declared_x)],
        [lib.ValueInfoProto(name="y")],
        [weight],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


@pytest.mark.parametrize("declared_x", [[1, 2, 0, 5], ["N", 2, "H", 5], [None, 2, 3, 3]], ids=repr)
def test_a_one_node_model_infers_as_onnx_does(declared_x: list[Any]) -> None:
    theirs = onnx.shape_inference.infer_shapes(_conv_model(onnx, declared_x))
    mine = infer_shapes(decode(ours.ModelProto, _conv_model(onnx, declared_x).SerializeToString()))
    assert mine.SerializeToString() == theirs.SerializeToString()
    # the result is a model of its own: the input's lists stay as they were
    source = decode(ours.ModelProto, _conv_model(onnx, declared_x).SerializeToString())
    infer_shapes(source)
    assert source.SerializeToString() == _conv_model(onnx, declared_x).SerializeToString()
