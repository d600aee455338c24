"""``edit --toposort`` and ``edit --clear-value-info``: put nodes in the order the IR requires,
and drop recorded intermediate shapes that an edit made stale.

The IR requires a graph's nodes in topological order (each input made before it is
read); some exporters do not (IS-Net's), and then ``check`` and ``extract`` refuse the
model. The sort is stable: a node moves only as far as it must, so a model already in
order is left as it was, byte for byte.
"""

from __future__ import annotations

import bisect
import heapq

from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from wirecodec.cli.common import UsageError
from wirecodec.graphs.scopes import GraphScope, walk_graphs

__all__ = ["clear_value_info", "out_of_place", "toposort", "toposort_graph", "value_info_count"]


def _reads(node: NodeProto, bodies: list[GraphScope]) -> set[str]:
    """What ``node`` needs before it runs: its inputs and what its bodies read from outside."""
    names = {name for name in node.input if name}
    for body in bodies:
        names.update(body.reads())
    return names


def toposort_graph(graph: GraphProto, where: str = "graph") -> int:
    """Sort ``graph``'s nodes (then each body's, as the scope walk meets them, after their
    graph is sorted) topologically, keeping the given order wherever it is already sound;
    returns how many nodes changed place (bodies included). A cycle is a
    :class:`UsageError` naming the graph's path and a node on it."""
    return sum(_sort(scope) for scope in walk_graphs(graph, where))


def _sort(scope: GraphScope) -> int:
    graph, where = scope.graph, scope.path
    held: dict[int, list[GraphScope]] = {}
    for body in scope.inner():
        held.setdefault(body.index, []).append(body)
    nodes = [graph.node[i] for i in range(len(graph.node))]
    producer: dict[str, int] = {}
    for index, node in enumerate(nodes):
        for name in node.output:
            if name:
                producer.setdefault(name, index)
    waiting = [0] * len(nodes)
    readers: list[list[int]] = [[] for _ in nodes]
    for index, node in enumerate(nodes):
        for name in _reads(node, held.get(index, [])):
            source = producer.get(name)
            if source is not None and source != index:
                waiting[index] += 1
                readers[source].append(index)
    ready = [index for index, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)  # the earliest node that can run comes next: a stable order
    order: list[int] = []
    while ready:
        index = heapq.heappop(ready)
        order.append(index)
        for reader in readers[index]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                heapq.heappush(ready, reader)
    if len(order) < len(nodes):
        stuck = next(nodes[i] for i, count in enumerate(waiting) if count > 0)
        label = stuck.name or f"{stuck.op_type} node"
        raise UsageError(f"--toposort: {where} has a cycle through {label!r}; it has no topological order")
    moved = out_of_place(order)
    if moved:
        del graph.node[:]
        graph.node.extend(nodes[index] for index in order)
    return moved


def out_of_place(order: list[int]) -> int:
    """How many nodes the new ``order`` (old indices in their new places) moved: all but the
    most that kept their relative order (the longest increasing run, not necessarily
    contiguous). One node taken from the end to the front moved one node, not every node
    that now sits one place further on."""
    tails: list[int] = []  # tails[k]: the smallest last index of an increasing run of k + 1
    for index in order:
        at = bisect.bisect_left(tails, index)
        if at == len(tails):
            tails.append(index)
        else:
            tails[at] = index
    return len(order) - len(tails)


def toposort(model: ModelProto) -> str:
    """Sort every graph of ``model``; returns the line ``edit`` prints."""
    moved = toposort_graph(model.graph)
    if not moved:
        return "nodes already in topological order"
    return f"{moved} node{'s' if moved != 1 else ''} moved into topological order"


def value_info_count(model: ModelProto) -> int:
    """How many ``value_info`` entries ``model``'s graphs (bodies included) record."""
    return sum(len(scope.graph.value_info) for scope in walk_graphs(model.graph))


def clear_value_info(model: ModelProto) -> str:
    """Remove every ``value_info`` entry (main graph and bodies); returns the line ``edit`` prints."""
    cleared = value_info_count(model)
    for scope in walk_graphs(model.graph):
        scope.graph.ClearField("value_info")
    return f"{cleared} value_info entr{'ies' if cleared != 1 else 'y'} removed"
