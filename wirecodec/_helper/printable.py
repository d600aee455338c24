"""``printable_graph`` and its parts: the one-line-per-node listing of ``onnx.helper``.

The layout is onnx's (``graph name (`` inputs ``) {`` nodes ``return`` outputs ``}``, then
each subgraph), so a diff against onnx's output shows model differences, not printer
differences. One exception: a TYPE_PROTO attribute shows ``str()`` of our TypeProto,
where onnx shows protobuf's text format.

>>> from schema_dsl.onnx import GraphProto, NodeProto, TensorProto, TypeProto, ValueInfoProto
>>> x = ValueInfoProto(name="X", type=TypeProto(tensor_type=TypeProto.Tensor(elem_type=TensorProto.FLOAT)))
>>> g = GraphProto(name="g", input=[x], output=[ValueInfoProto(name="Y")],
...                node=[NodeProto(op_type="Relu", input=["X"], output=["Y"])])
>>> print(printable_graph(g))
graph g (
  %X[FLOAT]
) {
  %Y = Relu(%X)
  return %Y
}
"""

from __future__ import annotations

from typing import Any, Literal, overload

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    NodeProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec.tensors.dtypes import INFOS

__all__ = [
    "printable_attribute",
    "printable_dim",
    "printable_graph",
    "printable_node",
    "printable_tensor_proto",
    "printable_type",
    "printable_value_info",
]


def _text(value: Any) -> str:
    """A string attribute as onnx shows it: decoded leniently, cut after 64 characters."""
    text = bytes(value).decode("utf-8", errors="ignore") if not isinstance(value, str) else value
    return text if len(text) < 64 else f"{text[:64]}...<+len={len(text) - 64}>"


def _float(f: float) -> str:
    return f"{f:.15g}"


def _scalar_items(tensor: TensorProto) -> str:
    info = INFOS.get(tensor.data_type)
    if info is None:
        raise KeyError(tensor.data_type)
    items = getattr(tensor, info.field)
    return repr([bytes(x) for x in items] if info.field == "string_data" else list(items))


def _attribute(attr: AttributeProto) -> tuple[str, list[GraphProto]]:
    graphs: list[GraphProto] = []
    if attr.HasField("f"):
        shown = _float(attr.f)
    elif attr.HasField("i"):
        shown = str(attr.i)
    elif attr.HasField("s"):
        shown = repr(_text(attr.s))
    elif attr.HasField("t"):
        shown = "<Tensor>" if len(attr.t.dims) else f"<Scalar Tensor {_scalar_items(attr.t)}>"
    elif attr.HasField("g"):
        shown = f"<graph {attr.g.name}>"
        graphs.append(attr.g)
    elif attr.HasField("tp"):
        shown = f"<Type Proto {attr.tp}>"
    elif attr.HasField("sparse_tensor"):
        shown = "<Sparse Tensor>"
    elif attr.floats:
        shown = "[" + ", ".join(_float(f) for f in attr.floats) + "]"
    elif attr.ints:
        shown = "[" + ", ".join(str(i) for i in attr.ints) + "]"
    elif attr.strings:
        shown = str([_text(s) for s in attr.strings])
    elif attr.tensors:
        shown = "[<Tensor>, ...]"
    elif attr.sparse_tensors:
        shown = "[<Sparse Tensor>, ...]"
    elif attr.type_protos:
        shown = (
            "[ "
            + " ".join(
                f"<Type Proto {tp}>" + ("," if i < len(attr.type_protos) - 1 else "")
                for i, tp in enumerate(attr.type_protos)
            )
            + " ]"
        )
    elif attr.graphs:
        shown = (
            "[ "
            + " ".join(
                f"<graph {g.name}>" + ("," if i < len(attr.graphs) - 1 else "")
                for i, g in enumerate(attr.graphs)
            )
            + " ]"
        )
        graphs.extend(attr.graphs)
    else:
        shown = "<Unknown>"
    return f"{attr.name} = {shown}", graphs


@overload
def printable_attribute(attr: AttributeProto, subgraphs: Literal[False] = False) -> str: ...
@overload
def printable_attribute(attr: AttributeProto, subgraphs: Literal[True]) -> tuple[str, list[GraphProto]]: ...
def printable_attribute(attr: AttributeProto, subgraphs: bool = False) -> str | tuple[str, list[GraphProto]]:
    """``name = value``; with ``subgraphs=True`` also the graphs the attribute holds."""
    text, graphs = _attribute(attr)
    return (text, graphs) if subgraphs else text


def printable_dim(dim: TensorShapeProto.Dimension) -> str:
    """A dimension's size or symbol, ``?`` when unknown."""
    which = dim.WhichOneof("value")
    return "?" if which is None else str(getattr(dim, which))


def printable_type(t: TypeProto) -> str:
    """``FLOAT, 2x?`` for a tensor type; other kinds are named as unknown."""
    which = t.WhichOneof("value")
    if which == "tensor_type":
        text = TensorProto.DataType.Name(t.tensor_type.elem_type)
        if t.tensor_type.HasField("shape"):
            dims = t.tensor_type.shape.dim
            text += ", " + "x".join(printable_dim(d) for d in dims) if len(dims) else ", scalar"
        return text
    return "" if which is None else f"Unknown type {which}"


def printable_value_info(v: ValueInfoProto) -> str:
    """``%name[type]``."""
    # onnx tests the (always true) truth of the type message: the brackets always appear.
    return f"%{v.name}[{printable_type(v.type)}]"


def printable_tensor_proto(t: TensorProto) -> str:
    """``%name[TYPE, dims]``."""
    dims = ", " + "x".join(str(d) for d in t.dims) if len(t.dims) else ", scalar"
    return f"%{t.name}[{TensorProto.DataType.Name(t.data_type)}{dims}]"


def _node(node: NodeProto, prefix: str) -> tuple[str, list[GraphProto]]:
    parts = []
    if len(node.output):
        parts += [", ".join(f"%{name}" for name in node.output), "="]
    graphs: list[GraphProto] = []
    shown = []
    for attr in node.attribute:
        text, inner = _attribute(attr)
        shown.append(text)
        graphs.extend(inner)
    inputs = ", ".join(f"%{name}" for name in node.input)
    if node.attribute:
        parts.append(f"{node.op_type}[{', '.join(sorted(shown))}]({inputs})")
    else:
        parts.append(f"{node.op_type}({inputs})")
    return prefix + " ".join(parts), graphs


@overload
def printable_node(node: NodeProto, prefix: str = "", subgraphs: Literal[False] = False) -> str: ...
@overload
def printable_node(
    node: NodeProto, prefix: str, subgraphs: Literal[True]
) -> tuple[str, list[GraphProto]]: ...
def printable_node(
    node: NodeProto, prefix: str = "", subgraphs: bool = False
) -> str | tuple[str, list[GraphProto]]:
    """``%out = Op[attrs](%in)``; with ``subgraphs=True`` also the graphs in its attributes."""
    text, graphs = _node(node, prefix)
    return (text, graphs) if subgraphs else text


def printable_graph(graph: GraphProto, prefix: str = "") -> str:
    """A readable listing of ``graph``: inputs, one line per node, outputs, then subgraphs."""
    lines: list[str] = []
    header = ["graph", graph.name]
    initialized = {t.name for t in graph.initializer}
    if len(graph.input):
        header.append("(")
        plain = [printable_value_info(v) for v in graph.input if v.name not in initialized]
        defaulted = [printable_value_info(v) for v in graph.input if v.name in initialized]
        if plain:
            lines.append(prefix + " ".join(header))
            header = []
            lines += [f"{prefix}  {line}" for line in plain]
        header.append(")")
        if defaulted:
            header.append("optional inputs with matching initializers (")
            lines.append(prefix + " ".join(header))
            header = []
            lines += [f"{prefix}  {line}" for line in defaulted]
            header.append(")")
        if len(defaulted) < len(initialized):
            # Since IR 4 an initializer need not be an input: list those too.
            input_names = {v.name for v in graph.input}
            header.append("initializers (")
            lines.append(prefix + " ".join(header))
            header = []
            lines += [
                f"{prefix}  {printable_tensor_proto(t)}"
                for t in graph.initializer
                if t.name not in input_names
            ]
            header.append(")")
    header.append("{")
    lines.append(prefix + " ".join(header))
    subgraphs: list[GraphProto] = []
    for node in graph.node:
        text, inner = _node(node, prefix + "  ")
        lines.append(text)
        subgraphs.extend(inner)
    tail = ["return"]
    if len(graph.output):
        tail.append(", ".join(f"%{v.name}" for v in graph.output))
    lines.append(prefix + "  " + " ".join(tail))
    lines.append(prefix + "}")
    lines += ["\n" + printable_graph(g) for g in subgraphs]
    return "\n".join(lines)
