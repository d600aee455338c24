"""``==`` of built messages (no source bytes: the generated field-by-field comparison of
schema_dsl.equality) answers what onnx's does, for one difference in each kind of field:
presence on one side only, a string, an int, an enum, bytes, a float and a double bit for
bit (0.0 against -0.0, NaN against itself), a sub-message, a repeated field's length and
its contents (strings, ints, bytes, floats, messages), and unknown fields; each case also
compared after the difference is undone, and in both directions."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import wirecodec.onnx_compat as compat
from tests.support.reference import require_onnx

onnx = require_onnx()


def _tensor(m: Any) -> Any:
    t = m.TensorProto(name="t", data_type=1, dims=[2, 3])
    t.float_data.extend([1.0, 2.5, -0.0])
    t.string_data.extend([b"a", b"bc"])
    t.int64_data.extend([5, 300])
    t.raw_data = b"\x00\x01"
    return t


def _node(m: Any) -> Any:
    n = m.helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3], alpha=0.5)
    n.attribute.append(m.helper.make_attribute("t", _tensor(m)))
    return n


# each program changes one part of the second message of an equal pair
EDITS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], None]]] = {
    "string": (_node, lambda n: setattr(n, "name", "other")),
    "string-present-one-side": (_node, lambda n: n.ClearField("name")),
    "string-empty-present": (_node, lambda n: setattr(n, "doc_string", "")),
    "repeated-string-length": (_node, lambda n: n.input.append("z")),
    "repeated-string-content": (_node, lambda n: n.output.__setitem__(0, "q")),
    "repeated-cleared-one-side": (_node, lambda n: n.ClearField("input")),
    "repeated-message-content": (_node, lambda n: setattr(n.attribute[0], "name", "other")),
    "repeated-message-length": (_node, lambda n: n.attribute.add()),
    "float": (_node, lambda n: setattr(n.attribute[0], "f", 0.25)),
    "float-zero-sign": (_node, lambda n: setattr(n.attribute[0], "f", -0.0)),
    "int": (_tensor, lambda t: setattr(t, "data_type", 2)),
    "repeated-int-content": (_tensor, lambda t: t.dims.__setitem__(1, 4)),
    "repeated-int64-content": (_tensor, lambda t: t.int64_data.__setitem__(1, 301)),
    "enum-present-one-side": (lambda m: m.AttributeProto(name="a"), lambda a: setattr(a, "type", 0)),
    "bytes": (_tensor, lambda t: setattr(t, "raw_data", b"\x00\x02")),
    "bytes-present-one-side": (_tensor, lambda t: t.ClearField("raw_data")),
    "repeated-bytes-content": (_tensor, lambda t: t.string_data.__setitem__(0, b"b")),
    "repeated-float-zero-sign": (_tensor, lambda t: t.float_data.__setitem__(2, 0.0)),
    "repeated-float-nan": (_tensor, lambda t: t.float_data.__setitem__(0, math.nan)),
    "double": (lambda m: m.TensorProto(double_data=[1.0, -0.0]), lambda t: t.double_data.__setitem__(1, 0.0)),
    "sub-message": (_node, lambda n: setattr(n.attribute[2].t, "name", "u")),
    "sub-message-present-one-side": (
        lambda m: m.AttributeProto(name="a"),
        lambda a: a.t.SetInParent(),
    ),
    "model-graph-node": (
        lambda m: m.helper.make_model(m.helper.make_graph([_node(m)], "g", [], [])),
        lambda model: setattr(model.graph.node[0], "op_type", "Relu"),
    ),
    "unknown-fields": (
        lambda m: m.NodeProto.FromString(b"\x0a\x01x\xa0\x06\x07"),
        lambda n: n.MergeFromString(b"\xa0\x06\x08"),
    ),
    "nothing": (_node, lambda n: None),
}


def _equalities(m: Any, make: Callable[[Any], Any], edit: Callable[[Any], None]) -> list[bool]:
    a, b = make(m), make(m)
    before = [a == b, b == a, a != b]
    edit(b)
    after = [a == b, b == a, a != b, b == b]
    c = type(b)()
    c.CopyFrom(b)  # a built copy: equal to what it copies
    return [*before, *after, c == b, b == c, c == a]


@pytest.mark.parametrize("case", sorted(EDITS))
def test_equality_after_one_change_as_onnx(case: str) -> None:
    make, edit = EDITS[case]
    assert _equalities(compat, make, edit) == _equalities(onnx, make, edit)


@pytest.mark.quick
def test_a_nan_equals_the_same_nan_and_not_zero_as_onnx() -> None:
    def program(m: Any) -> list[bool]:
        a, b = m.TensorProto(float_data=[math.nan]), m.TensorProto(float_data=[math.nan])
        c, d = m.AttributeProto(f=math.nan), m.AttributeProto(f=math.nan)
        return [a == b, c == d, c == m.AttributeProto(f=0.0), a == m.TensorProto(float_data=[0.0])]

    assert program(compat) == program(onnx)


@pytest.mark.quick
def test_messages_of_other_classes_are_not_equal_as_onnx() -> None:
    def program(m: Any) -> list[bool]:
        return [m.NodeProto() == m.GraphProto(), m.NodeProto() == 3, m.NodeProto() != m.ValueInfoProto()]

    assert program(compat) == program(onnx)
