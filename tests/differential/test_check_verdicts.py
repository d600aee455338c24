"""Check-verdict matrix (issue 47, item 4): wirecodec's three full checks against onnx's full_check.

Each row is a model built with ``onnx.helper``; it goes through ``wirecodec.check(path,
full=True)``, ``wirecodec check --full`` and ``onnx_compat.checker.check_model(path,
full_check=True)``, and through ``onnx.checker.check_model(m, full_check=True)``. The four
verdicts (pass / refuse) must agree. A refused row also names what onnx must say about it
(``ONNX_SAYS``), so a row cannot pass by breaking something other than what its name says
(a graph output without a shape, say). The integrity rows (an ``.onnxz`` with a flipped
byte, a truncated safetensors file) are files onnx cannot open: there the three wirecodec
entry points must agree with each other, and pass the same model unbroken.
"""

from __future__ import annotations

import contextlib
import io
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="the verdict matrix compares against the onnx package")
from onnx import TensorProto, helper  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _vi(name: str, elem: int, shape: list[Any] | None) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    *,
    opset: int = 18,
    inits: list[Any] | None = None,
    **kw: Any,
) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kw)


def _unary(op: str, x: Any, y: Any, **attrs: Any) -> Any:
    return _model([helper.make_node(op, ["x"], ["y"], **attrs)], [x], [y])


def _binary(op: str, a: Any, b: Any, c: Any, **attrs: Any) -> Any:
    return _model([helper.make_node(op, ["a", "b"], ["c"], **attrs)], [a, b], [c])


# -- valid models (every entry point must pass them) ----------------------------------------------


def valid_add() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("b", F, [2]), _vi("c", F, [2]))


def valid_reshape_initializer() -> Any:
    shape = helper.make_tensor("s", I64, [2], [3, 2])
    node = helper.make_node("Reshape", ["x", "s"], ["y"])
    return _model([node], [_vi("x", F, [2, 3])], [_vi("y", F, [3, 2])], inits=[shape])


def _branch(name: str, outs: list[Any]) -> Any:
    """A branch computing each of ``outs`` from the outer ``a`` (a Cast where the type differs)."""
    nodes = [
        helper.make_node("Identity", ["a"], [o.name])
        if o.type.tensor_type.elem_type == F
        else helper.make_node("Cast", ["a"], [o.name], to=o.type.tensor_type.elem_type)
        for o in outs
    ]
    return helper.make_graph(nodes, name, [], outs)


def _if(then: Any, other: Any, outputs: list[Any], cond: int = B) -> Any:
    node = helper.make_node("If", ["cond"], [o.name for o in outputs], then_branch=then, else_branch=other)
    return _model([node], [_vi("cond", cond, []), _vi("a", F, [2])], outputs)


def valid_if() -> Any:
    return _if(_branch("t", [_vi("t0", F, [2])]), _branch("e", [_vi("e0", F, [2])]), [_vi("y", F, [2])])


def valid_if_reads_outer() -> Any:
    then = helper.make_graph([helper.make_node("Relu", ["a"], ["t0"])], "t", [], [_vi("t0", F, [2])])
    other = helper.make_graph([helper.make_node("Neg", ["a"], ["e0"])], "e", [], [_vi("e0", F, [2])])
    return _if(then, other, [_vi("y", F, [2])])


def _scan_body(outputs: int = 2, state_elem: int = F) -> Any:
    """State ``s`` and one scan element ``x``: the new state ``s2`` and the scan output ``y``."""
    nodes = [helper.make_node("Add", ["s", "x"], ["s2"]), helper.make_node("Identity", ["s2"], ["y"])]
    outs = [_vi("s2", state_elem, [2]), _vi("y", F, [2]), _vi("z", F, [2])][:outputs]
    if outputs > 2:
        nodes.append(helper.make_node("Identity", ["s2"], ["z"]))
    return helper.make_graph(nodes, "body", [_vi("s", F, [2]), _vi("x", F, [2])], outs)


def _scan(body: Any, num_scan_inputs: int = 1) -> Any:
    node = helper.make_node("Scan", ["s0", "xs"], ["sN", "ys"], num_scan_inputs=num_scan_inputs, body=body)
    return _model(
        [node], [_vi("s0", F, [2]), _vi("xs", F, [3, 2])], [_vi("sN", F, [2]), _vi("ys", F, [3, 2])]
    )


def valid_scan() -> Any:
    return _scan(_scan_body())


def _loop_body(*, extra: bool = False, drop: bool = False, cond_elem: int = B) -> Any:
    nodes = [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Add", ["v", "v"], ["v2"]),
        helper.make_node("Identity", ["v2"], ["scan_o"]),
    ]
    outs = [_vi("cond_out", cond_elem, []), _vi("v2", F, [2]), _vi("scan_o", F, [2])]
    if drop:
        outs = outs[:2]
    if extra:
        outs.append(_vi("v", F, [2]))
    inputs = [_vi("i", I64, []), _vi("cond_in", cond_elem, []), _vi("v", F, [2])]
    return helper.make_graph(nodes, "body", inputs, outs)


def _loop(body: Any) -> Any:
    node = helper.make_node("Loop", ["M", "c", "v0"], ["vN", "scans"], body=body)
    return _model(
        [node],
        [_vi("M", I64, []), _vi("c", B, []), _vi("v0", F, [2])],
        [_vi("vN", F, [2]), _vi("scans", F, ["n", 2])],
    )


def valid_loop() -> Any:
    return _loop(_loop_body())


def _with_function(body: list[Any]) -> Any:
    function = helper.make_function("local", "Fn", ["x"], ["y"], body, [helper.make_opsetid("", 18)])
    m = _unary("Fn", _vi("x", F, [2]), _vi("y", F, [2]), domain="local")
    m.opset_import.append(helper.make_opsetid("local", 1))
    m.functions.append(function)
    return m


def valid_function() -> Any:
    return _with_function([helper.make_node("Relu", ["x"], ["y"])])


def valid_gemm_transposed() -> Any:
    return _binary("Gemm", _vi("a", F, [3, 2]), _vi("b", F, [5, 3]), _vi("c", F, [2, 5]), transA=1, transB=1)


def valid_softmax_default_axis_1d() -> Any:
    return _unary("Softmax", _vi("x", F, [4]), _vi("y", F, [4]))  # axis -1 by default from opset 13


def valid_zip_map() -> Any:
    # ZipMap's schema allows ``seq(map(int64, float))``: a map's value is a tensor, as onnx reads it.
    seq_of_maps = helper.make_sequence_type_proto(
        helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(F, ()))
    )
    node = helper.make_node("ZipMap", ["x"], ["y"], classlabels_int64s=[1, 2, 3], domain="ai.onnx.ml")
    m = _model([node], [_vi("x", F, ["N", 3])], [helper.make_value_info("y", seq_of_maps)])
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 1))
    return m


def valid_sequence() -> Any:
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
        helper.make_node("SequenceAt", ["s", "i"], ["c"]),
    ]
    inputs = [_vi("a", F, [2]), _vi("b", F, [2]), _vi("i", I64, [])]
    return _model(nodes, inputs, [_vi("c", F, [2])])


def valid_opset_newer_than_onnx() -> Any:
    # onnx's checker takes an opset above the newest it knows (it checks nothing there).
    return _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", F, [2])], [_vi("y", F, [2])], opset=99)


# -- type inference --------------------------------------------------------------------------------


def add_float_int64() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("b", I64, [2]), _vi("c", F, [2]))


def conv_rank3_input_4d_weight() -> Any:
    node = helper.make_node("Conv", ["x", "w"], ["y"])
    inputs = [_vi("x", F, [1, 3, 8]), _vi("w", F, [4, 3, 3, 3])]
    return _model([node], inputs, [_vi("y", F, ["n", "c", "h", "w"])])


def reshape_float_shape() -> Any:
    return _binary("Reshape", _vi("a", F, [2, 3]), _vi("b", F, [1]), _vi("c", F, ["n"]))


def matmul_mismatch() -> Any:
    return _binary("MatMul", _vi("a", F, [2, 3]), _vi("b", F, [4, 5]), _vi("c", F, ["n", "m"]))


def gemm_mismatch() -> Any:
    return _binary("Gemm", _vi("a", F, [2, 3]), _vi("b", F, [4, 5]), _vi("c", F, ["n", "m"]))


def broadcast_mismatch() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("b", F, [3]), _vi("c", F, ["n"]))


def concat_rank_mismatch() -> Any:
    return _binary("Concat", _vi("a", F, [2, 2]), _vi("b", F, [2]), _vi("c", F, ["n", "m"]), axis=0)


def softmax_axis_out_of_range() -> Any:
    return _unary("Softmax", _vi("x", F, [2, 2]), _vi("y", F, [2, 2]), axis=5)


def transpose_perm_too_long() -> Any:
    return _unary("Transpose", _vi("x", F, [2, 2]), _vi("y", F, ["n", "m"]), perm=[0, 1, 2])


def sqrt_of_int64() -> Any:
    return _unary("Sqrt", _vi("x", I64, [2]), _vi("y", I64, [2]))


def sparse_input_to_relu() -> Any:
    return _unary("Relu", helper.make_sparse_tensor_value_info("x", F, [4]), _vi("y", F, [4]))


def output_elem_type_differs() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("b", F, [2]), _vi("c", I64, [2]))


def output_shape_differs() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("b", F, [2]), _vi("c", F, [3]))


def initializer_type_differs_from_input() -> Any:
    init = helper.make_tensor("b", I64, [2], [1, 2])
    node = helper.make_node("Add", ["a", "b"], ["c"])
    return _model([node], [_vi("a", F, [2]), _vi("b", F, [2])], [_vi("c", F, [2])], inits=[init])


# -- control-flow bodies ---------------------------------------------------------------------------


def scan_body_output_removed() -> Any:
    return _scan(_scan_body(outputs=1))


def scan_body_output_added() -> Any:
    return _scan(_scan_body(outputs=3))


def scan_body_state_type_differs() -> Any:
    return _scan(_scan_body(state_elem=I64))


def scan_num_scan_inputs_wrong() -> Any:
    return _scan(_scan_body(), num_scan_inputs=2)


def loop_body_extra_output() -> Any:
    return _loop(_loop_body(extra=True))


def loop_body_missing_output() -> Any:
    return _loop(_loop_body(drop=True))


def loop_body_input_removed() -> Any:
    body = _loop_body()
    del body.input[2]
    del body.node[1:]
    body.node.append(helper.make_node("Identity", ["v0"], ["v2"]))
    body.node.append(helper.make_node("Identity", ["v0"], ["scan_o"]))
    return _loop(body)


def if_branch_output_counts_differ() -> Any:
    then = _branch("t", [_vi("t0", F, [2])])
    return _if(then, _branch("e", [_vi("e0", F, [2]), _vi("e1", F, [2])]), [_vi("y", F, [2])])


def if_branch_types_differ() -> Any:
    return _if(_branch("t", [_vi("t0", F, [2])]), _branch("e", [_vi("e0", I64, [2])]), [_vi("y", F, [2])])


def if_more_outputs_than_branches() -> Any:
    outputs = [_vi("y", F, [2]), _vi("z", F, [2])]
    return _if(_branch("t", [_vi("t0", F, [2])]), _branch("e", [_vi("e0", F, [2])]), outputs)


def if_output_type_differs_from_graph() -> Any:
    return _if(_branch("t", [_vi("t0", F, [2])]), _branch("e", [_vi("e0", F, [2])]), [_vi("y", I64, [2])])


def if_cond_float() -> Any:
    return _if(_branch("t", [_vi("t0", F, [2])]), _branch("e", [_vi("e0", F, [2])]), [_vi("y", F, [2])], F)


def if_branch_type_error_inside() -> Any:
    then = helper.make_graph([helper.make_node("Add", ["a", "k"], ["t0"])], "t", [], [_vi("t0", F, [2])])
    node = helper.make_node(
        "If", ["cond"], ["y"], then_branch=then, else_branch=_branch("e", [_vi("e0", F, [2])])
    )
    inputs = [_vi("cond", B, []), _vi("a", F, [2]), _vi("k", I64, [2])]
    return _model([node], inputs, [_vi("y", F, [2])])


def subgraph_reads_undefined_outer_name() -> Any:
    then = helper.make_graph(
        [helper.make_node("Identity", ["nowhere"], ["t0"])], "t", [], [_vi("t0", F, [2])]
    )
    return _if(then, _branch("e", [_vi("e0", F, [2])]), [_vi("y", F, [2])])


# -- functions ----------------------------------------------------------------------------------


def function_body_undefined_name() -> Any:
    return _with_function([helper.make_node("Relu", ["nowhere"], ["y"])])


def function_body_type_error() -> Any:
    constant = helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", I64, [1], [1]))
    return _with_function([constant, helper.make_node("Add", ["x", "k"], ["y"])])


# -- names, graph structure ------------------------------------------------------------------------


def duplicate_node_outputs() -> Any:
    nodes = [helper.make_node("Relu", ["a"], ["c"]), helper.make_node("Neg", ["a"], ["c"])]
    return _model(nodes, [_vi("a", F, [2])], [_vi("c", F, [2])])


def duplicate_graph_inputs() -> Any:
    return _binary("Add", _vi("a", F, [2]), _vi("a", F, [2]), _vi("c", F, [2]))


def undefined_input() -> Any:
    return _model([helper.make_node("Add", ["a", "zz"], ["c"])], [_vi("a", F, [2])], [_vi("c", F, [2])])


def not_topologically_sorted() -> Any:
    nodes = [helper.make_node("Relu", ["b"], ["c"]), helper.make_node("Relu", ["a"], ["b"])]
    return _model(nodes, [_vi("a", F, [2])], [_vi("c", F, [2])])


def graph_output_not_produced() -> Any:
    return _model([helper.make_node("Relu", ["a"], ["c"])], [_vi("a", F, [2])], [_vi("zz", F, [2])])


def graph_input_without_type() -> Any:
    m = valid_add()
    m.graph.input[1].ClearField("type")
    return m


def graph_output_without_shape() -> Any:
    return _unary("Relu", _vi("x", F, [2]), _vi("y", F, None))


def value_info_duplicate() -> Any:
    m = valid_add()
    m.graph.value_info.extend([_vi("c", F, [2]), _vi("c", F, [2])])
    return m


def value_info_elem_type_0() -> Any:
    m = valid_add()
    m.graph.value_info.append(helper.make_value_info("c", helper.make_tensor_type_proto(0, None)))
    return m


# -- model header, operators, attributes -------------------------------------------------------------


def opset_missing() -> Any:
    m = valid_add()
    del m.opset_import[:]
    return m


def ir_version_too_new() -> Any:
    m = valid_add()
    m.ir_version = 99
    return m


def ir_version_missing() -> Any:
    m = valid_add()
    m.ir_version = 0
    return m


def unknown_operator() -> Any:
    return _unary("NoSuchOp", _vi("x", F, [2]), _vi("y", F, [2]))


def operator_newer_than_opset() -> Any:
    return _unary("Gelu", _vi("x", F, [2]), _vi("y", F, [2]))  # Gelu came in opset 20


def empty_op_type() -> Any:
    return _unary("", _vi("x", F, [2]), _vi("y", F, [2]))


def bad_attribute_type() -> Any:
    return _unary("Softmax", _vi("x", F, [2, 2]), _vi("y", F, [2, 2]), axis=1.5)


def attribute_ints_for_int() -> Any:
    return _unary("Softmax", _vi("x", F, [2, 2]), _vi("y", F, [2, 2]), axis=[1, 2])


def unknown_attribute() -> Any:
    return _unary("Relu", _vi("x", F, [2]), _vi("y", F, [2]), alpha=1.0)


def missing_required_attribute() -> Any:
    return _unary("Cast", _vi("x", F, [2]), _vi("y", F, [2]))


ONNX_SAYS: dict[str, str] = {
    "add_float_int64": "inconsistent type",
    "conv_rank3_input_4d_weight": "spatial dimensions",
    "reshape_float_shape": "has unsupported type: tensor(float)",
    "matmul_mismatch": "Incompatible dimensions for matrix multiplication",
    "gemm_mismatch": "Dimension mismatch",
    "broadcast_mismatch": "Incompatible dimensions",
    "concat_rank_mismatch": "same rank",
    "softmax_axis_out_of_range": "'axis' must be in",
    "transpose_perm_too_long": "Invalid attribute perm",
    "sqrt_of_int64": "has unsupported type: tensor(int64)",
    "sparse_input_to_relu": "has unsupported type: sparse_tensor(float)",
    "output_elem_type_differs": "Inferred elem type differs",
    "output_shape_differs": "Inferred shape and existing shape differ",
    "initializer_type_differs_from_input": "Inferred elem type differs",
    "scan_body_output_removed": "returned type information for 1 outputs",
    "scan_body_output_added": "returned type information for 3 outputs",
    "scan_body_state_type_differs": "Inferred elem type differs",
    "scan_num_scan_inputs_wrong": "Can't merge shape info",
    "loop_body_extra_output": "returned type information for 4 outputs",
    "loop_body_missing_output": "returned type information for 2 outputs",
    "loop_body_input_removed": "provided",
    "if_branch_output_counts_differ": "then_branch and else_branch produce different number of outputs",
    "if_branch_types_differ": "Mismatched tensor element type",
    "if_more_outputs_than_branches": "If node has 2 but subgraphs produce 1",
    "if_output_type_differs_from_graph": "Inferred elem type differs",
    "if_cond_float": "cond typestr: B, has unsupported type: tensor(float)",
    "if_branch_type_error_inside": "inconsistent type",
    "subgraph_reads_undefined_outer_name": "nowhere",
    "function_body_undefined_name": "nowhere",
    "function_body_type_error": "inconsistent type",
    "duplicate_node_outputs": "SSA",
    "duplicate_graph_inputs": "SSA",
    "undefined_input": "zz",
    "not_topologically_sorted": "topologically sorted",
    "graph_output_not_produced": "'zz' is not an output of any node",
    "graph_input_without_type": "Field 'type' of 'value_info' is required",
    "graph_output_without_shape": "Field 'shape' of 'type' is required",
    "opset_missing": "opset_import",
    "ir_version_too_new": "ir_version",
    "ir_version_missing": "ir_version",
    "unknown_operator": "No Op registered for NoSuchOp",
    "operator_newer_than_opset": "No Op registered for Gelu",
    "empty_op_type": "op_type",
    "bad_attribute_type": "Mismatched attribute type",
    "attribute_ints_for_int": "Mismatched attribute type",
    "unknown_attribute": "Unrecognized attribute: alpha",
    "missing_required_attribute": "Required attribute 'to' is missing",
}
"""What onnx's full_check says about each row it refuses (a part of its message)."""

CASES: dict[str, Callable[[], Any]] = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn) and not name.startswith(("_", "test_")) and getattr(fn, "__module__", None) == __name__
}

# Rows where a wirecodec entry point still disagrees with onnx (xfail, strict: fixing one makes
# the row fail until it is taken off this list).
KNOWN_DISAGREEMENTS: frozenset[str] = frozenset()

# The IR rules wirecodec.check keeps though onnx's checker does not look at value_info: for
# these only onnx_compat.checker (onnx's drop-in) must give onnx's verdict.
COMPAT_ONLY = frozenset({"value_info_duplicate", "value_info_elem_type_0"})


def _onnx_verdict(m: Any) -> tuple[bool, str]:
    try:
        onnx.checker.check_model(m, full_check=True)
    except Exception as exc:  # onnx raises ValidationError or InferenceError
        return False, str(exc)
    return True, ""


def _wirecodec_verdicts(path: Path) -> dict[str, bool]:
    import wirecodec
    from wirecodec.cli import main
    from wirecodec.errors import WireCodecError
    from wirecodec.onnx_compat import checker

    out: dict[str, bool] = {}
    try:
        wirecodec.check(str(path), full=True)
        out["check"] = True
    except WireCodecError:
        out["check"] = False
    try:
        checker.check_model(str(path), full_check=True)
        out["compat"] = True
    except WireCodecError:
        out["compat"] = False
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        out["cli"] = main(["check", "--full", str(path)]) == 0
    return out


def test_the_matrix_is_big_enough() -> None:
    refused = [name for name in CASES if name in ONNX_SAYS]
    assert len(refused) >= 30 and len(CASES) - len(refused) >= 5, (len(refused), len(CASES))
    assert set(ONNX_SAYS) <= set(CASES), set(ONNX_SAYS) - set(CASES)


def _params() -> list[Any]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="known disagreement"))
        if name in KNOWN_DISAGREEMENTS
        else name
        for name in sorted(CASES)
    ]


@pytest.mark.parametrize("name", _params())
def test_check_verdicts_agree(name: str, tmp_path: Path) -> None:
    model = CASES[name]()
    passes, says = _onnx_verdict(model)
    if name in ONNX_SAYS:
        assert not passes and ONNX_SAYS[name] in says, f"onnx should refuse for {ONNX_SAYS[name]!r}: {says}"
    else:
        assert passes, says
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    got = _wirecodec_verdicts(path)
    got["onnx"] = passes
    if name in COMPAT_ONLY:
        assert got["compat"] == got["onnx"], got
        assert got["check"] == got["cli"], got
    else:
        assert len(set(got.values())) == 1, got


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_without_full_agrees_with_check_model(name: str, tmp_path: Path) -> None:
    """Without full, the API and onnx_compat give onnx's ``check_model`` verdict (no inference):
    a type error passes there, as in onnx."""
    import wirecodec
    from wirecodec.errors import WireCodecError
    from wirecodec.onnx_compat import checker

    model = CASES[name]()
    path = _write(model, tmp_path / "m.onnx")
    try:
        onnx.checker.check_model(model)
        theirs = True
    except onnx.checker.ValidationError:
        theirs = False
    got: dict[str, bool] = {}
    for entry, run in (("check", wirecodec.check), ("compat", checker.check_model)):
        try:
            run(str(path))
            got[entry] = True
        except WireCodecError:
            got[entry] = False
    assert got["compat"] == theirs, got
    if name not in COMPAT_ONLY:
        assert got["check"] == theirs, got


@pytest.mark.quick
def test_quick_rows(tmp_path: Path) -> None:
    """Three rows for the inner loop: a valid model, a type error, a shape the model contradicts."""
    for name in ("valid_scan", "add_float_int64", "output_shape_differs"):
        got = _wirecodec_verdicts(_write(CASES[name](), tmp_path / f"{name}.onnx"))
        assert len(set(got.values())) == 1 and got["check"] == (name not in ONNX_SAYS), (name, got)


def _write(model: Any, path: Path) -> Path:
    path.write_bytes(model.SerializeToString())
    return path


# -- integrity rows: files onnx cannot open; the three entry points agree ----------------------------


def _weights_model() -> Any:
    np = pytest.importorskip("numpy")
    from onnx import numpy_helper

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), "w")
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    return _model([node], [_vi("x", F, ["n", 16])], [_vi("y", F, ["n", 16])], inits=[w])


def _onnxz(folder: Path, *, flip: bool) -> Path:
    import wirecodec
    from wirecodec.files.zip.container import save_zip

    path = folder / "m.onnxz"
    save_zip(wirecodec.load(_write(_weights_model(), folder / "src.onnx")), path)
    if flip:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("w")
        data = bytearray(path.read_bytes())
        name_size, extra_size = struct.unpack_from("<HH", data, info.header_offset + 26)
        data[info.header_offset + 30 + name_size + extra_size + info.file_size // 2] ^= 0x40
        path.write_bytes(bytes(data))
    return path


def _safetensors(folder: Path, *, truncate: bool) -> Path:
    import wirecodec

    path = folder / "m.onnx"
    model = wirecodec.load(_write(_weights_model(), folder / "src.onnx"))
    wirecodec.save(model, path, external_data="m.safetensors", size_threshold=0)
    if truncate:
        data = (folder / "m.safetensors").read_bytes()
        (folder / "m.safetensors").write_bytes(data[: len(data) - 100])
    return path


INTEGRITY: dict[str, Callable[[Path, bool], Path]] = {
    "onnxz_flipped_byte": lambda folder, broken: _onnxz(folder, flip=broken),
    "safetensors_truncated": lambda folder, broken: _safetensors(folder, truncate=broken),
}


@pytest.mark.parametrize("name", sorted(INTEGRITY))
def test_integrity_verdicts_agree(name: str, tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "bad").mkdir()
    assert _wirecodec_verdicts(INTEGRITY[name](tmp_path / "ok", False)) == dict.fromkeys(
        ("check", "compat", "cli"), True
    )
    assert _wirecodec_verdicts(INTEGRITY[name](tmp_path / "bad", True)) == dict.fromkeys(
        ("check", "compat", "cli"), False
    )


# onnx infers MeanVarianceNormalization through its function body, whose Constant fails under
# full_check; wirecodec has a rule for it and no body to fail in.
_CORPUS_KNOWN = frozenset({"node/test_mvn/model.onnx"})


def test_backend_corpus_verdicts_agree() -> None:
    """Every model of onnx's backend corpus (about 1,900): ``wirecodec.check(full=True)`` and
    ``onnx_compat.checker.check_model(full_check=True)`` give onnx's full_check verdict."""
    import wirecodec
    from schema_dsl.onnx import ModelProto
    from tests.support.reference import backend_corpus
    from wirecodec.errors import WireCodecError
    from wirecodec.onnx_compat import checker
    from wirecodec.protobuf.codec import decode

    differ = []
    models = [item for item in backend_corpus() if item.name.endswith("model.onnx")]
    for item in models:
        theirs, _ = _onnx_verdict(onnx.load_from_string(item.data))
        ours: dict[str, bool] = {}
        for name, run in (
            ("check", lambda data: wirecodec.check(decode(ModelProto, data), full=True)),
            ("compat", lambda data: checker.check_model(data, full_check=True)),
        ):
            try:
                run(item.data)
                ours[name] = True
            except WireCodecError:
                ours[name] = False
        if set(ours.values()) != {theirs} and item.name not in _CORPUS_KNOWN:
            differ.append((item.name, theirs, ours))
    assert len(models) > 1000 and differ == []


@pytest.mark.parametrize("name", ["add_float_int64", "sqrt_of_int64", "if_cond_float", "reshape_float_shape"])
def test_type_errors_end_inference_strict_or_not(name: str) -> None:
    """onnx's ``infer_shapes(check_type=True)`` raises on a type error without strict_mode
    too; so does wirecodec's (the full check relies on the same function)."""
    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf.codec import decode
    from wirecodec.shape_inference import InferenceError, infer_shapes

    model = CASES[name]()
    with pytest.raises(Exception, match=r"unsupported type|inconsistent type"):
        onnx.shape_inference.infer_shapes(model, check_type=True)
    with pytest.raises(InferenceError, match=r"unsupported type|share a type variable"):
        infer_shapes(decode(ModelProto, model.SerializeToString()), check_type=True)


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("add_float_int64", "graph.node[0]"),
        ("if_branch_type_error_inside", "graph.node[0].attribute[1].g.node[0]"),  # then_branch
        ("scan_body_state_type_differs", "graph.node[0].attribute[0].g.node[0]"),
        ("if_cond_float", "graph.node[0]"),
    ],
)
def test_inference_violations_name_the_node(name: str, path: str, tmp_path: Path) -> None:
    """A full check's inference finding is a typed CheckError at the failing node's field path,
    inside control-flow bodies too."""
    import wirecodec
    from wirecodec.errors import CheckError

    with pytest.raises(CheckError) as caught:
        wirecodec.check(str(_write(CASES[name](), tmp_path / "m.onnx")), full=True)
    assert [(v.path, v.rule) for v in caught.value.violations] == [(path, "shape-inference")]
