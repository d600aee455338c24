"""The last cases of onnx's ``shape_inference_test.py`` that failed through onnx_compat, and
their neighbours, side by side with onnx: Attention-25's refusals, MeanVarianceNormalization's
shape (inferred by onnx through its function body), a sparse ``Constant``, a function call
with fewer outputs than the function, and a recursive model-local function. Each model is
inferred by both; the same bytes, or both refuse."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx
from wirecodec.errors import CheckError
from wirecodec.protobuf.codec import decode, encode
from wirecodec.shape_inference import InferenceError, infer_shapes

onnx = require_onnx()
helper = importlib.import_module("onnx.helper")
parse_model = importlib.import_module("onnx.parser").parse_model


def _ours(model: Any, **options: Any) -> ModelProto:
    return infer_shapes(decode(ModelProto, model.SerializeToString()), **options)


def _same(model: Any, **options: Any) -> None:
    """Both give the same bytes, or both raise an inference error."""
    try:
        theirs: bytes | None = onnx.shape_inference.infer_shapes(model, **options).SerializeToString()
    except onnx.shape_inference.InferenceError:
        theirs = None
    try:
        ours: bytes | None = encode(_ours(model, **options))
    except InferenceError:
        ours = None
    assert ours == theirs


_QKV = [("Q", 1, (2, 4, 3, 8)), ("K", 1, (2, 2, 5, 8)), ("V", 1, (2, 2, 5, 6))]
_QKV3 = [("Q", 1, (2, 3, 32)), ("K", 1, (2, 5, 16)), ("V", 1, (2, 5, 12))]
_PAST = [("past_key", 1, (2, 2, 4, 8)), ("past_value", 1, (2, 2, 4, 6))]
_NONPAD = [("nonpad", 7, (2,))]
_ATTENTION = [
    (_QKV, ["Q", "K", "V"], ["Y"], {"left_window_size": -2}),
    (_QKV, ["Q", "K", "V"], ["Y"], {"right_window_size": -2}),
    (_QKV, ["Q", "K", "V"], ["Y"], {"left_window_size": -1, "right_window_size": 0}),
    (_QKV + _PAST[:1], ["Q", "K", "V", "", "past_key"], ["Y"], {}),
    (_QKV + _PAST[1:], ["Q", "K", "V", "", "", "past_value"], ["Y"], {}),
    (_QKV + _PAST, ["Q", "K", "V", "", "past_key", "past_value"], ["Y"], {}),
    (_QKV, ["Q", "K", "V"], ["Y", "present_key"], {}),
    (_QKV, ["Q", "K", "V"], ["Y", "", "present_value"], {}),
    (_QKV, ["Q", "K", "V"], ["Y", "present_key", "present_value"], {}),
    (_QKV + _PAST + _NONPAD, ["Q", "K", "V", "", "past_key", "past_value", "nonpad"], ["Y"], {}),
    (_QKV + _NONPAD, ["Q", "K", "V", "", "", "", "nonpad"], ["Y", "present_key", "present_value"], {}),
    (_QKV + _NONPAD, ["Q", "K", "V", "", "", "", "nonpad"], ["Y"], {}),
    (_QKV, ["Q", "K", "V"], ["Y"], {"q_num_heads": 4, "kv_num_heads": 2}),
    (_QKV, ["Q", "K", "V"], ["Y"], {"q_num_heads": 4}),
    (_QKV3, ["Q", "K", "V"], ["Y"], {"q_num_heads": 4, "kv_num_heads": 2}),
]


@pytest.mark.quick
@pytest.mark.parametrize("opset", [23, 25])
@pytest.mark.parametrize(("inputs", "ins", "outs", "attrs"), _ATTENTION)
def test_attention_refusals(
    opset: int, inputs: Any, ins: list[str], outs: list[str], attrs: dict[str, Any]
) -> None:
    if opset < 25 and len(ins) > 6:
        pytest.skip("Attention-23 takes at most 6 inputs (both refuse for that)")
    infos = [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs]
    node = helper.make_node("Attention", ins, outs, **attrs)
    model = helper.make_model(
        helper.make_graph([node], "g", infos, []), opset_imports=[helper.make_opsetid("", opset)]
    )
    _same(model, strict_mode=True)
    _same(model, strict_mode=True, check_type=True)


_CACHE_INPUTS = [("past_key", 1, (2, 2, 4, 8)), ("past_value", 1, (2, 2, 4, 6)), ("unknown_value", 1, None)]


@pytest.mark.parametrize("opset", [23, 25])
@pytest.mark.parametrize(
    "past", [["past_key", "past_value"], ["past_key", "unknown_value"], ["past_key"], ["", "past_value"], []]
)
@pytest.mark.parametrize(
    "outs",
    [
        ["Y", "present_key", "present_value"],
        ["Y", "present_key", "present_value", "qk"],
        ["Y", "present_key", "", "qk"],
        ["Y", "", "present_value", "qk"],
        ["Y", "", "", "qk"],
    ],
)
def test_attention_cache_outputs(opset: int, past: list[str], outs: list[str]) -> None:
    """The present key and value only from both past tensors; the QK product's length."""
    infos = [helper.make_tensor_value_info(n, t, s) for n, t, s in _QKV + _CACHE_INPUTS]
    node = helper.make_node("Attention", ["Q", "K", "V", "", *past] if past else ["Q", "K", "V"], outs)
    model = helper.make_model(
        helper.make_graph([node], "g", infos, []), opset_imports=[helper.make_opsetid("", opset)]
    )
    _same(model, strict_mode=True)


@pytest.mark.quick
@pytest.mark.parametrize("opset", [9, 13, 18, 24])
@pytest.mark.parametrize("shape", [(3, 3, 3, 1), ("N", 3, "H", 1), (2, 3), (), None])
@pytest.mark.parametrize("axes", [None, [0, 2, 3], [1], [-1], [-2], [1, 1], [4], [-5]])
def test_mean_variance_normalization(opset: int, shape: Any, axes: list[int] | None) -> None:
    attrs = {} if axes is None else {"axes": axes}
    node = helper.make_node("MeanVarianceNormalization", ["X"], ["Y"], **attrs)
    x = helper.make_tensor_value_info("X", 1, shape)
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("Y", 1, None)])
    _same(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]))


@pytest.mark.quick
@pytest.mark.parametrize("check_type", [False, True])
def test_sparse_constant_is_a_dense_tensor(check_type: bool) -> None:
    values = helper.make_tensor("v", 7, [3], [9, 27, 81])
    indices = helper.make_tensor("i", 7, [3], [13, 17, 19])
    sparse = helper.make_sparse_tensor(values, indices, [100])
    relu = helper.make_node("Identity", ["y"], ["z"])
    node = helper.make_node("Constant", [], ["y"], sparse_value=sparse)
    model = helper.make_model(
        helper.make_graph([node, relu], "g", [], []), opset_imports=[helper.make_opsetid("", 21)]
    )
    _same(model, check_type=check_type, strict_mode=True)
    assert _ours(model).graph.value_info[0].type.HasField("tensor_type")


_CALL_FEWER = """
    <ir_version: 8, opset_import: [ "" : 18, "local" : 1 ]>
    agraph (float[1] X) => (float[1] Y) { Y = local.F (X) }
    <opset_import: [ "" : 18 ], domain: "local">
    F (x) => (y1, y2) { y1 = Identity(x) y2 = Identity(x) }
"""
_CALL_SKIPS = """
    <ir_version: 8, opset_import: [ "" : 18, "local" : 1 ]>
    agraph (float[1] X) => (float[1] Y) { Y, Z = local.F (X) }
    <opset_import: [ "" : 18 ], domain: "local">
    F (x) => (y1, y2) { y1 = Identity(x) y2 = Identity(x) }
"""


@pytest.mark.quick
@pytest.mark.parametrize("strict", [False, True])
def test_a_call_with_fewer_outputs_than_its_function(strict: bool) -> None:
    """onnx ends the inference (strict or not): output 1 is out of bounds."""
    model = parse_model(_CALL_FEWER)
    with pytest.raises(onnx.shape_inference.InferenceError, match="out of bounds"):
        onnx.shape_inference.infer_shapes(model, strict_mode=strict)
    with pytest.raises(
        InferenceError, match=r"Output 1 is out of bounds.*function 'F' has 2 outputs, the call 1"
    ):
        _ours(model, strict_mode=strict)
    _same(parse_model(_CALL_SKIPS), strict_mode=strict)


_RECURSIVE = [
    """<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
    agraph (float[N] X) => (float[N] Y) { Y = local.foo (X) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    foo (x) => (y) { y = local.foo (x) }""",
    # through another function, and never called by the graph
    """<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
    agraph (float[N] X) => (float[N] Y) { Y = Identity (X) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    foo (x) => (y) { y = local.bar (x) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    bar (x) => (y) { y = local.foo (x) }""",
    # from inside a body
    """<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
    agraph (float[N] X, bool c) => (float[N] Y) { Y = local.foo (X, c) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    foo (x, c) => (y) {
        y = If (c) <then_branch = t () => (float[N] z) { z = local.foo (x, c) },
                    else_branch = e () => (float[N] z) { z = Identity (x) }>
    }""",
]


@pytest.mark.quick
@pytest.mark.parametrize("text", _RECURSIVE)
def test_a_recursive_function_is_refused_as_onnx_refuses_it(text: str) -> None:
    model = parse_model(text)
    with pytest.raises(onnx.checker.ValidationError, match="Cycle detected"):
        onnx.shape_inference.infer_shapes(model)
    with pytest.raises(
        CheckError, match="Cycle detected in model-local function references: local::foo"
    ) as refused:
        _ours(model)
    assert refused.value.violations[0].rule == "function-recursion"


@pytest.mark.quick
def test_functions_calling_each_other_without_a_cycle_are_inferred() -> None:
    model = parse_model(
        """<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
        agraph (float[N] X) => (Y) { Y = local.foo (X) }
        <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
        foo (x) => (y) { t = local.bar (x) y = local.bar (t) }
        <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
        bar (x) => (y) { y = Relu (x) }"""
    )
    assert_strict_inference_as_onnx(model)


_CAST_BODY = """
    <opset_import: [ "" : 17 ], domain: "local">
    cast<target>(x, flag) => (y) {
        y = If (flag) <
            then_branch = g1 () => (z_then) { z_then = Cast<to:int = @target> (x) },
            else_branch = g2 () => (z_else) { z_else = Cast<to:int = @target> (x) }
        >
    }
"""


@pytest.mark.quick
@pytest.mark.parametrize("ir", [7, 8])
@pytest.mark.parametrize(
    "calls",
    [
        "y = local.cast<target=6>(x, flag)",
        "y = local.cast<target=6>(x, flag)  z = local.cast<target=7>(x, flag)",
        "y = local.cast<target=6>(x, flag)  z = local.cast<target=6>(x, flag)",
    ],
)
def test_function_attributes_reach_its_bodies_each_call_its_own(ir: int, calls: str) -> None:
    """A reference to the call's attribute inside an If branch of a function's body is bound
    (onnx's model_inference tests), and each call infers the body afresh: a second call with
    another attribute gets its own type, not the first call's."""
    outputs = "y, z" if "z =" in calls else "y"
    model = parse_model(
        f"""<ir_version: {ir}, opset_import: [ "" : 17, "local" : 1]>
        agraph (float[N] x, bool flag) => ({outputs}) {{ {calls} }}
        {_CAST_BODY}"""
    )
    _same(model)
    _same(model, strict_mode=True)
    inferred = _ours(model)
    assert inferred.graph.output[0].type.tensor_type.elem_type == 6
    if "target=7" in calls:
        assert inferred.graph.output[1].type.tensor_type.elem_type == 7
    assert not model.functions[0].node[0].attribute[0].g.output[0].HasField("type")


@pytest.mark.quick
@pytest.mark.parametrize("ir", [3, 7, 8])
def test_functions_below_ir_8_pass_onnx_compat_check_model_as_onnx(ir: int) -> None:
    """onnx's check_model accepts model-local functions at any IR version (its data-propagation
    tests check IR 7 models holding some); onnx_compat's does too, wirecodec.check still says
    IR 8 introduced them."""
    from wirecodec import check
    from wirecodec.onnx_compat import checker

    model = parse_model(
        f"""<ir_version: {ir}, opset_import: [ "" : 18, "local" : 1 ]>
        agraph (float[4, 1, 16] x, float[1, 8, 16] y) => (float[4, 8, 16] z) {{
            xshape = local.GetShape (x)
            z = Expand (y, xshape)
        }}
        <domain: "local", opset_import: [ "" : 18 ]>
        GetShape (x) => (shapeval) {{ shapeval = Shape (x) }}"""
    )
    ours = decode(ModelProto, model.SerializeToString())
    for full in (False, True):
        onnx.checker.check_model(model, full_check=full)
        checker.check_model(ours, full_check=full)
    if ir < 8:
        with pytest.raises(CheckError, match="model-local functions needs IR version 8"):
            check(ours)
    _same(model, data_prop=True)
