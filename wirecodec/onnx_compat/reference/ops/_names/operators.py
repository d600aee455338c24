"""``onnx.reference.ops._op_list``: ``load_op`` and one class per operator, by name.

``Celu`` is the operator at the latest opset, ``Cast_19`` the one in effect at opset 19
(onnx's naming of a versioned implementation); each is made on first use by
:func:`~wirecodec.onnx_compat.reference.ops.load_op` and has its ``create`` and ``eval``.

>>> from wirecodec.onnx_compat.reference.ops._names import operators as _op_list
>>> _op_list.Cast_19.op_version, _op_list.Celu.op_type
(19, 'Celu')
"""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat.reference.ops import load_op, loaded

__all__ = ["load_op"]


def operator_class(name: str, domain: str = "") -> Any:
    """The class an operator name of onnx's lists stands for (``Conv``, ``Cast_19``); None if none."""
    from wirecodec import defs
    from wirecodec.reference import _registry

    op_type, _, suffix = name.rpartition("_")
    if not (op_type and suffix.isdigit()):
        op_type, suffix = name, ""
    # a domain other than ONNX's: its first version (the preview domains have one)
    version = int(suffix) if suffix else 1 if domain else defs.onnx_opset_version()
    if not op_type[:1].isupper() or _registry.lookup(domain, op_type, version) is None:
        return None
    return loaded(domain, op_type, version, name)


def __getattr__(name: str) -> Any:
    found = operator_class(name) if not name.startswith("__") else None
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found  # one class per name, as a module attribute is
    return found
