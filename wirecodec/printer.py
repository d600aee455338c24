"""Print ONNX messages in the ONNX textual syntax, exactly as ``onnx.printer.to_text`` does.

>>> from wirecodec.parser import parse_model
>>> from wirecodec.printer import to_text
>>> model = parse_model('''
...   <ir_version: 8, opset_import: ["" : 18]>
...   agraph (float[N] X) => (float[N] Y) { Y = Relu(X) }
... ''')
>>> print(to_text(model))
<
   ir_version: 8,
   opset_import: ["" : 18]
>
agraph (float[N] X) => (float[N] Y) {
   Y = Relu (X)
}

The layout is the reference printer's, quirks included, so that texts can be compared
with the onnx package's byte for byte: names that are not identifiers are quoted, a
float prints in its shortest round-trip form, a graph attribute's nodes are indented
three more spaces, and tensor data the syntax cannot write (4-bit, complex, string
``raw_data``) prints as ``...``. ``docs/textual-syntax.md`` lists what reads back.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence

from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec._textual.lexer import is_identifier
from wirecodec._textual.names import attribute_type_name, element_type_name
from wirecodec._textual.numbers import INT64_MAX, format_float32, format_float64
from wirecodec.errors import TensorError

__all__ = ["to_text"]

_T = TensorProto.DataType
_A = AttributeProto.AttributeType

# raw_data the printer can show: the struct letter of a little-endian element, and how to write one.
# Small floats and bool print their unsigned bit patterns, as the typed fields hold them.
_RAW_LAYOUT: dict[int, tuple[str, str]] = {
    _T.INT8: ("b", "int"),
    _T.UINT8: ("B", "int"),
    _T.BOOL: ("B", "int"),
    _T.FLOAT8E4M3FN: ("B", "int"),
    _T.FLOAT8E4M3FNUZ: ("B", "int"),
    _T.FLOAT8E5M2: ("B", "int"),
    _T.FLOAT8E5M2FNUZ: ("B", "int"),
    _T.FLOAT8E8M0: ("B", "int"),
    _T.INT16: ("h", "int"),
    _T.UINT16: ("H", "int"),
    _T.FLOAT16: ("H", "int"),
    _T.BFLOAT16: ("H", "int"),
    _T.INT32: ("i", "int"),
    _T.UINT32: ("I", "int"),
    _T.INT64: ("q", "int"),
    _T.UINT64: ("Q", "int"),
    _T.FLOAT: ("f", "float32"),
    _T.DOUBLE: ("d", "float64"),
}

# Typed data fields the printer shows, by element type.
_INT32_TYPES = frozenset(
    {
        _T.INT8, _T.INT16, _T.INT32, _T.UINT8, _T.UINT16, _T.BOOL, _T.FLOAT16, _T.BFLOAT16,
        _T.FLOAT8E4M3FN, _T.FLOAT8E4M3FNUZ, _T.FLOAT8E5M2, _T.FLOAT8E5M2FNUZ, _T.FLOAT8E8M0,
    }
)  # fmt: skip


def to_text(
    proto: ModelProto | GraphProto | FunctionProto | NodeProto, *, max_elements: int | None = None
) -> str:
    """The textual form of a model, graph, function or node (as ``onnx.printer.to_text``).

    ``max_elements`` elides the data of tensors with more elements than that (printed
    ``...``, as the syntax writes data it cannot show): a model's weights are megabytes of
    numbers nobody reads. The default prints everything, byte for byte as onnx does.
    Raises TensorError when a tensor's ``raw_data`` does not match its ``dims``, and
    TypeError for any other kind of message.
    """
    printer = _Printer(max_elements)
    if isinstance(proto, ModelProto):
        printer.model(proto)
    elif isinstance(proto, FunctionProto):
        printer.function(proto)
    elif isinstance(proto, GraphProto):
        printer.graph(proto)
    elif isinstance(proto, NodeProto):
        printer.node(proto)
    else:
        kinds = "ModelProto, GraphProto, FunctionProto or NodeProto"
        raise TypeError(f"to_text prints a {kinds}, not {type(proto).__name__}")
    return "".join(printer.out)


def _quoted(text: str) -> str:
    """``text`` in double quotes, with backslash before each backslash and quote."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _name_text(name: str) -> str:
    """A name as written: bare when it is an identifier, quoted otherwise."""
    return name if is_identifier(name) else _quoted(name)


def _bytes_text(value: bytes | memoryview) -> str:
    # Bytes that are not UTF-8 survive as lone surrogates, as our string fields keep them.
    return bytes(value).decode("utf-8", "surrogateescape")


def _quoted_list(opening: str, items: Sequence[bytes | memoryview], closing: str) -> str:
    """Quoted strings, comma-separated; the reference writes ``opening`` as the first
    item's separator, so an empty list prints as ``closing`` alone."""
    parts = [(opening if i == 0 else ", ") + _quoted(_bytes_text(s)) for i, s in enumerate(items)]
    return "".join(parts) + closing


def _numbers(values: Iterable[float], kind: str) -> list[str]:
    if kind == "float32":
        return [format_float32(v) for v in values]
    if kind == "float64":
        return [format_float64(v) for v in values]
    return [str(int(v)) for v in values]


class _Printer:
    """Collects the output; ``indent`` is the reference printer's indentation column."""

    def __init__(self, max_elements: int | None = None) -> None:
        self.out: list[str] = []
        self.indent = 3
        self.max_elements = max_elements

    def write(self, text: str) -> None:
        self.out.append(text)

    # -- model and function headers ---------------------------------------------------

    def model(self, model: ModelProto) -> None:
        entries = [
            f"ir_version: {model.ir_version}",
            f"opset_import: {self._opsets(model.opset_import, ', ')}",
        ]
        for key in ("producer_name", "producer_version", "domain"):
            if model.HasField(key):
                entries.append(f"{key}: {_quoted(getattr(model, key))}")
        if model.HasField("model_version"):
            entries.append(f"model_version: {model.model_version}")
        if model.HasField("doc_string"):
            entries.append(f"doc_string: {_quoted(model.doc_string)}")
        if model.metadata_props:
            entries.append(f"metadata_props: {self._string_pairs(model.metadata_props)}")
        pad = " " * self.indent
        self.write("<\n" + ",\n".join(pad + entry for entry in entries) + "\n>\n")
        self.graph(model.graph)
        for function in model.functions:
            self.write("\n")
            self.function(function)

    @staticmethod
    def _opsets(opsets: list[OperatorSetIdProto], separator: str) -> str:
        return "[" + separator.join(f"{_quoted(o.domain)} : {o.version}" for o in opsets) + "]"

    @staticmethod
    def _string_pairs(entries: list[StringStringEntryProto]) -> str:
        return "[" + ", ".join(f"{_quoted(e.key)}: {_quoted(e.value)}" for e in entries) + "]"

    def function(self, fn: FunctionProto) -> None:
        header = f"<\n  domain: {_quoted(fn.domain)},\n"
        if fn.overload:
            header += f"  overload: {_quoted(fn.overload)},\n"
        header += f"  opset_import: {self._opsets(fn.opset_import, ',')}\n>\n"
        self.write(header + _name_text(fn.name) + " ")
        if fn.attribute:
            self.write("<" + ",".join(fn.attribute) + ">")
        inputs = ", ".join(_name_text(n) for n in fn.input)
        outputs = ", ".join(_name_text(n) for n in fn.output)
        self.write(f"({inputs}) => ({outputs})\n")
        self.nodes(fn.node)

    # -- graphs and nodes -------------------------------------------------------------

    def graph(self, graph: GraphProto) -> None:
        self.write(f"{_name_text(graph.name)} {self._value_infos(graph.input)} => ")
        self.write(f"{self._value_infos(graph.output)} ")
        if graph.initializer or graph.value_info:
            items = [self.tensor(t, initializer=True) for t in graph.initializer]
            items += [self.value_info(v) for v in graph.value_info]
            self.write("\n" + " " * self.indent + "<" + ", ".join(items) + ">\n")
        self.nodes(graph.node)

    def _value_infos(self, infos: list[ValueInfoProto]) -> str:
        return "(" + ", ".join(self.value_info(v) for v in infos) + ")"

    def value_info(self, info: ValueInfoProto) -> str:
        return f"{self.type(info.type)} {_name_text(info.name)}"

    def nodes(self, nodes: list[NodeProto]) -> None:
        self.write("{\n")
        for node in nodes:
            self.node(node)
        self.write(" " * (self.indent - 3) + "}")

    def node(self, node: NodeProto) -> None:
        self.write(" " * self.indent)
        if node.HasField("name"):
            self.write(f"[{_name_text(node.name)}] ")
        self.write(", ".join(_name_text(n) for n in node.output) + " = ")
        if node.domain:
            self.write(node.domain + ".")
        self.write(node.op_type)
        if node.overload:
            self.write(":" + node.overload)
        # Attributes holding graphs go after the inputs, so the inputs stay in sight.
        graphs_last = any(a.HasField("g") or a.graphs for a in node.attribute)
        if node.attribute and not graphs_last:
            self._attributes(node.attribute)
        self.write(" (" + ", ".join(_name_text(n) for n in node.input) + ")")
        if node.attribute and graphs_last:
            self._attributes(node.attribute)
        self.write("\n")

    def _attributes(self, attributes: list[AttributeProto]) -> None:
        self.write(" <")
        for i, attr in enumerate(attributes):
            if i:
                self.write(", ")
            self.attribute(attr)
        self.write(">")

    def attribute(self, attr: AttributeProto) -> None:
        self.write(f"{attr.name}: {attribute_type_name(attr.type)} = ")
        if attr.HasField("ref_attr_name"):
            self.write("@" + attr.ref_attr_name)
            return
        kind = attr.type
        if kind == _A.GRAPH or kind == _A.GRAPHS:
            self.indent += 3
            if kind == _A.GRAPH:
                self.graph(attr.g)
            else:
                self.write("[")
                for i, graph in enumerate(attr.graphs):
                    if i:
                        self.write(", ")
                    self.graph(graph)
                self.write("]")
            self.indent -= 3
        else:
            self.write(self._attribute_value(attr))

    def _attribute_value(self, attr: AttributeProto) -> str:
        kind = attr.type
        if kind == _A.INT:
            return str(attr.i)
        if kind == _A.INTS:
            return "[" + ", ".join(map(str, attr.ints)) + "]"
        if kind == _A.FLOAT:
            return format_float32(attr.f)
        if kind == _A.FLOATS:
            return "[" + ", ".join(map(format_float32, attr.floats)) + "]"
        if kind == _A.STRING:
            return _quoted(_bytes_text(attr.s))
        if kind == _A.STRINGS:
            return _quoted_list("[", attr.strings, "]")
        if kind == _A.TENSOR:
            return self.tensor(attr.t)
        if kind == _A.TENSORS:
            return "[" + ", ".join(self.tensor(t) for t in attr.tensors) + "]"
        if kind == _A.TYPE_PROTO:
            return self.type(attr.tp)
        if kind == _A.TYPE_PROTOS:
            return "[" + ", ".join(self.type(t) for t in attr.type_protos) + "]"
        return ""  # sparse tensors and unknown types print no value

    # -- types ------------------------------------------------------------------------

    def type(self, tp: TypeProto) -> str:
        which = tp.WhichOneof("value")
        if which == "tensor_type" or which == "sparse_tensor_type":
            inner = tp.tensor_type if which == "tensor_type" else tp.sparse_tensor_type
            text = element_type_name(inner.elem_type)
            if not inner.HasField("shape"):
                text += "[]"
            elif inner.shape.dim:
                text += self._shape(inner.shape)
            return text if which == "tensor_type" else f"sparse_tensor({text})"
        if which == "sequence_type":
            return f"seq({self.type(tp.sequence_type.elem_type)})"
        if which == "map_type":
            key = element_type_name(tp.map_type.key_type)
            return f"map({key}, {self.type(tp.map_type.value_type)})"
        if which == "optional_type":
            return f"optional({self.type(tp.optional_type.elem_type)})"
        if which == "opaque_type":
            opaque = tp.opaque_type
            return f"opaque({opaque.domain + ',' if opaque.domain else ''}{opaque.name})"
        return ""

    @staticmethod
    def _shape(shape: TensorShapeProto) -> str:
        dims = []
        for dim in shape.dim:
            if dim.HasField("dim_value"):
                dims.append(str(dim.dim_value))
            elif dim.HasField("dim_param"):
                dims.append(_name_text(dim.dim_param))
            else:
                dims.append("?")
        return "[" + ",".join(dims) + "]"

    # -- tensors ----------------------------------------------------------------------

    def tensor(self, tensor: TensorProto, initializer: bool = False) -> str:
        text = element_type_name(tensor.data_type)
        if tensor.dims:
            text += "[" + ",".join(map(str, tensor.dims)) + "]"
        if tensor.name:
            text += " " + _name_text(tensor.name)
        if initializer:
            text += " = "
        return text + self._tensor_data(tensor)

    def _tensor_data(self, tensor: TensorProto) -> str:
        dtype = tensor.data_type
        if tensor.HasField("data_location") and tensor.data_location == TensorProto.DataLocation.EXTERNAL:
            return self._string_pairs(tensor.external_data)
        if self.max_elements is not None and math.prod(tensor.dims) > self.max_elements:
            return "..."
        if tensor.HasField("raw_data"):
            layout = _RAW_LAYOUT.get(dtype)
            if layout is None:
                return "..."
            return " {" + ",".join(_numbers(_raw_values(tensor, layout[0]), layout[1])) + "}"
        values: Sequence[float]
        if dtype in _INT32_TYPES:
            values, kind = tensor.int32_data, "int"
        elif dtype == _T.INT64:
            values, kind = tensor.int64_data, "int"
        elif dtype in (_T.UINT32, _T.UINT64):
            values, kind = tensor.uint64_data, "int"
        elif dtype == _T.FLOAT:
            values, kind = tensor.float_data, "float32"
        elif dtype == _T.DOUBLE:
            values, kind = tensor.double_data, "float64"
        elif dtype == _T.STRING:
            return _quoted_list("{", tensor.string_data, "}")
        else:
            return "..."
        return " {" + ",".join(_numbers(values, kind)) + "}"


def _raw_values(tensor: TensorProto, letter: str) -> list[float]:
    """The elements of raw_data (little-endian, ``letter`` in :mod:`struct`'s terms), which
    must hold exactly as many as ``dims`` says. No numpy: the printer works without it."""
    count = 1
    for dim in tensor.dims:
        if dim < 0:
            raise TensorError(f"tensor {tensor.name!r}: negative dimension {dim}")
        count *= dim
        if count > INT64_MAX:
            raise TensorError(f"tensor {tensor.name!r}: element count overflows int64")
    raw = tensor.raw_data
    itemsize = struct.calcsize(letter)
    if len(raw) != count * itemsize:
        raise TensorError(
            f"tensor {tensor.name!r}: {len(raw)} bytes of raw_data for {count} elements of {itemsize} bytes"
        )
    # struct widens float32 exactly, NaN signs included.
    return [value for (value,) in struct.iter_unpack("<" + letter, raw)]
