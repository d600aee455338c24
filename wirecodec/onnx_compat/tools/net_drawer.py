"""``onnx.tools.net_drawer``: a graph as a ``pydot.Dot`` (operators as boxes, values as octagons).

The module of onnx releases before 1.19 (1.23 no longer ships it), under both of its
spellings: :func:`GetPydotGraph`/:func:`get_pydot_graph` and
:func:`GetOpNodeProducer`/:func:`get_op_node_producer`. Each operator is a box labelled
``name/op_type (op#i)`` followed by its inputs and outputs; each value an octagon whose
name carries a count, so that a name written again (a value redefined) is a new octagon
and readers before the redefinition keep the old one. ``pydot`` is optional: it is imported
on the first drawing, and its absence is a :class:`PydotMissingError` that names it.
``python -m wirecodec.onnx_compat.tools.net_drawer --input m.onnx --output m.dot`` writes
the dot text, as onnx's script did. (wirecodec's own drawing, without pydot, is
``wirecodec draw``.)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from schema_dsl.onnx import GraphProto, NodeProto
from wirecodec.errors import WireCodecError

__all__ = [
    "BLOB_STYLE",
    "OP_STYLE",
    "GetOpNodeProducer",
    "GetPydotGraph",
    "PydotMissingError",
    "get_op_node_producer",
    "get_pydot_graph",
    "main",
]

OP_STYLE = {"shape": "box", "color": "#0F9D58", "style": "filled", "fontcolor": "#FFFFFF"}
"""How an operator is drawn."""

BLOB_STYLE = {"shape": "octagon"}
"""How a value is drawn."""


class PydotMissingError(WireCodecError, ModuleNotFoundError):
    """The ``pydot`` package, which net_drawer draws with, is not installed."""


def _pydot() -> Any:
    try:
        import pydot
    except ImportError:
        raise PydotMissingError(
            "onnx.tools.net_drawer draws with the pydot package, which is not installed "
            "(pip install pydot); `wirecodec draw` draws a model without it",
            name="pydot",
        ) from None
    return pydot


def _quoted(text: str) -> str:
    """A name as a dot identifier: JSON's quoting (onnx's choice)."""
    return json.dumps(text)


def _docstring_url(text: str) -> str:
    """A doc string as the ``javascript:alert(...)`` URL an SVG viewer shows on a click."""
    inner = _quoted(text).replace('"', "'").replace("<", "").replace(">", "")
    return f"javascript:alert({inner})"


def get_op_node_producer(embed_docstring: bool = False, **kwargs: Any) -> Callable[[NodeProto, int], Any]:
    """A function ``(node, index) -> pydot.Node`` drawing an operator with ``kwargs`` as its
    style (``embed_docstring``: the node's doc string as its URL)."""
    pydot = _pydot()

    def producer(op: NodeProto, op_id: int) -> Any:
        head = f"{op.name}/{op.op_type}" if op.name else op.op_type
        lines = [f"{head} (op#{op_id})"]
        lines += [f" input{i} {name}" for i, name in enumerate(op.input)]
        lines += [f" output{i} {name}" for i, name in enumerate(op.output)]
        drawn = pydot.Node("\n".join(lines), **kwargs)
        if embed_docstring:
            drawn.set_URL(_docstring_url(op.doc_string))
        return drawn

    return producer


def get_pydot_graph(
    graph: GraphProto,
    name: str | None = None,
    rankdir: str = "LR",
    node_producer: Callable[[NodeProto, int], Any] | None = None,
    embed_docstring: bool = False,
) -> Any:
    """``graph`` as a ``pydot.Dot`` named ``name``: an edge from each value to the operators
    reading it and from each operator to the values it writes."""
    pydot = _pydot()
    if node_producer is None:
        node_producer = get_op_node_producer(embed_docstring=embed_docstring, **OP_STYLE)
    dot = pydot.Dot(name, rankdir=rankdir)
    current: dict[str, Any] = {}  # value name -> its octagon now
    written: dict[str, int] = {}  # value name -> how many times it was redefined

    def octagon(value: str) -> Any:
        return pydot.Node(_quoted(f"{value}{written.get(value, 0)}"), label=_quoted(value), **BLOB_STYLE)

    for index, op in enumerate(graph.node):
        box = node_producer(op, index)
        dot.add_node(box)
        for value in op.input:
            source = current.get(value)
            if source is None:
                source = current[value] = octagon(value)
            dot.add_node(source)
            dot.add_edge(pydot.Edge(source, box))
        for value in op.output:
            if value in current:
                written[value] = written.get(value, 0) + 1
            target = current[value] = octagon(value)
            dot.add_node(target)
            dot.add_edge(pydot.Edge(box, target))
    return dot


GetOpNodeProducer = get_op_node_producer
GetPydotGraph = get_pydot_graph


def main(argv: Sequence[str] | None = None) -> None:
    """The script: ``--input`` a model file, ``--output`` the dot file written."""
    parser = argparse.ArgumentParser(description="ONNX net drawer")
    parser.add_argument("--input", type=str, required=True, help="The input model file.")
    parser.add_argument("--output", type=str, required=True, help="The dot file written.")
    parser.add_argument("--rankdir", type=str, default="LR", help="The rank direction of the graph.")
    parser.add_argument(
        "--embed_docstring", action="store_true", help="Embed doc strings as javascript alerts (for SVG)."
    )
    args = parser.parse_args(argv)
    from wirecodec.files.load import load

    model = load(args.input)
    producer = get_op_node_producer(embed_docstring=args.embed_docstring, **OP_STYLE)
    dot = get_pydot_graph(model.graph, name=model.graph.name, rankdir=args.rankdir, node_producer=producer)
    dot.write_dot(args.output)


if __name__ == "__main__":
    main()
