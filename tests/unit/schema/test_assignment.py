"""Assignment checks and conversions, judged side by side with the onnx package's messages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schema_dsl.onnx as ours
from wirecodec import encode

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")

# (class name, field, value): what onnx code assigns, right and wrong.
CASES: list[tuple[str, str, Any]] = [
    ("AttributeProto", "f", 0.1),
    ("AttributeProto", "f", 1e40),
    ("AttributeProto", "f", -1e40),
    ("AttributeProto", "f", 3),
    ("AttributeProto", "f", np.float64(0.5)),
    ("AttributeProto", "f", np.float32(0.25)),
    ("AttributeProto", "f", "x"),
    ("AttributeProto", "f", None),
    ("AttributeProto", "i", 2**63 - 1),
    ("AttributeProto", "i", -(2**63)),
    ("AttributeProto", "i", 2**63),
    ("AttributeProto", "i", 1.5),
    ("AttributeProto", "i", "3"),
    ("AttributeProto", "i", True),
    ("AttributeProto", "i", np.int32(4)),
    ("AttributeProto", "i", np.uint64(7)),
    ("AttributeProto", "i", np.float32(2.0)),
    ("AttributeProto", "i", None),
    ("AttributeProto", "type", 99),
    ("AttributeProto", "type", 7),
    ("AttributeProto", "type", "FLOATS"),
    ("AttributeProto", "type", -1),
    ("AttributeProto", "s", b"bytes"),
    ("AttributeProto", "s", "str"),
    ("AttributeProto", "s", 5),
    ("AttributeProto", "name", "héllo"),
    ("AttributeProto", "name", b"abc"),
    ("AttributeProto", "name", b"\xff"),
    ("AttributeProto", "name", 3),
    ("AttributeProto", "name", None),
    ("TensorProto", "data_type", 16),
    ("TensorProto", "data_type", 10_000),
    ("TensorProto", "data_location", 1),
    ("TensorProto", "data_location", 2),
    ("TensorShapeProto.Dimension", "dim_value", -5),
    ("TensorShapeProto.Dimension", "dim_param", "N"),
    ("ModelProto", "ir_version", np.int64(10)),
    ("ModelProto", "model_version", 2**62),
    ("NodeProto", "op_tpye", "Relu"),  # a typo
    ("NodeProto", "_private", 1),
]


def _classes(name: str) -> tuple[Any, Any]:
    mine: Any = ours
    theirs: Any = onnx
    for part in name.split("."):
        mine, theirs = getattr(mine, part), getattr(theirs, part)
    return mine, theirs


def _outcome(message: Any, field: str, value: Any) -> str:
    try:
        setattr(message, field, value)
    except AttributeError:
        return "AttributeError"
    except TypeError:
        return "TypeError"
    except ValueError:  # UnicodeDecodeError included
        return "ValueError"
    return "ok"


@pytest.mark.parametrize(("cls_name", "field", "value"), CASES, ids=[f"{c}.{f}={v!r}" for c, f, v in CASES])
def test_assignment_is_refused_or_stored_as_protobuf_does(cls_name: str, field: str, value: Any) -> None:
    mine_cls, theirs_cls = _classes(cls_name)
    mine, theirs = mine_cls(), theirs_cls()
    mine_outcome, theirs_outcome = _outcome(mine, field, value), _outcome(theirs, field, value)
    assert mine_outcome == theirs_outcome
    if mine_outcome == "ok":
        assert getattr(mine, field) == getattr(theirs, field)
        assert type(getattr(mine, field)) is type(getattr(theirs, field))
        assert encode(mine) == theirs.SerializeToString()


@given(st.floats(allow_nan=False, width=64))
def test_float_fields_hold_float32_values(value: float) -> None:
    mine, theirs = ours.AttributeProto(f=value), onnx.AttributeProto(f=value)
    assert mine.f == theirs.f
    assert encode(mine) == theirs.SerializeToString()
    again = ours.AttributeProto.FromString(encode(mine))
    assert again == mine  # a message equals its own round trip


def test_the_reported_bugs() -> None:
    assert ours.AttributeProto(f=0.1).f == 0.10000000149011612
    with pytest.raises(ValueError, match="invalid enumerator 99"):
        ours.AttributeProto().type = 99
    node = ours.NodeProto()
    with pytest.raises(AttributeError, match='no "op_tpye" field'):
        node.op_tpye = "Relu"  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="no field 'op_tpye'"):  # and a ValueError, as in protobuf
        ours.NodeProto(op_tpye="Relu")


def test_repeated_fields_check_each_element_on_assignment() -> None:
    with pytest.raises(TypeError, match=r"TensorProto\.dims: expected an int, got str"):
        ours.TensorProto(dims=[1, "2"])
    with pytest.raises(ValueError, match="out of range"):
        ours.TensorProto(uint64_data=[-1])
    with pytest.raises(TypeError, match="needs a list"):
        ours.NodeProto(input="ab")  # protobuf would split it into ['a', 'b']
    assert ours.TensorProto(dims=np.array([2, 3])).dims == [2, 3]
    assert ours.AttributeProto(floats=[0.1]).floats == [0.10000000149011612]


def test_a_message_field_takes_only_its_own_class() -> None:
    with pytest.raises(TypeError, match=r"AttributeProto\.t: expected schema_dsl\.onnx\.TensorProto"):
        ours.AttributeProto(t=ours.NodeProto())
    with pytest.raises(TypeError, match=r"onnx\.onnx_ml_pb2\.TensorProto"):
        ours.AttributeProto(t=onnx.TensorProto())
    tensor = ours.TensorProto(name="x")
    assert ours.AttributeProto(t=tensor).t.name == "x"


def test_oneof_assignment_clears_the_other_member() -> None:
    mine, theirs = ours.TensorShapeProto.Dimension(), onnx.TensorShapeProto.Dimension()
    for message in (mine, theirs):
        message.dim_value = 3
        message.dim_param = "N"
    assert mine.WhichOneof("value") == theirs.WhichOneof("value") == "dim_param"
    assert not mine.HasField("dim_value")
    assert encode(mine) == theirs.SerializeToString()
