"""Bodies held in a GRAPHS attribute (``attribute.graphs``), against onnx (issue 47, item 5).

The one scope walk gives every tool these bodies. What each tool does with them is onnx's:
its checker checks a GRAPHS body's names (an undefined input is refused, inside the body),
but its type and shape inference — ``infer_shapes(check_type=True, strict_mode=True)`` and
``check_model(full_check=True)`` — never enter one: a body's types are inferred only when
its operator's inference asks for it (If, Loop, Scan), and no operator with a GRAPHS
attribute has one; onnx's table of symbols in use skips them too. wirecodec matches onnx on
each, so a type error inside a GRAPHS body is found by neither (a row below pins the
contrast: the same error inside an If branch is refused by both).
"""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="these rows compare with the onnx package")
from onnx import TensorProto, helper  # noqa: E402

from schema_dsl.onnx import ModelProto  # noqa: E402
from wirecodec.checker import violations  # noqa: E402
from wirecodec.protobuf.fieldpath import resolve  # noqa: E402
from wirecodec.shape_inference import InferenceError, infer_shapes  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _body(reads: str = "b", dim: str | int = 2) -> Any:
    """A body adding a float ``a`` and an int64 ``b``: a type error onnx's Add schema refuses."""
    return helper.make_graph(
        [helper.make_node("Add", ["a", reads], ["y"])],
        "body",
        [helper.make_tensor_value_info("a", F, [dim]), helper.make_tensor_value_info("b", I64, [dim])],
        [helper.make_tensor_value_info("y", F, [dim])],
    )


def _model(node: Any, extra: list[Any] | None = None, outputs: list[Any] | None = None) -> Any:
    graph = helper.make_graph(
        [node, *(extra or [])],
        "g",
        [helper.make_tensor_value_info("x", F, [2]), helper.make_tensor_value_info("c", B, [])],
        outputs or [helper.make_tensor_value_info("z", F, [2])],
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def _held_in_graphs(*bodies: Any) -> Any:
    node = helper.make_node("Foo", ["x"], ["z"], domain="custom")
    node.attribute.append(helper.make_attribute("bodies", list(bodies)))
    return node


def _onnx_verdict(model: Any) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError:
        return False
    except onnx.shape_inference.InferenceError:
        return False
    return True


def _onnx_infers(model: Any) -> bool:
    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except onnx.shape_inference.InferenceError:
        return False
    return True


def _ours(model: Any) -> ModelProto:
    return ModelProto.FromString(model.SerializeToString())


def _we_infer(model: Any) -> bool:
    try:
        infer_shapes(_ours(model), check_type=True, strict_mode=True)
    except InferenceError:
        return False
    return True


@pytest.mark.quick
def test_a_type_error_in_a_graphs_body_is_left_alone_as_onnx_leaves_it() -> None:
    model = _model(_held_in_graphs(_body(), _body()))
    assert _onnx_verdict(model) and _onnx_infers(model)  # onnx: not entered
    assert violations(_ours(model), full=True) == []
    assert _we_infer(model)


def test_the_same_type_error_in_an_if_branch_is_refused_by_both() -> None:
    then = helper.make_graph(
        [helper.make_node("Add", ["x", "k"], ["y"])],
        "then",
        [],
        [helper.make_tensor_value_info("y", F, [2])],
        initializer=[helper.make_tensor("k", I64, [2], [1, 2])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["w"])], "else", [], [helper.make_tensor_value_info("w", F, [2])]
    )
    model = _model(helper.make_node("If", ["c"], ["z"], then_branch=then, else_branch=other))
    assert not _onnx_verdict(model) and not _onnx_infers(model)
    found = violations(_ours(model), full=True)
    assert found and not _we_infer(model)
    then_path = "graph.node[0].attribute[1].g"
    assert any(v.path.startswith(then_path) for v in found), found
    for v in found:  # the reported path reaches the node of the body
        assert resolve(_ours(model), v.path) is not None


def test_an_undefined_name_in_a_graphs_body_is_refused_by_both_with_its_path() -> None:
    model = _model(_held_in_graphs(_body(), _body(reads="nowhere")))
    assert not _onnx_verdict(model)
    ours = _ours(model)
    found = violations(ours, full=True)
    assert [(v.path, v.rule) for v in found] == [
        ("graph.node[0].attribute[0].graphs[1].node[0].input[1]", "undefined-input")
    ]
    assert resolve(ours, found[0].path) == "nowhere"


@pytest.mark.parametrize("held", ["graphs", "g"])
def test_fresh_symbols_are_named_as_onnx_names_them(held: str) -> None:
    """onnx's table of symbols in use reads ``g`` bodies and skips GRAPHS bodies: a body
    declaring ``unk__0`` moves the next fresh symbol to ``unk__1`` only when held in ``g``."""
    node = helper.make_node("Foo", ["x"], ["z"], domain="custom")
    body = _body(dim="unk__0")
    node.attribute.append(helper.make_attribute("bodies", [body] if held == "graphs" else body))
    model = _model(
        node, [helper.make_node("NonZero", ["x"], ["nz"])], [helper.make_tensor_value_info("nz", I64, None)]
    )
    theirs = onnx.shape_inference.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    mine = infer_shapes(_ours(model)).graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_param for d in mine] == [d.dim_param for d in theirs]
    assert theirs[1].dim_param == ("unk__0" if held == "graphs" else "unk__1")
