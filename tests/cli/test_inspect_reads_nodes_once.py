"""``inspect`` reads every node, and the bodies each holds, once (wirecodec.cli.make_up.Nodes)
and reports what it reported reading them again for each part of the report: the same
nodes in the same order, the same nested operators, packed weights and make-up."""

from __future__ import annotations

import collections

import pytest

from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from schema_dsl.views import RecordContainer
from wirecodec import decode, encode, helper
from wirecodec.cli import make_up as make_up_module
from wirecodec.cli.common import open_model
from wirecodec.cli.inspect import model_tensors, op_name, summarise
from wirecodec.cli.make_up import Nodes, make_up, nodes_in_bodies, packed_weights

F = 1


def _vi(name: str) -> object:
    return helper.make_tensor_value_info(name, F, [1])


def _constant(output: str, value: float) -> NodeProto:
    return helper.make_node("Constant", [], [output], value=helper.make_tensor(output, F, [1], [value]))


def _nbits(prefix: str) -> NodeProto:
    return helper.make_node(
        "MatMulNBits",
        ["x", f"{prefix}w", f"{prefix}s", f"{prefix}z"],
        [f"{prefix}y"],
        domain="com.microsoft",
        K=64,
        N=8,
        bits=4,
        block_size=32,
    )


def _branch(name: str, depth: int) -> GraphProto:
    nodes = [_constant(f"{name}c", 2.0), helper.make_node("Cast", [f"{name}c"], [f"{name}o"], to=F)]
    if depth:
        inner = helper.make_node(
            "If", ["cond"], [f"{name}i"], then_branch=_branch(f"{name}t", depth - 1),
            else_branch=_branch(f"{name}e", depth - 1),
        )  # fmt: skip
        nodes.append(inner)
        nodes.append(_nbits(name))
    return helper.make_graph(nodes, name, [], [_vi(f"{name}o")])


def _model(width: int, every: int = 7) -> ModelProto:
    nodes: list[NodeProto] = []
    for i in range(width):
        nodes.append(helper.make_node("Relu", ["x"], [f"r{i}"]))
        if i % every == 0:
            nodes.append(
                helper.make_node("If", ["cond"], [f"if{i}"], then_branch=_branch(f"a{i}", 2),
                                 else_branch=_branch(f"b{i}", 1))
            )  # fmt: skip
    nodes.append(_nbits("main"))
    graph = helper.make_graph(
        nodes,
        "g",
        [_vi("x"), helper.make_tensor_value_info("cond", 9, [])],
        [_vi("r0")],
        initializer=[helper.make_tensor("mainw", 2, [8, 2, 16], bytes(256), raw=True)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)]
    )


@pytest.mark.quick
@pytest.mark.parametrize(("width", "every"), [(20, 7), (1100, 97)], ids=["short", "long (records)"])
def test_nodes_read_once_are_the_nodes_read_again(width: int, every: int) -> None:
    # Each representation asked for by name (the suite's --records run keeps records everywhere).
    model = decode(ModelProto, encode(_model(width, every)), records=width > 1024)
    assert isinstance(model.graph.node, RecordContainer) == (width > 1024)
    graph = model.graph
    read = Nodes(graph)
    again = list(make_up_module._nodes(graph))
    assert read.all == again and len(read.all) == len(again)
    assert read.main == list(graph.node)
    assert list(read.in_bodies()) == list(nodes_in_bodies(graph.node))
    assert len(list(read.in_bodies())) == len(again) - len(graph.node) > 0
    assert packed_weights(graph, read) == packed_weights(graph)
    assert make_up(model, None, read) == make_up(model)
    nested = collections.Counter(op_name(n) for n in read.in_bodies())
    assert nested["com.microsoft::MatMulNBits"] > 0 and nested["If"] > 0 and nested["Constant"] > 0


def test_inspect_reads_each_nodes_bodies_once(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    model = _model(300)
    path = f"{tmp_path}/m.onnx"
    with open(path, "wb") as f:
        f.write(encode(model))
    opened = open_model(path, load_external_data=False, payloads=False)
    calls: list[int] = []
    real = make_up_module.bodies

    def counted(node: NodeProto) -> object:
        calls.append(id(node))
        return real(node)

    monkeypatch.setattr(make_up_module, "bodies", counted)
    summary = summarise(opened)
    nodes = Nodes(decode(ModelProto, encode(model)).graph)  # counted too: after the summary
    assert len(calls) == 2 * len(nodes.all)
    assert summary["subgraph_operators"] == dict(
        collections.Counter(op_name(n) for n in nodes.in_bodies()).most_common()
    )
    # the Constants in the branches are weights (one element each), read by Cast nodes
    # there only: 7 in a then branch (nested twice), 3 in an else branch, 43 If nodes
    assert summary["make_up"]["parameters_by_operator"]["Cast"] == (7 + 3) * 43
    assert summary["make_up"]["quantization"]["operators"]["MatMulNBits"] == sum(
        1 for n in nodes.all if n.op_type == "MatMulNBits"
    )


@pytest.mark.quick
@pytest.mark.parametrize(("width", "every"), [(20, 7), (1100, 97)], ids=["short", "long (records)"])
def test_the_tensor_walk_skips_only_nodes_without_tensors(width: int, every: int) -> None:
    source = _model(width, every)
    source.graph.node.append(
        helper.make_node("ConstantOfShape", ["s"], ["filled"], value=helper.make_tensor("v", F, [1], [0.5]))
    )
    source.graph.node.append(
        helper.make_node("Custom", ["x"], ["q"], domain="local", ts=[helper.make_tensor("a", F, [1], [1.0])])
    )
    model = decode(ModelProto, encode(source))
    read = Nodes(model.graph)
    every_tensor = [(path, weight) for path, _, weight in model_tensors(model)]
    assert [(path, weight) for path, _, weight in model_tensors(model, read.bare)] == every_tensor
    paths = [path for path, _ in every_tensor]
    assert any(".g.node[" in p and p.endswith(".attribute[0].t") for p in paths)  # a Constant in a body
    assert paths[-2].endswith(".attribute[0].t") and paths[-1].endswith(".attribute[0].tensors[0]")
    held = {id(n) for n in read.all if n.op_type in ("Constant", "If", "ConstantOfShape", "Custom")}
    assert read.bare and not read.bare & held
    assert len(read.bare) == sum(1 for n in read.all if n.op_type in ("Relu", "Cast", "MatMulNBits"))
