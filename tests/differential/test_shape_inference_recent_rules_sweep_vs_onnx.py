"""The shape rules changed in the last sessions, each over the product of its edges, against
onnx's strict inference (same bytes, or both refuse): NegativeLogLikelihoodLoss (input
ranks, symbolic and known sizes, targets that agree or not, weights of every rank, every
reduction), QuantizeLinear and DequantizeLinear (every opset that changed them, with and
without a zero point, every ``output_dtype``), MeanVarianceNormalization (every version,
with and without axes, negative and out-of-range axes) and Split (known and symbolic axes,
sizes as an initializer, an attribute or ``num_outputs``).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper = onnx.helper
TP = onnx.TensorProto


def _model(nodes: list[Any], inputs: list[Any], outputs: list[str], opset: int, inits: list[Any] = ()) -> Any:
    graph = helper.make_graph(
        nodes, "g", inputs, [onnx.ValueInfoProto(name=name) for name in outputs], initializer=list(inits)
    )
    ir = 10 if opset >= 21 else 8
    return helper.make_model(graph, ir_version=ir, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name: str, elem: int, shape: list[Any] | None) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _cases_nll() -> list[tuple[str, Any]]:
    cases = []
    inputs = {"NC": ["N", 3], "NCd": ["N", 3, 5], "NCdd": [2, 3, 5, "D"], "ncd-known": [2, 3, 5]}
    targets = {
        "agree": lambda x: [x[0], *x[2:]],
        "rank-off": lambda x: [x[0], *x[2:], 4],
        "size-off": lambda x: [7, *x[2:]],
        "symbolic": lambda x: ["T" + str(i) for i in range(len(x) - 1)],
    }
    weights = {"none": None, "rank1": [3], "rank0": [], "rank2": [3, 1]}
    for opset, (xn, x), (tn, t), (wn, w), reduction in itertools.product(
        (13, 22), inputs.items(), targets.items(), weights.items(), ("none", "mean")
    ):
        names = ["x", "t"] + (["w"] if w is not None else [])
        ins = [_vi("x", TP.FLOAT, x), _vi("t", TP.INT64, t(x))]
        if w is not None:
            ins.append(_vi("w", TP.FLOAT, w))
        node = helper.make_node("NegativeLogLikelihoodLoss", names, ["y"], reduction=reduction)
        cases.append((f"nll-{opset}-{xn}-{tn}-{wn}-{reduction}", _model([node], ins, ["y"], opset)))
    return cases


def _cases_quantize() -> list[tuple[str, Any]]:
    cases = []
    for opset, zero, wanted in itertools.product(
        (13, 19, 21, 23), (None, TP.UINT8, TP.INT8), (0, TP.UINT8, TP.INT8)
    ):
        if wanted and opset < 21:
            continue  # output_dtype arrived in 21
        ins = [_vi("x", TP.FLOAT, [2, 3]), _vi("s", TP.FLOAT, [])]
        names = ["x", "s"]
        if zero is not None:
            ins.append(_vi("z", zero, []))
            names.append("z")
        attrs = {"output_dtype": wanted} if wanted else {}
        node = helper.make_node("QuantizeLinear", names, ["y"], **attrs)
        cases.append((f"quantize-{opset}-{zero}-{wanted}", _model([node], ins, ["y"], opset)))
    for opset, scale, wanted in itertools.product(
        (13, 19, 21, 23), (TP.FLOAT, TP.FLOAT16), (0, TP.FLOAT, TP.FLOAT16)
    ):
        if (scale == TP.FLOAT16 and opset < 19) or (wanted and opset < 23):
            continue  # float16 scales from 19, output_dtype from 23
        ins = [_vi("x", TP.UINT8, [2, 3]), _vi("s", scale, [])]
        attrs = {"output_dtype": wanted} if wanted else {}
        node = helper.make_node("DequantizeLinear", ["x", "s"], ["y"], **attrs)
        cases.append((f"dequantize-{opset}-{scale}-{wanted}", _model([node], ins, ["y"], opset)))
    return cases


def _cases_mvn() -> list[tuple[str, Any]]:
    cases = []
    axes_options: dict[str, list[int] | None] = {
        "none": None, "default": [0, 2, 3], "negative": [0, -2, -1], "one": [1], "out-of-range": [0, 4]
    }  # fmt: skip
    for opset, (an, axes), shape in itertools.product(
        (9, 13, 18, 21), axes_options.items(), ([2, 3, 4, 5], ["N", 3, 4, 5])
    ):
        attrs = {"axes": axes} if axes is not None else {}
        node = helper.make_node("MeanVarianceNormalization", ["x"], ["y"], **attrs)
        name = f"mvn-{opset}-{an}-{'sym' if isinstance(shape[0], str) else 'known'}"
        cases.append((name, _model([node], [_vi("x", TP.FLOAT, shape)], ["y"], opset)))
    return cases


def _cases_split() -> list[tuple[str, Any]]:
    cases = []
    for opset, axis_known, how in itertools.product(
        (11, 13, 18), (True, False), ("input", "attribute", "equal", "num")
    ):
        if (
            (how == "attribute" and opset >= 13)
            or (how == "input" and opset < 13)
            or (how == "num" and opset < 18)
        ):
            continue
        shape = [6, 4] if axis_known else ["S", 4]
        inits, names, attrs = [], ["x"], {"axis": 0}
        if how == "input":
            inits = [onnx.numpy_helper.from_array(np.array([2, 4], np.int64), "split")]
            names.append("split")
        elif how == "attribute":
            attrs["split"] = [2, 4]
        elif how == "num":
            attrs["num_outputs"] = 2
        node = helper.make_node("Split", names, ["a", "b"], **attrs)
        ins = [_vi("x", TP.FLOAT, shape)]
        cases.append((f"split-{opset}-{axis_known}-{how}", _model([node], ins, ["a", "b"], opset, inits)))
    return cases


# Where wirecodec and onnx part today (reported, not fixed here: shape_inference is not this
# branch's to change). NegativeLogLikelihoodLoss-22: onnx gives the target's dims (and takes
# a target whose known sizes differ), as its version-13 rule did not; MeanVarianceNormalization
# 13 without axes, or with an axis past the rank: onnx's strict inference refuses (its body's
# Constant reads a missing attribute; ReduceMean an axis out of range), ours gives the element
# type; Split-18 with neither a split input nor num_outputs: onnx refuses, ours splits equally.
_ONNX_DIFFERS = frozenset(
    {
        # nll
        "nll-22-NC-size-off-none-none",
        "nll-22-NC-size-off-rank1-none",
        "nll-22-NC-symbolic-none-none",
        "nll-22-NC-symbolic-rank1-none",
        "nll-22-NCd-size-off-none-none",
        "nll-22-NCd-size-off-rank1-none",
        "nll-22-NCd-symbolic-none-none",
        "nll-22-NCd-symbolic-rank1-none",
        "nll-22-NCdd-symbolic-none-none",
        "nll-22-NCdd-symbolic-rank1-none",
        # mvn
        "mvn-13-none-known",
        "mvn-13-none-sym",
        "mvn-13-out-of-range-known",
        "mvn-13-out-of-range-sym",
        "mvn-18-none-known",
        "mvn-18-none-sym",
        "mvn-18-out-of-range-known",
        "mvn-18-out-of-range-sym",
        "mvn-21-none-known",
        "mvn-21-none-sym",
        "mvn-21-out-of-range-known",
        "mvn-21-out-of-range-sym",
        # split
        "split-18-True-equal",
    }
)


_CASES = _cases_nll() + _cases_quantize() + _cases_mvn() + _cases_split()


@pytest.mark.parametrize("family", ["nll", "quantize", "dequantize", "mvn", "split"])
def test_recent_rules_over_their_edges_infer_as_onnx(family: str) -> None:
    cases = [(n, m) for n, m in _CASES if n.startswith(family + "-") and n not in _ONNX_DIFFERS]
    assert cases
    failed = []
    for name, model in cases:
        try:
            assert_strict_inference_as_onnx(model)
        except AssertionError:
            failed.append(name)
    assert failed == []


@pytest.mark.xfail(strict=True, reason="wirecodec and onnx part here today: see _ONNX_DIFFERS")
@pytest.mark.parametrize("name", sorted(_ONNX_DIFFERS))
def test_where_onnx_infers_otherwise(name: str) -> None:
    assert_strict_inference_as_onnx(dict(_CASES)[name])
