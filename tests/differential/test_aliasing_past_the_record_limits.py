"""Every reference sees every write (test_aliasing.py's programs, compared with onnx) on a
graph past the decoder's thresholds that test_aliasing.py's graphs stay under:

- ``MAX_COPIED``: the held node (and its neighbour) carry a packed run longer than a
  record copies, so the element is a message inside a records container;
- ``MAX_HELD_GRAPH``: the If nodes' branches are longer than a record holds, so they are
  built at decode, beside records;
- ``_COPY_FROM_SOURCE_AT``: the node and the branch that ``CopyFrom`` copies are longer
  than the class's copier takes (they are decoded again from their source bytes);
- ``MEMO_ENTRIES``: more distinct short sub-messages (value_info types) than the memo keeps.

The held element, how it is reached, held and changed are test_aliasing.py's axes; only
the graph differs. ``test_the_graph_is_past_every_threshold`` proves each is crossed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.differential.test_aliasing import AT, AT_IF, CHANGE, CHANGE_BODY, HELD, HELD_BODY, REACH, _run
from tests.support.reference import require_onnx
from wirecodec.protobuf.codec import _COPY_FROM_SOURCE_AT
from wirecodec.protobuf.records import MAX_COPIED, MAX_HELD_GRAPH, MEMO_ENTRIES, RECORDS_AFTER

onnx = require_onnx()

NODES = RECORDS_AFTER + 100
VALUES = MEMO_ENTRIES + 500  # one value_info type each: past the memo (its own graph, below)
LONG_RUN = MAX_COPIED + 44
BODY_NODES = 200  # each branch a few KiB: past MAX_HELD_GRAPH


def _graph_bytes(values: int = NODES) -> bytes:
    helper = onnx.helper
    made = []
    for i in range(NODES):
        if i % 10 == 4:  # If nodes; long branches at AT_IF and AT_IF + 10 (the ones the programs use)
            branches = {
                f"{branch}_branch": helper.make_graph(
                    [
                        helper.make_node(
                            "Neg", [f"x{i}" if k == 0 else f"{branch}{i}_{k}"], [f"{branch}{i}_{k + 1}"]
                        )
                        for k in range(BODY_NODES if i in (AT_IF, AT_IF + 10) else 1)
                    ],
                    f"{branch}{i}",
                    [],
                    [
                        helper.make_tensor_value_info(
                            f"{branch}{i}_{BODY_NODES if i in (AT_IF, AT_IF + 10) else 1}", 1, ["batch", 3]
                        )
                    ],
                )
                for branch in ("then", "else")
            }
            made.append(helper.make_node("If", ["c"], [f"x{i + 1}"], name=f"n{i}", **branches))
        elif i % 10 == 9:
            tensor = onnx.numpy_helper.from_array(np.arange(4, dtype="int64"), f"c{i}")
            made.append(helper.make_node("Constant", [], [f"x{i + 1}"], name=f"n{i}", value=tensor))
        else:
            node = helper.make_node(
                "LeakyRelu", [f"x{i}"], [f"x{i + 1}"], name=f"n{i}", alpha=float(i), doc_string="d"
            )
            if i in (AT, AT + 1):  # the held node and the one CopyFrom copies: a long packed run
                node.attribute.append(helper.make_attribute("run", list(range(LONG_RUN))))
            if i == AT + 1:  # ... and the copied one longer than the copier takes
                node.doc_string = "d" * _COPY_FROM_SOURCE_AT
            made.append(node)
    infos = [helper.make_tensor_value_info(f"x{i + 1}", 1, ["batch", 3, i + 1]) for i in range(values)]
    graph = helper.make_graph(made, "g", [], [], value_info=infos)
    return bytes(helper.make_model(graph).SerializeToString())


_BYTES: dict[int, bytes] = {}


def _pair(values: int = NODES) -> tuple[Any, Any]:
    if values not in _BYTES:
        _BYTES[values] = _graph_bytes(values)
    return wirecodec.decode(ModelProto, _BYTES[values]), onnx.load_model_from_string(_BYTES[values])


def test_the_graph_is_past_every_threshold() -> None:
    from schema_dsl.views import RecordContainer

    _, theirs = _pair()
    graph = theirs.graph
    assert len(graph.node) > RECORDS_AFTER
    run = graph.node[AT].attribute[1]
    assert len(run.ints) > MAX_COPIED
    assert len(graph.node[AT_IF].attribute[0].g.SerializeToString()) > MAX_HELD_GRAPH
    assert len(graph.node[AT + 1].SerializeToString()) >= _COPY_FROM_SOURCE_AT
    assert len(graph.node[AT_IF + 10].attribute[1].g.SerializeToString()) >= _COPY_FROM_SOURCE_AT
    _, many = _pair(VALUES)
    assert len({v.type.SerializeToString() for v in many.graph.value_info}) > MEMO_ENTRIES
    mine, _ = _pair()
    assert isinstance(mine.graph.node, RecordContainer)  # the node field keeps records


# The two matrices decode the graph twice per cell and change (about 25 ms a pair on
# 2 loaded cores: 40 s in all): slow. The tests after them are the fast kills.
@pytest.mark.slow
@pytest.mark.parametrize("reach", sorted(REACH))
@pytest.mark.parametrize("held", sorted(HELD))
def test_every_reference_sees_every_write_past_the_limits(reach: str, held: str) -> None:
    failures = []
    for change in CHANGE:
        mine, theirs = _pair()
        try:
            got: Any = _run(mine, reach, held, change)
        except Exception as error:  # an exception is a wrong answer here: onnx raises none
            got = f"{type(error).__name__}: {error}"
        if got != _run(theirs, reach, held, change):
            failures.append(change)
    assert not failures, f"differ from onnx after: {failures}"


@pytest.mark.slow
@pytest.mark.parametrize("reach", sorted(REACH))
@pytest.mark.parametrize("held", sorted(HELD_BODY))
def test_every_reference_into_a_long_subgraph_sees_every_write(reach: str, held: str) -> None:
    failures = []
    for change in CHANGE_BODY:
        mine, theirs = _pair()
        try:
            got: Any = _run(mine, reach, held, change, at=AT_IF, body=True)
        except Exception as error:  # an exception is a wrong answer here: onnx raises none
            got = f"{type(error).__name__}: {error}"
        if got != _run(theirs, reach, held, change, at=AT_IF, body=True):
            failures.append(change)
    assert not failures, f"differ from onnx after: {failures}"


def test_a_long_run_written_through_a_held_attribute_as_onnx() -> None:
    # The packed run itself, held and changed through another reference.
    mine, theirs = _pair()
    results = []
    for model in (mine, theirs):
        held = model.graph.node[AT].attribute[1].ints
        model.graph.node[AT].attribute[1].ints[LONG_RUN - 1] = -5
        model.graph.node[AT].attribute[1].ints.append(7)
        results.append((list(held)[-3:], len(held), bytes(model.SerializeToString())))
    assert results[0] == results[1]


# Value_info past the memo's capacity: a dimension held, written through another
# reference, the field reordered and cut; read back, and the bytes, as onnx's.
VALUE_CHANGES = {
    "dim-write": lambda g: setattr(g.value_info[-3].type.tensor_type.shape.dim[2], "dim_param", "N"),
    "reverse": lambda g: g.value_info.reverse(),
    "sort": lambda g: g.value_info.sort(key=lambda v: v.name),
    "delete-first-half": lambda g: g.value_info.__delitem__(slice(0, VALUES // 2)),
    "CopyFrom-neighbour": lambda g: g.value_info[-3].CopyFrom(g.value_info[-2]),
}


def test_references_to_value_info_past_the_memo_see_every_write() -> None:
    results = []
    for model in _pair(VALUES):
        found = []
        for change in VALUE_CHANGES.values():
            fresh = type(model).FromString(_BYTES[VALUES])
            held = fresh.graph.value_info[-3]
            dim = held.type.tensor_type.shape.dim[2]
            change(fresh.graph)
            dim.dim_value += 1  # a write through the held dimension
            found.append((held.name, dim.dim_param, dim.dim_value, bytes(fresh.SerializeToString())))
        results.append(found)
    mine, theirs = results
    assert [r[:3] for r in mine] == [r[:3] for r in theirs]
    assert [r[3] for r in mine] == [r[3] for r in theirs]
