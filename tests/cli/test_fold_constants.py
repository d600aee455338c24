"""Issue 43, item 4: ``wirecodec edit --fold-constants [--fold-limit BYTES]`` and
``wirecodec.reference.fold.fold_constants``.

Differential: the folded model is byte-identical to folding by hand, by the documented
rules, with onnx's own ``onnx.reference.ReferenceEvaluator`` and ``onnx.helper`` /
``onnx.numpy_helper``; and onnxruntime gives the same outputs before and after on the
bundled example, hand-made models with Constant-node weights, and PyTorch exports."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from tests.support.exports import Export
from wirecodec import helper, numpy_helper
from wirecodec.cli import main
from wirecodec.cli.common import EXAMPLE
from wirecodec.reference.fold import RANDOM_OPS, fold_constants, fold_constants_report

FLOAT = 1


def _constant(name: str, array: np.ndarray) -> Any:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array))


def _own(name: str, value: float) -> Any:
    """A branch that reads nothing from outside (an If of it could be computed: left alone anyway)."""
    node = _constant(name, np.array([value], np.float32))
    return helper.make_graph([node], name, [], [helper.make_tensor_value_info(name, FLOAT, None)])


def _chain() -> Any:
    """Constant-node weights (as the TorchScript exporter writes them), shape arithmetic on
    constants, a node past the limit (Expand to 64 KiB), a random node, a graph output
    computed from constants, an If whose branch reads a folded value, an initializer that
    is also an input (not constant), and a dead initializer."""
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4) / 10, "w")
    over = numpy_helper.from_array(np.ones(3, np.float32), "over")  # also an input: may be fed
    dead = numpy_helper.from_array(np.zeros(2, np.int64), "dead")
    then = helper.make_graph(
        [helper.make_node("Identity", ["bias"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", FLOAT, None)],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["bias"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", FLOAT, None)],
    )
    nodes = [
        _constant("b0", np.array([0.5, -1.0, 2.0, 0.25], np.float32)),
        _constant("scale", np.array(3.0, np.float32)),
        helper.make_node("Mul", ["b0", "scale"], ["bias"]),
        helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
        helper.make_node("Shape", ["w"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
        _constant("zero", np.array(0, np.int64)),  # after its reader: not folded into it
        _constant("big_shape", np.array([128, 128], np.int64)),
        helper.make_node("Expand", ["scale", "big_shape"], ["big"]),
        helper.make_node("RandomNormal", [], ["noise"], shape=[4], seed=1.0),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "bias"], ["h2"]),
        helper.make_node("Add", ["h2", "noise"], ["h3"]),
        helper.make_node("Mul", ["h3", "scale"], ["y"]),
        helper.make_node("ReduceSum", ["big"], ["total"], keepdims=0),
        helper.make_node("Add", ["over", "over"], ["doubled"]),  # "over" may be fed: not constant
        helper.make_node("Identity", ["doubled"], ["twice"]),
        helper.make_node("Identity", ["wt"], ["wt_out"]),
        _constant("flag", np.array(True)),
        helper.make_node("If", ["flag"], ["branch"], then_branch=then, else_branch=other),
        helper.make_node("If", ["flag"], ["alone"], then_branch=_own("t2", 1.0), else_branch=_own("e2", 2.0)),
        helper.make_node("Add", ["h3", "branch"], ["z0"]),
        helper.make_node("Add", ["z0", "alone"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "chain",
        [
            helper.make_tensor_value_info("x", FLOAT, [2, 3]),
            helper.make_tensor_value_info("over", FLOAT, [3]),
        ],
        [helper.make_tensor_value_info(n, FLOAT, None) for n in ("y", "total", "twice", "wt_out", "z")]
        + [helper.make_tensor_value_info("rows", 7, None)],
        [w, over, dead],
        value_info=[
            helper.make_tensor_value_info("bias", FLOAT, [4]),
            helper.make_tensor_value_info("h", FLOAT, [2, 4]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


LIMIT = 1024


def _by_hand(data: bytes, limit: int) -> bytes:
    """Folding by the documented rules, with onnx's evaluator and helpers only."""
    onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
    from onnx import numpy_helper as onh
    from onnx.reference import ReferenceEvaluator

    model = onnx.load_model_from_string(data)
    graph = model.graph
    opsets = {o.domain: o.version for o in model.opset_import}
    inputs = {v.name for v in graph.input}
    outputs = {v.name for v in graph.output}
    values = {t.name: onh.to_array(t) for t in graph.initializer if t.name not in inputs}
    kept, added = [], []
    for node in graph.node:
        named = [n for n in node.input if n]
        if not all(n in values for n in named):
            kept.append(node)
            continue
        subgraph = any(
            a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute
        )
        if node.domain not in ("", "ai.onnx", "ai.onnx.ml") or node.op_type in RANDOM_OPS or subgraph:
            kept.append(node)
            continue
        if any(o in outputs for o in node.output):
            kept.append(node)
            continue
        results = ReferenceEvaluator(node, opsets=opsets).run(None, {n: values[n] for n in named})
        if sum(r.nbytes for r in results) > limit:
            kept.append(node)
            continue
        for name, result in zip(node.output, results, strict=False):
            values[name] = result
            added.append(onh.from_array(result, name))
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(added)
    read = set(outputs)
    stack = [list(graph.node)]
    while stack:
        for node in stack.pop():
            read.update(node.input)
            for attribute in node.attribute:
                for body in (
                    [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)
                ):
                    stack.append(list(body.node))
                    read.update(v.name for v in body.output)
    live = [t for t in graph.initializer if t.name in read or t.name in inputs]
    del graph.initializer[:]
    graph.initializer.extend(live)
    existing = inputs | {t.name for t in graph.initializer} | {o for n in graph.node for o in n.output}
    infos = [v for v in graph.value_info if v.name in existing]
    del graph.value_info[:]
    graph.value_info.extend(infos)
    return bytes(model.SerializeToString())


def _ort_outputs(data: bytes, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the models before and after")
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    return list(session.run(None, {k: v for k, v in feeds.items() if k in wanted}))


def _random_feeds(data: bytes) -> dict[str, np.ndarray]:
    model = wirecodec.load(data)
    rng = np.random.default_rng(0)
    feeds = {}
    for value in model.graph.input:
        dims = [d.dim_value or 1 for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


@pytest.mark.quick
def test_fold_matches_folding_by_hand_with_onnx(tmp_path: pathlib.Path) -> None:
    model = _chain()
    data = bytes(model.SerializeToString())
    folded, report = fold_constants_report(model, LIMIT)
    assert bytes(folded.SerializeToString()) == _by_hand(data, LIMIT)
    assert bytes(model.SerializeToString()) == data  # the model given is not changed
    ops = [n.op_type for n in folded.graph.node]
    assert ops.count("Constant") == 0 or "flag" in {n.output[0] for n in folded.graph.node}
    assert "Expand" in ops and "RandomNormal" in ops and ops.count("If") == 2  # left alone
    assert "doubled" not in {t.name for t in folded.graph.initializer}  # "over" is an input too
    assert "Transpose" not in ops and "Shape" not in ops
    names = {t.name for t in folded.graph.initializer}
    assert {"bias", "scale", "w", "over"} <= names and "dead" not in names and "b0" not in names
    assert report.nodes >= 4 and any("Expand" in s and "limit" in s for s in report.skipped)
    assert {v.name for v in folded.graph.value_info} == {"bias", "h"}  # bias is an initializer now


@pytest.mark.parametrize("limit", [0, 16, 1 << 20])
def test_the_limit_is_per_node_and_matches_onnx(limit: int) -> None:
    model = _chain()
    data = bytes(model.SerializeToString())
    assert bytes(fold_constants(model, limit).SerializeToString()) == _by_hand(data, limit)


def test_onnxruntime_agrees_before_and_after(tmp_path: pathlib.Path) -> None:
    for data in (EXAMPLE.read_bytes(), bytes(_chain().SerializeToString())):
        model = wirecodec.load(data)
        for node in model.graph.node:  # the random node's outputs cannot agree
            if node.op_type == "RandomNormal":
                node.op_type = "Constant"
                del node.attribute[:]
                node.attribute.append(
                    helper.make_attribute("value", numpy_helper.from_array(np.ones(4, np.float32)))
                )
        data = bytes(model.SerializeToString())
        feeds = _random_feeds(data)
        folded = bytes(fold_constants(wirecodec.load(data)).SerializeToString())
        for a, b in zip(_ort_outputs(data, feeds), _ort_outputs(folded, feeds), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_pytorch_exports_fold_and_agree(pytorch_exports: list[Export]) -> None:
    folded_any = 0
    for item in pytorch_exports:
        if "torchscript" not in item.name:
            continue
        model = wirecodec.load(item.data)
        names = [v.name for v in model.graph.input]
        folded, report = fold_constants_report(model)
        folded_any += report.nodes
        feeds = dict(zip(names, item.inputs, strict=False))
        for a, b in zip(
            _ort_outputs(item.data, feeds),
            _ort_outputs(bytes(folded.SerializeToString()), feeds),
            strict=True,
        ):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=item.name)
        assert bytes(folded.SerializeToString()) == _by_hand(item.data, 1 << 20), item.name
    assert folded_any > 0  # the exports do have constant subexpressions


def test_edit_fold_constants_cli(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "chain.onnx"
    wirecodec.save(_chain(), source)
    split = tmp_path / "split.onnx"  # external data: the folder reads it through the model's own data
    assert main(["convert", str(source), str(split), "--to", "external", "--all-tensors"]) == 0
    out = tmp_path / "folded.onnx"
    capsys.readouterr()
    assert main(["edit", str(split), "-o", str(out), "--fold-constants", "--fold-limit", "1K", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = _by_hand(source.read_bytes(), 1024)
    single = tmp_path / "single.onnx"  # the folded weights back in the model, to compare bytes
    assert main(["convert", str(out), str(single), "--to", "single"]) == 0
    got = wirecodec.load(single)
    assert bytes(got.SerializeToString()) == expected
    assert report["folded"]["nodes"] == report["nodes_before"] - report["nodes"] > 0
    assert report["nodes"] == len(got.graph.node) and report["initializers"] == len(got.graph.initializer)
    assert main(["edit", str(source), "-o", str(out), "--fold-limit", "1K"]) == 2
    assert "--fold-limit goes with --fold-constants" in capsys.readouterr().err
    capsys.readouterr()
    assert main(["edit", str(source), "-o", str(out), "--fold-constants"]) == 0
    assert capsys.readouterr().out.startswith("folded ")
