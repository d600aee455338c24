"""What a rule sees of one node: its attributes, its inputs' types and known values, its outputs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from schema_dsl.onnx import AttributeProto, GraphProto, NodeProto, TensorProto
from wirecodec.shape_inference._types import Dim, InferenceError, Shape, TensorType, Type

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["NodeContext", "SubgraphInferer"]

# (graph, the types its inputs get from the node) -> the types of its outputs
SubgraphInferer = Callable[[GraphProto, Sequence["Type | None"]], list["Type | None"]]

_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL: the payload is elsewhere, never read here
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def tensor_values(
    tensor: TensorProto | npt.NDArray[Any], refuse_bad_data: bool = False
) -> npt.NDArray[Any] | None:
    """The values of a small stored tensor, or None for one whose bytes live in another file.

    ``refuse_bad_data``: a tensor whose data does not fit its type and dims (raw_data of
    another length, values in another field) is an :class:`InferenceError`, as onnx's
    reading of a node's stored input refuses it; else it has no known value."""
    if not isinstance(tensor, TensorProto):
        return tensor
    if tensor.data_location == _EXTERNAL:
        return None
    from wirecodec.errors import TensorError

    try:
        from wirecodec.tensors.reading import to_array  # NumpyMissingError without numpy

        return to_array(tensor)
    except TensorError as exc:
        if refuse_bad_data and not _raw_data_to_spare(tensor):
            raise InferenceError(f"Data size mismatch: {exc}") from None
        return None
    except Exception:  # a tensor the reader refuses (or cannot read) has no known value here
        return None


def _raw_data_to_spare(tensor: TensorProto) -> bool:
    """Whether ``tensor``'s raw_data holds more bytes than its dims need: onnx reads the
    first elements and goes on (here: no known value), where fewer bytes are an error."""
    if not tensor.HasField("raw_data"):
        return False
    from wirecodec.tensors.dtypes import INFOS

    info = INFOS.get(tensor.data_type)
    if info is None or not info.bits:
        return False
    count = 1
    for d in tensor.dims:
        count *= d
    return len(tensor.raw_data) * 8 > count * info.bits


class NodeContext:
    """One node under inference: read inputs and attributes, set output types."""

    def __init__(
        self,
        node: NodeProto,
        opset: int,
        input_types: list[Type | None],
        input_data: list[TensorProto | npt.NDArray[Any] | None],
        input_symbols: list[tuple[Dim, ...] | None],
        attributes: dict[str, AttributeProto],
        infer_subgraph: SubgraphInferer,
        opsets: dict[str, int],
        present: list[bool] | None = None,
    ) -> None:
        self.node = node
        self.opset = opset
        self.opsets = opsets
        self._types = input_types
        self._data = input_data
        self._symbols = input_symbols
        self._present = present if present is not None else [bool(n) for n in node.input]
        self.attrs = attributes
        self.infer_subgraph = infer_subgraph
        self.outputs: list[Type | None] = [None] * len(node.output)
        self._values: dict[int, Any] = {}

    # -- inputs -------------------------------------------------------------------------
    @property
    def n_inputs(self) -> int:
        return len(self._types)

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)

    def has_input(self, i: int) -> bool:
        """Whether input ``i`` is given (present and not the empty name of a skipped optional)."""
        return i < len(self._present) and self._present[i]

    def has_output(self, i: int) -> bool:
        return i < len(self.node.output) and bool(self.node.output[i])

    def input_type(self, i: int) -> Type | None:
        return self._types[i] if i < len(self._types) and self.has_input(i) else None

    def tensor(self, i: int) -> TensorType | None:
        """Input ``i``'s tensor type, or None when it is unknown or not a tensor."""
        t = self.input_type(i)
        return t if isinstance(t, TensorType) else None

    def elem(self, i: int) -> int:
        t = self.tensor(i)
        return t.elem if t is not None else 0

    def known_elem(self, i: int) -> int:
        """Input ``i``'s element type for an output that takes it: a tensor type that leaves it
        unknown (``elem_type`` 0) is refused, as onnx's propagation refuses it."""
        t = self.tensor(i)
        if t is None:
            return 0
        if not t.elem:
            raise InferenceError(f"Element type of input {i} unknown")
        return t.elem

    def shape(self, i: int) -> Shape:
        t = self.tensor(i)
        return t.shape if t is not None else None

    def rank(self, i: int) -> int | None:
        s = self.shape(i)
        return None if s is None else len(s)

    def value(self, i: int) -> npt.NDArray[Any] | None:
        """Input ``i``'s values when an initializer or a Constant gives them."""
        if not self.has_input(i) or i >= len(self._data) or self._data[i] is None:
            return None
        if i not in self._values:
            tensor = self._data[i]
            assert tensor is not None
            self._values[i] = tensor_values(tensor, refuse_bad_data=True)
        found: npt.NDArray[Any] | None = self._values[i]
        return found

    def stored_type(self, i: int) -> int | None:
        """The data type of input ``i``'s stored tensor (an initializer, a Constant), if any."""
        if not self.has_input(i) or i >= len(self._data):
            return None
        tensor = self._data[i]
        return tensor.data_type if isinstance(tensor, TensorProto) else None

    def ints(self, i: int) -> list[int] | None:
        """Input ``i``'s values as a flat list of ints (a stored integer tensor), or None."""
        v = self.value(i)
        if v is None or v.dtype.kind not in "iu":
            return None
        return [int(x) for x in v.reshape(-1)]

    def dims_of(self, i: int, symbolic: bool = True) -> tuple[Dim, ...] | None:
        """Input ``i``'s values as dimensions: stored ints, or (``symbolic``) the values
        data_prop computed (an operator version that reads them says so)."""
        known = self.ints(i)
        if known is not None:
            return tuple(known)
        if symbolic and self.has_input(i) and i < len(self._symbols):
            return self._symbols[i]
        return None

    # -- attributes ----------------------------------------------------------------------
    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    def attr_int(self, name: str, default: int) -> int:
        a = self.attrs.get(name)
        return int(a.i) if a is not None else default

    def attr_float(self, name: str, default: float) -> float:
        a = self.attrs.get(name)
        return float(a.f) if a is not None else default

    def attr_ints(self, name: str) -> list[int] | None:
        a = self.attrs.get(name)
        return [int(x) for x in a.ints] if a is not None else None

    def attr_str(self, name: str, default: str) -> str:
        a = self.attrs.get(name)
        return bytes(a.s).decode("utf-8", "replace") if a is not None else default

    def attr_strings(self, name: str) -> list[str] | None:
        a = self.attrs.get(name)
        return [bytes(s).decode("utf-8", "replace") for s in a.strings] if a is not None else None

    # -- outputs and failure -------------------------------------------------------------
    def set(self, i: int, t: Type | None) -> None:
        if t is not None and i < len(self.outputs):
            self.outputs[i] = t

    def set_tensor(self, i: int, elem: int, shape: Shape) -> None:
        for axis, d in enumerate(shape or ()):
            if isinstance(d, int) and not _INT64_MIN <= d <= _INT64_MAX:
                # a size computed past int64 (Concat of huge axes, Tile, group x channels)
                raise InferenceError(f"output {i}: the size of axis {axis} ({d}) would overflow int64")
        self.set(i, TensorType(elem, shape))

    def fail(self, reason: str) -> InferenceError:
        """The error to raise for this node (``raise ctx.fail("...")``)."""
        return InferenceError(reason)
