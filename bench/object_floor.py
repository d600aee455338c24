"""What building the objects costs, beside upb's decode + walk: ``python bench/object_floor.py [MODEL]``.

The decode + full walk target (at most upb's time, issue 10) asks a pure-Python decoder to build
every message the walk reads. This measures the floor under that: the time to *build*
those objects alone (no bytes parsed: every value is taken beforehand from a decoded
model), with

* the schema's own classes, the way the generated decoders build them today: on the
  class's slotted holder with plain stores (the internal slots, every scalar default,
  the fields, the presence bits), then given the declared class (``o.__class__ = ...``),
  which checks user assignments in its ``__setattr__`` (schema_dsl.message);
* instance-dict classes that check assignments in ``__setattr__``, filled through
  ``object.__setattr__``: the store before the slotted holders;
* plain classes and ``STORE_ATTR``: what Python allows with no typed assignment at all;

beside upb's decode + walk, wirecodec's decode + walk, and the walk alone over wirecodec's
objects, all in one process, best of ``--repeat`` runs each (the cyclic collector off
while building: the floor without it; the decoders leave it on, and what it then costs
is in docs/benchmarks.md). Input: ``bench/.cache/meta-100000`` by default
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
    """Today's store, as the generated decoders make it: each message built on its class's
    slotted holder (internals, scalar defaults, fields, presence bits), then given its class."""
    from schema_dsl.containers import container_class
    from schema_dsl.onnx import (
        AttributeProto,
        NodeProto,
        TensorShapeProto,
        TypeProto,
        ValueInfoProto,
    )

    newlist, extend = list.__new__, list.extend
    append = list.append  # as the decoders fill containers: no per-element check or copy
    node_cls, attribute_cls, dim_cls = NodeProto, AttributeProto, TensorShapeProto.Dimension
    shape_cls, tensor_cls, type_cls, value_cls = TensorShapeProto, TypeProto.Tensor, TypeProto, ValueInfoProto
    classes = (node_cls, attribute_cls, dim_cls, shape_cls, tensor_cls, type_cls, value_cls)
    bits = {cls: cls.__schema__.bit for cls in classes}
    spec = {f.name: f for f in NodeProto.__schema__.fields}
    input_list, output_list = container_class(spec["input"]), container_class(spec["output"])
    attribute_list = container_class(spec["attribute"])
    dim_list = container_class({f.name: f for f in shape_cls.__schema__.fields}["dim"])

    fresh = {cls: cls.__schema__.fresh for cls in classes}  # the holder filled line by line

    def start(cls: type) -> Any:
        o = fresh[cls]()
        o._span = _SPAN
        return o

    node_bits, attribute_bits, dim_bits = bits[node_cls], bits[attribute_cls], bits[dim_cls]
    built: list[Any] = []
    for name, op_type, domain, ins, outs, attributes in nodes:
        o = start(node_cls)
        r = newlist(input_list)
        r._span = _SPAN
        extend(r, ins)
        o.input = r
        r = newlist(output_list)
        r._span = _SPAN
        extend(r, outs)
        o.output = r
        o.name = name
        o.op_type = op_type
        r = newlist(attribute_list)
        r._span = _SPAN
        for a_name, a_type, field, value in attributes:
            a = start(attribute_cls)
            a.name = a_name
            setattr(a, field, value)
            a.type = a_type
            a._has = attribute_bits["name"] | attribute_bits[field] | attribute_bits["type"]
            a.__class__ = attribute_cls
            append(r, a)
        o.attribute = r
        has = node_bits["input"] | node_bits["output"] | node_bits["name"] | node_bits["op_type"]
        if domain:
            o.domain = domain
            has |= node_bits["domain"]
        o._has = has | node_bits["attribute"]
        o.__class__ = node_cls
        built.append(o)
    for name, elem_type, dims in values:
        r = newlist(dim_list)
        r._span = _SPAN
        for field, value in dims:
            d = start(dim_cls)
            setattr(d, field, value)
            d._has = dim_bits[field]
            d.__class__ = dim_cls
            append(r, d)
        s = start(shape_cls)
        s.dim = r
        s._has = bits[shape_cls]["dim"]
        t = start(tensor_cls)
        t.elem_type = elem_type
        t.shape = s
        t._has = bits[tensor_cls]["elem_type"] | bits[tensor_cls]["shape"]
        ty = start(type_cls)
        ty.tensor_type = t
        ty._has = bits[type_cls]["tensor_type"]
        v = start(value_cls)
        v.name = name
        v.type = ty
        v._has = bits[value_cls]["name"] | bits[value_cls]["type"]
        s.__class__ = shape_cls
        t.__class__ = tensor_cls
        ty.__class__ = type_cls
        v.__class__ = value_cls
        built.append(v)
    return built


class _Plain:
    """A message with no typed assignment: every store is a plain ``STORE_ATTR``."""


def _refuse(self: Any, name: str, value: Any) -> None:
    raise TypeError("checked assignment")


class _Checked:
    """The store before the slotted holders: a class that checks assignments in its
    ``__setattr__``, so that a decoder stores through ``object.__setattr__``."""

    __setattr__ = _refuse


def build_checked_dict(nodes: list[Node], values: list[Value]) -> list[Any]:
    """The same objects and stores on ``_Checked`` (instance dicts), through ``object.__setattr__``."""
    new, osa, append = object.__new__, object.__setattr__, list.append
    built: list[Any] = []
    for name, op_type, domain, ins, outs, attributes in nodes:
        o = new(_Checked)
        osa(o, "_span", _SPAN)
        osa(o, "input", list(ins))
        osa(o, "output", list(outs))
        osa(o, "name", name)
        osa(o, "op_type", op_type)
        r: list[Any] = []
        for a_name, a_type, field, value in attributes:
            a = new(_Checked)
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
        r = []
        for field, value in dims:
            d = new(_Checked)
            osa(d, "_span", _SPAN)
            osa(d, field, value)
            append(r, d)
        s = new(_Checked)
        osa(s, "_span", _SPAN)
        osa(s, "dim", r)
        t = new(_Checked)
        osa(t, "_span", _SPAN)
        osa(t, "elem_type", elem_type)
        osa(t, "shape", s)
        ty = new(_Checked)
        osa(ty, "_span", _SPAN)
        osa(ty, "tensor_type", t)
        v = new(_Checked)
        osa(v, "_span", _SPAN)
        osa(v, "name", name)
        osa(v, "type", ty)
        built.append(v)
    return built


def build_plain(nodes: list[Node], values: list[Value]) -> list[Any]:
    """The same objects and stores with plain ``STORE_ATTR``, on a class without typed assignment."""
    new = object.__new__
    built: list[Any] = []
    for name, op_type, domain, ins, outs, attributes in nodes:
        o = new(_Plain)
        o._span = _SPAN
        o.input = list(ins)
        o.output = list(outs)
        o.name = name
        o.op_type = op_type
        r = []
        for a_name, a_type, field, value in attributes:
            a = new(_Plain)
            a._span = _SPAN
            a.name = a_name
            setattr(a, field, value)
            a.type = a_type
            r.append(a)
        o.attribute = r
        if domain:
            o.domain = domain
        built.append(o)
    for name, elem_type, dims in values:
        r = []
        for field, value in dims:
            d = new(_Plain)
            d._span = _SPAN
            setattr(d, field, value)
            r.append(d)
        s = new(_Plain)
        s._span = _SPAN
        s.dim = r
        t = new(_Plain)
        t._span = _SPAN
        t.elem_type = elem_type
        t.shape = s
        ty = new(_Plain)
        ty._span = _SPAN
        ty.tensor_type = t
        v = new(_Plain)
        v._span = _SPAN
        v.name = name
        v.type = ty
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
            "build the walked objects: schema classes, slotted holder then `__class__` (today's store)",
            best(repeat, lambda: build_schema_classes(nodes, values)),
        ),
        (
            "build them: instance dicts, `object.__setattr__` (the store before)",
            best(repeat, lambda: build_checked_dict(nodes, values)),
        ),
        (
            "build them: plain classes, `STORE_ATTR` (no typed assignment)",
            best(repeat, lambda: build_plain(nodes, values)),
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
