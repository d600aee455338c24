"""``onnx.helper``: :mod:`wirecodec.helper` with onnx's reading of a list of names given as a str.

onnx's ``make_node`` and ``make_function`` extend a repeated string field with the
argument, so a ``str`` where a list of names is expected is read one character per name
(``make_node("Relu", "x", "y")`` has input ``x`` and output ``y``; ``"xy"`` is two inputs).
Code written against onnx relies on it (onnx's own tests write ``make_node(op, ["x"], "y")``
hundreds of times), so this namespace reads it as onnx does. :mod:`wirecodec.helper` itself
refuses a bare ``str`` there with a ``TypeError`` naming the argument (docs/coming-from-onnx.md).
Every other name is :mod:`wirecodec.helper`'s own object.

>>> make_node("Add", "XY", "Z").input
['X', 'Y']
>>> make_node is _wirecodec_helper.make_node
False
>>> make_graph is _wirecodec_helper.make_graph
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from schema_dsl.onnx import AttributeProto, FunctionProto, NodeProto, OperatorSetIdProto, ValueInfoProto
from wirecodec import helper as _wirecodec_helper

if TYPE_CHECKING:
    from wirecodec.helper import *  # noqa: F403  (onnx.helper is wirecodec.helper's names)
else:
    # wirecodec.helper's names, but make_tensor: it needs numpy, so it is looked up when
    # first asked for, as wirecodec.helper does (the namespace imports without numpy).
    _eager = [name for name in _wirecodec_helper.__all__ if name != "make_tensor"]
    globals().update({name: getattr(_wirecodec_helper, name) for name in _eager})

    def __getattr__(name: str) -> Any:
        if name != "make_tensor":
            raise AttributeError(f"module 'wirecodec.onnx_compat.helper' has no attribute {name!r}")
        return _wirecodec_helper.make_tensor

    def __dir__() -> list[str]:
        return sorted({*globals(), "make_tensor"})


__all__ = list(_wirecodec_helper.__all__)


def _names(values: Sequence[str]) -> Sequence[str]:
    """A list of names as onnx's ``RepeatedScalarContainer.extend`` reads it: a str is
    iterated, one character per name; anything else is passed on to be checked."""
    return list(values) if isinstance(values, str) else values


def make_node(  # type: ignore[no-redef]  # onnx's reading over wirecodec's
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    name: str | None = None,
    doc_string: str | None = None,
    domain: str | None = None,
    overload: str | None = None,
    **kwargs: Any,
) -> NodeProto:
    """:func:`wirecodec.helper.make_node`, a ``str`` of names read one character per name."""
    return _wirecodec_helper.make_node(
        op_type, _names(inputs), _names(outputs), name, doc_string, domain, overload, **kwargs
    )


def make_function(  # type: ignore[no-redef]  # onnx's reading over wirecodec's
    domain: str,
    fname: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    nodes: Sequence[NodeProto],
    opset_imports: Sequence[OperatorSetIdProto],
    attributes: Sequence[str] | None = None,
    attribute_protos: Sequence[AttributeProto] | None = None,
    doc_string: str | None = None,
    overload: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
) -> FunctionProto:
    """:func:`wirecodec.helper.make_function`, a ``str`` of names read one character per name."""
    return _wirecodec_helper.make_function(
        domain,
        fname,
        _names(inputs),
        _names(outputs),
        nodes,
        opset_imports,
        None if attributes is None else _names(attributes),
        attribute_protos,
        doc_string,
        overload,
        value_info,
    )


def __getattr__(name: str) -> object:
    # wirecodec.helper's names outside its __all__ (onnx's tests read a few private ones)
    try:
        return getattr(_wirecodec_helper, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
