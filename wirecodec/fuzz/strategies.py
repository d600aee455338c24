"""Hypothesis strategies for every message class, and for models that pass ``wirecodec.check``.

Hypothesis is imported when a strategy is first asked for (it is the ``fuzz`` extra's,
and a test dependency), so importing :mod:`wirecodec.fuzz` does not need it.

>>> from hypothesis import given, settings
>>> from schema_dsl.onnx import TensorShapeProto
>>> from wirecodec.fuzz.strategies import messages
>>> @settings(max_examples=5, deadline=None)
... @given(messages(TensorShapeProto))
... def round_trip(shape):
...     assert TensorShapeProto.FromString(shape.SerializeToString()) == shape
>>> round_trip()
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, Final

from schema_dsl import FieldSpec, Kind, Message
from schema_dsl.assign import INT_RANGES
from schema_dsl.onnx import (
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["messages", "models", "scalars"]

# The ranges the message model accepts for each integer kind (enums are drawn from their values).
_INT_RANGES: Final = {kind: span for kind, span in INT_RANGES.items() if kind is not Kind.ENUM}
# Unary operators of the default domain that take any float tensor and keep its shape.
_UNARY: Final = ("Relu", "Neg", "Abs", "Identity", "Sigmoid", "Tanh", "Exp", "Sqrt", "Floor", "Ceil")


def scalars(spec: FieldSpec) -> SearchStrategy[Any]:
    """Values a scalar field accepts (enums: their declared values)."""
    from hypothesis import strategies as st

    kind = spec.kind
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.integers(low, high)
    if kind is Kind.ENUM:
        assert spec.enum_type is not None
        return st.sampled_from(sorted(int(v) for v in spec.enum_type))
    if kind is Kind.BOOL:
        return st.booleans()
    if kind is Kind.FLOAT:
        # Values a float32 holds exactly, so a round trip gives them back; NaN compares unequal.
        return st.floats(width=32, allow_nan=False)
    if kind is Kind.DOUBLE:
        return st.floats(allow_nan=False)
    if kind is Kind.STRING:
        return st.text(max_size=12)
    if kind is Kind.BYTES:
        return st.binary(max_size=24)
    raise TypeError(f"{spec.full_name} is a message field")


def messages(cls: type[Message], *, max_depth: int = 3, max_repeated: int = 3) -> SearchStrategy[Message]:
    """Any ``cls`` message: each field set or not, repeated ones with up to ``max_repeated``
    elements, sub-messages to ``max_depth`` levels. Shrinks toward the empty message."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw: Any, cls: type[Message], depth: int) -> Message:
        message = cls()
        for spec in cls.__schema__.fields:
            if spec.kind is Kind.MESSAGE and depth <= 0:
                continue
            if not draw(st.integers(0, 3).map(lambda n: n == 0)):  # a quarter of the fields
                continue
            values = build(spec.message_type, depth - 1) if spec.kind is Kind.MESSAGE else scalars(spec)
            if spec.repeated:
                getattr(message, spec.name).extend(draw(st.lists(values, max_size=max_repeated)))
            elif spec.kind is Kind.MESSAGE:
                getattr(message, spec.name).CopyFrom(draw(values))
            else:
                setattr(message, spec.name, draw(values))
        return message

    strategy: SearchStrategy[Message] = build(cls, max_depth)
    return strategy


def _float_tensor(name: str, dims: list[int], values: list[float]) -> TensorProto:
    raw = struct.pack(f"<{len(values)}f", *values)
    return TensorProto(name=name, dims=dims, data_type=TensorProto.DataType.FLOAT, raw_data=raw)


def _value_info(name: str, dims: list[int]) -> ValueInfoProto:
    shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_value=d) for d in dims])
    tensor_type = TypeProto.Tensor(elem_type=TensorProto.DataType.FLOAT, shape=shape)
    return ValueInfoProto(name=name, type=TypeProto(tensor_type=tensor_type))


def models(*, max_nodes: int = 6) -> SearchStrategy[ModelProto]:
    """Models that pass :func:`wirecodec.check`: a float input, a chain of up to ``max_nodes``
    unary operators and element-wise ``Add``\\ s of initializers, one output."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw: Any) -> ModelProto:
        dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
        size = 1
        for d in dims:
            size *= d
        graph = GraphProto(name=draw(st.text("abcdefgh_", min_size=1, max_size=8)))
        graph.input.append(_value_info("x", dims))
        current = "x"
        for i in range(draw(st.integers(1, max_nodes))):
            output = f"t{i}"
            if draw(st.booleans()):
                weights = draw(st.lists(st.floats(-4, 4, width=32), min_size=size, max_size=size))
                graph.initializer.append(_float_tensor(f"w{i}", dims, weights))
                node = NodeProto(op_type="Add", input=[current, f"w{i}"], output=[output], name=f"n{i}")
            else:
                node = NodeProto(
                    op_type=draw(st.sampled_from(_UNARY)), input=[current], output=[output], name=f"n{i}"
                )
            graph.node.append(node)
            current = output
        graph.output.append(_value_info(current, dims))
        opset = draw(st.integers(13, 21))
        return ModelProto(
            ir_version=draw(st.integers(7, 10)),
            producer_name="wirecodec.fuzz.strategies",
            opset_import=[OperatorSetIdProto(domain="", version=opset)],
            graph=graph,
        )

    strategy: SearchStrategy[ModelProto] = build()
    return strategy
