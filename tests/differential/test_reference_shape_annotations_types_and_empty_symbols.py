"""``check_shape_annotations=True`` checks what a value info declares, each part alone: an
element type declared without a shape is still checked (onnx.reference refuses a float64
where float32 is declared, and so does wirecodec); a dimension whose ``dim_param`` is the
empty string is an unknown dimension related to no other (IR.md: the empty string as a
dimension variable "was discarded in favor of using a Dimension with neither dim_value nor
dim_param set"), so two such dimensions may differ. There onnx.reference parts from the
spec (it binds ``''`` like a name and refuses a [2, 3] value); wirecodec follows the spec."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="onnx.reference is the oracle")

from onnx import TensorProto, helper  # noqa: E402


def _identity(shape: Any) -> Any:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _run_theirs(model: Any, x: Any) -> Any:
    from onnx.reference import ReferenceEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model, check_shape_annotations=True).run(None, {"x": x})[0]


def _run_ours(model: Any, x: Any) -> Any:
    from wirecodec.reference import ReferenceEvaluator

    return ReferenceEvaluator(model, check_shape_annotations=True).run(None, {"x": x})[0]


@pytest.mark.quick
def test_an_element_type_declared_without_a_shape_is_checked_as_onnx_reference() -> None:
    from onnx.reference.shape_annotation_checker import ShapeAnnotationError as Theirs

    from wirecodec.reference import ShapeAnnotationError

    model = _identity(None)
    x = np.zeros(3, np.float64)
    with pytest.raises(Theirs, match="declared element type float32"):
        _run_theirs(model, x)
    with pytest.raises(ShapeAnnotationError, match="the declared element type is float32"):
        _run_ours(model, x)
    assert _run_ours(model, np.zeros(3, np.float32)).dtype == np.float32


def test_dimensions_whose_dim_param_is_empty_are_unrelated_unknowns() -> None:
    model = _identity(["", ""])
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.WhichOneof("value") for d in dims] == ["dim_param", "dim_param"]
    assert _run_ours(model, np.zeros((2, 3), np.float32)).shape == (2, 3)


def test_onnx_reference_binds_an_empty_dim_param_as_a_name_unlike_the_spec() -> None:
    from onnx.reference.shape_annotation_checker import ShapeAnnotationError as Theirs

    with pytest.raises(Theirs, match="symbolic dimension ''"):
        _run_theirs(_identity(["", ""]), np.zeros((2, 3), np.float32))
