"""The full check's last step: strict type and shape inference, as onnx's ``full_check`` runs it.

:func:`check_inference` runs :func:`wirecodec.shape_inference.infer_shapes` with
``check_type=True, strict_mode=True`` on a model the other rules accept (it reads no
weight): every value against the types its operator's schema allows, one type per type
variable, each node's shapes (a rank-3 input into a 2-D Conv, MatMul of [2,3] by [4,5]),
the bodies of If, Loop and Scan against their node (as many outputs as the node has, of
the types it declares), model-local functions through their bodies, and what the model
declares against what is inferred. The one place the API (``check(full=True)``),
``wirecodec check --full`` and ``onnx_compat.checker.check_model(full_check=True)`` get
it from.
"""

from __future__ import annotations

from schema_dsl.onnx import ModelProto
from wirecodec.checker.violation import Rule, Violation

__all__ = ["RULES", "SHAPE_INFERENCE", "check_inference"]

SHAPE_INFERENCE = Rule(
    "shape-inference",
    "onnx shape_inference: infer_shapes(check_type=True, strict_mode=True)",
    "(full=True) types and shapes infer without error: each value has a type its schema "
    "allows, control-flow bodies match their node, declared types agree with inferred ones",
)

RULES = (SHAPE_INFERENCE,)


def check_inference(model: ModelProto) -> list[Violation]:
    """The finding of strict inference on ``model``, at the field path of the node that
    failed first (``graph.node[2].attribute[0].g.node[1]`` inside a body); [] if none."""
    from wirecodec.shape_inference import InferenceError, infer_shapes  # only for a full check

    try:
        infer_shapes(model, check_type=True, strict_mode=True)
    except InferenceError as exc:
        where = exc.node.split(" ")[0] if exc.node else "graph"
        return [Violation(where, SHAPE_INFERENCE.id, exc.reason)]
    return []
