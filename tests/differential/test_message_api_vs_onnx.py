"""A probe of the protobuf API and the onnx helpers, side by side on onnx's classes and ours.

Each scenario is one small script written once against a namespace ``m`` that is either
the onnx package (its classes, ``helper``, ``numpy_helper``, protobuf's text and JSON
formats) or wirecodec's stand-ins (``wirecodec.onnx_compat``, ``wirecodec.to_text``...).
Its *outcome* is the value it returns, normalised (a message becomes its bytes, an array
its dtype, shape and bytes, a float its repr) with the warnings it raised, or the class
of the exception it raised. Ours must give the same value, or raise an exception that an
``except`` written for onnx's catches.

The scenarios cover what the other message tests touch least: merging and copying edge
cases, oneofs, repeated-field slicing and reordering, enums, text format of unusual
values, pickling and copying, equality and hashing, unknown fields, and the helpers.
``DIFFERENT`` lists the deliberate differences, each explained in docs/coming-from-onnx.md;
those scenarios assert that the two still differ (so a change that removes a difference
shows up here, to be moved to the identical ones).
"""

from __future__ import annotations

import contextlib
import copy
import math
import pickle
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wirecodec
import wirecodec.onnx_compat as compat

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
from google.protobuf import json_format, text_format  # noqa: E402  (after the skip: onnx brings it)

_CLASSES = [name for name in dir(compat) if name.endswith("Proto") or name in ("TensorAnnotation", "Version")]


def _namespace(module: Any, **extra: Any) -> types.SimpleNamespace:
    names = {name: getattr(module, name) for name in _CLASSES}
    return types.SimpleNamespace(**names, IR_VERSION=module.IR_VERSION, **extra)


ONNX = _namespace(
    onnx,
    helper=onnx.helper,
    numpy_helper=onnx.numpy_helper,
    text=text_format.MessageToString,
    parse=lambda cls, text: text_format.Parse(text, cls()),
    to_json=json_format.MessageToJson,
    from_json=lambda cls, text: json_format.Parse(text, cls()),
)
OURS = _namespace(
    compat,
    helper=compat.helper,
    numpy_helper=compat.numpy_helper,
    text=wirecodec.to_text,
    parse=wirecodec.from_text,
    to_json=wirecodec.to_json,
    from_json=wirecodec.from_json,
)

Scenario = Callable[[Any], Any]
SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str) -> Callable[[Scenario], Scenario]:
    def register(fn: Scenario) -> Scenario:
        assert name not in SCENARIOS, name
        SCENARIOS[name] = fn
        return fn

    return register


def simple(name: str, fn: Scenario) -> None:
    scenario(name)(fn)


# -- normalising outcomes --------------------------------------------------------------------


def normal(value: Any) -> Any:
    """A comparable form of ``value`` that does not depend on whose classes made it."""
    if hasattr(value, "SerializeToString") and hasattr(value, "ListFields"):
        return ("message", type(value).__name__, value.SerializeToString())
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)  # an IntEnum member is its number
    if isinstance(value, (float, complex)):
        return ("float", repr(value))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(value))
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, [normal(v) for v in value.reshape(-1).tolist()])
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, normal(value.item()))
    if isinstance(value, np.dtype):
        return ("dtype", value.str)
    if isinstance(value, dict):
        return {normal(k): normal(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(normal(v) for v in value)
    if isinstance(value, list):  # containers too (a repeated field compares as a list)
        return [normal(v) for v in value]
    if isinstance(value, type):
        return ("type", value.__name__)
    if hasattr(value, "__len__") and hasattr(value, "__getitem__"):  # upb's repeated containers
        return [normal(v) for v in value]
    raise TypeError(f"no normal form for {type(value).__qualname__}: give the scenario a plainer result")


def outcome(fn: Scenario, m: Any) -> tuple[str, Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value: Any = ("value", normal(fn(m)))
        except Exception as exc:  # the class of what a scenario raises is its outcome
            value = ("raises", type(exc))
    return value[0], value[1], sorted({w.category.__name__ for w in caught})


def agree(theirs: tuple[str, Any, list[str]], mine: tuple[str, Any, list[str]]) -> bool:
    """Whether ours behaves as onnx's: the same value and warnings, or an exception that
    onnx's ``except`` clause catches."""
    if theirs[0] == "raises":
        return mine[0] == "raises" and issubclass(mine[1], theirs[1])
    return theirs == mine


# -- scenarios: merging and copying ----------------------------------------------------------


@scenario("merge/scalar overwrites")
def _(m: Any) -> Any:
    a = m.NodeProto(name="a", op_type="X")
    a.MergeFrom(m.NodeProto(name="b"))
    return a


@scenario("merge/unset scalar keeps")
def _(m: Any) -> Any:
    a = m.NodeProto(name="a")
    a.MergeFrom(m.NodeProto(op_type="Y"))
    return a


@scenario("merge/explicit default overwrites")
def _(m: Any) -> Any:
    a = m.NodeProto(name="a")
    a.MergeFrom(m.NodeProto(name=""))
    return a, a.HasField("name")


@scenario("merge/repeated appends")
def _(m: Any) -> Any:
    a = m.NodeProto(input=["x"], attribute=[m.AttributeProto(name="k", i=1)])
    a.MergeFrom(m.NodeProto(input=["y"], attribute=[m.AttributeProto(name="k", i=2)]))
    return a


@scenario("merge/sub-message merges")
def _(m: Any) -> Any:
    a = m.ModelProto(graph=m.GraphProto(name="g", node=[m.NodeProto(op_type="A")]))
    a.MergeFrom(m.ModelProto(graph=m.GraphProto(doc_string="d", node=[m.NodeProto(op_type="B")])))
    return a


@scenario("merge/oneof member switches")
def _(m: Any) -> Any:
    d = m.TensorShapeProto.Dimension(dim_value=3)
    d.MergeFrom(m.TensorShapeProto.Dimension(dim_param="N"))
    return d.WhichOneof("value"), d


@scenario("merge/into itself")
def _(m: Any) -> Any:
    n = m.NodeProto(name="n", input=["a", "b"], attribute=[m.AttributeProto(name="k")])
    n.MergeFrom(n)
    return n


@scenario("merge/other type")
def _(m: Any) -> Any:
    m.NodeProto().MergeFrom(m.GraphProto())


@scenario("merge/not a message")
def _(m: Any) -> Any:
    m.NodeProto().MergeFrom(3)


@scenario("merge/empty present child stays present")
def _(m: Any) -> Any:
    b = m.ModelProto()
    b.graph.SetInParent()
    a = m.ModelProto()
    a.MergeFrom(b)
    return a.HasField("graph"), a


@scenario("merge/from string returns length")
def _(m: Any) -> Any:
    n = m.NodeProto(name="a")
    return n.MergeFromString(b"\x1a\x01n\x0a\x01x"), n


@scenario("merge/from bytearray")
def _(m: Any) -> Any:
    n = m.NodeProto()
    n.MergeFromString(bytearray(b"\x1a\x01n"))
    return n


@scenario("merge/from memoryview")
def _(m: Any) -> Any:
    n = m.NodeProto()
    n.MergeFromString(memoryview(b"xx\x1a\x01n")[2:])
    return n


@scenario("merge/from str")
def _(m: Any) -> Any:
    m.NodeProto().MergeFromString("\x1a\x01n")


@scenario("parse/truncated")
def _(m: Any) -> Any:
    m.NodeProto().ParseFromString(b"\x1a\x05n")


@scenario("parse/replaces")
def _(m: Any) -> Any:
    n = m.NodeProto(name="old", input=["a"])
    n.ParseFromString(b"\x0a\x01b")
    return n


@scenario("copy/from self")
def _(m: Any) -> Any:
    n = m.NodeProto(name="n", input=["a"])
    n.CopyFrom(n)
    return n


@scenario("copy/from other type")
def _(m: Any) -> Any:
    m.NodeProto().CopyFrom(m.GraphProto())


@scenario("copy/from own child")
def _(m: Any) -> Any:
    t = m.TypeProto(sequence_type=m.TypeProto.Sequence(elem_type=m.TypeProto(denotation="inner")))
    t.CopyFrom(t.sequence_type.elem_type)
    return t


@scenario("copy/replaces repeated")
def _(m: Any) -> Any:
    n = m.NodeProto(input=["a", "b"], name="x")
    n.CopyFrom(m.NodeProto(input=["c"]))
    return n, n.HasField("name")


@scenario("copy/independent of source")
def _(m: Any) -> Any:
    src = m.GraphProto(node=[m.NodeProto(op_type="A")])
    dst = m.GraphProto()
    dst.CopyFrom(src)
    src.node[0].op_type = "B"
    return dst


# -- scenarios: presence, ClearField, oneofs -------------------------------------------------


simple(
    "presence/reading a child does not set it",
    lambda m: (m.ModelProto().graph.name, m.ModelProto().HasField("graph")),
)


@scenario("presence/writing a grandchild sets the chain")
def _(m: Any) -> Any:
    model = m.ModelProto()
    model.graph.output.add(name="y")
    return model.HasField("graph"), model


@scenario("presence/held child after ClearField")
def _(m: Any) -> Any:
    model = m.ModelProto(graph=m.GraphProto(name="g"))
    graph = model.graph
    model.ClearField("graph")
    graph.name = "changed"
    return model.HasField("graph"), model, graph


@scenario("presence/held unset child after Clear")
def _(m: Any) -> Any:
    model = m.ModelProto(ir_version=3)
    graph = model.graph
    model.Clear()
    graph.name = "late"
    return model


simple(
    "clear/repeated", lambda m: (lambda n: (n.ClearField("input"), n)[1])(m.NodeProto(input=["a"], name="n"))
)
simple("clear/unknown name", lambda m: m.NodeProto().ClearField("nope"))
simple("clear/not a str", lambda m: m.NodeProto().ClearField(3))


@scenario("clear/oneof member")
def _(m: Any) -> Any:
    d = m.TensorShapeProto.Dimension(dim_param="N", denotation="DATA_BATCH")
    d.ClearField("dim_param")
    return d.WhichOneof("value"), d


@scenario("clear/oneof name when unset")
def _(m: Any) -> Any:
    d = m.TensorShapeProto.Dimension(denotation="x")
    d.ClearField("value")
    return d


@scenario("clear/oneof of the type")
def _(m: Any) -> Any:
    t = m.TypeProto(tensor_type=m.TypeProto.Tensor(elem_type=1), denotation="T")
    t.ClearField("value")
    return t.WhichOneof("value"), t


simple("oneof/unknown group", lambda m: m.TypeProto().WhichOneof("nope"))
simple("oneof/a field's name", lambda m: m.TypeProto().WhichOneof("denotation"))
simple("oneof/bytes group name", lambda m: m.TensorShapeProto.Dimension(dim_value=1).WhichOneof(b"value"))
simple("oneof/none set", lambda m: m.TypeProto(denotation="x").WhichOneof("value"))
simple("oneof/has by group", lambda m: m.TypeProto(map_type=m.TypeProto.Map(key_type=7)).HasField("value"))


@scenario("oneof/assigning another member")
def _(m: Any) -> Any:
    t = m.TypeProto(tensor_type=m.TypeProto.Tensor(elem_type=1))
    t.sequence_type.elem_type.denotation = "s"
    return t.WhichOneof("value"), t.HasField("tensor_type"), t


@scenario("oneof/reading another member")
def _(m: Any) -> Any:
    t = m.TypeProto(tensor_type=m.TypeProto.Tensor(elem_type=1))
    _ = t.map_type.key_type
    return t.WhichOneof("value")


simple("has/not a str", lambda m: m.NodeProto().HasField(None))
simple("has/empty string", lambda m: m.NodeProto().HasField(""))
simple("has/set to default", lambda m: m.NodeProto(name="").HasField("name"))
simple("has/enum set to zero", lambda m: m.TensorProto(data_type=0).HasField("data_type"))


@scenario("has/child set by SetInParent")
def _(m: Any) -> Any:
    v = m.ValueInfoProto()
    v.type.tensor_type.shape.SetInParent()
    return v.HasField("type"), v.type.tensor_type.HasField("shape"), v


@scenario("listfields/order and defaults")
def _(m: Any) -> Any:
    n = m.NodeProto(op_type="R", name="", input=[], output=["y"], domain="d")
    return [(f.name, normal(v)) for f, v in n.ListFields()]


@scenario("listfields/oneof and nested")
def _(m: Any) -> Any:
    t = m.TypeProto(denotation="x", optional_type=m.TypeProto.Optional())
    return [f.name for f, _ in t.ListFields()]


# -- scenarios: repeated fields --------------------------------------------------------------


def node5(m: Any) -> Any:
    return m.NodeProto(input=["a", "b", "c", "d", "e"])


simple("repeated/slice", lambda m: node5(m).input[1:3])
simple("repeated/slice negative", lambda m: node5(m).input[-2:])
simple("repeated/slice step", lambda m: node5(m).input[::-2])
simple("repeated/index negative", lambda m: node5(m).input[-5])
simple("repeated/index past end", lambda m: node5(m).input[5])
simple("repeated/index negative past start", lambda m: node5(m).input[-6])
simple("repeated/index not int", lambda m: node5(m).input["1"])


@scenario("repeated/slice assign shorter")
def _(m: Any) -> Any:
    n = node5(m)
    n.input[1:4] = ["x"]
    return n


@scenario("repeated/slice assign extended step")
def _(m: Any) -> Any:
    n = node5(m)
    n.input[::2] = ["x", "y", "z"]
    return n


@scenario("repeated/slice assign wrong size step")
def _(m: Any) -> Any:
    n = node5(m)
    n.input[::2] = ["x"]
    return n


@scenario("repeated/slice assign wrong type")
def _(m: Any) -> Any:
    n = node5(m)
    n.input[0:1] = [3]
    return n


@scenario("repeated/item assign negative")
def _(m: Any) -> Any:
    n = m.TensorProto(dims=[1, 2, 3])
    n.dims[-1] = 7
    return n


@scenario("repeated/item assign past end")
def _(m: Any) -> Any:
    n = m.TensorProto(dims=[1])
    n.dims[3] = 7


@scenario("repeated/delete slice step")
def _(m: Any) -> Any:
    n = node5(m)
    del n.input[::2]
    return n


@scenario("repeated/delete negative composite")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "ABC"])
    del g.node[-2]
    return g


@scenario("repeated/delete slice composite")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "ABCD"])
    del g.node[1:]
    return g


@scenario("repeated/delete past end")
def _(m: Any) -> Any:
    n = node5(m)
    del n.input[9]


@scenario("repeated/insert negative")
def _(m: Any) -> Any:
    n = node5(m)
    n.input.insert(-1, "z")
    n.input.insert(-100, "first")
    n.input.insert(100, "last")
    return n


@scenario("repeated/insert composite negative")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "AB"])
    g.node.insert(-1, m.NodeProto(op_type="Z"))
    return g


@scenario("repeated/remove missing")
def _(m: Any) -> Any:
    node5(m).input.remove("zz")


@scenario("repeated/remove first of equals")
def _(m: Any) -> Any:
    n = m.NodeProto(input=["a", "b", "a"])
    n.input.remove("a")
    return n


@scenario("repeated/remove composite by equal message")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "ABA"])
    g.node.remove(m.NodeProto(op_type="A"))
    return g


@scenario("repeated/sort scalars")
def _(m: Any) -> Any:
    t = m.TensorProto(dims=[3, -1, 2])
    t.dims.sort()
    return t


@scenario("repeated/sort reverse key")
def _(m: Any) -> Any:
    n = m.NodeProto(input=["bb", "a", "ccc"])
    n.input.sort(key=len, reverse=True)
    return n


@scenario("repeated/sort composite by key")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "CAB"])
    g.node.sort(key=lambda node: node.op_type)
    return g


@scenario("repeated/sort composite without key")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "CA"])
    g.node.sort()


@scenario("repeated/reverse composite")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "ABC"])
    g.node.reverse()
    return g


simple(
    "repeated/index and count",
    lambda m: (node5(m).input.index("c"), m.NodeProto(input=["a", "a"]).input.count("a")),
)
simple("repeated/index missing", lambda m: node5(m).input.index("zz"))
simple("repeated/contains", lambda m: ("b" in node5(m).input, "z" in node5(m).input))
simple("repeated/equals list", lambda m: node5(m).input == ["a", "b", "c", "d", "e"])
simple("repeated/equals tuple", lambda m: m.TensorProto(dims=[1, 2]).dims == (1, 2))
simple(
    "repeated/equals other container", lambda m: m.TensorProto(dims=[1]).dims == m.TensorProto(dims=[1]).dims
)
simple("repeated/composite equals list", lambda m: m.GraphProto(node=[m.NodeProto()]).node == [m.NodeProto()])
simple(
    "repeated/len and bool",
    lambda m: (len(m.NodeProto().input), bool(m.NodeProto().input), bool(node5(m).input)),
)
simple("repeated/plus list", lambda m: m.TensorProto(dims=[1]).dims + [2])  # noqa: RUF005
simple("repeated/times", lambda m: m.TensorProto(dims=[1]).dims * 2)


@scenario("repeated/extend generator")
def _(m: Any) -> Any:
    t = m.TensorProto()
    t.dims.extend(i * i for i in range(4))
    return t


@scenario("repeated/extend None")
def _(m: Any) -> Any:
    m.TensorProto().dims.extend(None)


@scenario("repeated/extend with a str")
def _(m: Any) -> Any:
    n = m.NodeProto()
    n.input.extend("ab")
    return n


@scenario("repeated/extend fails midway")
def _(m: Any) -> Any:
    t = m.TensorProto(dims=[9])
    with contextlib.suppress(TypeError):
        t.dims.extend([1, "x", 2])
    return t


@scenario("repeated/extend composite with dicts")
def _(m: Any) -> Any:
    g = m.GraphProto()
    g.node.extend([{"op_type": "A"}])
    return g


@scenario("repeated/iadd")
def _(m: Any) -> Any:
    n = m.NodeProto(input=["a"])
    n.input += ["b"]
    return n


@scenario("repeated/merge from container")
def _(m: Any) -> Any:
    n = m.NodeProto(input=["a"])
    n.input.MergeFrom(m.NodeProto(input=["b", "c"]).input)
    return n


simple("repeated/append None", lambda m: m.NodeProto().input.append(None))
simple("repeated/append float to ints", lambda m: m.TensorProto().dims.append(1.0))
simple("repeated/append bool to ints", lambda m: (lambda t: (t.dims.append(True), t)[1])(m.TensorProto()))
simple("repeated/append numpy int", lambda m: (lambda t: (t.dims.append(np.int64(5)), t)[1])(m.TensorProto()))
simple("repeated/append int to floats", lambda m: (lambda t: (t.float_data.append(2), t)[1])(m.TensorProto()))
simple("repeated/append str to floats", lambda m: m.TensorProto().float_data.append("1"))
simple(
    "repeated/append numpy float64 to floats",
    lambda m: (lambda t: (t.float_data.append(np.float64(0.1)), t)[1])(m.TensorProto()),
)
simple("repeated/append big to int32", lambda m: m.TensorProto().int32_data.append(2**31))
simple("repeated/append negative to uint64", lambda m: m.TensorProto().uint64_data.append(-1))
simple("repeated/append wrong message", lambda m: m.GraphProto().node.append(m.GraphProto()))
simple("repeated/add unknown keyword", lambda m: m.GraphProto().node.add(nope=1))


@scenario("repeated/add returns the element")
def _(m: Any) -> Any:
    g = m.GraphProto()
    node = g.node.add(op_type="A")
    node.name = "later"
    return g


@scenario("repeated/pop composite default")
def _(m: Any) -> Any:
    g = m.GraphProto(node=[m.NodeProto(op_type=t) for t in "AB"])
    popped = g.node.pop()
    return popped, g


simple("repeated/copy.copy", lambda m: copy.copy(node5(m).input))
simple("repeated/repr scalars", lambda m: repr(m.TensorProto(dims=[1, 2]).dims))
simple("repeated/repr strings", lambda m: repr(m.NodeProto(input=["a"]).input))
simple("repeated/hash", lambda m: hash(m.TensorProto(dims=[1]).dims))
simple("repeated/assign whole", lambda m: setattr(m.NodeProto(), "input", ["a"]))
simple("repeated/string_data takes str", lambda m: m.TensorProto(string_data=["a"]))


# -- scenarios: enums -------------------------------------------------------------------------


simple("enum/called", lambda m: m.TensorProto.DataType(1))
simple("enum/len", lambda m: len(m.TensorProto.DataType))
simple("enum/member attribute", lambda m: m.TensorProto.DataType.FLOAT16)
simple("enum/class attribute type", lambda m: type(m.TensorProto.FLOAT).__name__)
simple("enum/name negative", lambda m: m.TensorProto.DataType.Name(-1))
simple("enum/value lowercase", lambda m: m.TensorProto.DataType.Value("float"))
simple("enum/attribute type names", lambda m: m.AttributeProto.AttributeType.Name(0))
simple("enum/assign name", lambda m: m.AttributeProto(type="INTS"))
simple("enum/assign unknown name", lambda m: m.AttributeProto(type="NOPE"))
simple("enum/assign undeclared number", lambda m: m.TensorProto(data_type=1000))
simple("enum/assign float", lambda m: m.TensorProto(data_type=1.0))
simple("enum/assign numpy int", lambda m: m.TensorProto(data_type=np.int32(7)))
simple("enum/module level version", lambda m: (m.IR_VERSION, m.Version.Name(m.IR_VERSION)))
simple("enum/data location", lambda m: m.TensorProto(data_location=m.TensorProto.EXTERNAL))
simple("enum/items of a small enum", lambda m: m.TensorProto.DataLocation.items())


# -- scenarios: text format and JSON ----------------------------------------------------------


simple(
    "text/tiny and huge floats",
    lambda m: str(m.AttributeProto(floats=[1e-45, 3.4028235e38, 0.1, 1e-7, 123456789.0])),
)
simple("text/float specials", lambda m: str(m.AttributeProto(floats=[math.inf, -math.inf, math.nan, -0.0])))
simple("text/float beyond float32", lambda m: str(m.AttributeProto(f=1e39)))
simple("text/doubles", lambda m: str(m.TensorProto(double_data=[1e308, 5e-324, -0.0, math.nan, 1 / 3])))
simple("text/all bytes", lambda m: str(m.TensorProto(raw_data=bytes(range(256)))))
simple("text/unicode name", lambda m: str(m.NodeProto(name="é✓😀")))
simple("text/control characters", lambda m: str(m.NodeProto(name="\x00\x1f\x7f\"\\'\n\t\r")))
simple("text/string_data bytes", lambda m: str(m.TensorProto(string_data=[b"\x00\xff", "é".encode()])))
simple("text/int extremes", lambda m: str(m.TensorProto(dims=[-(2**63), 2**63 - 1], uint64_data=[2**64 - 1])))
simple(
    "text/nested indentation",
    lambda m: str(
        m.ModelProto(graph={"node": [{"op_type": "A", "attribute": [{"name": "t", "t": {"dims": [1]}}]}]})
    ),
)
simple("text/enum names", lambda m: str(m.AttributeProto(type=m.AttributeProto.GRAPHS, name="g")))
simple("text/unknown fields", lambda m: str(m.NodeProto.FromString(b"\x1a\x01n\xa8\x1f\x05\xb2\x1f\x02hi")))
simple("text/via MessageToString", lambda m: m.text(m.OperatorSetIdProto(domain="d", version=3)))
simple(
    "parse/float specials",
    lambda m: m.parse(m.AttributeProto, "floats: inf floats: -inf floats: nan floats: -0"),
)
simple("parse/float overflow", lambda m: m.parse(m.AttributeProto, "f: 1e400"))
simple("parse/string escapes", lambda m: m.parse(m.NodeProto, r'name: "\x41\101\t\"" doc_string: "\u00e9"'))
simple("parse/adjacent strings", lambda m: m.parse(m.NodeProto, "name: 'a' \"b\""))
simple("parse/enum by number", lambda m: m.parse(m.TensorProto, "data_type: 10"))
simple("parse/enum unknown number", lambda m: m.parse(m.TensorProto, "data_type: 1000"))
simple("parse/list syntax", lambda m: m.parse(m.TensorProto, "dims: [1, 2] dims: 3"))
simple("parse/angle brackets", lambda m: m.parse(m.ModelProto, "graph < name: 'g' >"))
simple("parse/hex and octal ints", lambda m: m.parse(m.TensorProto, "dims: 0x10 dims: -0x1 dims: 010"))
simple("parse/unknown field", lambda m: m.parse(m.NodeProto, "nope: 1"))
simple("parse/singular twice", lambda m: m.parse(m.NodeProto, "name: 'a' name: 'b'"))
simple("parse/comments", lambda m: m.parse(m.NodeProto, "# c\nname: 'a' # d\n"))
simple("json/float specials", lambda m: m.to_json(m.AttributeProto(floats=[math.inf, math.nan, -0.0])))
simple("json/int64 as strings", lambda m: m.to_json(m.TensorProto(dims=[2**40], raw_data=b"\x01\xff")))
simple(
    "json/parse camel and snake", lambda m: m.from_json(m.TensorProto, '{"dataType": 1, "raw_data": "AQI="}')
)
simple("json/parse enum name", lambda m: m.from_json(m.TensorProto, '{"dataType": "FLOAT16"}'))
simple("json/parse unknown field", lambda m: m.from_json(m.NodeProto, '{"nope": 1}'))


# -- scenarios: pickling and copying ----------------------------------------------------------


simple("pickle/round trip", lambda m: pickle.loads(pickle.dumps(m.NodeProto(name="n", input=["a"]))))
simple(
    "pickle/protocol 0",
    lambda m: pickle.loads(pickle.dumps(m.TensorProto(dims=[2], raw_data=b"\x00\x01"), 0)),
)
simple(
    "pickle/decoded view",
    lambda m: pickle.loads(
        pickle.dumps(m.TensorProto.FromString(bytes(m.TensorProto(raw_data=b"abc").SerializeToString())))
    ),
)
simple("pickle/container", lambda m: pickle.loads(pickle.dumps(node5(m).input)))
simple(
    "pickle/unknown fields kept",
    lambda m: pickle.loads(pickle.dumps(m.NodeProto.FromString(b"\xa8\x1f\x05"))),
)
simple("deepcopy/message", lambda m: copy.deepcopy(m.ModelProto(graph={"name": "g"})))


@scenario("deepcopy/shared message twice")
def _(m: Any) -> Any:
    n = m.NodeProto(name="n")
    pair = copy.deepcopy([n, n])
    return pair[0] is pair[1], pair[0] is n


@scenario("deepcopy/unset child")
def _(m: Any) -> Any:
    model = m.ModelProto()
    clone = copy.deepcopy(model.graph)
    clone.name = "x"
    return model.HasField("graph"), clone


@scenario("copy/of unset child")
def _(m: Any) -> Any:
    model = m.ModelProto()
    clone = copy.copy(model.graph)
    clone.name = "x"
    return model.HasField("graph"), clone


# -- scenarios: equality and hashing ----------------------------------------------------------


simple("eq/None", lambda m: (m.NodeProto() == None, m.NodeProto() != None))  # noqa: E711
simple("eq/int and str", lambda m: (m.NodeProto() == 1, m.NodeProto() == ""))
simple("eq/other message type", lambda m: m.NodeProto() == m.GraphProto())
simple("eq/explicit default", lambda m: m.NodeProto(name="") == m.NodeProto())
simple("eq/unset vs empty child", lambda m: m.ModelProto() == m.ModelProto(graph=m.GraphProto()))
simple(
    "eq/decoded vs built",
    lambda m: m.NodeProto.FromString(m.NodeProto(name="a").SerializeToString()) == m.NodeProto(name="a"),
)
simple("eq/unknown fields", lambda m: m.NodeProto.FromString(b"\xa8\x1f\x05") == m.NodeProto())
simple("eq/repeated order", lambda m: m.NodeProto(input=["a", "b"]) == m.NodeProto(input=["b", "a"]))
simple("eq/float rounding", lambda m: m.AttributeProto(f=0.1) == m.AttributeProto(f=0.10000000149011612))
simple("hash/message", lambda m: hash(m.NodeProto()))
simple("hash/in a set", lambda m: {m.NodeProto()})
simple("bool/empty message", lambda m: bool(m.NodeProto()))


# -- scenarios: unknown fields, sizes, initialization -----------------------------------------


simple("size/empty", lambda m: m.NodeProto().ByteSize())
simple("size/big varint", lambda m: m.TensorProto(dims=[-1]).ByteSize())
simple(
    "size/after change", lambda m: (lambda n: (n.input.append("abc"), n.ByteSize())[1])(m.NodeProto(name="n"))
)
simple("size/unset child read", lambda m: (lambda x: (x.graph.name, x.ByteSize())[1])(m.ModelProto()))
simple("size/unknown fields count", lambda m: m.NodeProto.FromString(b"\x1a\x01n\xa8\x1f\x05").ByteSize())
simple("unknown/count", lambda m: len(m.NodeProto.FromString(b"\xa8\x1f\x05\xb0\x1f\x06").UnknownFields()))


@scenario("unknown/kept last after a change")
def _(m: Any) -> Any:
    n = m.NodeProto.FromString(b"\xa8\x1f\x05\x1a\x01n")
    n.op_type = "Relu"
    return n.SerializeToString()


@scenario("unknown/discard in repeated children")
def _(m: Any) -> Any:
    inner = b"\x1a\x01n\xa8\x1f\x05"
    g = m.GraphProto.FromString(b"\x0a" + bytes([len(inner)]) + inner + b"\xa8\x1f\x07")
    g.DiscardUnknownFields()
    return g


@scenario("unknown/merged from another message")
def _(m: Any) -> Any:
    a = m.NodeProto(name="a")
    a.MergeFrom(m.NodeProto.FromString(b"\xa8\x1f\x05"))
    return a.SerializeToString()


@scenario("unknown/cleared by Clear")
def _(m: Any) -> Any:
    n = m.NodeProto.FromString(b"\xa8\x1f\x05")
    n.Clear()
    return n.SerializeToString()


@scenario("unknown/wrong wire type for a known field")
def _(m: Any) -> Any:
    n = m.NodeProto.FromString(b"\x18\x05\x1a\x01n")  # field 3 (name) as a varint
    return n.name, n.SerializeToString()


simple("init/empty", lambda m: (m.ModelProto().IsInitialized(), m.ModelProto().FindInitializationErrors()))
simple("serialize/partial of empty child", lambda m: m.ModelProto().graph.SerializePartialToString())
simple(
    "serialize/deterministic keyword", lambda m: m.NodeProto(name="a").SerializeToString(deterministic=True)
)
simple("fromstring/detached class", lambda m: type(m.ModelProto().graph).FromString(b"\x12\x01g"))


# -- scenarios: onnx.helper -------------------------------------------------------------------


simple(
    "helper/node attrs of every kind",
    lambda m: m.helper.make_node(
        "Op", ["x"], ["y"], f=1.5, i=2, s="str", b=b"\x00", ints=[1, 2], floats=[1.0], strings=["a", b"b"]
    ),
)
simple(
    "helper/node attribute tensor and graph",
    lambda m: m.helper.make_node(
        "If",
        ["c"],
        ["y"],
        then_branch=m.helper.make_graph([], "t", [], []),
        t=m.helper.make_tensor("t", 1, [1], [1.0]),
    ),
)
simple("helper/node none attribute skipped", lambda m: m.helper.make_node("Op", [], [], alpha=None))
simple(
    "helper/node domain and name",
    lambda m: m.helper.make_node("Op", ["a"], ["b"], name="n", domain="com.x", doc_string="d"),
)
simple("helper/attribute empty list", lambda m: m.helper.make_attribute("a", []))
simple(
    "helper/attribute empty list typed",
    lambda m: m.helper.make_attribute("a", [], attr_type=m.AttributeProto.FLOATS),
)
simple("helper/attribute mixed ints and floats", lambda m: m.helper.make_attribute("a", [1, 2.5]))
simple("helper/attribute bool", lambda m: m.helper.make_attribute("a", True))
simple("helper/attribute numpy float32", lambda m: m.helper.make_attribute("a", np.float32(0.25)))
simple(
    "helper/attribute numpy int array",
    lambda m: m.helper.make_attribute("a", np.array([1, 2], dtype=np.int64)),
)
simple(
    "helper/attribute type protos",
    lambda m: m.helper.make_attribute("a", [m.helper.make_tensor_type_proto(1, [2])]),
)
simple(
    "helper/attribute value of each",
    lambda m: [
        m.helper.get_attribute_value(a)
        for a in m.helper.make_node("Op", [], [], f=1.5, s="x", ints=[3]).attribute
    ],
)
simple(
    "helper/tensor raw",
    lambda m: m.helper.make_tensor(
        "t", m.TensorProto.INT16, [2], np.array([1, -2], dtype=np.int16).tobytes(), raw=True
    ),
)
simple(
    "helper/tensor float16",
    lambda m: m.helper.make_tensor("t", m.TensorProto.FLOAT16, [3], [1.0, 0.1, 65504.0]),
)
simple(
    "helper/tensor complex64",
    lambda m: m.helper.make_tensor("t", m.TensorProto.COMPLEX64, [2], [1 + 2j, -1j]),
)
simple("helper/tensor bool", lambda m: m.helper.make_tensor("t", m.TensorProto.BOOL, [3], [True, False, 1]))
simple(
    "helper/tensor uint64 big", lambda m: m.helper.make_tensor("t", m.TensorProto.UINT64, [1], [2**64 - 1])
)
simple("helper/tensor wrong count", lambda m: m.helper.make_tensor("t", m.TensorProto.FLOAT, [3], [1.0]))
simple("helper/tensor string", lambda m: m.helper.make_tensor("t", m.TensorProto.STRING, [2], ["a", b"b"]))
simple(
    "helper/value info symbolic",
    lambda m: m.helper.make_tensor_value_info("x", 1, ["N", None, 3], shape_denotation=["B", "", "C"]),
)
simple("helper/value info no shape", lambda m: m.helper.make_tensor_value_info("x", 1, None))
simple(
    "helper/sparse tensor",
    lambda m: m.helper.make_sparse_tensor(
        m.helper.make_tensor("v", 1, [2], [1.0, 2.0]), m.helper.make_tensor("i", 7, [2], [0, 3]), [4]
    ),
)
simple(
    "helper/sequence",
    lambda m: m.helper.make_sequence("s", m.SequenceProto.TENSOR, [m.helper.make_tensor("a", 1, [1], [1.0])]),
)
simple("helper/optional empty", lambda m: m.helper.make_optional("o", m.OptionalProto.UNDEFINED, None))
simple("helper/opsetid", lambda m: m.helper.make_opsetid("ai.onnx.ml", 3))
simple(
    "helper/model with opsets",
    lambda m: m.helper.make_model(
        m.helper.make_graph([], "g", [], []),
        opset_imports=[m.helper.make_opsetid("", 13)],
        ir_version=7,
        producer_name="p",
    ),
)
simple(
    "helper/model unknown keyword",
    lambda m: m.helper.make_model(m.helper.make_graph([], "g", [], []), opset_imports=[], nope=1),
)


@scenario("helper/set model props")
def _(m: Any) -> Any:
    model = m.ModelProto(ir_version=7)
    m.helper.set_model_props(model, {"b": "2", "a": "1"})
    return model


@scenario("helper/strip doc string")
def _(m: Any) -> Any:
    g = m.GraphProto(
        doc_string="g",
        node=[m.NodeProto(doc_string="n", attribute=[m.AttributeProto(name="a", doc_string="x")])],
    )
    m.helper.strip_doc_string(g)
    return g


simple(
    "helper/function",
    lambda m: m.helper.make_function(
        "d",
        "f",
        ["x"],
        ["y"],
        [m.helper.make_node("Relu", ["x"], ["y"])],
        [m.helper.make_opsetid("", 18)],
        attributes=["alpha"],
    ),
)
simple("helper/min ir version", lambda m: m.helper.find_min_ir_version_for([m.helper.make_opsetid("", 13)]))
simple("helper/dtype to numpy", lambda m: [m.helper.tensor_dtype_to_np_dtype(d) for d in (1, 10, 7, 9)])
simple(
    "helper/numpy to dtype",
    lambda m: [m.helper.np_dtype_to_tensor_dtype(np.dtype(d)) for d in ("int8", "float64", "bool", "uint32")],
)
simple(
    "helper/printable node",
    lambda m: m.helper.printable_node(m.helper.make_node("Add", ["a", "b"], ["c"], alpha=1.0)),
)
simple(
    "helper/printable value info",
    lambda m: m.helper.printable_value_info(m.helper.make_tensor_value_info("x", 1, ["N", 3])),
)


# -- scenarios: onnx.numpy_helper -------------------------------------------------------------


def round_trip(dtype: Any, values: Any) -> Scenario:
    def run(m: Any) -> Any:
        tensor = m.numpy_helper.from_array(np.array(values, dtype=dtype), "t")
        return tensor, m.numpy_helper.to_array(tensor)

    return run


simple("numpy/bool", round_trip(np.bool_, [True, False]))
simple("numpy/int8 extremes", round_trip(np.int8, [-128, 127]))
simple("numpy/uint16", round_trip(np.uint16, [0, 65535]))
simple("numpy/int64 empty", round_trip(np.int64, np.zeros((0, 3))))
simple("numpy/float16 specials", round_trip(np.float16, [np.inf, -0.0, 6e-8]))
simple("numpy/complex128", round_trip(np.complex128, [1 + 2j, -0.0j]))
simple("numpy/float64 nan and zero", round_trip(np.float64, [np.nan, -0.0]))
simple("numpy/uint64 max", round_trip(np.uint64, [2**64 - 1]))
simple("numpy/big endian", round_trip(">i4", [1, -2]))
simple("numpy/scalar", round_trip(np.float32, 3.5))
simple("numpy/transposed", lambda m: m.numpy_helper.from_array(np.arange(6, dtype=np.int32).reshape(2, 3).T))
simple("numpy/object strings", round_trip(object, ["a", "é", ""]))
simple("numpy/unicode dtype", lambda m: m.numpy_helper.from_array(np.array(["ab", "c"])))
simple("numpy/bytes dtype", lambda m: m.numpy_helper.from_array(np.array([b"ab", b"c"])))
simple(
    "numpy/to list",
    lambda m: m.numpy_helper.to_list(m.numpy_helper.from_list([np.array([1.0], dtype=np.float32)], "s")),
)
simple(
    "numpy/dict round trip",
    lambda m: m.numpy_helper.to_dict(m.numpy_helper.from_dict({1: np.array([2.0], dtype=np.float32)}, "d")),
)
simple(
    "numpy/optional round trip",
    lambda m: m.numpy_helper.to_optional(m.numpy_helper.from_optional(np.array([1], dtype=np.int64), "o")),
)
simple(
    "numpy/raw little endian int32",
    lambda m: m.numpy_helper.to_array(
        m.TensorProto(data_type=6, dims=[2], raw_data=b"\x01\x00\x00\x00\xff\xff\xff\xff")
    ),
)
simple(
    "numpy/raw wrong size",
    lambda m: m.numpy_helper.to_array(m.TensorProto(data_type=6, dims=[2], raw_data=b"\x01\x00")),
)


# -- scenarios: map-like fields (key/value entry lists) and small element types -------------


@scenario("map/metadata props by helper")
def _(m: Any) -> Any:
    model = m.ModelProto(metadata_props=[m.StringStringEntryProto(key="a", value="0")])
    m.helper.set_metadata_props(model, {"z": "1", "a": "2"})
    return model


@scenario("map/duplicate keys kept in order")
def _(m: Any) -> Any:
    model = m.ModelProto()
    for key, value in (("k", "1"), ("k", "2")):
        model.metadata_props.add(key=key, value=value)
    return model, {entry.key: entry.value for entry in model.metadata_props}


simple(
    "map/external data entries",
    lambda m: [
        (e.key, e.value)
        for e in m.TensorProto(external_data=[{"key": "location", "value": "w.bin"}]).external_data
    ],
)
simple("map/entry missing value", lambda m: m.StringStringEntryProto(key="k").HasField("value"))
simple(
    "map/map proto",
    lambda m: m.helper.make_map(
        "m", m.TensorProto.INT64, [1, 2], m.helper.make_sequence("v", m.SequenceProto.TENSOR, [])
    ),
)


def small_type(code: str, values: list[float]) -> Scenario:
    def run(m: Any) -> Any:
        tensor = m.helper.make_tensor("t", getattr(m.TensorProto, code), [len(values)], values)
        return tensor, m.numpy_helper.to_array(tensor).astype(np.float32)

    return run


simple("small/bfloat16", small_type("BFLOAT16", [1.0, -3.14159, 1e38]))
simple("small/float8e4m3fn", small_type("FLOAT8E4M3FN", [0.5, 448.0, -2.0]))
simple("small/float8e5m2", small_type("FLOAT8E5M2", [1.0, 57344.0]))
simple("small/int4", small_type("INT4", [-8, 7, 1]))
simple("small/uint4", small_type("UINT4", [0, 15, 3]))
simple("small/float4e2m1", small_type("FLOAT4E2M1", [0.5, -6.0, 1.5]))


# -- the deliberate differences (docs/coming-from-onnx.md, "Where the classes deliberately differ") --

Outcome = tuple[str, Any, list[str]]


def returns(mine: Outcome) -> bool:
    return mine[0] == "value"


def raises(cls: type[Exception]) -> Callable[[Outcome], bool]:
    return lambda mine: mine[0] == "raises" and issubclass(mine[1], cls)


# name -> (why, what ours does instead)
DIFFERENT: dict[str, tuple[str, Callable[[Outcome], bool]]] = {
    # wirecodec imports no protobuf: its errors cannot derive from protobuf's own classes.
    "parse/truncated": (
        "DecodeError is wirecodec's (a ValueError), not protobuf's",
        raises(wirecodec.DecodeError),
    ),
    "parse/unknown field": ("ParseError is wirecodec's (a ValueError)", raises(wirecodec.ParseError)),
    "parse/singular twice": ("ParseError is wirecodec's (a ValueError)", raises(wirecodec.ParseError)),
    "json/parse unknown field": ("ParseError is wirecodec's (a ValueError)", raises(wirecodec.ParseError)),
    "json/parse enum name": ("ParseError is wirecodec's (a ValueError)", raises(wirecodec.ParseError)),
    # Enums are IntEnums: protobuf's wrapper is neither callable nor sized.
    "enum/called": ("an IntEnum is callable", returns),
    "enum/len": ("an IntEnum has a length", returns),
    # Repeated fields are list subclasses: list's reading methods work (protobuf's lack them).
    "repeated/index and count": ("a container is a list", returns),
    "repeated/index missing": ("a container is a list: list.index's ValueError", raises(ValueError)),
    "repeated/plus list": ("a container is a list: + gives a plain list", returns),
    "repeated/times": ("a container is a list: * gives a plain list", returns),
    "repeated/copy.copy": ("a copy of a container is a plain list (protobuf refuses)", returns),
    "pickle/container": ("a container pickles as a plain list (protobuf refuses)", returns),
    # Assigning a list to a repeated field is allowed here (it copies); += assigns.
    "repeated/assign whole": ("assigning a list to a repeated field copies it", returns),
    "repeated/iadd": ("+= on a repeated field extends it", returns),
    # A str is refused where a list is expected: protobuf would split it into characters.
    "repeated/extend with a str": ("extend('ab') is refused, not split", raises(TypeError)),
    # UnknownFields() gives the raw records; upb's raises NotImplementedError.
    "unknown/count": ("UnknownFields() is implemented", returns),
    # onnx 1.23's strip_doc_string reads a FieldDescriptor.label upb no longer has.
    "helper/strip doc string": ("strip_doc_string works", returns),
    # from_array takes what onnx refuses.
    "numpy/big endian": ("from_array takes big-endian arrays", returns),
    "numpy/bytes dtype": ("from_array takes numpy bytes arrays (as STRING)", returns),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_as_onnx(name: str) -> None:
    theirs, mine = outcome(SCENARIOS[name], ONNX), outcome(SCENARIOS[name], OURS)
    if name in DIFFERENT:
        why, instead = DIFFERENT[name]
        assert not agree(theirs, mine), f"now identical: move {name!r} out of DIFFERENT"
        assert instead(mine), f"{why}; ours: {mine}"
    else:
        assert agree(theirs, mine), f"onnx: {theirs}\nours: {mine}"


def test_the_probe_is_large_enough() -> None:
    assert len(SCENARIOS) >= 100
    assert set(DIFFERENT) <= set(SCENARIOS)
