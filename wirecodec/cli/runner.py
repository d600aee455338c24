"""What ``wirecodec run`` computes: inputs for a model, and how far two sets of outputs differ.

No onnxruntime here: the CLI makes the sessions (``wirecodec.runtime_bridge``); this
module builds the feeds from the model's declared input types and compares results,
so both are testable without a runtime.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import ModelProto, TensorProto, TypeProto
from wirecodec.errors import TensorError
from wirecodec.tensors.dtypes import numpy_dtype

__all__ = ["Declared", "Difference", "compare", "declared_inputs", "feeds"]


@dataclass(frozen=True)
class Declared:
    """A graph input a caller must feed: its element type and dims (an int, a name, or None)."""

    name: str
    elem_type: int
    dims: tuple[int | str | None, ...] | None  # None: the rank is not declared
    kind: str  # "tensor", or the TypeProto field of a value .npy cannot hold

    def shape(self, dims: Mapping[str, int]) -> tuple[int, ...]:
        """The concrete shape: symbolic dims from ``dims``, unknown ones 1."""
        if self.dims is None:
            raise TensorError(f"input {self.name!r}: its rank is not declared; give it as a .npy file")
        return tuple(d if isinstance(d, int) else dims.get(d, 1) if d is not None else 1 for d in self.dims)

    def describe(self) -> str:
        """``FLOAT[N,3,224,224]``."""
        if self.kind != "tensor":
            return self.kind
        name = TensorProto.DataType.Name(self.elem_type) if self.elem_type else "UNDEFINED"
        if self.dims is None:
            return name
        return f"{name}[{','.join('?' if d is None else str(d) for d in self.dims)}]"


def _declared(name: str, type_: TypeProto) -> Declared:
    kind = type_.WhichOneof("value") or "none"
    if kind != "tensor_type":
        return Declared(name, 0, None, kind)
    tensor = type_.tensor_type
    dims: tuple[int | str | None, ...] | None = None
    if tensor.HasField("shape"):
        dims = tuple(
            d.dim_value if d.HasField("dim_value") else d.dim_param if d.HasField("dim_param") else None
            for d in tensor.shape.dim
        )
    return Declared(name, tensor.elem_type, dims, "tensor")


def declared_inputs(model: ModelProto) -> list[Declared]:
    """The inputs of ``model``'s graph that are not initializers, in order."""
    initializers = {tensor.name for tensor in model.graph.initializer}
    return [_declared(v.name, v.type) for v in model.graph.input if v.name not in initializers]


def _random(spec: Declared, dims: Mapping[str, int], rng: np.random.Generator) -> npt.NDArray[Any]:
    if spec.kind != "tensor":
        raise TensorError(
            f"input {spec.name!r} is a {spec.kind} value: random values are made for tensors only"
        )
    shape = spec.shape(dims)
    if spec.elem_type == TensorProto.STRING:
        letters = rng.integers(ord("a"), ord("z") + 1, size=shape)
        return np.vectorize(chr, otypes=[object])(letters) if letters.size else np.empty(shape, dtype=object)
    try:
        dtype = numpy_dtype(spec.elem_type)
    except TensorError as exc:
        raise TensorError(f"input {spec.name!r}: {exc}") from None
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        # Small non-negative values: valid as indices into anything of 10 or more rows.
        return rng.integers(0, 10, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def feeds(
    specs: Sequence[Declared],
    given: Mapping[str, npt.NDArray[Any]],
    dims: Mapping[str, int],
    seed: int,
) -> dict[str, npt.NDArray[Any]]:
    """A value for every input: ``given`` ones as they are, the others random from their declared
    type (normal floats, integers 0..9, booleans, letters) with symbolic dims from ``dims``, or 1."""
    unknown = sorted(set(given) - {spec.name for spec in specs})
    if unknown:
        raise TensorError(f"the model has no input {', '.join(map(repr, unknown))}")
    rng = np.random.default_rng(seed)
    return {spec.name: given[spec.name] if spec.name in given else _random(spec, dims, rng) for spec in specs}


@dataclass(frozen=True)
class Difference:
    """How one output of two runs compares: ``max_abs``/``max_rel`` are None when not numeric;
    ``max_rel`` is taken where the reference (the second output) is not 0, and is None
    when every difference lies where it is."""

    name: str
    shape: tuple[int, ...] | None
    other_shape: tuple[int, ...] | None
    max_abs: float | None
    max_rel: float | None
    same: bool
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (infinities and NaN as strings)."""

        def number(value: float | None) -> float | str | None:
            return value if value is None or math.isfinite(value) else str(value)

        return {
            "name": self.name,
            "shape": None if self.shape is None else list(self.shape),
            "other_shape": None if self.other_shape is None else list(self.other_shape),
            "max_abs": number(self.max_abs),
            "max_rel": number(self.max_rel),
            "same": self.same,
            "note": self.note,
        }


def _numeric(array: npt.NDArray[Any]) -> bool:
    return array.dtype.kind in "biufc"


def _map_values(a: Any, b: Any) -> tuple[Any, Any] | None:
    """Two sequences of maps with the same keys (a ZipMap's output) as two [N, keys] arrays."""
    if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)):
        return None
    if not all(isinstance(m, dict) for m in a + b):
        return None
    if any(m.keys() != n.keys() for m, n in zip(a, b, strict=True)):
        return None
    try:
        first = np.array([list(m.values()) for m in a], dtype=np.float64)
        second = np.array([[n[k] for k in m] for m, n in zip(a, b, strict=True)], dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return first, second


def _difference(name: str, a: Any, b: Any, atol: float, rtol: float) -> Difference:
    values = _map_values(a, b)
    if values is not None:
        found = _difference(name, values[0], values[1], atol, rtol)
        return dataclasses.replace(found, note="sequence of maps: compared key by key")
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
        same = type(a) is type(b) and repr(a) == repr(b)
        return Difference(name, None, None, None, None, same, "not a tensor: compared as a whole")
    if a.shape != b.shape:
        return Difference(name, a.shape, b.shape, None, None, False, "shapes differ")
    if not (_numeric(a) and _numeric(b)):
        same = bool(np.array_equal(a, b))
        return Difference(name, a.shape, b.shape, None, None, same, "" if same else "values differ")
    if a.size == 0:
        return Difference(name, a.shape, b.shape, 0.0, 0.0, True)
    x, y = (
        a.astype(np.float64 if a.dtype.kind != "c" else np.complex128),
        b.astype(np.float64 if b.dtype.kind != "c" else np.complex128),
    )
    with np.errstate(invalid="ignore", over="ignore"):
        delta = np.abs(x - y)
        both_nan = np.isnan(x) & np.isnan(y)
        same_inf = np.isinf(x) & (x == y)
        delta = np.where(both_nan | same_inf, 0.0, delta)
        scale = np.abs(y)
    delta = np.where(np.isnan(delta), np.inf, delta)  # NaN against a number: as far apart as can be
    max_abs = float(np.max(delta))
    # Relative to the reference where it is not zero: where it is, any difference is
    # "infinitely" relative, which says nothing (atol judges those elements).
    differ = delta > 0
    measurable = differ & (scale > 0)
    max_rel: float | None = 0.0
    if measurable.any():
        with np.errstate(invalid="ignore", over="ignore"):
            max_rel = float(np.max(delta[measurable] / scale[measurable]))
    elif differ.any():
        max_rel = None
    same = bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
    note = "" if a.dtype == b.dtype else f"dtypes {a.dtype} and {b.dtype}"
    return Difference(name, a.shape, b.shape, max_abs, max_rel, same, note)


def compare(
    names: Sequence[str],
    outputs: Sequence[Any],
    other_names: Sequence[str],
    other_outputs: Sequence[Any],
    *,
    atol: float,
    rtol: float,
) -> list[Difference]:
    """Outputs matched by name (by position when the two share no name), each compared as
    ``numpy.allclose(a, b, rtol, atol, equal_nan=True)``; an output only one side has differs."""
    ours = dict(zip(names, outputs, strict=True))
    theirs = dict(zip(other_names, other_outputs, strict=True))
    if not set(ours) & set(theirs) and len(ours) == len(theirs):
        theirs = dict(zip(names, other_outputs, strict=True))
    result = [
        _difference(name, ours[name], theirs[name], atol, rtol)
        if name in theirs
        else Difference(name, None, None, None, None, False, "only in the first model")
        for name in names
    ]
    result.extend(
        Difference(name, None, None, None, None, False, "only in the second model")
        for name in theirs
        if name not in ours
    )
    return result
