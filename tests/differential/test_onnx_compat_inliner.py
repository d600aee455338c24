"""``onnx_compat.inliner`` against onnx's inliner: the same model bytes for the same calls."""

from __future__ import annotations

import pytest

import wirecodec
from wirecodec.onnx_compat import NotProvidedError, inliner, parser
from wirecodec.onnx_compat import checker as compat_checker

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
onnx_inliner = pytest.importorskip("onnx.inliner", reason="onnx's inliner is the reference")

SQUARE = """
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
agraph (float[N] X, float[N] Y) => (float[N] Z) {
  T = local.square<alpha: float = 2.0>(X)
  T2 = local.square(Y)
  Z = Add(T, T2)
}
<domain: "local", opset_import: ["" : 18]>
square <alpha> (x) => (y) {
  t = Mul(x, x)
  a = Constant<value_float: float = @alpha>()
  y = Mul(t, a)
}
"""

NESTED = """
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
agraph (float[N] X, float[N] Y) => (float[N] Z) {
  t__1 = Identity(X)
  T = local.outer(t__1)
  Z = Add(T, Y)
}
<domain: "local", opset_import: ["" : 18, "local": 1]>
outer (x) => (y) {
  t = local.square(x)
  y = Neg(t)
}
<domain: "local", opset_import: ["" : 18]>
square (x) => (y) {
  t = Mul(x, x)
  y = Relu(t)
}
"""

SUBGRAPHS = """
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
agraph (float[N] X, float[N] Y, bool c) => (float[N] Z, float[N] W) {
  t__1 = Identity(X)
  t__1_0 = Identity(X)
  T = local.f<k: float = 3.0>(t__1, , c)
  W = local.f<k: float = 4.0>(Y, X, c)
  Z = Add(T, t__1_0)
}
<domain: "local", opset_import: ["" : 18]>
f <k> (x, opt, c) => (y) {
  t = Mul(x, x)
  y = If(c) <then_branch: graph = g1 () => (float[N] r) { r = Neg(t) },
             else_branch: graph = g2 () => (float[N] r) { kk = Constant<value_float: float = @k>()
                                                           r = Mul(t, kk) }>
}
"""

CALL_IN_A_BRANCH = """
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
agraph (float[N] X, bool c) => (float[N] Z) {
  Z = If(c) <then_branch: graph = g1 () => (float[N] r) { r = local.g(X) },
             else_branch: graph = g2 () => (float[N] r) { r = local.f(X) }>
}
<domain: "local", opset_import: ["" : 18]>
f (x) => (y) {
  y = Neg(x)
}
<domain: "local", opset_import: ["" : 18]>
g (x) => (y) {
  r = Abs(x)
  y = local.f(r)
}
"""

DEFAULTS_AND_SHADOWS = """
<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
agraph (float[N] X, bool c) => (float[N] Z) {
  Z = local.h(X, c)
}
<domain: "local", opset_import: ["" : 18]>
h <alpha: float = 5.0> (x, c) => (y) {
  t = Mul(x, x)
  u = If(c) <then_branch: graph = g1 () => (float[N] r) { t = Neg(x)
                                                         r = Add(t, t) },
             else_branch: graph = g2 () => (float[N] r) { r = Identity(t) }>
  a = Constant<value_float: float = @alpha>()
  s = Mul(u, a)
  y = Add(s, t)
}
"""

MODELS = {
    "square": SQUARE,
    "nested": NESTED,
    "subgraphs": SUBGRAPHS,
    "branch": CALL_IN_A_BRANCH,
    "defaults": DEFAULTS_AND_SHADOWS,
}


def both(text: str) -> tuple[wirecodec.ModelProto, object]:
    ours = parser.parse_model(text)
    if ours.functions:
        ours.functions[0].node[0].name = "first"  # node names are renamed too
    return ours, onnx.load_from_string(wirecodec.encode(ours))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_inline_local_functions_is_onnxs(name: str) -> None:
    ours, theirs = both(MODELS[name])
    expected = onnx_inliner.inline_local_functions(theirs).SerializeToString()
    assert wirecodec.encode(inliner.inline_local_functions(ours)) == expected


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("exclude", [False, True])
def test_inline_selected_functions_is_onnxs(name: str, exclude: bool) -> None:
    ours, theirs = both(MODELS[name])
    chosen = [("local", "f"), ("local", "square")]
    expected = onnx_inliner.inline_selected_functions(theirs, chosen, exclude=exclude).SerializeToString()
    assert wirecodec.encode(inliner.inline_selected_functions(ours, chosen, exclude=exclude)) == expected


def test_the_model_given_is_left_as_it_was() -> None:
    ours, _ = both(SQUARE)
    before = wirecodec.encode(ours)
    inliner.inline_local_functions(ours)
    assert wirecodec.encode(ours) == before


def test_version_conversion_is_not_provided() -> None:
    with pytest.raises(NotProvidedError, match="convert_version"):
        inliner.inline_local_functions(parser.parse_model(SQUARE), convert_version=True)


def test_a_function_calling_itself_is_refused_as_onnx_refuses_it() -> None:
    text = """
    <ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
    agraph (float[N] X) => (float[N] Y) { Y = local.foo (X) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    foo (x) => (y) { y = local.bar (x) }
    <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
    bar (x) => (y) { y = local.foo (x) }
    """
    with pytest.raises(onnx.checker.ValidationError):
        onnx_inliner.inline_local_functions(onnx.parser.parse_model(text))
    with pytest.raises(compat_checker.ValidationError, match=r"local\.foo -> local\.bar -> local\.foo"):
        inliner.inline_local_functions(parser.parse_model(text))
