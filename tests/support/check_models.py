"""Valid models for the checker tests: real ones from onnx's backend corpus, and a few made with onnx.helper.

The corpus has no model-local functions, sparse tensors or external data, so those
bases are built here with onnx's own helpers; ``tests/unit/checker/test_check.py`` proves every base
valid by onnx's checker and by ours before any test breaks it.
"""

from __future__ import annotations

import pathlib
from typing import Any

from schema_dsl.onnx import ModelProto
from tests.support.reference import CorpusItem, require_onnx
from wirecodec import decode, save
from wirecodec.examples.build_mlp import build

# Corpus models used as bases, by the short name the seed table uses.
CORPUS_BASES = {
    "if": "node/test_if/model.onnx",  # IR 6: If with two subgraphs of Constant nodes
    "loop": "node/test_loop11/model.onnx",  # IR 6: Loop whose body reads outer-scope values
    "sequence": "simple/test_sequence_model1/model.onnx",  # IR 7: initializers that are also inputs
    "constant": "node/test_constant/model.onnx",  # IR 13: a float_data tensor in an attribute
    "label_encoder": "node/test_ai_onnx_ml_label_encoder_tensor_mapping/model.onnx",  # ai.onnx.ml, strings
}


def corpus_bases(corpus: list[CorpusItem]) -> dict[str, bytes]:
    by_name = {item.name: item.data for item in corpus}
    return {short: by_name[name] for short, name in CORPUS_BASES.items()}


def function_model() -> bytes:
    """A model calling a local function ``custom::Scale`` whose ``alpha`` has a default."""
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    alpha = helper.make_attribute("alpha", 2.0)
    scale = helper.make_node("Constant", [], ["factor"])
    scale.attribute.append(helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT))
    scale.attribute[0].ref_attr_name = "alpha"
    function = helper.make_function(
        "custom",
        "Scale",
        ["x"],
        ["y"],
        [scale, helper.make_node("Mul", ["x", "factor"], ["y"])],
        [helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)],
        attributes=["beta"],
        attribute_protos=[alpha],
    )
    call = helper.make_node("Scale", ["X"], ["Y"], domain="custom", alpha=3.0)
    graph = helper.make_graph(
        [call],
        "uses_a_function",
        [helper.make_tensor_value_info("X", tp.FLOAT, [2])],
        [helper.make_tensor_value_info("Y", tp.FLOAT, [2])],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)],
        functions=[function],
        ir_version=10,
    )
    data: bytes = model.SerializeToString()
    return data


def sparse_model() -> bytes:
    """A sparse initializer (linear indices) and a Constant with a sparse value (coordinates)."""
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    values = helper.make_tensor("S", tp.FLOAT, [3], [1.0, 2.0, 3.0])
    indices = helper.make_tensor("S_indices", tp.INT64, [3], [1, 4, 6])
    linear = helper.make_sparse_tensor(values, indices, [2, 4])
    coordinates = helper.make_sparse_tensor(
        helper.make_tensor("C", tp.FLOAT, [3], [4.0, 5.0, 6.0]),
        helper.make_tensor("C_indices", tp.INT64, [3, 2], [0, 1, 1, 0, 1, 3]),
        [2, 4],
    )
    constant = helper.make_node("Constant", [], ["C"], sparse_value=coordinates)
    mul = helper.make_node("Mul", ["X", "C"], ["Y"])
    graph = helper.make_graph(
        [constant, mul],
        "sparse",
        [helper.make_tensor_value_info("X", tp.FLOAT, [2, 4])],
        [
            helper.make_tensor_value_info("Y", tp.FLOAT, [2, 4]),
            helper.make_sparse_tensor_value_info("S", tp.FLOAT, [2, 4]),
        ],
        sparse_initializer=[linear],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    data: bytes = model.SerializeToString()
    return data


def external_model(folder: pathlib.Path) -> pathlib.Path:
    """The bundled MLP saved with every initializer in ``model.onnx.data``; returns the model's path."""
    path = folder / "model.onnx"
    save(build(), path, external_data=True, size_threshold=0)
    return path


def ours(data: bytes) -> ModelProto:
    return decode(ModelProto, data)


def theirs(model: ModelProto) -> Any:
    """Our model as an onnx ModelProto (through the bytes, as any consumer gets it)."""
    from wirecodec import encode

    onnx = require_onnx()
    return onnx.ModelProto.FromString(encode(model))
