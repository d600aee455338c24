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


# -- issue 34: del, `in`, signed zeros, repr, initialization API, strings, enums, pop ------------


def test_deleting_a_field_is_refused_and_changes_nothing() -> None:
    def build(module: Any) -> Any:
        model = module.ModelProto()
        model.graph.name = "g"
        model.graph.node.add(op_type="Relu", input=["x"])
        return model

    mine, theirs = both(build)
    for model in (mine, theirs):
        for target, name in (
            (model, "graph"),
            (model.graph, "name"),
            (model.graph, "node"),
            (model.graph.node[0], "input"),
            (model.graph.node[0], "op_type"),
            (model, "not_a_field"),
        ):
            with pytest.raises(AttributeError, match="Cannot delete field attribute"):
                delattr(target, name)
    assert same_bytes(mine, theirs)
    assert mine.graph.name == "g" and list(mine.graph.node[0].input) == ["x"]
    assert str(mine) == str(theirs) and mine.ListFields()


def test_in_asks_has_field() -> None:
    mine, theirs = both(lambda m: m.NodeProto(name="n", input=["x"]))
    dim_mine, dim_theirs = both(lambda m: m.TensorShapeProto.Dimension(dim_param="N"))
    for node, dim in ((mine, dim_mine), (theirs, dim_theirs)):
        assert "name" in node and "doc_string" not in node
        assert "value" in dim and "dim_param" in dim and "dim_value" not in dim  # a oneof's name too
        assert b"name" in node and b"doc_string" not in node  # protobuf takes bytes names too
        for bad in ("nope", "input", 3, b"nope", None):
            with pytest.raises(ValueError):
                bad in node  # noqa: B015


@pytest.mark.parametrize(
    "build",
    [
        lambda m, z: m.AttributeProto(f=z),
        lambda m, z: m.TensorProto(float_data=[1.0, z]),
        lambda m, z: m.TensorProto(double_data=[z]),
        lambda m, z: m.AttributeProto(floats=[z]),
    ],
)
def test_equality_tells_the_sign_of_zero_and_keeps_nan_equal(build: Any) -> None:
    for module in (ours, onnx):
        assert build(module, 0.0) != build(module, -0.0)
        assert build(module, -0.0) == build(module, -0.0)
        assert build(module, float("nan")) == build(module, float("nan"))
        assert build(module, 0.0) == build(module, 0.0)


def test_equality_compares_nan_payloads_from_the_wire_as_protobuf() -> None:
    import struct

    def tensor(bits: int) -> bytes:
        return b"\x22\x04" + struct.pack("<I", bits)  # float_data, packed, one value

    for a, b in ((0x7FC00000, 0x7FC00001), (0x7FC00000, 0xFFC00000), (0x7FA00000, 0x7FA00000)):
        mine = ours.TensorProto.FromString(tensor(a)) == ours.TensorProto.FromString(tensor(b))
        theirs = onnx.TensorProto.FromString(tensor(a)) == onnx.TensorProto.FromString(tensor(b))
        assert mine == theirs == (a == b), (hex(a), hex(b))


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.NodeProto(input=["x"], op_type="Relu"),
        lambda m: m.TensorProto(),
        lambda m: m.TensorProto(name="w", dims=[2], float_data=[1.5, -0.0], raw_data=b"\x00\xff"),
        lambda m: m.AttributeProto(name="a", type=m.AttributeProto.GRAPH, g=m.GraphProto(name="body")),
        lambda m: m.TensorShapeProto.Dimension(dim_value=3),
        lambda m: m.ValueInfoProto(name="x", type={"tensor_type": {"elem_type": 1}}),
        lambda m: m.OperatorSetIdProto(domain="", version=21),
        lambda m: m.ModelProto().graph,  # an unset field's empty child
    ],
)
def test_repr_is_the_text_format_as_onnx_prints_it(build: Any) -> None:
    mine, theirs = both(build)
    assert repr(mine) == repr(theirs)
    assert repr([mine, mine]) == repr([theirs, theirs])


def test_repr_inside_a_summary_and_of_repeated_fields() -> None:
    mine, theirs = both(rich)
    assert repr(mine.graph.node) == repr(theirs.graph.node)
    assert repr(mine.graph.node[0]) == repr(theirs.graph.node[0])
    assert repr(mine.opset_import[0]) == repr(theirs.opset_import[0])


def test_initialization_api() -> None:
    mine, theirs = both(model_of)
    for model in (mine, theirs):
        errors: list[str] = []
        assert model.IsInitialized(errors) is True and errors == []
        assert model.FindInitializationErrors() == []
        assert model.graph.node[0].FindInitializationErrors() == []


def test_enum_value_type_is_int_for_annotations() -> None:
    for module in (ours, onnx):
        assert module.TensorProto.DataType.ValueType is int
        assert module.AttributeProto.AttributeType.ValueType is int

        def cast(value: int) -> Any:  # how onnx-annotated code spells a data type
            return value

        cast.__annotations__["value"] = module.TensorProto.DataType.ValueType
    assert "ValueType" not in ours.TensorProto.DataType.__members__
    assert len(ours.TensorProto.DataType) == len(onnx.TensorProto.DataType.keys())


@pytest.mark.parametrize("text", ["\udcff", "a\ud800b", "\udfff"])
def test_a_lone_surrogate_is_refused_at_assignment(text: str) -> None:
    for module in (ours, onnx):
        node = module.NodeProto(name="n")
        with pytest.raises(UnicodeEncodeError):
            node.doc_string = text
        with pytest.raises(UnicodeEncodeError):
            node.input.append(text)
        with pytest.raises(UnicodeEncodeError):
            module.NodeProto(op_type=text)
        assert not node.HasField("doc_string") and len(node.input) == 0
        assert node.SerializeToString() == b"\x1a\x01n"


def test_bytes_that_are_not_utf8_are_a_unicode_decode_error() -> None:
    for module in (ours, onnx):
        with pytest.raises(UnicodeDecodeError):
            module.NodeProto(name=b"\xff")
        with pytest.raises(UnicodeDecodeError):
            module.NodeProto(input=[b"ok", b"\xc3"])
        assert module.NodeProto(name="é".encode()).name == "é"


def test_a_decoded_string_that_is_not_utf8_still_copies_and_merges() -> None:
    data = b"\x1a\x01\xff\x0a\x02a\xfe"  # name and input[0] not UTF-8, as a broken exporter wrote
    for module in (ours, onnx):
        node = module.NodeProto.FromString(data)
        merged, copied = module.NodeProto(), module.NodeProto()
        merged.MergeFrom(node)
        copied.CopyFrom(node)
        assert merged.SerializeToString() == copied.SerializeToString() == b"\x0a\x02a\xfe\x1a\x01\xff"


def test_serialize_takes_deterministic_by_position() -> None:
    mine, theirs = both(model_of)
    assert mine.SerializeToString(True) == theirs.SerializeToString(True)
    assert mine.SerializePartialToString(True) == theirs.SerializePartialToString(True)
    assert mine.SerializeToString(deterministic=False) == theirs.SerializeToString(deterministic=False)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda e: e.Value(b"FLOAT"), 1),
        (lambda e: e.Value("FLOAT"), 1),
        (lambda e: e.Name(True), "FLOAT"),
        (lambda e: e.Name(np.int32(16)), "BFLOAT16"),
        (lambda e: e.Name((1 << 32) + 1), "FLOAT"),  # read as a C int32, as protobuf
        (lambda e: e.Name(1.0), TypeError),
        (lambda e: e.Name("1"), TypeError),
        (lambda e: e.Name(None), TypeError),
        (lambda e: e.Name(1000), ValueError),
        (lambda e: e.Name(1 << 64), ValueError),
        (lambda e: e.Value(b"\xff"), ValueError),
        (lambda e: e.Value(1), ValueError),
        (lambda e: e.Value(bytearray(b"FLOAT")), TypeError),
    ],
)
def test_enum_lookups_take_what_protobuf_takes(call: Any, expected: Any) -> None:
    for wrapper in (ours.TensorProto.DataType, onnx.TensorProto.DataType):
        if isinstance(expected, type):
            with pytest.raises(expected):
                call(wrapper)
        else:
            assert call(wrapper) == expected


def test_tensor_dtype_helpers_raise_what_onnx_raises() -> None:
    from wirecodec import helper

    for name in (
        "tensor_dtype_to_np_dtype",
        "tensor_dtype_to_string",
        "tensor_dtype_to_field",
        "tensor_dtype_to_storage_tensor_dtype",
    ):
        for dtype in (0, 1000):
            for module in (helper, onnx.helper):
                with pytest.raises(KeyError):
                    getattr(module, name)(dtype)
            with pytest.raises(ValueError, match="not an element type"):
                getattr(helper, name)(dtype)


def test_string_tensors_raise_unicode_errors_as_onnx() -> None:
    from wirecodec import TensorError, numpy_helper

    bad = {"name": "s", "data_type": 8, "dims": [1], "string_data": [b"\xff"]}
    with pytest.raises(UnicodeDecodeError):
        onnx.numpy_helper.to_array(onnx.TensorProto(**bad))
    with pytest.raises(UnicodeDecodeError, match=r"string_data\[0\] is not valid UTF-8") as decoding:
        numpy_helper.to_array(ours.TensorProto(**bad))
    assert isinstance(decoding.value, TensorError)
    for module in (onnx.numpy_helper, numpy_helper):
        with pytest.raises(UnicodeEncodeError):
            module.from_array(np.array(["ok", "\udcff"], dtype=object))
    with pytest.raises(TensorError):
        numpy_helper.from_array(np.array(["\udcff"]))


def test_pop_out_of_range_pops_the_last_with_a_warning() -> None:
    def build(module: Any) -> Any:
        graph = module.GraphProto(node=[module.NodeProto(op_type=t) for t in "ABC"])
        graph.input.add(name="x")
        return module.NodeProto(input=["a", "b", "c"]), graph

    (mine, mine_graph), (theirs, theirs_graph) = both(build)
    for node, graph in ((mine, mine_graph), (theirs, theirs_graph)):
        with pytest.warns(FutureWarning, match="pop index out of range"):
            assert node.input.pop(10) == "c"
        with pytest.warns(FutureWarning, match="pop index out of range"):
            assert node.input.pop(-10) == "b"
        with pytest.warns(FutureWarning):
            assert graph.node.pop(3).op_type == "C"
        assert node.input.pop(0) == "a" and graph.node.pop(-2).op_type == "A"
        with pytest.raises(IndexError):
            node.input.pop(0)  # empty: nothing to pop
        with pytest.raises(IndexError):
            node.input.pop()
    assert same_bytes(mine, theirs) and same_bytes(mine_graph, theirs_graph)


def test_extending_a_repeated_field_with_itself_doubles_it() -> None:
    # upb never returns from g.node.extend(g.node) (onnx 1.23); ours doubles the list,
    # as a Python list would: the documented difference.
    graph = ours.GraphProto(node=[ours.NodeProto(op_type="A"), ours.NodeProto(op_type="B")])
    graph.node.extend(graph.node)
    assert [n.op_type for n in graph.node] == ["A", "B", "A", "B"]
    graph.node[0].op_type = "Z"
    assert graph.node[2].op_type == "A"  # copies, as every extend makes
    node = ours.NodeProto(input=["x"])
    node.input.extend(node.input)
    node.MergeFrom(node)
    assert list(node.input) == ["x"] * 4


def test_value_type_annotations_type_check(tmp_path: Any) -> None:
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "annotated.py"
    snippet.write_text(
        "from schema_dsl.onnx import TensorProto\n"
        "def dtype_of(code: TensorProto.DataType.ValueType) -> TensorProto.DataType.ValueType:\n"
        "    return code\n"
        "reveal_type(dtype_of(TensorProto.FLOAT))\n",
        encoding="utf-8",
    )
    cache = str(tmp_path / "cache")
    out, _, status = api.run(["--strict", "--no-incremental", "--cache-dir", cache, str(snippet)])
    assert status == 0 and 'Revealed type is "int"' in out, out
