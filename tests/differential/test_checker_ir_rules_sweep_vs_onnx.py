"""The checker's IR rules over their edges, against ``onnx.checker`` (and, where onnx's
checker has no opinion, against onnx.proto's words).

Three sweeps, each a full product of the edges of one family of rules:

* **types**: every kind of ``TypeProto`` (tensor, sparse tensor, sequence, optional, map,
  opaque), each with every required part present or missing (element type, shape, key
  and value types), put in every place a value is declared (a main-graph input, a
  main-graph output, a ``value_info``, a subgraph's input): one verdict, onnx's;
* **IR versions**: every IR version from 1 to the newest, each with and without
  ``opset_import``, an initializer that is or is not a graph input, an attribute with and
  without a type: one verdict, onnx's;
* **attributes**: every attribute type, carrying its own field, another type's field or
  none, as a plain attribute or a reference (``ref_attr_name``) in a function body, the
  main graph or a nested graph: onnx's verdict where it refuses; onnx.proto's rules (a
  reference is used only in a function, names one of its attributes and carries no data)
  where onnx's checker does not look (it checks no function body's references).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="the sweep compares against onnx.checker")

from onnx import AttributeProto, TensorProto, TypeProto, helper  # noqa: E402

import wirecodec  # noqa: E402
from wirecodec.checker import violations  # noqa: E402

F = TensorProto.FLOAT


def _ours(model: Any) -> list[str]:
    """wirecodec's IR rules (no operator schemas) on ``model``'s bytes: the rules found."""
    return sorted({v.rule for v in violations(wirecodec.load(model.SerializeToString()), ir_only=True)})


def _onnx_refuses(model: Any) -> str | None:
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as exc:
        return str(exc).splitlines()[0]
    return None


# -- types -----------------------------------------------------------------------------------


def _tensor(which: str, elem: bool, shape: bool) -> TypeProto:
    t = TypeProto()
    holder = getattr(t, which)
    holder.SetInParent()
    if elem:
        holder.elem_type = F
    if shape:
        holder.shape.dim.add().dim_value = 2
    return t


def _wrapped(which: str, inner: bool) -> TypeProto:
    t = TypeProto()
    holder = getattr(t, which)
    holder.SetInParent()
    if inner:
        holder.elem_type.CopyFrom(_tensor("tensor_type", True, True))
    return t


def _map(key: int | None, value: bool) -> TypeProto:
    t = TypeProto()
    t.map_type.SetInParent()
    if key is not None:
        t.map_type.key_type = key
    if value:
        t.map_type.value_type.CopyFrom(_tensor("tensor_type", True, True))
    return t


def _opaque(name: str) -> TypeProto:
    t = TypeProto()
    t.opaque_type.SetInParent()
    t.opaque_type.name = name
    return t


_TYPES: dict[str, Callable[[], TypeProto]] = {}
for _which in ("tensor_type", "sparse_tensor_type"):
    for _elem, _shape in itertools.product((True, False), repeat=2):
        _TYPES[f"{_which}-elem{int(_elem)}-shape{int(_shape)}"] = lambda w=_which, e=_elem, s=_shape: _tensor(
            w, e, s
        )
for _which in ("sequence_type", "optional_type"):
    for _inner in (True, False):
        _TYPES[f"{_which}-elem{int(_inner)}"] = lambda w=_which, i=_inner: _wrapped(w, i)
for _key, _value in itertools.product((TensorProto.INT64, TensorProto.STRING, None), (True, False)):
    _TYPES[f"map-key{_key}-value{int(_value)}"] = lambda k=_key, v=_value: _map(k, v)
_TYPES["opaque-named"] = lambda: _opaque("thing")
_TYPES["empty"] = TypeProto

_PLACES = ("main-input", "main-output", "value-info", "subgraph-input")


def _typed_model(place: str, type_proto: TypeProto) -> Any:
    x = helper.make_tensor_value_info("x", F, [2])
    y = helper.make_tensor_value_info("y", F, [2])
    value = onnx.ValueInfoProto(name="v")
    value.type.CopyFrom(type_proto)
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    inputs, outputs, infos = [x], [y], []
    if place == "main-input":
        inputs.append(value)
    elif place == "main-output":
        value.name = "x"  # the graph input passed on: defined, whatever its declared type
        outputs.append(value)
    elif place == "value-info":
        value.name = "y"
        infos.append(value)
    else:  # a Loop body whose extra input carries the type (a body value, not the main graph's)
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond"], ["cond_out"])],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
             value],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), value],
        )  # fmt: skip
        nodes = [helper.make_node("Loop", ["", ""], [], body=body), *nodes]
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=infos)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("place", _PLACES)
def test_every_type_kind_with_every_part_missing_gets_onnx_verdict(place: str) -> None:
    disagreements = []
    for label, make in _TYPES.items():
        model = _typed_model(place, make())
        onnx_says, ours = _onnx_refuses(model), _ours(model)
        if place == "value-info":
            # onnx's checker reads no value_info type; onnx.proto's TypeProto says what a
            # complete one holds (an element type; a map's key and value types)
            refused = any(part in label for part in ("elem0", "keyNone", "value0"))
            if bool(ours) != refused or onnx_says is not None:
                disagreements.append((label, onnx_says, ours))
        elif (onnx_says is None) != (not ours):
            disagreements.append((label, onnx_says, ours))
    assert disagreements == []


# -- IR versions -----------------------------------------------------------------------------


def _ir_model(ir: int, imports: bool, initializer_is_input: bool, typed_attribute: bool) -> Any:
    x = helper.make_tensor_value_info("x", F, [2])
    y = helper.make_tensor_value_info("y", F, [2])
    w = helper.make_tensor("w", F, [2], [1.0, 2.0])
    node = helper.make_node("Add", ["x", "w"], ["y"])
    attribute = node.attribute.add()
    attribute.name = "note"  # an attribute Add does not have: only the IR rules read it (ir_only)
    attribute.i = 1
    if typed_attribute:
        attribute.type = AttributeProto.INT
    inputs = [x, helper.make_tensor_value_info("w", F, [2])] if initializer_is_input else [x]
    graph = helper.make_graph([node], "g", inputs, [y], initializer=[w])
    model = helper.make_model(graph, ir_version=ir, opset_imports=[helper.make_opsetid("", 7)])
    if not imports:
        del model.opset_import[:]
    return model


@pytest.mark.parametrize("ir", range(1, onnx.IR_VERSION + 1))
def test_every_ir_version_with_imports_initializers_and_attribute_types_gets_onnx_verdict(ir: int) -> None:
    disagreements = []
    for imports, initializer_is_input, typed in itertools.product((True, False), repeat=3):
        model = _ir_model(ir, imports, initializer_is_input, typed)
        # onnx checks an attribute's type from IR 2 on, whatever the operator: asked alone
        bare = onnx.ModelProto.FromString(model.SerializeToString())
        bare.graph.node[0].op_type = "Identity"
        bare.graph.node[0].ClearField("input")
        bare.graph.node[0].input.append("x")
        onnx_says = _onnx_refuses(bare) if not typed else None
        if onnx_says is not None and "Unrecognized attribute" in onnx_says:
            onnx_says = None
        without = onnx.ModelProto.FromString(model.SerializeToString())
        del without.graph.node[0].attribute[:]
        onnx_says = onnx_says or _onnx_refuses(without)
        ours = _ours(model)
        if (onnx_says is None) != (not ours):
            disagreements.append((imports, initializer_is_input, typed, onnx_says, ours))
    assert disagreements == []


# -- attributes ------------------------------------------------------------------------------

_VALUES: dict[str, Callable[[AttributeProto], None]] = {
    "f": lambda a: setattr(a, "f", 1.5),
    "i": lambda a: setattr(a, "i", 3),
    "s": lambda a: setattr(a, "s", b"x"),
    "ints": lambda a: a.ints.extend([1, 2]),
    "floats": lambda a: a.floats.extend([1.0]),
    "t": lambda a: a.t.CopyFrom(helper.make_tensor("t", F, [1], [1.0])),
    "none": lambda a: None,
}
_TYPE_OF = {
    "f": AttributeProto.FLOAT,
    "i": AttributeProto.INT,
    "s": AttributeProto.STRING,
    "ints": AttributeProto.INTS,
    "floats": AttributeProto.FLOATS,
    "t": AttributeProto.TENSOR,
}


# Constant's attribute of each type (so that onnx's checker, which reads the schema, agrees)
_CONSTANT_NAMES = {"f": "value_float", "i": "value_int", "s": "value_string", "ints": "value_ints",
                   "floats": "value_floats", "t": "value"}  # fmt: skip


def _attribute(kind: str, value: str, reference: str) -> AttributeProto:
    a = AttributeProto(name=_CONSTANT_NAMES[kind])
    a.type = _TYPE_OF[kind]
    _VALUES[value](a)
    if reference:
        a.ref_attr_name = reference
    return a


def _function_model(attribute: AttributeProto) -> Any:
    body = helper.make_node("Constant", [], ["y"])
    body.attribute.append(attribute)
    function = helper.make_function(
        "local", "F", [], ["y"], [body], [helper.make_opsetid("", 21)], attributes=["v"]
    )
    call = helper.make_node("F", [], ["out"], domain="local")
    graph = helper.make_graph([call], "g", [], [helper.make_tensor_value_info("out", F, [1])])
    return helper.make_model(
        graph,
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("local", 1)],
        functions=[function],
    )


def _main_model(attribute: AttributeProto) -> Any:
    node = helper.make_node("Constant", [], ["y"])
    node.attribute.append(attribute)
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", F, [1])])
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


def _spec_says_refused(kind: str, value: str, reference: str, in_function: bool) -> bool:
    """onnx.proto's rules for one attribute: a value in exactly its type's field (a list may
    be empty), or, for a reference, no value at all, inside a function, naming one of its
    attributes."""
    if reference:
        return not in_function or reference != "v" or value != "none"
    if value == "none":
        return kind not in ("ints", "floats")
    return value != kind


@pytest.mark.parametrize("in_function", [True, False])
def test_every_attribute_type_value_and_reference_gets_the_spec_verdict(in_function: bool) -> None:
    disagreements = []
    for kind, value, reference in itertools.product(_TYPE_OF, _VALUES, ("", "v", "w")):
        attribute = _attribute(kind, value, reference)
        model = (_function_model if in_function else _main_model)(attribute)
        ours = _ours(model)
        expected = _spec_says_refused(kind, value, reference, in_function)
        onnx_says = _onnx_refuses(model)
        if bool(ours) != expected or (onnx_says is not None and not ours):
            disagreements.append((kind, value, reference, onnx_says, ours))
    assert disagreements == []
