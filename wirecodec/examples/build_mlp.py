"""Rebuild the bundled example model ``mlp.onnx`` with wirecodec's own classes.

    python -m wirecodec.examples.build_mlp

A two-layer perceptron (Gemm → Relu → Gemm) on a [N, 4] float input, weights from a
fixed seed; opset 21, IR version 10, so any current runtime can execute it.
"""

from __future__ import annotations

import pathlib

import numpy as np

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec.protobuf.codec import encode

FLOAT = TensorProto.DataType.FLOAT


def _weight(name: str, array: np.ndarray) -> TensorProto:
    data = np.ascontiguousarray(array, dtype="<f4")
    return TensorProto(name=name, dims=list(data.shape), data_type=FLOAT, raw_data=data.tobytes())


def _value(name: str, *shape: int | str) -> ValueInfoProto:
    dim = TensorShapeProto.Dimension
    dims = [dim(dim_param=d) if isinstance(d, str) else dim(dim_value=d) for d in shape]
    tensor_type = TypeProto.Tensor(elem_type=FLOAT, shape=TensorShapeProto(dim=dims))
    return ValueInfoProto(name=name, type=TypeProto(tensor_type=tensor_type))


def build() -> ModelProto:
    rng = np.random.default_rng(20261122)
    trans_b = AttributeProto(name="transB", type=AttributeProto.AttributeType.INT, i=1)
    graph = GraphProto(
        name="mlp",
        node=[
            NodeProto(op_type="Gemm", input=["x", "w1", "b1"], output=["h"], name="fc1", attribute=[trans_b]),
            NodeProto(op_type="Relu", input=["h"], output=["a"], name="relu"),
            NodeProto(op_type="Gemm", input=["a", "w2", "b2"], output=["y"], name="fc2", attribute=[trans_b]),
        ],
        initializer=[
            _weight("w1", rng.standard_normal((16, 4))),
            _weight("b1", rng.standard_normal(16)),
            _weight("w2", rng.standard_normal((3, 16))),
            _weight("b2", rng.standard_normal(3)),
        ],
        input=[_value("x", "N", 4)],
        output=[_value("y", "N", 3)],
    )
    return ModelProto(
        ir_version=10,
        producer_name="wirecodec",
        producer_version="0.1.0",
        opset_import=[OperatorSetIdProto(domain="", version=21)],
        graph=graph,
    )


if __name__ == "__main__":
    target = pathlib.Path(__file__).with_name("mlp.onnx")
    target.write_bytes(encode(build()))
    print(f"wrote {target}")
