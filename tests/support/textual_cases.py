"""Hand-written texts in the ONNX textual syntax: valid ones for every construct, malformed ones.

Shared by tests/unit/onnx/test_parser.py (differential against onnx.parser) and the parser fuzz
test. Each valid text names the construct it covers; each malformed text carries the
1-based line and column where our ParseError must point.
"""

from __future__ import annotations

from dataclasses import dataclass

# (id, parse function name, text)
VALID: list[tuple[str, str, str]] = [
    (
        "minimal-model",
        "model",
        """<ir_version: 8, opset_import: ["" : 18]>
agraph (float[N] X) => (float[N] Y) {
   Y = Relu(X)
}""",
    ),
    (
        "model-header-every-key",
        "model",
        """<
  ir_version: 10,
  opset_import: ["" : 21, "com.microsoft" : 1],
  opset_import: ["ai.onnx.ml" : 3],
  producer_name: "hand",
  producer_version: "1.2.3",
  domain: "org.example",
  model_version: -7,
  doc_string: "A \\"quoted\\" doc\\\\string\nover two lines",
  metadata_props: ["author": "me", "license": "Apache-2.0"]
>
g () => () { }""",
    ),
    ("empty-metadata", "model", '<metadata_props: [], opset_import: []> "" () => () {}'),
    ("no-header", "model", "g (float X) => (float Y) { Y = Identity(X) }"),
    (
        "symbolic-unknown-quoted-dims",
        "graph",
        'g (float[N, ?, 3, "batch size", _x1] X, int64[] S, bool B) => (float[?] Y) { Y = Shape(X) }',
    ),
    (
        "initializers-in-signature-and-body",
        "graph",
        """g (float[2] W = {1, -2.5}, int64[3] S = {1, -2, 3}, float[N] X) => (float[N] Y)
  <float[2,2] C = {1.5, 2e3, -3E-2, 4.}, int32 k = {7}, string[2] names = {"a", "b\\\\c"},
   float[N] T, uint64[2] U = {18446744073709551615, 3}, double[2] D = {0.1, 1e300}>
{
  T = Add(X, W)
  Y = Mul(T, C)
}""",
    ),
    (
        "initializer-without-braces-and-empty",
        "graph",
        "g (float[2] W =, float[0] E = {}) => (float[2] Y) <bool[1] F = {1}> { Y = Identity(W) }",
    ),
    (
        "external-data",
        "graph",
        'g (float[4] W = ["location": "weights.bin", "offset": "0", "length": "16"]) => (float[4] Y)'
        " { Y = Identity(W) }",
    ),
    (
        "small-int-and-float-types",
        "graph",
        """g () => ()
<int8[2] a = {-128, 127}, uint8[1] b = {255}, int16[1] c = {-300}, uint16[1] d = {65535},
 float16[2] e = {15360, 0}, bfloat16[1] f = {16256}, float8e4m3fn[1] g8 = {56},
 float8e5m2[1] h = {60}, int4[2] i = {-8, 7}, uint4[1] j = {15}, float4e2m1[1] k = {3},
 uint32[1] l = {4294967295}, complex64[2] m = {1, 2}, complex128[2] n = {3, 4},
 int2[1] o = {1}, uint2[1] p = {3}, float8e8m0[1] q = {127}, float6e2m3[1] r = {1}>
{ }""",
    ),
    (
        "attributes-of-every-type",
        "node",
        """Y = Op <i = -3, f = 2.5, f2: float = 4, f3 = -0, s = "str", e = 1e-5,
  ints = [1, -2, 3], floats = [1.5, -2, 3e10], strings = ["a", "b"],
  t = float[2] {1, 2}, t2 = int64[2] named {5, 6}, t3 = float[1] = {9},
  tp = float[N, 3], tp2 = seq(float), g = body () => (float z) { z = Constant <value_float = 1.0> () },
  ei: ints = [], ef: floats = [], es: strings = [], et: tensors = [], eg: graphs = []> (X)""",
    ),
    (
        "attribute-refs",
        "function",
        """<domain: "local", opset_import: ["" : 18]>
Scale <alpha, beta: float = 2.0> (x) => (y) {
  a = Constant <value_float: float = @alpha> ()
  b = Constant <value_float = @beta> ()
  t = Mul(x, a)
  y = Add(t, b)
}""",
    ),
    (
        "function-header-every-key",
        "function",
        """<domain: "com.example", overload: "v2", doc_string: "doc", opset_import: ["" : 18, "x" : 1]>
F <axis: int = 1, name: string = "n", w = 0.5, shape: ints = [1, 2]> (x, y) => (z) {
  z = Add(x, y)
}""",
    ),
    (
        "function-typed-io-and-value-infos",
        "function",
        """<domain: "d", opset_import: ["" : 18]>
F (float[N] x, y) => (float[N] z, w) <float[N] t, int64 u> {
  t = Neg(x)
  z = Add(t, y)
  w = Identity(y)
}""",
    ),
    (
        "model-with-functions",
        "model",
        """<ir_version: 9, opset_import: ["" : 18, "local" : 1]>
main (float[N] X) => (float[N] Y) {
  Y = local.Twice <k = 2> (X)
}
<domain: "local", opset_import: ["" : 18]>
Twice <k> (x) => (y) {
  y = Add(x, x)
}
<domain: "local", overload: "o", opset_import: ["" : 18]>
Twice (x) => (y) {
  y = Identity(x)
}""",
    ),
    (
        "sequence-map-optional-sparse-opaque-types",
        "graph",
        """g (seq(float[N]) S, map(int64, seq(double)) M, optional(seq(int32)) O,
   sparse_tensor(float[10, 10]) P, sparse_tensor(int8) Q, sparse_tensor(float[]) R,
   opaque() A, opaque(name) B, opaque(dom, name) C, opaque(ai.onnx.ml, name) D,
   optional(map(string, float)) E)
  => (seq(float[N]) Y) { Y = Identity(S) }""",
    ),
    (
        "node-names-domains-overloads",
        "graph",
        """g (float X) => (float Y, float Z) {
  [first] T = com.example.deep.Op:v1 (X)
  ["a name with spaces"] U = Op2:over <k = 1> (T)
  [] V = Op3 (U)
  Y = Identity(V)
  Z = Identity(Y)
}""",
    ),
    (
        "quoted-and-empty-names",
        "graph",
        """"my graph" (float "input 0", float "a.b") => (float "out:0") {
  "out:0", "" = Split ("a.b", "", , "input 0")
  a, , b = Op (x,)
  = Op2 ()
}""",
    ),
    (
        "attributes-after-inputs-and-subgraphs",
        "node",
        """Y = If (cond) <
  then_branch = then_g () => (float[N] z) { z = Constant <value = float[1] {1}> () },
  else_branch = else_g () => (float[N] z) <float[1] c = {2}> { z = Identity(c) }>""",
    ),
    (
        "graphs-attribute-list",
        "node",
        """Y = Loop <bodies: graphs = [a () => () {}, b () => () {}]> (M, C)""",
    ),
    (
        "special-float-literals",
        "node",
        "Y = Op <a = inf, b = -inf, c = nan, d = -nan, e = Infinity, f = -INF, "
        "g = [inf, 1.5], t = float[3] {inf, -Infinity, NaN}, u = double[2] {-inf, 1e-320}> ()",
    ),
    (
        "float-precision-and-rounding",
        "node",
        "Y = Op <a = 0.1, b = 3.4028235e38, c = 1e-45, d = 1.0000000596046448, "
        "e = 16777217, f = 1.00000005960464477539062500001, g = 7e-46, "
        "t = double[3] {0.1, 2.2250738585072014e-308, 123456789012345678901234567890}> ()",
    ),
    (
        "comments-and-whitespace",
        "model",
        """# a leading comment
<ir_version: 8,   # trailing comment
 opset_import: ["" : 18]>
agraph(float[N]X)=>(float[N]Y){# after brace
\tY=Relu(X)#no space
\r\n}
# final comment""",
    ),
    (
        "string-escapes",
        "node",
        r'Y = Op <s = "a\"b\\c\d\n", ss = ["\\", "\"", "tab\there"]> ("in\"put")',
    ),
    (
        "negative-and-exponent-numbers",
        "node",
        "Y = Op <i = -9223372036854775808, j = 9223372036854775807, f = -1.5e+3, g = 2E-2, "
        "h = 00012, ints = [-1, -0, 0], fs = [-0.0, 1., 1.e2]> ()",
    ),
    (
        "value-info-only-block-and-typeless-outputs",
        "graph",
        "g (float X) => (Y, float Z) <float T, seq(float) S>\n"
        "{ T = Neg(X)\n Y = Identity(T)\n Z = Identity(T) }",
    ),
    (
        "type-proto-attributes",
        "node",
        "Y = Op <a = float, b = float[], c = map(string, int64), d: type_protos = [], "
        "e = optional(float[2])> ()",
    ),
    (
        "unicode-text",
        "node",
        'Y = Op <s = "\u00e9\u4e2d\U0001f600"> ("\u00e9")',
    ),
    (
        "list-of-tensors-is-dropped",
        "node",
        "Y = Op <ts: tensors = [float[1] {1}, int64 {2}], tl = [float[1] {3}], gl = [g () => () {}]> ()",
    ),
    (
        "list-then-typed-singular",
        "node",
        'Y = Op <a: int = [1, 2], b: float = [1, 2.5], c: string = ["x"]> ()',
    ),
]


@dataclass(frozen=True)
class Malformed:
    """A text every parser must refuse, and where ours must point (1-based)."""

    id: str
    parse: str
    text: str
    line: int
    column: int
    onnx_refuses: bool = True  # False where the reference accepts it (documented differences)


MALFORMED: list[Malformed] = [
    Malformed("empty-text", "model", "", 1, 1),
    Malformed("missing-graph-name", "model", "<ir_version: 8> (float X) => (float Y) {}", 1, 17),
    Malformed("unknown-header-key", "model", "<ir_version: 8,\n  color: 3> g () => () {}", 2, 3),
    Malformed("ir-version-not-int", "model", '<ir_version: "8"> g () => () {}', 1, 14),
    Malformed("opset-domain-unquoted", "model", "<opset_import: [ai : 1]> g () => () {}", 1, 17),
    Malformed("opset-version-float", "model", '<opset_import: ["" : 1.5]> g () => () {}', 1, 22),
    Malformed("header-not-closed", "model", "<ir_version: 8 g () => () {}", 1, 16),
    Malformed("arrow-split", "graph", "g (float X) = > (float Y) {}", 1, 14),
    Malformed("missing-arrow", "graph", "g (float X) (float Y) {}", 1, 13),
    Malformed("unknown-type", "graph", "g (floot[2] X) => () {}", 1, 9),
    Malformed("unclosed-shape", "graph", "g (float[2, 3 X) => () {}", 1, 15),
    Malformed("float-dimension", "graph", "g (float[2.5] X) => () {}", 1, 10),
    Malformed("symbolic-dim-in-initializer", "graph", "g (float[N] W = {1}) => () {}", 1, 4),
    Malformed("unknown-rank-initializer", "graph", "g () => () <float[] W = {1}> {}", 1, 13),
    Malformed("string-in-float-tensor", "graph", 'g (float[1] W = {"x"}) => () {}', 1, 18),
    Malformed("int32-overflow-in-int8-tensor", "graph", "g (int8[1] W = {2147483648}) => () {}", 1, 17),
    Malformed("float32-overflow", "node", "Y = Op <f = 3.5e38> ()", 1, 13),
    Malformed("double-overflow", "graph", "g (double[1] D = {1e309}) => () {}", 1, 19),
    Malformed("int64-overflow", "node", "Y = Op <i = 9223372036854775808> ()", 1, 13),
    Malformed("unterminated-string", "node", 'Y = Op <s = "abc> ()\n', 2, 1),
    Malformed("escape-at-end", "node", 'Y = Op <s = "abc\\', 1, 18),
    Malformed("unknown-attribute-type", "node", "Y = Op <a: integer = 1> ()", 1, 12),
    Malformed("attribute-type-mismatch", "node", 'Y = Op <a: int = "x"> ()', 1, 18),
    Malformed("mixed-list", "node", "Y = Op <a = [1, 2.5]> ()", 1, 17),
    Malformed("empty-list-untyped", "node", "Y = Op <a = []> ()", 1, 13),
    Malformed("singleton-as-empty-list", "node", "Y = Op <a: int = []> ()", 1, 18),
    Malformed("attribute-without-value", "node", "Y = Op <a = > ()", 1, 13),
    Malformed("attribute-invalid-word", "node", "Y = Op <a = -abc> ()", 1, 14),
    Malformed("missing-equals-in-node", "graph", "g () => () {\n  Y Relu(X)\n}", 2, 5),
    Malformed("missing-op-after-dot", "node", "Y = com.(X)", 1, 9),
    Malformed("inputs-not-closed", "graph", "g () => () {\n  Y = Relu(X\n}", 3, 1),
    Malformed("node-list-not-closed", "graph", "g () => () {\n  Y = Relu(X)\n", 3, 1),
    Malformed("minus-then-space", "node", "Y = Op <i = - 5> ()", 1, 14),
    Malformed("bad-exponent", "node", "Y = Op <f = 1e> ()", 1, 13),
    Malformed("function-unknown-key", "function", '<domain: "d", color: "x"> F (x) => (y) {}', 1, 15),
    Malformed("function-no-outputs", "function", '<domain: "d"> F (x) {}', 1, 21),
    Malformed("map-key-not-primitive", "graph", "g (map(seq(float), float) M) => () {}", 1, 8),
    Malformed("sparse-of-seq", "graph", "g (sparse_tensor(seq(float)) M) => () {}", 1, 18),
    Malformed("metadata-not-strings", "model", "<metadata_props: [a: b]> g () => () {}", 1, 19),
    Malformed("nul-character", "node", "Y = Relu(X)\0", 1, 12, onnx_refuses=False),
    Malformed("trailing-text-after-node", "node", "Y = Relu(X)\nZ = Relu(Y)", 2, 1, onnx_refuses=False),
    Malformed("trailing-text-after-graph", "graph", "g () => () {} extra", 1, 15, onnx_refuses=False),
    Malformed(
        "function-default-type-mismatch",
        "function",
        '<domain: "d"> F <a: int = "x"> (x) => (y) {}',
        1,
        27,
        onnx_refuses=False,
    ),
]
