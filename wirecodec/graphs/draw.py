"""A picture of a model's graph: Graphviz DOT text, and SVG or PNG through Graphviz's ``dot``.

:func:`to_dot` needs nothing but the model. Operators are boxes showing ``op_type``,
the node's name and its scalar and short list attributes; inputs and outputs are
ellipses; initializers and ``Constant`` values are small grey boxes with element type
and shape; edges carry the tensor's type and shape where the graph declares it
(``value_info``, inputs, outputs, initializers). The bodies of If, Loop and Scan are
clusters beside their node; a body's reads of the enclosing graph are dashed edges.
Attributes that exporters write with their usual defaults (``auto_pad='NOTSET'``,
``group=1``, ``dilations`` of ones, ...) are left out of the labels.
A large graph is drawn in part: ``around`` a node or tensor (``depth`` steps along its
edges; in the main graph or in a body at any depth), and at most ``max_nodes``
operators: the graph's own nodes first, so its inputs, outputs and top-level nodes are
always there, then the bodies while the budget lasts; a body that does not fit is
collapsed into its node's box (``expand_bodies`` draws them all). A note says what was
left out.

:func:`render` runs ``dot`` (Debian's and Homebrew's package ``graphviz``) to make SVG
or PNG bytes.

>>> from wirecodec.examples.build_mlp import build
>>> text = to_dot(build())
>>> text.splitlines()[0], text.count("->")
('digraph model {', 8)
"""

from __future__ import annotations

import html
import math
import re
import shutil
import subprocess
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto, TypeProto
from wirecodec.errors import GraphError, WireCodecError
from wirecodec.graphs.scopes import GraphScope, named_bodies, root_scope, walk_graphs

__all__ = ["DEFAULT_MAX_NODES", "FORMATS", "render", "to_dot"]

DEFAULT_MAX_NODES: Final = 500
FORMATS: Final = ("dot", "svg", "png")

Attr = AttributeProto.AttributeType
_SHOWN_ATTRIBUTES: Final = 5
_LIST_ITEMS: Final = 6
_TEXT: Final = 24
_NAME: Final = 40
_FEW: Final = 4
# Attributes exporters write with their default values (dynamo writes them all): shown, they
# push the ones that matter (kernel_shape, pads, strides) out of the label.
_QUIET: Final = frozenset(
    {
        "auto_pad='NOTSET'",
        "group=1",
        "storage_order=0",
        "ceil_mode=0",
        "noop_with_empty_axes=0",
        "allowzero=0",
    }
)
_QUIET_ONES: Final = re.compile(r"dilations=\[1(,1)*\]")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _dtype(code: int) -> str:
    try:
        return TensorProto.DataType.Name(code).lower()
    except ValueError:
        return f"type{code}"


def _dims(dims: Iterable[object]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def _type_text(type_: TypeProto) -> str:
    kind = type_.WhichOneof("value")
    if kind == "tensor_type":
        tensor = type_.tensor_type
        if not tensor.HasField("shape"):
            return _dtype(tensor.elem_type)
        dims = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in tensor.shape.dim]
        return _dtype(tensor.elem_type) + _dims(dims)
    if kind == "sequence_type":
        return f"seq({_type_text(type_.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({_type_text(type_.optional_type.elem_type)})"
    return kind or ""


def _tensor_text(tensor: TensorProto) -> str:
    return _dtype(tensor.data_type) + _dims(tensor.dims)


def _few_values(tensor: TensorProto) -> str:
    """`` = [0, 1]`` for a tensor of at most 4 numbers (the axes and shapes a reader wants)."""
    if math.prod(tensor.dims) > _FEW or tensor.data_type == TensorProto.STRING:
        return ""
    try:
        from wirecodec.tensors.reading import to_array

        values = to_array(tensor).reshape(-1).tolist()
    except WireCodecError:  # without numpy too (NumpyMissingError): the node without its values
        return ""
    return " = " + _list([f"{v:.4g}" if isinstance(v, float) else str(v) for v in values])


def _list(values: list[str]) -> str:
    shown = values[:_LIST_ITEMS] + (["…"] if len(values) > _LIST_ITEMS else [])
    return "[" + ",".join(shown) + "]"


def _attribute(attribute: AttributeProto) -> str | None:
    """``name=value`` for the attributes a reader wants to see; None for bodies (drawn as clusters)."""
    kind = attribute.type
    if kind == Attr.INT:
        value = str(attribute.i)
    elif kind == Attr.FLOAT:
        value = f"{attribute.f:g}"
    elif kind == Attr.STRING:
        value = repr(_short(bytes(attribute.s).decode("utf-8", "replace"), _TEXT))
    elif kind == Attr.INTS:
        value = _list([str(v) for v in attribute.ints])
    elif kind == Attr.FLOATS:
        value = _list([f"{v:g}" for v in attribute.floats])
    elif kind == Attr.STRINGS:
        value = f"{len(attribute.strings)} strings"
    elif kind == Attr.TENSOR:
        value = _tensor_text(attribute.t)
    elif kind == Attr.SPARSE_TENSOR:
        value = "sparse " + _dims(attribute.sparse_tensor.dims)
    else:
        return None
    return f"{attribute.name}={value}"


def _count(graph: GraphProto) -> int:
    return sum(1 + sum(_count(body) for _, _, body in named_bodies(node)) for node in graph.node)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@dataclass
class _Drawn:
    """What is drawn of one graph (or body): name -> DOT id, name -> type text, and what
    waits to be drawn. The scope itself (which graph encloses which) is the walk's."""

    ids: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    pending: dict[str, TensorProto] = field(default_factory=dict)  # initializers not drawn yet
    inputs: dict[str, TypeProto] = field(default_factory=dict)  # inputs not drawn yet (a part drawn)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.serial = 0

    def fresh(self, kind: str) -> str:
        self.serial += 1
        return f"{kind}{self.serial}"

    def node(self, ident: str, label: str, indent: str, **attrs: str) -> None:
        extra = "".join(f", {key}={value}" for key, value in attrs.items())
        self.lines.append(f"{indent}{ident} [label={label}{extra}];")

    def edge(self, source: str, target: str, label: str, indent: str, **attrs: str) -> None:
        parts = [f"label={_quote(label)}"] if label else []
        parts += [f"{key}={value}" for key, value in attrs.items()]
        self.lines.append(f"{indent}{source} -> {target}" + (f" [{', '.join(parts)}]" if parts else "") + ";")


def _op_label(node: NodeProto, folded: list[str]) -> str:
    rows = [f"<b>{html.escape(node.op_type)}</b>"]
    if node.domain and node.domain not in ("", "ai.onnx"):
        rows[0] += f" <font point-size='9'>({html.escape(node.domain)})</font>"
    if node.name:
        rows.append(f"<font point-size='9'>{html.escape(_short(node.name, _NAME))}</font>")
    shown = [text for text in map(_attribute, node.attribute) if text is not None and text not in _QUIET]
    shown = [text for text in shown if not _QUIET_ONES.fullmatch(text)]
    if len(shown) > _SHOWN_ATTRIBUTES:
        shown = [*shown[:_SHOWN_ATTRIBUTES], f"+{len(shown) - _SHOWN_ATTRIBUTES} more"]
    rows += [f"<font point-size='9'>{html.escape(text)}</font>" for text in shown]
    rows += [f"<font point-size='9'><i>{html.escape(text)}</i></font>" for text in folded]
    return "<" + "<br/>".join(rows) + ">"


class _Drawing:
    """Draws graphs into ``out``; a body is drawn as a cluster while ``budget`` operators
    remain for it (or always, with ``expand``), else collapsed into its node's box."""

    def __init__(self, out: _Writer, budget: int, expand: bool) -> None:
        self.out = out
        self.drawn_ops = 0
        self.budget = budget
        self.expand = expand
        self.collapsed: list[tuple[str, int]] = []  # (node.body, operators in it)
        self.drawn: dict[str, _Drawn] = {}  # by the path of the graph's scope

    def _chain(self, scope: GraphScope) -> Iterator[_Drawn]:
        """What is drawn of ``scope``'s graph, then of each enclosing graph drawn."""
        for outer in scope.chain():
            drawn = self.drawn.get(outer.path)
            if drawn is not None:
                yield drawn

    def type_of(self, scope: GraphScope, name: str) -> str:
        return next((drawn.types[name] for drawn in self._chain(scope) if name in drawn.types), "")

    def _producer(self, scope: GraphScope, name: str, indent: str) -> tuple[str | None, bool]:
        """The DOT id of what makes ``name`` (drawing a waiting initializer), and whether it
        belongs to an enclosing graph."""
        outer = False
        for current in self._chain(scope):
            if name in current.ids:
                return current.ids[name], outer
            if name in current.pending:
                ident = self._weight(current.pending.pop(name), name, indent)
                current.ids[name] = ident
                return ident, outer
            if name in current.inputs:
                ident = self._input(name, current.inputs.pop(name), indent)
                current.ids[name] = ident
                return ident, outer
            outer = True
        return None, False

    def _input(self, name: str, type_: TypeProto, indent: str) -> str:
        ident = self.out.fresh("i")
        label = _quote(f"{name}\n{_type_text(type_)}")
        self.out.node(ident, label, indent, shape="ellipse", style='"filled"', fillcolor='"#d8ecff"')
        return ident

    def _weight(self, tensor: TensorProto, name: str, indent: str) -> str:
        ident = self.out.fresh("w")
        label = _quote(f"{_short(name, _NAME)}\n{_tensor_text(tensor)}{_few_values(tensor)}")
        self.out.node(
            ident, label, indent, shape="box", style='"filled"', fillcolor='"#eeeeee"', fontsize="9"
        )
        return ident

    def graph(self, where: GraphScope, nodes: list[int], indent: str, main: bool) -> None:
        graph = where.graph
        scope = self.drawn[where.path] = _Drawn()
        held: dict[int, list[GraphScope]] = {}
        for body in where.inner():
            held.setdefault(body.index, []).append(body)
        for value in graph.value_info:
            scope.types[value.name] = _type_text(value.type)
        for tensor in graph.initializer:
            scope.types[tensor.name] = _tensor_text(tensor)
            scope.pending[tensor.name] = tensor
        for value in [*graph.input, *graph.output]:
            scope.types[value.name] = _type_text(value.type)
        complete = len(nodes) == len(graph.node)
        for value in graph.input:
            if value.name in scope.pending:
                continue  # an initializer listed as an input: drawn as the weight it is
            if complete:
                scope.ids[value.name] = self._input(value.name, value.type, indent)
            else:  # a part of the graph: only the inputs it reads
                scope.inputs[value.name] = value.type
        # Every drawn node's outputs get their DOT id first: a node listed before the node
        # that makes its input (exports are not always in topological order) still gets its edge.
        idents = [self._ident(graph.node[index]) for index in nodes]
        for index, ident in zip(nodes, idents, strict=True):
            for name in graph.node[index].output:
                if name:
                    scope.ids[name] = ident
        for index, ident in zip(nodes, idents, strict=True):
            self._node(graph.node[index], ident, where, held.get(index, []), indent)
        for value in graph.output:
            if not complete and value.name not in scope.ids:
                continue
            source, _ = self._producer(where, value.name, indent)
            ident = self.out.fresh("o")
            color = '"#ffe6cc"' if main else '"#fff6e8"'
            self.out.node(
                ident, _quote(value.name), indent, shape="ellipse", style='"filled"', fillcolor=color
            )
            if source is not None:
                self.out.edge(source, ident, self.type_of(where, value.name), indent)

    def _ident(self, node: NodeProto) -> str:
        return self.out.fresh("w" if _constant_value(node) is not None else "n")

    def _node(
        self, node: NodeProto, ident: str, scope: GraphScope, bodies: list[GraphScope], indent: str
    ) -> None:
        self.drawn_ops += 1
        value = _constant_value(node)
        if value is not None:
            text = f"Constant {_short(node.output[0], _NAME)}\n{_tensor_text(value)}{_few_values(value)}"
            self.out.node(
                ident,
                _quote(text),
                indent,
                shape="box",
                style='"filled"',
                fillcolor='"#eeeeee"',
                fontsize="9",
            )
            self.drawn[scope.path].types.setdefault(node.output[0], _tensor_text(value))
            return
        expanded: list[GraphScope] = []
        folded: list[str] = []
        for body in bodies:
            cost = _count(body.graph)
            if self.expand or cost <= self.budget:
                self.budget -= cost
                expanded.append(body)
            else:
                self.collapsed.append((f"{node.name or node.op_type}.{body.label}", cost))
                folded.append(f"{body.label}: {cost} nodes, collapsed")
        self.out.node(ident, _op_label(node, folded), indent, shape="box", style='"rounded"')
        for name in node.input:
            if name:
                self._edge_in(name, ident, scope, indent, outer_read=False)
        shown = {body.path for body in expanded}
        for body in bodies:
            if body.path in shown:
                continue
            for name in sorted(body.reads()):  # what a collapsed body reads: dashed edges
                self._edge_in(name, ident, scope, indent, outer_read=True)
        for body in expanded:
            # What the body reads from outside is drawn out here, not inside the cluster.
            for name in sorted(body.reads()):
                self._producer(scope, name, indent)
            cluster = self.out.fresh("cluster_")
            inner = indent + "  "
            self.out.lines.append(f"{indent}subgraph {cluster} {{")
            self.out.lines.append(
                f"{inner}label={_quote(f'{node.op_type}.{body.label}')}; style=dashed; color=gray50;"
            )
            anchor = self.out.fresh("b")
            self.out.node(anchor, '""', inner, shape="point", style="invis")
            self.graph(body, list(range(len(body.graph.node))), inner, main=False)
            self.out.lines.append(f"{indent}}}")
            self.out.edge(ident, anchor, body.label, indent, style="dotted", arrowhead="none", lhead=cluster)

    def _edge_in(self, name: str, ident: str, scope: GraphScope, indent: str, *, outer_read: bool) -> None:
        source, outer = self._producer(scope, name, indent)
        if source is None:
            source = self.out.fresh("x")  # made by a node not drawn: a stub names it
            self.out.node(source, _quote(_short(name, _NAME)), indent, shape="plaintext", fontsize="9")
            self.drawn[scope.path].ids[name] = source
        attrs = {"style": "dashed"} if outer or outer_read else {}
        # A weight's box shows its type already.
        label = "" if source.startswith("w") else self.type_of(scope, name)
        self.out.edge(source, ident, label, indent, **attrs)


def _constant_value(node: NodeProto) -> TensorProto | None:
    """The value of a ``Constant`` node drawn as a weight box, or None."""
    if node.op_type != "Constant" or node.domain or len(node.output) != 1:
        return None
    return next((a.t for a in node.attribute if a.type == Attr.TENSOR), None)


def _neighbours(graph: GraphProto) -> list[set[int]]:
    producers: dict[str, int] = {}
    consumers: dict[str, list[int]] = {}
    for index, node in enumerate(graph.node):
        for name in node.output:
            producers[name] = index
        for name in node.input:
            consumers.setdefault(name, []).append(index)
    links: list[set[int]] = [set() for _ in graph.node]
    for name, readers in consumers.items():
        if name in producers:
            for reader in readers:
                links[reader].add(producers[name])
                links[producers[name]].add(reader)
    return links


def _matches(node: NodeProto, name: str) -> bool:
    return node.name == name or name in node.output or name in node.input


def _find(graph: GraphProto, name: str) -> tuple[GraphScope, str] | None:
    """The scope of the graph, main or a body at any depth, where a node is named ``name`` or
    reads or writes a tensor of that name; with the path of bodies that leads to it
    (``If_0.then_branch``). The main graph is searched first, then each body in node order
    (the scope walk's order)."""
    for scope in walk_graphs(graph):
        if any(_matches(node, name) for node in scope.graph.node):
            steps = [
                f"{outer.holder.name or outer.holder.op_type}.{outer.label}"
                for outer in scope.chain()
                if outer.holder is not None
            ]
            return scope, " > ".join(reversed(steps))
    return None


def _around(graph: GraphProto, name: str, depth: int) -> list[int]:
    start = [index for index, node in enumerate(graph.node) if _matches(node, name)]
    links = _neighbours(graph)
    distance = dict.fromkeys(start, 0)
    queue = deque(start)
    while queue:
        index = queue.popleft()
        if distance[index] < depth:
            for other in links[index]:
                if other not in distance:
                    distance[other] = distance[index] + 1
                    queue.append(other)
    return sorted(distance)


def to_dot(
    model: ModelProto | GraphProto,
    *,
    around: str | None = None,
    depth: int = 2,
    max_nodes: int = DEFAULT_MAX_NODES,
    expand_bodies: bool = False,
) -> str:
    """Graphviz DOT text drawing ``model``'s graph (see the module documentation).

    ``around`` (a node's name, or a tensor's, in the main graph or in a body at any
    depth) draws only the nodes of that graph at most ``depth`` edges away from it.
    ``max_nodes`` bounds the operators drawn: the graph's own nodes come first (in graph
    order), then the If/Loop/Scan bodies while the budget lasts; a body that does not fit
    is collapsed into its node's box (its size named there), unless ``expand_bodies``.
    A note in the picture says how many nodes were left out and which bodies were
    collapsed. An ``around`` name the model lacks is a :class:`~wirecodec.GraphError`.
    """
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")
    graph = model.graph if isinstance(model, ModelProto) else model
    total = _count(graph)
    inside = ""
    where = root_scope(graph)
    if around is not None:
        found = _find(graph, around)
        if found is None:
            raise GraphError(
                f"around: no node is named {around!r} or reads or writes a tensor of that name "
                "(searched the main graph and every body)"
            )
        where, inside = found
        graph = where.graph
    chosen = list(range(len(graph.node))) if around is None else _around(graph, around, depth)
    kept = chosen[:max_nodes]
    out = _Writer()
    out.lines += [
        "digraph model {",
        '  rankdir=TB; compound=true; newrank=true; graph [fontname="Helvetica"];',
        '  node [fontname="Helvetica", fontsize=11]; edge [fontname="Helvetica", fontsize=9, color=gray35];',
    ]
    drawing = _Drawing(out, max_nodes - len(kept), expand_bodies)
    drawing.graph(where, kept, "  ", main=not inside)
    notes = [graph.name] if graph.name else []
    if around is not None:
        notes.append(f"around {around!r}, depth {depth}" + (f", inside {inside}" if inside else ""))
    if drawing.drawn_ops < total:
        left = total - drawing.drawn_ops
        reasons = []
        if len(kept) < len(chosen):
            reasons.append(f"max_nodes {max_nodes}")
        if drawing.collapsed:
            shown = ", ".join(f"{where} ({count})" for where, count in drawing.collapsed[:_FEW])
            more = f" and {len(drawing.collapsed) - _FEW} more" if len(drawing.collapsed) > _FEW else ""
            reasons.append(f"bodies collapsed: {shown}{more}; expand_bodies draws them")
        if around is not None and len(chosen) < len(graph.node):
            reasons.append(f"outside depth {depth}")
        elif inside:
            reasons.append("outside the body")
        notes.append(f"{drawing.drawn_ops} of {total} nodes drawn; {left} left out ({'; '.join(reasons)})")
    if notes:
        out.lines.append(f"  label={_quote(chr(10).join(notes))}; labelloc=t; fontname=Helvetica;")
    out.lines.append("}")
    return "\n".join(out.lines) + "\n"


def render(dot_text: str, fmt: str) -> bytes:
    """``dot_text`` drawn by Graphviz as ``fmt`` (``"svg"`` or ``"png"``).

    Raises ``FileNotFoundError`` when ``dot`` is not on ``PATH`` (install Graphviz:
    ``apt-get install graphviz``, ``brew install graphviz``) and ``OSError`` with dot's
    message when it fails.
    """
    if fmt not in ("svg", "png"):
        raise ValueError(f"fmt must be 'svg' or 'png', got {fmt!r}")
    program = shutil.which("dot")
    if program is None:
        raise FileNotFoundError(
            "Graphviz's dot is not on PATH: install Graphviz (apt-get install graphviz, "
            "brew install graphviz) or write .dot text"
        )
    result = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=False)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"dot failed ({result.returncode}): {message[0] if message else 'no message'}")
    return result.stdout
