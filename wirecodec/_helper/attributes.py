"""Attributes: built from a Python value with onnx's type inference, and read back."""

from __future__ import annotations

import copy
import numbers
from collections.abc import Iterable
from typing import Any, Final

from schema_dsl import Message
from schema_dsl.onnx import AttributeProto, GraphProto, NodeProto, SparseTensorProto, TensorProto, TypeProto
from wirecodec._helper.args import (
    INT32_RANGE,
    as_bytes,
    as_float32,
    as_int,
    as_message,
    as_messages,
    as_text,
    build,
)

__all__ = ["get_attribute_value", "get_node_attr_value", "make_attribute", "make_attribute_ref"]


_A = AttributeProto.AttributeType

# The order onnx tries when it infers a list attribute's type from its elements.
_LIST_KINDS: Final[tuple[tuple[type | tuple[type, ...], int], ...]] = (
    (numbers.Integral, _A.INTS),
    (numbers.Real, _A.FLOATS),
    ((str, bytes), _A.STRINGS),
    (TensorProto, _A.TENSORS),
    (SparseTensorProto, _A.SPARSE_TENSORS),
    (GraphProto, _A.GRAPHS),
    (TypeProto, _A.TYPE_PROTOS),
)
_MESSAGE_LISTS: Final[dict[int, tuple[str, type[Message]]]] = {
    _A.TENSORS: ("tensors", TensorProto),
    _A.SPARSE_TENSORS: ("sparse_tensors", SparseTensorProto),
    _A.GRAPHS: ("graphs", GraphProto),
    _A.TYPE_PROTOS: ("type_protos", TypeProto),
}
_MESSAGE_SINGLES: Final[tuple[tuple[type[Message], str, int], ...]] = (
    (TensorProto, "t", _A.TENSOR),
    (SparseTensorProto, "sparse_tensor", _A.SPARSE_TENSOR),
    (GraphProto, "g", _A.GRAPH),
    (TypeProto, "tp", _A.TYPE_PROTO),
)


def _type_name(attr_type: int) -> str:
    try:
        return _A(attr_type).name
    except ValueError:
        return str(attr_type)


def _utf8(value: object, where: str) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else as_bytes(value, where)


def _list_fields(attr_type: int, items: list[Any], where: str) -> dict[str, Any]:
    """The fields of a list attribute of ``attr_type`` holding ``items`` (each checked)."""
    if attr_type == _A.INTS:
        values: list[Any] = [as_int(v, f"{where}[{i}]") for i, v in enumerate(items)]
        return {"ints": values, "type": int(attr_type)}
    if attr_type == _A.FLOATS:
        values = [as_float32(v, f"{where}[{i}]") for i, v in enumerate(items)]
        return {"floats": values, "type": int(attr_type)}
    if attr_type == _A.STRINGS:
        values = [_utf8(v, f"{where}[{i}]") for i, v in enumerate(items)]
        return {"strings": values, "type": int(attr_type)}
    if attr_type in _MESSAGE_LISTS:
        field, cls = _MESSAGE_LISTS[attr_type]
        # the caller's messages: copied, as onnx copies them
        return {field: [copy.copy(m) for m in as_messages(items, cls, where)], "type": int(attr_type)}
    raise TypeError(f"{where}: a list value cannot make an attribute of type {_type_name(attr_type)}")


def make_attribute(
    key: str, value: Any, doc_string: str | None = None, attr_type: int | None = None
) -> AttributeProto:
    """An AttributeProto named ``key`` whose type is inferred from ``value``.

    An integer is INT, another real number FLOAT (stored as float32), ``str``/``bytes``
    STRING (UTF-8), a TensorProto / SparseTensorProto / GraphProto / TypeProto the
    matching kind; a list (any iterable) is the list kind of its elements (all of one
    kind; integers among floats make FLOATS). An empty list needs ``attr_type``; a given
    ``attr_type`` that differs from the inferred one is a ``TypeError``.

    >>> make_attribute("alpha", 0.5).type == AttributeProto.FLOAT
    True
    >>> make_attribute("pads", [], attr_type=AttributeProto.INTS).type == AttributeProto.INTS
    True
    """
    where = f"make_attribute({key!r})" if isinstance(key, str) else "make_attribute"
    # Built in place (build): each value checked once here, the caller's messages copied.
    fields: dict[str, Any] = {"name": as_text(key, "make_attribute: key")}
    if doc_string:
        fields["doc_string"] = as_text(doc_string, f"{where}: doc_string")
    if attr_type is not None:
        attr_type = as_int(attr_type, f"{where}: attr_type", INT32_RANGE)
    if isinstance(value, numbers.Integral):
        fields["i"] = as_int(int(value), f"{where}: value")
        fields["type"] = int(_A.INT)
    elif isinstance(value, numbers.Real):
        fields["f"] = as_float32(value, f"{where}: value")
        fields["type"] = int(_A.FLOAT)
    elif isinstance(value, (str, bytes)):
        fields["s"] = _utf8(value, f"{where}: value")
        fields["type"] = int(_A.STRING)
    elif isinstance(value, (TensorProto, SparseTensorProto, GraphProto, TypeProto)):
        for cls, field, kind in _MESSAGE_SINGLES:
            if isinstance(value, cls):
                fields[field] = copy.copy(value)  # the caller's: copied, as onnx copies it
                fields["type"] = int(kind)
                break
    elif isinstance(value, Iterable):
        items = list(value)
        if attr_type is None:
            if not items:
                raise ValueError(f"{where}: cannot infer the attribute type of an empty list; pass attr_type")
            kinds = {type(v) for v in items}
            for element_type, list_type in _LIST_KINDS:
                if all(issubclass(k, element_type) for k in kinds):
                    attr_type = list_type
                    break
            else:
                names = ", ".join(sorted(k.__name__ for k in kinds))
                raise ValueError(f"{where}: cannot infer one attribute type for elements of types {names}")
        fields.update(_list_fields(attr_type, items, f"{where}: value"))
    else:
        raise TypeError(f"{where}: a {type(value).__name__} is not an accepted attribute value")
    if attr_type is not None and fields["type"] != attr_type:
        raise TypeError(
            f"{where}: Inferred attribute type '{_type_name(fields['type'])}' of the value does not match "
            f"attr_type '{_type_name(attr_type)}'"
        )
    return build(AttributeProto, **fields)


def make_attribute_ref(
    name: str, attr_type: int, doc_string: str | None = None, *, ref_attr_name: str | None = None
) -> AttributeProto:
    """An attribute of a function body that takes the value of the calling node's attribute.

    ``ref_attr_name`` (default: ``name``) names the function's attribute it refers to.

    >>> make_attribute_ref("alpha", AttributeProto.FLOAT).ref_attr_name
    'alpha'
    """
    attr = AttributeProto()
    attr.name = as_text(name, "make_attribute_ref: name")
    attr.type = as_int(attr_type, "make_attribute_ref: attr_type", INT32_RANGE)
    reference = (
        attr.name if ref_attr_name is None else as_text(ref_attr_name, "make_attribute_ref: ref_attr_name")
    )
    if not reference:
        raise ValueError("make_attribute_ref: ref_attr_name must not be empty")
    attr.ref_attr_name = reference
    if doc_string:
        attr.doc_string = as_text(doc_string, "make_attribute_ref: doc_string")
    return attr


def get_attribute_value(attr: AttributeProto) -> Any:
    """The value an attribute holds, as onnx returns it (``bytes`` for strings, lists for lists).

    A reference attribute (``ref_attr_name`` set) has no value: ``ValueError``.

    >>> get_attribute_value(make_attribute("mode", "constant"))
    b'constant'
    """
    attr = as_message(attr, AttributeProto, "get_attribute_value: attr")
    if attr.ref_attr_name:
        raise ValueError(
            f"get_attribute_value: attribute {attr.name!r} refers to {attr.ref_attr_name!r}; it has no value"
        )
    kind = attr.type
    if kind == _A.FLOAT:
        return attr.f
    if kind == _A.INT:
        return attr.i
    if kind == _A.STRING:
        return bytes(attr.s)
    if kind == _A.STRINGS:
        return [bytes(s) for s in attr.strings]
    for single in _MESSAGE_SINGLES:
        if kind == single[2]:
            return getattr(attr, single[1])
    lists = {_A.FLOATS: "floats", _A.INTS: "ints", **{k: v[0] for k, v in _MESSAGE_LISTS.items()}}
    if kind in lists:
        return list(getattr(attr, lists[kind]))
    if kind == _A.UNDEFINED:
        return None
    raise ValueError(f"get_attribute_value: attribute {attr.name!r} has unknown type {kind}")


def get_node_attr_value(node: NodeProto, attr_name: str) -> Any:
    """The value of the node's one attribute named ``attr_name`` (``ValueError`` if none or several)."""
    node = as_message(node, NodeProto, "get_node_attr_value: node")
    matching = [a for a in node.attribute if a.name == attr_name]
    if len(matching) != 1:
        how = "no attribute" if not matching else f"{len(matching)} attributes"
        raise ValueError(
            f"get_node_attr_value: node {node.name or node.op_type!r} has {how} named {attr_name!r}"
        )
    return get_attribute_value(matching[0])
