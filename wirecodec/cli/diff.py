"""Show where two models differ, field by field: ``graph.node[3].attribute[0].i: 1 != 2``.

Every field of every message is compared, in schema order. Repeated messages are
matched by name where every element has a distinct one: nodes by name (or, unnamed, by
their outputs), initializers, value_info, attributes and functions by name, metadata by
key, opsets by domain; so two exports that list the same nodes in another order compare
equal. Graph inputs and outputs bind by position and are compared by position, as
are other repeated fields; what is left over is reported as only in A or only in B
(at its index in that model). A one-line summary comes first. An unset field reads as its
default (``''`` equals an unset name), except in a oneof, where which member is set
is part of the value (``dim_value: 0`` is not an unknown dimension).

Tensors are compared by value, not by storage: ``raw_data`` against ``float_data``,
inline against external data are equal when the elements are. Their name, element
type and shape are compared first; elements then match when
``|a - b| <= atol + rtol * |b|`` (NaN matches NaN). Float attributes use the same
tolerance. By default both are 0: values must be equal.

A path is A's unless marked: ``B graph.node[5]`` for what is only in B, ``A graph.node[2]
/ B graph.node[5]`` for an element matched at another position.

Memory: both models' structure; tensors are compared one at a time. From a pipe (``-``)
a model over 32 MiB is read front to back and its weights over 64 KiB are spooled to a
temporary file (deleted once closed), then compared as from a file.

Exit code 0 when the models are equal, 1 when they differ (or one cannot be read).

  wirecodec diff before.onnx after.onnx
  wirecodec diff --atol 1e-6 --json model.onnx quantized.onnx
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from schema_dsl import Kind, Message
from schema_dsl.onnx import TensorProto
from wirecodec.cli.common import STDIN, UsageError, add_model_argument, open_model, print_json
from wirecodec.cli.facts import dtype_name
from wirecodec.errors import TensorError
from wirecodec.protobuf.fieldpath import element, join
from wirecodec.tensors.dtypes import info_of

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["HELP", "Difference", "Tolerance", "add_arguments", "compare", "run", "summary"]

HELP = "show the fields where two models differ (tensors by value, with a tolerance)"

# Where a tensor keeps its elements: compared through the values, not field by field.
_STORAGE: Final = frozenset(
    {
        "raw_data",
        "float_data",
        "int32_data",
        "string_data",
        "int64_data",
        "double_data",
        "uint64_data",
        "external_data",
        "data_location",
    }
)
_FLOATS: Final = frozenset({Kind.FLOAT, Kind.DOUBLE})
_SHOWN_ELEMENTS: Final = 8
# Repeated fields whose order carries no meaning, matched by name; inputs and outputs
# bind by position (a Loop body's, a function's), so they stay matched by position.
_MATCHED_BY_NAME: Final = frozenset(
    {
        "node",
        "initializer",
        "sparse_initializer",
        "value_info",
        "attribute",
        "attribute_proto",
        "functions",
        "metadata_props",
        "opset_import",
    }
)


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, name="a")
    add_model_argument(parser, name="b")
    parser.add_argument("--rtol", type=_tolerance, default=0.0, metavar="R", help="relative tolerance (0)")
    parser.add_argument("--atol", type=_tolerance, default=0.0, metavar="A", help="absolute tolerance (0)")
    parser.add_argument("--json", action="store_true", help="print the differences as JSON")
    parser.add_argument(
        "--max-lines",
        type=_lines,
        default=None,
        metavar="N",
        help="print at most N differences, then how many more (default: all; the summary counts all)",
    )


def _lines(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return int(text)


@dataclass(frozen=True)
class Tolerance:
    """How far apart two numbers may be and still count as equal (numpy's ``isclose`` rule)."""

    rtol: float = 0.0
    atol: float = 0.0

    def close(self, a: float, b: float) -> bool:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= self.atol + self.rtol * abs(b)


@dataclass(frozen=True)
class Difference:
    """One place where the models differ: ``a``/``b`` are the values (None: absent in that model).

    ``details`` (tensor values only): ``differing`` and ``elements`` counts, the
    ``first_index`` that differs and the ``largest_difference`` (None if not numeric).
    ``path`` is the place in A; ``path_b`` the place in B where its indices differ (an
    element matched by name at another position), and for what is only in B, ``path``
    is B's and ``path_b`` says so.
    """

    path: str
    a: Any
    b: Any
    message: str = ""
    details: dict[str, Any] | None = None
    path_b: str | None = None

    def where(self) -> str:
        """The place, each index with its side: ``graph.node[2]`` (the same in both),
        ``A graph.node[2] / B graph.node[5]``, ``B graph.node[5]`` (only in B)."""
        if self.path_b is None:
            return self.path
        if self.path_b == self.path:
            return f"B {self.path}"
        return f"A {self.path} / B {self.path_b}"

    def text(self) -> str:
        if self.message:
            return f"{self.where()}: {self.message}"
        if self.path.rpartition(".")[2] in _DATA_TYPES:
            return f"{self.where()}: {_type_name(self.a)} != {_type_name(self.b)}"
        return f"{self.where()}: {_show(self.a)} != {_show(self.b)}"

    def json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "path_b": self.path_b if self.path_b is not None else self.path,
            "a": self.a,
            "b": self.b,
            "message": self.text(),
            "details": self.details,
        }


_DATA_TYPES: Final = frozenset({"data_type", "elem_type"})
"""Fields holding a TensorProto.DataType number: shown by name (``FLOAT != INT64``)."""


def _type_name(value: Any) -> str:
    return dtype_name(value) if isinstance(value, int) and not isinstance(value, bool) else _show(value)


def _show(value: Any) -> str:
    return "(unset)" if value is None else repr(value)


def _plain(value: Any) -> Any:
    """A field value as JSON can hold it: bytes as a hex string when short, else their length."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return data.hex() if len(data) <= 32 else f"<{len(data)} bytes>"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _summary(message: Message) -> str:
    """A short label for a whole message reported as only in one model."""
    for field in ("name", "op_type", "key"):
        spec = message.__schema__.by_name.get(field)
        if spec is not None and message.HasField(field):
            return f"{type(message).__name__} {getattr(message, field)!r}"
    return type(message).__name__


def _same_scalar(kind: Kind, a: Any, b: Any, tolerance: Tolerance) -> bool:
    if kind in _FLOATS:
        return tolerance.close(float(a), float(b))
    if kind is Kind.BYTES:
        return bytes(a) == bytes(b)
    return bool(a == b)


def _fields(
    a: Message, b: Message, path: str, tolerance: Tolerance, skip: frozenset[str]
) -> Iterator[Difference]:
    for spec in type(a).__schema__.fields:
        if spec.name in skip:
            continue
        where = join(path, spec.name)
        if spec.repeated:
            yield from _repeated(spec.kind, getattr(a, spec.name), getattr(b, spec.name), where, tolerance)
            continue
        has_a, has_b = a.HasField(spec.name), b.HasField(spec.name)
        if not has_a and not has_b:
            continue
        value_a, value_b = getattr(a, spec.name), getattr(b, spec.name)
        if spec.kind is Kind.MESSAGE:
            if has_a and has_b:
                yield from compare(value_a, value_b, where, tolerance)
            else:
                side = "A" if has_a else "B"
                yield Difference(where, has_a or None, has_b or None, f"only in {side}")
        elif (spec.oneof is not None and has_a != has_b) or not _same_scalar(
            spec.kind, value_a, value_b, tolerance
        ):
            yield Difference(where, _plain(value_a) if has_a else None, _plain(value_b) if has_b else None)


def _key(item: Message) -> Any:
    """What names an element of a repeated field for matching, or None (match by position)."""
    kind = type(item).__schema__.cls.__name__
    if kind == "NodeProto":
        return item.name or ("outputs", tuple(item.output))  # type: ignore[attr-defined]
    if kind == "SparseTensorProto":
        return item.values.name or None  # type: ignore[attr-defined]
    if kind == "OperatorSetIdProto":
        return ("domain", item.domain)  # type: ignore[attr-defined]
    if kind == "FunctionProto":
        return (item.domain, item.name, item.overload)  # type: ignore[attr-defined]
    for field in ("name", "key"):
        if field in item.__schema__.by_name:
            return getattr(item, field) or None
    return None


def _keyed(items: list[Any]) -> dict[Any, int] | None:
    """Element index by key, when every element has a distinct, non-empty key."""
    keys = [_key(item) for item in items]
    if any(key is None for key in keys) or len(set(keys)) != len(keys):
        return None
    return {key: i for i, key in enumerate(keys)}


def _repeated(
    kind: Kind, a: list[Any], b: list[Any], where: str, tolerance: Tolerance
) -> Iterator[Difference]:
    if kind is Kind.MESSAGE and a and b and where.rpartition(".")[2] in _MATCHED_BY_NAME:
        keys_a, keys_b = _keyed(a), _keyed(b)
        if keys_a is not None and keys_b is not None:
            yield from _by_key(a, b, keys_a, keys_b, where, tolerance)
            return
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if kind is Kind.MESSAGE:
            yield from compare(x, y, element(where, i), tolerance)
        elif not _same_scalar(kind, x, y, tolerance):
            yield Difference(element(where, i), _plain(x), _plain(y))
    for side, longer in (("A", a), ("B", b)):
        for i in range(min(len(a), len(b)), len(longer)):
            item = longer[i]
            shown = _summary(item) if kind is Kind.MESSAGE else _plain(item)
            yield Difference(
                element(where, i),
                shown if side == "A" else None,
                shown if side == "B" else None,
                f"only in {side}: {shown if kind is Kind.MESSAGE else _show(shown)}",
                path_b=element(where, i) if side == "B" else None,
            )


def _by_key(
    a: list[Any],
    b: list[Any],
    keys_a: dict[Any, int],
    keys_b: dict[Any, int],
    where: str,
    tolerance: Tolerance,
) -> Iterator[Difference]:
    for key, i in keys_a.items():
        j = keys_b.get(key)
        if j is not None:
            at_a, at_b = element(where, i), element(where, j)
            for found in compare(a[i], b[j], at_a, tolerance):
                if i != j or found.path_b is not None:
                    # the same place in B, under B's index here (and B's below, if already given)
                    found = replace(found, path_b=at_b + (found.path_b or found.path)[len(at_a) :])
                yield found
        else:
            shown = _summary(a[i])
            yield Difference(element(where, i), shown, None, f"only in A: {shown}")
    for key, j in keys_b.items():
        if key not in keys_a:
            shown = _summary(b[j])
            yield Difference(element(where, j), None, shown, f"only in B: {shown}", path_b=element(where, j))


def summary(differences: list[Difference], a: str, b: str) -> str:
    """One line: whether the models are equal, else how many places differ and of what kind."""
    if not differences:
        return f"{a} and {b} are equal"
    only_a = sum(1 for d in differences if d.message.startswith("only in A"))
    only_b = sum(1 for d in differences if d.message.startswith("only in B"))
    values = sum(1 for d in differences if d.details is not None)
    changed = len(differences) - only_a - only_b - values
    parts = [
        f"{count} {what}"
        for count, what in (
            (only_a, "only in A"),
            (only_b, "only in B"),
            (values, "tensor values differ"),
            (changed, "fields changed"),
        )
        if count
    ]
    count = len(differences)
    return f"{a} and {b} differ in {count} place{'s' if count != 1 else ''}: {', '.join(parts)}"


def _comparable(tensor: TensorProto, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Values numpy can subtract: the small float and int types (ml_dtypes or storage) as float32."""
    import numpy as np

    from wirecodec.tensors.minifloat import to_float32

    if values.dtype == np.object_:
        return values
    if info_of(tensor.data_type, "tensor").native is None:
        return to_float32(values, tensor.data_type)
    return values


def _element(value: Any) -> str:
    # numpy's str() is the shortest form that reads back (2.001, not 2.000999927520752).
    return repr(value) if isinstance(value, (str, bytes)) else str(value)


def _index(flat: int, shape: tuple[int, ...]) -> list[int]:
    import numpy as np

    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


def _values(a: TensorProto, b: TensorProto, where: str, tolerance: Tolerance) -> Iterator[Difference]:
    try:
        import numpy as np

        from wirecodec.tensors.reading import to_array

        left, right = _comparable(a, to_array(a)), _comparable(b, to_array(b))
    except (TensorError, ImportError):
        # A tensor that cannot be read (or without numpy: docs/platforms.md) is compared
        # as stored, field by field.
        yield from _fields(a, b, where, tolerance, frozenset())
        return
    if left.dtype == np.object_ or left.dtype.kind == "b":
        unequal = left != right
    elif tolerance.rtol == 0 and tolerance.atol == 0:
        unequal = (left != right) & ~(_isnan(left) & _isnan(right))
    else:
        unequal = ~np.isclose(left, right, rtol=tolerance.rtol, atol=tolerance.atol, equal_nan=True)
    unequal = np.asarray(unequal).reshape(-1)
    count = int(np.count_nonzero(unequal))
    if count == 0:
        return
    first = int(np.argmax(unequal))
    flat_a, flat_b = left.reshape(-1), right.reshape(-1)
    at = _index(first, left.shape)
    message = (
        f"values differ in {count} of {left.size} elements "
        f"(first at {at}: {_element(flat_a[first])} != {_element(flat_b[first])}"
    )
    largest = None
    if left.dtype.kind in "fciu":
        gap = np.abs(flat_a[unequal].astype(np.complex128) - flat_b[unequal].astype(np.complex128))
        finite = gap[np.isfinite(gap)]
        if finite.size:
            largest = float(finite.max())
            message += f"; largest difference {largest:g}"
    message += ")"
    shown_a = flat_a[:_SHOWN_ELEMENTS].tolist() if left.size <= _SHOWN_ELEMENTS else None
    shown_b = flat_b[:_SHOWN_ELEMENTS].tolist() if right.size <= _SHOWN_ELEMENTS else None
    details = {
        "differing": count,
        "elements": int(left.size),
        "first_index": at,
        "largest_difference": largest,
    }
    yield Difference(join(where, "values"), _json_list(shown_a), _json_list(shown_b), message, details)


def _json_list(values: list[Any] | None) -> Any:
    if values is None:
        return None
    return [_plain(v) if not isinstance(v, complex) else str(v) for v in values]


def _isnan(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    import numpy as np

    if values.dtype.kind in "fc":
        return np.asarray(np.isnan(values))
    return np.zeros(values.shape, dtype=np.bool_)


def _tensors(a: TensorProto, b: TensorProto, where: str, tolerance: Tolerance) -> Iterator[Difference]:
    header = list(_fields(a, b, where, tolerance, _STORAGE))
    yield from header
    # Different element types or shapes: the elements cannot be matched up.
    if a.data_type == b.data_type and list(a.dims) == list(b.dims):
        yield from _values(a, b, where, tolerance)


def compare(
    a: Message, b: Message, path: str = "", tolerance: Tolerance | None = None
) -> Iterator[Difference]:
    """Every difference between two messages of the same class, in schema order."""
    tolerance = tolerance or Tolerance()
    if isinstance(a, TensorProto) and isinstance(b, TensorProto):
        yield from _tensors(a, b, path, tolerance)
    else:
        yield from _fields(a, b, path, tolerance, frozenset())


def run(args: argparse.Namespace) -> int:
    if args.a == STDIN and args.b == STDIN:
        raise UsageError("only one of A and B can be - (standard input)")
    first, second = open_model(args.a, options=args), open_model(args.b, options=args)
    tolerance = Tolerance(args.rtol, args.atol)
    differences = list(compare(first.model, second.model, "", tolerance))
    line = summary(differences, first.label, second.label)
    if args.json:
        print_json(
            {
                "a": first.label,
                "b": second.label,
                "rtol": args.rtol,
                "atol": args.atol,
                "equal": not differences,
                "summary": line,
                "differences": [d.json() for d in differences[: args.max_lines]],
                "count": len(differences),
            }
        )
    else:
        print(line)
        shown = differences if args.max_lines is None else differences[: args.max_lines]
        for difference in shown:
            print(difference.text())
        if len(shown) < len(differences):
            print(f"... and {len(differences) - len(shown)} more (--max-lines, or --json for all)")
    return 1 if differences else 0
