"""Every way to read a repeated field whose elements still wait answers as onnx's field
does, when that read is the field's *first* use (schema_dsl.containers.WaitingContainer):
each case decodes afresh, checks the field still waits, then reads it once. A read that
another read had loaded first (``==`` before ``!=``) would hide a method that forgot to
load."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto
from tests.support.reference import require_onnx
from wirecodec.protobuf.lazy import Pending, waiting_record

onnx = require_onnx()


def _graph_bytes() -> bytes:
    # Small elements past the first four wait (wirecodec.protobuf.lazy.DEFAULT).
    helper = onnx.helper
    nodes = [helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"]) for i in range(12)]
    values = [helper.make_tensor_value_info(f"v{i}", 1, [1]) for i in range(9)]
    return bytes(helper.make_graph(nodes, "g", values, values).SerializeToString())


DATA = _graph_bytes()


def _ours() -> Any:
    # records=False: tests/run.sh --records would hold these fields as records instead
    return wirecodec.decode(GraphProto, DATA, records=False)


def _names(values: Any) -> list[str]:
    return [v.output[0] if hasattr(v, "op_type") else v.name for v in values]


# Each read: (graph, another decode of the same bytes whose fields were read already) -> a
# plain value to compare with onnx's answer to the same read. upb's containers have no
# count, index, + or *: there the reference is the read over lists of onnx's elements.
READS: dict[str, Callable[[Any, Any], Any]] = {
    "len": lambda g, o: len(g.node),
    "bool": lambda g, o: bool(g.node),
    "iter": lambda g, o: _names(g.node),
    "reversed": lambda g, o: _names(reversed(g.node)),
    "index": lambda g, o: _names([g.node[7], g.node[-1]]),
    "slice": lambda g, o: _names(g.node[3:9:2]),
    "in": lambda g, o: (o.node[6] in g.node, o.input[0] in g.node),
    "count": lambda g, o: g.node.count(o.node[6]),
    "index-of": lambda g, o: g.node.index(o.node[6]),
    "plain == waiting": lambda g, o: o.input == g.output,
    "plain != waiting": lambda g, o: o.input != g.output,
    "waiting != plain": lambda g, o: g.output != o.input,
    "plain != other waiting": lambda g, o: o.node != g.output,
    "plain + waiting": lambda g, o: _names(o.input + g.output),
    "waiting + plain": lambda g, o: _names(g.output + o.input),
    "times two": lambda g, o: _names(g.node * 2),
    "sorted": lambda g, o: _names(sorted(g.node, key=lambda n: n.output[0])),
    "min by key": lambda g, o: min(g.input, key=lambda v: v.name).name,
}


LIST_ONLY = {"count", "index-of", "plain + waiting", "waiting + plain", "times two"}


class _Lists:
    """onnx's graph with its repeated fields as Python lists of its elements."""

    def __init__(self, graph: Any) -> None:
        self.node, self.input, self.output = list(graph.node), list(graph.input), list(graph.output)


@pytest.mark.parametrize("read", list(READS))
def test_a_first_read_of_a_waiting_field_answers_as_onnx(read: str) -> None:
    graph = _ours()
    other = _ours()
    for name in ("node", "input", "output"):
        list(getattr(other, name))  # the other graph's fields: plain, loaded
        assert isinstance(waiting_record(graph, name), Pending), name
    theirs: Any = onnx.GraphProto.FromString(DATA)
    theirs_other: Any = onnx.GraphProto.FromString(DATA)
    if read in LIST_ONLY:
        theirs, theirs_other = _Lists(theirs), _Lists(theirs_other)
    assert READS[read](graph, other) == READS[read](theirs, theirs_other)


@pytest.mark.quick
def test_a_plain_field_differs_from_a_waiting_one_only_as_onnx_says() -> None:
    # The audit's survivor: g.input != other.output was True (the waiting field's storage is
    # empty until it loads) where onnx says False; == first would have loaded it.
    graph, other = _ours(), _ours()
    list(other.input)
    assert waiting_record(graph, "output") is not None
    theirs, theirs_other = onnx.GraphProto.FromString(DATA), onnx.GraphProto.FromString(DATA)
    assert (other.input != graph.output) is (theirs_other.input != theirs.output) is False
