"""Where onnx's inference refuses a node and ours did not, or refused for another reason (the
causes of onnx's ``shape_inference_test.py`` cases that failed through onnx_compat): each
model is inferred by both in strict mode; both refuse (ours with an ``InferenceError``
naming the same thing onnx's test looks for), or both give the same bytes."""

from __future__ import annotations

import importlib

import pytest

from schema_dsl.onnx import ModelProto
from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx
from wirecodec.protobuf.codec import decode
from wirecodec.shape_inference import InferenceError, infer_shapes

onnx = require_onnx()
parse_model = importlib.import_module("onnx.parser").parse_model


def _ours_refuses(text: str, words: str) -> None:
    model = parse_model(text)
    assert_strict_inference_as_onnx(model)
    with pytest.raises(InferenceError, match=words):
        infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)


_SCAN_COUNTS = [
    (
        """<ir_version: 8, opset_import: ["" : 9]>
        agraph (float[2] in0, float[3, 2] in1) => (out) {
            out = Scan <num_scan_inputs = 9, body = b (float a, float x) => (float c) {
                c = Add(a, x)
            }> (in0, in1)
        }""",
        "num_scan_inputs",
    ),
    (
        """<ir_version: 8, opset_import: ["" : 9]>
        agraph (float[2] in0, float[3, 2] in1) => (out) {
            out = Scan <num_scan_inputs = 3, body = b (float a, float x) => (float c) {
                c = Add(a, x)
            }> (in0, in1)
        }""",
        "num_scan_inputs",
    ),
    (
        """<ir_version: 10, opset_import: ["" : 21]>
        agraph (float[2] in0, float[3, 2] in1) => (out) {
            out = Scan <num_scan_inputs = 4, body = b (float a, float x) => (float c) {
                c = Add(a, x)
            }> (in0, in1)
        }""",
        "num_scan_inputs",
    ),
    (
        """<ir_version: 8, opset_import: ["" : 8]>
        agraph (float[1, 3] ls, float[1, 2, 2] si) => (out) {
            out = Scan <num_scan_inputs = 9, body = b (float a, float x) => (float c) {
                c = Add(a, x)
            }> ("", ls, si)
        }""",
        "num_scan_inputs",
    ),
    (
        """<ir_version: 8, opset_import: ["" : 8]>
        agraph (float[1, 3] ls, float[1, 2, 2] si) => (out) {
            out = Scan <num_scan_inputs = 2, body = b (float a, float x) => (float c) {
                c = Add(a, x)
            }> ("", ls, si)
        }""",
        "rank",  # the counts fit: refused by both for the body's declared ranks
    ),
    (
        """<ir_version: 10, opset_import: ["" : 21]>
        agraph (float[2] in0, float[2] in1, float[3, 2] in2) => (out) {
            out = Scan <num_scan_inputs = 1, body = b (float a, float s0, float s1) => (float c) {
                c = Identity(a)
            }> (in0, in1, in2)
        }""",
        "loop state variables",
    ),
    (
        """<ir_version: 8, opset_import: ["" : 9]>
        agraph (float[2] in0, float[2] in1, float[3, 2] in2) => (out) {
            out = Scan <num_scan_inputs = 1, body = b (float a, float s0, float s1) => (float c) {
                c = Identity(a)
            }> (in0, in1, in2)
        }""",
        "loop state variables",
    ),
]


@pytest.mark.quick
@pytest.mark.parametrize(("text", "words"), _SCAN_COUNTS, ids=range(len(_SCAN_COUNTS)))
def test_scan_counts_refused_as_onnx(text: str, words: str) -> None:
    _ours_refuses(text, words)


@pytest.mark.parametrize(
    "text",
    [
        # counts that fit: both infer, the same bytes
        """<ir_version: 8, opset_import: ["" : 9]>
        agraph (float[2] in0, float[3, 2] in1) => (out, s) {
            out, s = Scan <num_scan_inputs = 1,
                           body = b (float[2] a, float[2] x) => (float[2] c, float[2] d) {
                c = Add(a, x)
                d = Identity(x)
            }> (in0, in1)
        }""",
        """<ir_version: 8, opset_import: ["" : 9]>
        agraph (float[3, 2] in1) => (s) {
            s = Scan <num_scan_inputs = 1, body = b (float[2] x) => (float[2] d) {
                d = Identity(x)
            }> (in1)
        }""",
    ],
)
def test_scan_counts_that_fit_infer_as_onnx(text: str) -> None:
    assert_strict_inference_as_onnx(parse_model(text))
