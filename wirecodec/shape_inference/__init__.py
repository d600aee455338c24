"""Shape inference without onnx: the types and shapes of every value a model computes.

:func:`infer_shapes` has the signature and meaning of ``onnx.shape_inference.infer_shapes``:
it returns a new model whose graph ``value_info`` holds the type of every intermediate
value it can infer, and whose outputs' types are completed. Symbolic dimensions are kept;
an axis no rule can size gets a fresh symbol (``unk__0``, ``unk__1``, ...) as onnx names
them. Rules are written per operator family (``ops/``), from the ONNX operator
specification; no weight is read (only small stored tensors a shape depends on).

>>> from wirecodec import helper
>>> from schema_dsl.onnx import TensorProto
>>> graph = helper.make_graph(
...     [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]), helper.make_node("Relu", ["t"], ["y"])],
...     "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
>>> model = infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
>>> [(d.dim_value, d.dim_param) for d in model.graph.value_info[0].type.tensor_type.shape.dim]
[(3, ''), (0, 'N')]
"""

from __future__ import annotations

import copy
import os

from schema_dsl.onnx import ModelProto
from wirecodec.shape_inference._engine import Options, infer_model
from wirecodec.shape_inference._types import InferenceError

__all__ = ["InferenceError", "infer_shapes", "infer_shapes_path"]


def infer_shapes(
    model: ModelProto | bytes,
    check_type: bool = False,
    strict_mode: bool = False,
    data_prop: bool = False,
) -> ModelProto:
    """A copy of ``model`` with the types of its values inferred (onnx's ``infer_shapes``).

    ``strict_mode`` raises :class:`InferenceError` when a node's inference fails (else the
    node's outputs stay as the model declares them); ``data_prop`` computes the values of
    small integer tensors (shapes being computed: Shape, Gather, Concat, Slice, ...) so that
    the shapes they give (Reshape, Expand, ...) are known. ``check_type`` also checks each
    input and inferred output against the types its operator's schema allows, and that the
    values one type variable ("T") names have one type; as in onnx, a type error raises
    :class:`InferenceError` whether or not ``strict_mode`` is set. An error names the node by
    its field path (``graph.node[0].attribute[1].g.node[2] (Add)`` inside a body).
    External data is never read: a model loaded without its external data works as well.
    """
    if isinstance(model, (str, os.PathLike)):
        raise TypeError(
            "infer_shapes only accepts ModelProto or bytes, "
            "For Model paths (str or os.PathLike), use infer_shapes_path()."
        )
    if isinstance(model, (bytes, bytearray, memoryview)):
        from wirecodec.protobuf.codec import decode

        model = decode(ModelProto, model)
    elif not isinstance(model, ModelProto):
        raise TypeError(f"infer_shapes only accepts ModelProto or bytes, incorrect type: {type(model)}")
    result = copy.copy(model)  # (a fresh ModelProto's CopyFrom, without clearing it first)
    infer_model(result, Options(check_type=check_type, strict_mode=strict_mode, data_prop=data_prop))
    return result


def infer_shapes_path(
    model_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str] = "",
    check_type: bool = False,
    strict_mode: bool = False,
    data_prop: bool = False,
) -> None:
    """Infer the model at ``model_path`` and write it to ``output_path`` (default: in place).

    The model's layout is kept (:mod:`wirecodec.files.writeback`): external data stays
    where it is, never read, the references written as they were, when ``output_path``
    is in the model's directory (in place, only the model file is rewritten); written to
    another directory, the external tensors are copied to ``<output>.data`` beside it.
    Inline tensors stay inline; a ``.onnxz`` container is written as one. Nothing is
    deleted.
    """
    from wirecodec.files.opener import open_model
    from wirecodec.files.writeback import write_back

    target = os.fspath(output_path or model_path)
    opened = open_model(os.fspath(model_path))
    inferred = infer_shapes(opened.model, check_type, strict_mode, data_prop)
    layout = "zip" if opened.layout == "zip" or target.endswith(".onnxz") else opened.layout
    write_back(inferred, target, layout, source=opened.data, move_inline=False)
