"""What building the objects costs, beside upb's decode + walk: ``python bench/object_floor.py [MODEL]``.

The decode + full walk target (at most upb's time, issue 10) asks a pure-Python decoder to build
every message the walk reads. This measures the floor under that: the time to *build*
those objects alone (no bytes parsed: every value is taken beforehand from a decoded
model), with

* ``object.__setattr__`` on the schema's own classes: the store the generated decoders
  use today, since a message class checks user assignments in its ``__setattr__``;
* plain classes and ``STORE_ATTR``: what Python allows with no typed assignment at all;
* ``__slots__`` classes built through an unchecked twin and then given the checked class
  (``o.__class__ = ...``): the cheapest way found to keep typed assignment;

beside upb's decode + walk, wirecodec's decode + walk, and the walk alone over wirecodec's
objects, all in one process, best of ``--repeat`` runs each (the cyclic collector off
while building, as the decoders pause it). Input: ``bench/.cache/meta-100000`` by default
(``python bench/inputs.py meta-100000`` builds it).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import Any

import inputs
from child import walk_proto

# What the walk reads of one node: (name, op_type, domain, inputs, outputs, attributes),
# each attribute (name, type, the field holding its value, the value); of one value:
# (name, elem_type, dims), each dim ("dim_value" | "dim_param", value).
Node = tuple[str, str, str, list[str], list[str], list[tuple[str, int, str, Any]]]
Value = tuple[str, int, list[tuple[str, Any]]]

_VALUE_FIELDS = {1: "f", 2: "i", 3: "s", 4: "t", 5: "g", 6: "floats", 7: "ints", 8: "strings"}
_SPAN = 1 << 90  # a span-sized int, as every decoded message holds one


def extract(model: Any) -> tuple[list[Node], list[Value]]:
    """The values the walk reads, as plain tuples (not timed)."""
    nodes: list[Node] = []
    for node in model.graph.node:
        attributes = []
        for a in node.attribute:
            field = _VALUE_FIELDS[a.type]
            value = getattr(a, field)
            attributes.append((a.name, a.type, field, list(value) if field in ("floats", "ints") else value))
        nodes.append((node.name, node.op_type, node.domain, list(node.input), list(node.output), attributes))
    values: list[Value] = []
    for group in (model.graph.input, model.graph.value_info, model.graph.output):
        for v in group:
            t = v.type.tensor_type
            dims = [(d.WhichOneof("value"), getattr(d, d.WhichOneof("value"))) for d in t.shape.dim]
            values.append((v.name, t.elem_type, dims))
    return nodes, values


def build_schema_classes(nodes: list[Node], values: list[Value]) -> list[Any]:
    """Today's store: the schema's classes, every field stored with ``object.__setattr__``."""
    from schema_dsl.containers import container_class
    from schema_dsl.onnx import (
        AttributeProto,
        NodeProto,
        TensorShapeProto,
        TypeProto,
        ValueInfoProto,
    )

    new, osa, newlist, extend = object.__new__, object.__setattr__, list.__new__, list.extend
    append = list.append  # as the decoders fill containers: no per-element check or copy
    dim_cls, tensor_cls, shape_cls = TensorShapeProto.Dimension, TypeProto.Tensor, TensorShapeProto
    spec = {f.name: f for f in NodeProto.__schema__.fields}
    input_list, output_list = container_class(spec["input"]), container_class(spec["output"])
    attribute_list = container_class(spec["attribute"])
    dim_list = container_class({f.name: f for f in shape_cls.__schema__.fields}["dim"])
    built: list[Any] = []
    for name, op_type, domain, ins, outs, attributes in nodes:
        o = new(NodeProto)
        osa(o, "_span", _SPAN)
        r = newlist(input_list)
        r._span = _SPAN
        extend(r, ins)
        osa(o, "input", r)
        r = newlist(output_list)
        r._span = _SPAN
        extend(r, outs)
        osa(o, "output", r)
        osa(o, "name", name)
        osa(o, "op_type", op_type)
        r = newlist(attribute_list)
        r._span = _SPAN
        for a_name, a_type, field, value in attributes:
            a = new(AttributeProto)
            osa(a, "_span", _SPAN)
            osa(a, "name", a_name)
            osa(a, field, value)
            osa(a, "type", a_type)
            append(r, a)
        osa(o, "attribute", r)
        if domain:
            osa(o, "domain", domain)
        built.append(o)
    for name, elem_type, dims in values:
        r = newlist(dim_list)
        r._span = _SPAN
        for field, value in dims:
            d = new(dim_cls)
            osa(d, "_span", _SPAN)
            osa(d, field, value)
            append(r, d)
        s = new(shape_cls)
        osa(s, "_span", _SPAN)
        osa(s, "dim", r)
        t = new(tensor_cls)
        osa(t, "_span", _SPAN)
        osa(t, "elem_type", elem_type)
        osa(t, "shape", s)
        ty = new(TypeProto)
        osa(ty, "_span", _SPAN)
        osa(ty, "tensor_type", t)
        v = new(ValueInfoProto)
        osa(v, "_span", _SPAN)
        osa(v, "name", name)
        osa(v, "type", ty)
        built.append(v)
    return built


class _Plain:
    """A message with no typed assignment: every store is a plain ``STORE_ATTR``."""


# Per message: (the class objects are built as, the class they are given at the end or None).
Classes = dict[str, tuple[type, type | None]]


def _slotted(fields: tuple[str, ...]) -> tuple[type, type]:
    """An unchecked class and a checked one with the same slots (``__class__`` can move between them)."""

    def refuse(self: Any, name: str, value: Any) -> None:
        raise TypeError("checked assignment")

    raw = type("Raw", (), {"__slots__": fields})
    checked = type("Checked", (), {"__slots__": fields, "__setattr__": refuse})
    return raw, checked


_MESSAGES = ("node", "attribute", "dim", "shape", "tensor", "type", "value")
PLAIN: Classes = dict.fromkeys(_MESSAGES, (_Plain, None))
SLOTS_TWIN: Classes = {
    "node": _slotted(("_span", "input", "output", "name", "op_type", "attribute", "domain")),
    "attribute": _slotted(("_span", "name", "type", *_VALUE_FIELDS.values())),
    "dim": _slotted(("_span", "dim_value", "dim_param")),
    "shape": _slotted(("_span", "dim")),
    "tensor": _slotted(("_span", "elem_type", "shape")),
    "type": _slotted(("_span", "tensor_type")),
    "value": _slotted(("_span", "name", "type")),
}


def build_unchecked(nodes: list[Node], values: list[Value], classes: Classes) -> list[Any]:
    """The same objects and stores with plain ``STORE_ATTR``, on classes without a ``__setattr__``
    of their own, each then given its final class where ``classes`` names one."""
    new = object.__new__
    raw_node, node_cls = classes["node"]
    raw_attribute, attribute_cls = classes["attribute"]
    raw_dim, dim_cls = classes["dim"]
    raw_shape, shape_cls = classes["shape"]
    raw_tensor, tensor_cls = classes["tensor"]
    raw_type, type_cls = classes["type"]
    raw_value, value_cls = classes["value"]
    built: list[Any] = []
    for name, op_type, domain, ins, outs, attributes in nodes:
        o = new(raw_node)
        o._span = _SPAN
        o.input = list(ins)
        o.output = list(outs)
        o.name = name
        o.op_type = op_type
        r = []
        for a_name, a_type, field, value in attributes:
            a = new(raw_attribute)
            a._span = _SPAN
            a.name = a_name
            setattr(a, field, value)
            a.type = a_type
            if attribute_cls is not None:
                a.__class__ = attribute_cls
            r.append(a)
        o.attribute = r
        if domain:
            o.domain = domain
        if node_cls is not None:
            o.__class__ = node_cls
        built.append(o)
    for name, elem_type, dims in values:
        r = []
        for field, value in dims:
            d = new(raw_dim)
            d._span = _SPAN
            setattr(d, field, value)
            if dim_cls is not None:
                d.__class__ = dim_cls
            r.append(d)
        s = new(raw_shape)
        s._span = _SPAN
        s.dim = r
        t = new(raw_tensor)
        t._span = _SPAN
        t.elem_type = elem_type
        t.shape = s
        ty = new(raw_type)
        ty._span = _SPAN
        ty.tensor_type = t
        v = new(raw_value)
        v._span = _SPAN
        v.name = name
        v.type = ty
        if value_cls is not None:
            for obj, cls in ((s, shape_cls), (t, tensor_cls), (ty, type_cls), (v, value_cls)):
                obj.__class__ = cls
        built.append(v)
    return built


def best(repeat: int, step: Callable[[], Any]) -> float:
    """The fastest of ``repeat`` runs of ``step``, with the cyclic collector off during each."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - started)
        gc.enable()
        del result
    return min(times)


def main(argv: list[str] | None = None) -> int:
    path, repeat = inputs.model_and_repeat(__doc__, 3, argv)
    data = path.read_bytes()

    import onnx

    import wirecodec
    from schema_dsl.onnx import ModelProto

    wirecodec.decode(ModelProto, data[:0])  # codecs generated before any clock starts
    decoded = wirecodec.decode(ModelProto, data)
    nodes, values = extract(decoded)
    objects = sum(4 + len(n[5]) for n in nodes) + sum(5 + len(v[2]) for v in values)  # containers included
    rows = [
        (
            "onnx (upb): decode + walk",
            best(repeat, lambda: walk_proto(onnx.load_model_from_string(data))),
        ),
        ("onnx (upb): decode alone", best(repeat, lambda: onnx.load_model_from_string(data))),
        (
            "wirecodec: decode + walk",
            best(repeat, lambda: walk_proto(wirecodec.decode(ModelProto, data))),
        ),
        ("wirecodec: decode alone", best(repeat, lambda: wirecodec.decode(ModelProto, data))),
        ("wirecodec: walk alone (objects built)", best(repeat, lambda: walk_proto(decoded))),
        (
            "build the walked objects: schema classes, `object.__setattr__` (today's store)",
            best(repeat, lambda: build_schema_classes(nodes, values)),
        ),
        (
            "build them: plain classes, `STORE_ATTR` (no typed assignment)",
            best(repeat, lambda: build_unchecked(nodes, values, PLAIN)),
        ),
        (
            "build them: `__slots__`, unchecked twin then `__class__` swap",
            best(repeat, lambda: build_unchecked(nodes, values, SLOTS_TWIN)),
        ),
    ]
    upb = rows[0][1]
    counts = f"{len(nodes):,} nodes, {len(values):,} typed values, {objects:,} objects and containers walked"
    print(f"`{path.parent.name}`: {counts}")
    print(f"best of {repeat} runs each, one process\n")
    print("| step | seconds | ÷ upb decode + walk |")
    print("|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.3f} s | {seconds / upb:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
