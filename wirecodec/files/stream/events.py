"""What :func:`wirecodec.stream` yields: one small event per top-level piece of a model.

Every event carries ``offset`` (where its record starts, counted in bytes from the
start of the model), ``length`` (the record's size in bytes, tag included) and
``path`` (``ModelProto.graph.node[12]``), so a consumer can say where anything came
from. The classes are frozen dataclasses; match on them:

>>> import wirecodec
>>> from wirecodec.examples.build_mlp import build
>>> for event in wirecodec.stream(wirecodec.encode(build())):
...     match event:
...         case wirecodec.files.stream.events.Node(node=node):
...             print(node.op_type)
Gemm
Relu
Gemm
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from schema_dsl.onnx import (
    FunctionProto,
    NodeProto,
    OperatorSetIdProto,
    SparseTensorProto,
    TensorProto,
    ValueInfoProto,
)
from wirecodec.errors import WireCodecError

__all__ = [
    "Event",
    "Function",
    "GraphField",
    "GraphStart",
    "Initializer",
    "LazyTensor",
    "ModelField",
    "Node",
    "OpsetImport",
    "PayloadReader",
    "SparseInitializer",
    "UnknownField",
    "ValueInfo",
]


class PayloadReader(Protocol):
    """Reads ``length`` bytes at ``offset`` of the model being streamed (while it is open)."""

    def read_at(self, offset: int, length: int) -> Any: ...


@dataclass(frozen=True)
class Event:
    """Base of every event: where the record lies and which field it is."""

    offset: int
    length: int
    path: str


@dataclass(frozen=True)
class ModelField(Event):
    """One record of a ModelProto field with no event of its own.

    ``ir_version``, ``producer_name``, ``producer_version``, ``domain``,
    ``model_version``, ``doc_string`` (``value`` is the int or str), and one element of
    ``metadata_props``, ``training_info`` or ``configuration`` (``value`` is the
    message; ``index`` its position in the field). ``record`` is a ModelProto holding
    just this record: ``model.MergeFrom(event.record)`` applies it exactly as decoding
    would (a field that appears twice: the last wins, messages merge).
    """

    name: str
    value: Any
    index: int | None
    record: Any = field(repr=False, compare=False)


@dataclass(frozen=True)
class OpsetImport(Event):
    """One element of ``ModelProto.opset_import``."""

    index: int
    opset: OperatorSetIdProto


@dataclass(frozen=True)
class Function(Event):
    """One element of ``ModelProto.functions``, decoded whole."""

    index: int
    function: FunctionProto


@dataclass(frozen=True)
class GraphField(Event):
    """One record of a field of the main graph with no event of its own.

    ``name`` and ``doc_string`` (``value`` is the str), one element of
    ``quantization_annotation`` or ``metadata_props`` (``value`` is the message,
    ``index`` its position). ``record`` is a GraphProto holding just this record, for
    ``graph.MergeFrom(event.record)``.
    """

    name: str
    value: Any
    index: int | None
    record: Any = field(repr=False, compare=False)


@dataclass(frozen=True)
class GraphStart(Event):
    """A record of the main graph begins (``length`` covers all of it).

    Its fields follow as events until ``offset + length``. A model may hold more than
    one graph record; decoding merges them into one graph.
    """


@dataclass(frozen=True)
class Node(Event):
    """One node of the main graph, decoded whole (its subgraphs included)."""

    index: int
    node: NodeProto


@dataclass(frozen=True)
class ValueInfo(Event):
    """One element of the main graph's ``input``, ``output`` or ``value_info``."""

    role: Literal["input", "output", "value_info"]
    index: int
    value_info: ValueInfoProto


@dataclass(frozen=True)
class Initializer(Event):
    """One element of the main graph's ``initializer``: a tensor whose payload waits."""

    index: int
    tensor: LazyTensor


@dataclass(frozen=True)
class SparseInitializer(Event):
    """One element of the main graph's ``sparse_initializer``, decoded whole."""

    index: int
    sparse_tensor: SparseTensorProto


@dataclass(frozen=True)
class UnknownField(Event):
    """A record of ModelProto (``owner="ModelProto"``) or of the main graph
    (``owner="GraphProto"``) that its schema does not know (or a known field number
    with another wire type), kept verbatim in ``data`` (tag included) as decoding keeps
    it. ``record`` is the one-record message, for ``MergeFrom``."""

    owner: Literal["ModelProto", "GraphProto"]
    number: int
    wire_type: int
    data: bytes
    record: Any = field(repr=False, compare=False)


@dataclass(eq=False)
class LazyTensor:
    """An initializer whose ``raw_data`` bytes have not been read (or were read once).

    ``header`` is the TensorProto with every field but ``raw_data``; ``raw_offset`` and
    ``raw_length`` say where ``raw_data``'s bytes lie in the model (``raw_offset`` is
    None when the tensor has no ``raw_data``). From a path, an open regular file, an
    mmap or bytes, :meth:`read` fetches them on demand while the stream is open; from a
    non-seekable stream they were read as the tensor went by (``skip_payloads=False``,
    the default) or skipped (``skip_payloads=True``; :meth:`read` then raises).
    Tensors whose data is in typed fields (``float_data``...) or in external files
    carry it in ``header``, as decoding gives it.
    """

    header: TensorProto
    raw_offset: int | None
    raw_length: int
    _data: Any = field(default=None, repr=False)
    _reader: PayloadReader | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def data_type(self) -> int:
        return self.header.data_type

    @property
    def dims(self) -> list[int]:
        return list(self.header.dims)

    @property
    def has_raw_data(self) -> bool:
        return self.raw_offset is not None

    def read(self) -> Any:
        """The ``raw_data`` bytes (a bytes-like object; empty when there are none)."""
        if self.raw_offset is None:
            return b""
        if self._data is not None:
            return self._data
        if self._reader is None:
            raise WireCodecError(
                f"tensor {self.name!r}: its payload was skipped (skip_payloads=True on a non-seekable stream)"
            )
        return self._reader.read_at(self.raw_offset, self.raw_length)

    def chunks(self, size: int = 1 << 24) -> Iterator[Any]:
        """The ``raw_data`` bytes in pieces of at most ``size`` bytes, read one at a time
        (so a tensor of any size can be hashed or copied in bounded memory)."""
        if size < 1:
            raise ValueError("size must be positive")
        if self.raw_offset is None:
            return
        if self._data is not None or self._reader is None:
            data = memoryview(self.read())
            for start in range(0, data.nbytes, size):
                yield data[start : start + size]
            return
        for start in range(0, self.raw_length, size):
            yield self._reader.read_at(self.raw_offset + start, min(size, self.raw_length - start))

    def to_tensor(self) -> TensorProto:
        """The whole TensorProto, as :func:`wirecodec.decode` gives it (reads the payload)."""
        tensor = TensorProto()
        tensor.CopyFrom(self.header)
        if self.raw_offset is not None:
            tensor.raw_data = self.read()
        return tensor
