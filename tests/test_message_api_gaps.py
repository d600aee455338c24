"""Protobuf-API behaviours real scripts meet, each checked side by side with the onnx package.

A oneof's name in ``HasField``/``ClearField`` (making a batch dimension dynamic),
``copy.copy`` giving an independent message, the short ``repr()`` onnx prints for
models, graphs and functions, and dicts for message fields in constructors.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl import onnx as ours
from schema_dsl.message import shallow_copy

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def both(build: Any) -> tuple[Any, Any]:
    """The same message built by ``build(module)`` from our classes and from onnx's."""
    return build(ours), build(onnx)


def same_bytes(mine: Any, theirs: Any) -> bool:
    return bool(wirecodec.encode(mine) == theirs.SerializeToString())


def shaped(module: Any) -> Any:
    dims = [module.TensorShapeProto.Dimension(dim_value=1), module.TensorShapeProto.Dimension(dim_param="n")]
    return module.TensorShapeProto(dim=dims)


# -- a oneof's name ------------------------------------------------------------------------------


def test_has_field_and_clear_field_take_a_oneofs_name() -> None:
    mine, theirs = both(shaped)
    for shape in (mine, theirs):
        batch, other = shape.dim[0], shape.dim[1]
        assert batch.HasField("value") and other.HasField("value")
        batch.ClearField("value")  # the way scripts make the batch dimension dynamic
        assert not batch.HasField("value")
        assert batch.WhichOneof("value") is None
        batch.ClearField("value")  # nothing set: nothing to do
        batch.dim_param = "batch"
        assert batch.HasField("value")
    assert same_bytes(mine, theirs)
    assert wirecodec.decode(ours.TensorShapeProto, theirs.SerializeToString()).dim[0].HasField("value")


def test_an_unknown_name_is_still_a_value_error() -> None:
    mine, theirs = both(shaped)
    for dim in (mine.dim[0], theirs.dim[0]):
        with pytest.raises(ValueError):
            dim.HasField("nope")
        with pytest.raises(ValueError):
            dim.ClearField("nope")


# -- copy.copy -----------------------------------------------------------------------------------


def model_of(module: Any) -> Any:
    node = module.NodeProto(op_type="Relu", input=["x"], output=["y"])
    graph = module.GraphProto(name="g", node=[node])
    return module.ModelProto(ir_version=10, graph=graph)


@pytest.mark.parametrize("source", ["built", "decoded"])
def test_copy_copy_is_independent(source: str) -> None:
    mine, theirs = both(model_of)
    if source == "decoded":
        mine = wirecodec.decode(ours.ModelProto, theirs.SerializeToString())
    for model in (mine, theirs):
        clone = copy.copy(model)
        clone.graph.node[0].op_type = "Sigmoid"
        clone.graph.node.add().op_type = "Tanh"
        clone.graph.name = "changed"
        assert model.graph.node[0].op_type == "Relu" and len(model.graph.node) == 1
        assert model.graph.name == "g"
        assert clone.graph.name == "changed" and len(clone.graph.node) == 2
    assert same_bytes(mine, theirs)
    assert same_bytes(copy.copy(mine), theirs)


def test_shallow_copy_shares_what_it_does_not_replace() -> None:
    model = model_of(ours)
    clone = shallow_copy(model)
    clone.producer_name = "clone"
    assert clone.graph is model.graph and model.producer_name == ""


# -- repr ----------------------------------------------------------------------------------------


def rich(module: Any) -> Any:
    weight = module.TensorProto(name="w", data_type=1, dims=[262144], raw_data=bytes(1 << 20))
    node = module.NodeProto(op_type="Relu", input=["x"], output=["y"])
    info = module.ValueInfoProto(name="x")
    graph = module.GraphProto(
        name="main",
        node=[node, node],
        initializer=[weight],
        input=[info],
        output=[info, info],
        value_info=[info],
    )
    function = module.FunctionProto(
        name="f",
        domain="custom",
        overload="o",
        input=["a"],
        output=["b"],
        attribute=["alpha", "beta"],
        node=[node],
        opset_import=[module.OperatorSetIdProto(domain="", version=21)],
    )
    return module.ModelProto(
        ir_version=10,
        domain="d",
        producer_name="p",
        producer_version="1",
        graph=graph,
        functions=[function],
        opset_import=[
            module.OperatorSetIdProto(domain="", version=21),
            module.OperatorSetIdProto(domain="x", version=1),
        ],
    )


def test_repr_of_models_graphs_and_functions_is_onnxs_summary() -> None:
    mine, theirs = both(rich)
    assert repr(mine) == repr(theirs)
    assert len(repr(mine)) < 300  # a megabyte of weights is not printed
    assert repr(mine.graph) == repr(theirs.graph)
    assert repr(mine.functions[0]) == repr(theirs.functions[0])
    decoded = wirecodec.decode(ours.ModelProto, theirs.SerializeToString())
    assert repr(decoded) == repr(theirs)


def test_repr_of_empty_ones_is_onnxs_too() -> None:
    for build in (
        lambda m: m.ModelProto(),
        lambda m: m.GraphProto(),
        lambda m: m.FunctionProto(),
        lambda m: m.ModelProto(graph=m.GraphProto(name="only")),
    ):
        mine, theirs = both(build)
        assert repr(mine) == repr(theirs)


def test_str_stays_the_text_format() -> None:
    mine, theirs = both(model_of)
    assert str(mine) == str(theirs)


# -- dicts in constructors -----------------------------------------------------------------------


def test_constructors_take_dicts_for_message_fields() -> None:
    def build(module: Any) -> Any:
        return module.ModelProto(
            ir_version=9,
            graph={
                "name": "g",
                "node": [
                    {"op_type": "Relu", "input": ["x"], "attribute": [{"name": "a", "i": 3, "type": 2}]}
                ],
                "input": [{"name": "x", "type": {"tensor_type": {"elem_type": 1}}}],
            },
            opset_import=[{"domain": "", "version": 21}],
        )

    mine, theirs = both(build)
    assert same_bytes(mine, theirs)
    assert mine.graph.node[0].attribute[0].i == 3


def test_a_dict_with_an_unknown_field_is_refused_like_onnx() -> None:
    with pytest.raises(ValueError):
        onnx.ModelProto(graph={"nope": 1})
    with pytest.raises((ValueError, AttributeError)):
        ours.ModelProto(graph={"nope": 1})


def test_to_array_still_reads_the_weight_of_a_dict_built_tensor() -> None:
    model = ours.ModelProto(
        graph={"initializer": [{"name": "w", "data_type": 1, "dims": [2], "float_data": [1, 2]}]}
    )
    assert wirecodec.to_array(model.graph.initializer[0]).tolist() == [1.0, 2.0]
    assert np.asarray(wirecodec.to_array(model.graph.initializer[0])).dtype == np.float32
