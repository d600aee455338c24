"""The builders of onnx_compat.helper, now made in place (``adopt``/``build``: a builder's own
messages are not copied, its checked values not checked again), against onnx's: the same
bytes, the caller's messages still copied (what the caller changes afterwards does not
reach the built message, nor the other way), a string with a lone surrogate refused as
protobuf refuses it, and messages built this way changed afterwards as any other."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.reference import require_onnx
from wirecodec.onnx_compat import helper as ours

onnx = require_onnx()
theirs = onnx.helper
T = onnx.TensorProto


def _same(a: Any, b: Any) -> None:
    assert a.SerializeToString() == b.SerializeToString()


@pytest.mark.quick
@pytest.mark.parametrize(
    "call",
    [
        lambda h: h.make_node("Relu", ["x\ud800"], ["y"]),
        lambda h: h.make_node("Relu", ["x"], ["y"], name="n\udfff"),
        lambda h: h.make_node("Relu", ["x"], ["y"], domain="d\ud800"),
        lambda h: h.make_tensor_value_info("x\ud800", T.FLOAT, [2]),
        lambda h: h.make_tensor_value_info("x", T.FLOAT, ["N\ud800"]),
        lambda h: h.make_tensor_value_info("x", T.FLOAT, [2], shape_denotation=["D\ud800"]),
        lambda h: h.make_attribute("k\ud800", 1),
        lambda h: h.make_tensor("t\ud800", T.FLOAT, [1], [1.0]),
    ],
    ids=["input", "name", "domain", "value-info-name", "dim-param", "denotation", "attr-key", "tensor"],
)
def test_a_lone_surrogate_is_refused_as_onnx(call: Any) -> None:
    with pytest.raises(UnicodeEncodeError):
        call(theirs)
    with pytest.raises(UnicodeEncodeError):
        call(ours)


@pytest.mark.quick
def test_str_subclasses_and_unicode_are_stored_as_onnx() -> None:
    class Name(str):
        pass

    for h in (theirs, ours):
        node = h.make_node("Relu", [Name("x")], ["ü"], name=Name("é"), alpha=Name("β"))
        assert type(node.name) is str and type(node.input[0]) is str
    _same(
        theirs.make_node("Relu", [Name("x")], ["ü"], name=Name("é"), alpha=Name("β")),
        ours.make_node("Relu", [Name("x")], ["ü"], name=Name("é"), alpha=Name("β")),
    )


@pytest.mark.quick
@pytest.mark.parametrize("kind", ["tensor", "graph", "type_proto", "tensors"])
def test_the_callers_messages_are_copied_into_an_attribute(kind: str) -> None:
    def value(h: Any) -> Any:
        if kind == "graph":
            return h.make_graph([], "g", [], [])
        if kind == "type_proto":
            return h.make_tensor_type_proto(T.FLOAT, [2])
        tensor = h.make_tensor("t", T.FLOAT, [2], [1.0, 2.0])
        return [tensor] if kind == "tensors" else tensor

    made = []
    for h in (theirs, ours):
        given = value(h)
        attr = h.make_attribute("a", given)
        first = given[0] if isinstance(given, list) else given
        if kind == "type_proto":  # the caller's message: not the attribute's
            first.denotation = "changed after"
        else:
            first.name = "changed after"
        made.append(attr)
    _same(*made)
    assert "changed after" not in str(made[1])


@pytest.mark.quick
def test_messages_built_in_place_change_as_onnxs() -> None:
    built = []
    for h in (theirs, ours):
        node = h.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        node.attribute[0].ints.append(5)
        node.input.append("b")
        info = h.make_tensor_value_info("x", T.FLOAT, ["N", 3, None])
        info.type.tensor_type.shape.dim[2].dim_value = 7
        info.type.tensor_type.shape.dim.add().dim_param = "W"
        tensor = h.make_tensor("t", T.FLOAT, [3], [0.1, -0.0, float("inf")])
        tensor.float_data.append(1.5)
        tensor.dims[0] = 4
        graph = h.make_graph([node], "g", [info], [], initializer=[tensor])
        built.append(h.make_model(graph, opset_imports=[h.make_opsetid("", 18)]))
    _same(*built)


@pytest.mark.quick
@pytest.mark.parametrize(
    ("code", "values"),
    [
        (T.FLOAT, [0.1, -0.0, 3.4e38, 1e-45, float("inf")]),
        (T.DOUBLE, [0.1, -0.0, 1e308]),
        (T.FLOAT16, [0.1, 65504.0, -2.0]),
        (T.BFLOAT16, [0.1, -3.0]),
        (T.INT8, [-128, 127]),
        (T.UINT16, [0, 65535]),
        (T.INT64, [-(2**63), 2**63 - 1]),
        (T.UINT64, [0, 2**64 - 1]),
        (T.UINT32, [0, 2**32 - 1]),
        (T.BOOL, [True, False]),
        (T.COMPLEX64, [1 + 2j, -0.5j]),
        (T.STRING, [b"a", "ü"]),
        (T.INT4, [-8, 7, 1]),
        (T.FLOAT8E4M3FN, [0.5, 448.0]),
    ],
)
def test_make_tensor_stores_numpys_values_as_onnx(code: int, values: list[Any]) -> None:
    _same(
        theirs.make_tensor("t", code, [len(values)], values),
        ours.make_tensor("t", code, [len(values)], values),
    )
    made = ours.make_tensor("t", code, [len(values)], values)
    field = theirs.tensor_dtype_to_field(code)
    assert all(type(v) in (int, float, bytes) for v in getattr(made, field))
