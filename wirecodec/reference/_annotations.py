"""``check_shape_annotations``: runtime values against the shapes and types a model declares.

With the check on, every value the model annotates (graph inputs and outputs, ``value_info``,
a subgraph's or a function body's too) is compared as it is fed or computed: its element
type, its rank, each dimension value, and each symbolic dimension, which takes one size for
the whole run (bindings shared by the main graph, its subgraphs and the function bodies it
calls). A mismatch raises :class:`ShapeAnnotationError` naming the value and the dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._errors import ShapeAnnotationError

__all__ = ["Declared", "ShapeAnnotationError", "check", "declarations"]

# A declaration: (element type or 0, dims or None); a dim is an int, a symbol, or None (unknown).
Declared = tuple[int, tuple[int | str | None, ...] | None]


def declarations(value_infos: Any) -> dict[str, Declared]:
    """The tensor annotations among ``value_infos`` (ValueInfoProtos), by name."""
    found: dict[str, Declared] = {}
    for info in value_infos:
        if not hasattr(info, "type") or info.type.WhichOneof("value") != "tensor_type":
            continue
        tensor = info.type.tensor_type
        dims: tuple[int | str | None, ...] | None = None
        if tensor.HasField("shape"):
            dims = tuple(_dim(d) for d in tensor.shape.dim)
        if tensor.elem_type or dims is not None:
            found[info.name] = (int(tensor.elem_type), dims)
    return found


def _dim(dim: Any) -> int | str | None:
    kind = dim.WhichOneof("value")
    if kind == "dim_value":
        return int(dim.dim_value)
    if kind == "dim_param" and dim.dim_param:
        return str(dim.dim_param)
    return None


_EXPECTED: dict[int, Any] = {}


def _expected_dtype(elem_type: int) -> Any:
    if elem_type not in _EXPECTED:
        from wirecodec.tensors.dtypes import info_of, result_dtype

        try:
            _EXPECTED[elem_type] = result_dtype(info_of(elem_type, "value_info"))
        except Exception:  # a type numpy cannot hold: not checked
            _EXPECTED[elem_type] = None
    return _EXPECTED[elem_type]


def check(name: str, value: Any, declared: Declared, bindings: dict[str, int], path: str) -> None:
    """Raise :class:`ShapeAnnotationError` if ``value`` breaks ``declared``; binds symbols."""
    if not isinstance(value, np.ndarray):
        return
    elem_type, dims = declared
    if elem_type:
        expected = _expected_dtype(elem_type)
        if expected is not None and value.dtype != expected:
            text = expected.kind == "O" and value.dtype.kind in "OUS"
            if not text:
                raise ShapeAnnotationError(
                    f"value {name!r} has element type {value.dtype}, the declared element type is "
                    f"{expected} (elem_type {elem_type})",
                    path,
                )
    if dims is None:
        return
    if len(dims) != value.ndim:
        raise ShapeAnnotationError(
            f"value {name!r} has rank {value.ndim} (shape {list(value.shape)}), declared rank {len(dims)}",
            path,
        )
    for axis, (dim, size) in enumerate(zip(dims, value.shape, strict=True)):
        if isinstance(dim, int):
            if dim != size:
                raise ShapeAnnotationError(
                    f"value {name!r} has size {size} on axis {axis}, the declared dimension value is {dim}",
                    path,
                )
        elif isinstance(dim, str):
            bound = bindings.setdefault(dim, int(size))
            if bound != size:
                raise ShapeAnnotationError(
                    f"value {name!r} has size {size} on axis {axis}, but symbolic dimension {dim!r} "
                    f"is {bound} elsewhere in this run",
                    path,
                )
